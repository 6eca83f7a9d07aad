"""The gates of the secret detectors: one search of a text for the literals and shapes of
:mod:`tracetui.ingest.secret_patterns` says which kinds of secret it may hold (none: no
detector runs)."""

from __future__ import annotations

import re

from tracetui.ingest.secret_patterns import GATE_RUNS, GATE_SHAPES, GATE_WORDS, KEYWORD_WORDS, MASK_FORMAT

__all__ = [
    "GATE",
    "GATE_SHAPE",
    "GATE_RUN",
    "WORD_KINDS",
    "MASKS",
    "FOLDS_TO_ASCII",
    "gated",
    "gated_kinds",
    "run_gated",
    "unmasked",
    "words_of_keywords",
    "keyword_may_match",
]


def _trie_pattern(words: set[str]) -> str:
    """A regex matching any of ``words``, the longest one where several start at a place (as
    an alternation of them longest first would), written as a trie: at each place the search
    tries the one branch of its first character, not every word (~3x faster on transcript
    text, whose letters start most of the words)."""
    trie: dict[str, dict] = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        alts = [re.escape(ch) + emit(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body  # greedy: a longer word first

    return emit(trie)


#: the gates compiled: every word of :data:`GATE_WORDS` (the longest at a place), every shape
GATE: re.Pattern[str] = re.compile(_trie_pattern({w for ws in GATE_WORDS.values() for w in ws}))
#: (the shapes joined as they are: each is an alternation of branches that start with a
#: literal, so the search skips ahead to the characters they start with, ~3x faster than
#: with each shape in a group of its own)
GATE_SHAPE: re.Pattern[str] = re.compile("|".join(p for _, p in sorted(GATE_SHAPES.items())))
#: the runs of :data:`GATE_RUNS` compiled (searched apart: see there)
GATE_RUN: re.Pattern[str] = re.compile("|".join(p for _, p in sorted(GATE_RUNS.items())))


#: the characters past ASCII that an ASCII letter matches ignoring case (``İ ı ſ K``: a test
#: checks the list against the ``re`` module)
FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"
#: each character of :data:`FOLDS_TO_ASCII` to the ASCII letter it matches ignoring case
_FOLD_TABLE = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _lowered(text: str) -> str:
    """``text`` lower-cased as the detectors read it ignoring case: a character of
    :data:`FOLDS_TO_ASCII` as the ASCII letter it matches (``paſſword`` is ``password`` to a
    detector, though ``ſ`` is lower case already and ``İ`` lower-cases to two characters)."""
    if not text.isascii() and any(c in text for c in FOLDS_TO_ASCII):
        text = text.translate(_FOLD_TABLE)
    return text.lower()


def gated(text: str) -> bool:
    """``text`` holds a word or a shape of the gates (no detector needed to say so)."""
    return GATE.search(_lowered(text)) is not None or GATE_SHAPE.search(text) is not None or run_gated(text)


def run_gated(text: str) -> bool:
    """``text`` holds a run of :data:`GATE_RUNS`: each holds ``/`` or ``+``, looked for first
    (one ``str`` search each: ~3/4 of transcript texts hold neither and skip the run's search)."""
    return ("/" in text or "+" in text) and GATE_RUN.search(text) is not None


def _kinds_of_word(w: str) -> frozenset[str]:
    """The kinds gate word ``w`` lets through when the search finds it: those with a word it
    holds (shorter words at the same place are not found apart), and those with a word that
    starts in its last characters (the search goes on after ``w``, so that word is not found)."""
    words = {x for ws in GATE_WORDS.values() for x in ws}
    over = {x for x in words if any(w.endswith(x[:i]) for i in range(1, min(len(w), len(x))))}
    return frozenset(k for k, ws in GATE_WORDS.items() if any(x in w or x in over for x in ws))


#: gate word -> the kinds its finding lets through (:func:`_kinds_of_word`)
WORD_KINDS: dict[str, frozenset[str]] = {w: _kinds_of_word(w) for ws in GATE_WORDS.values() for w in ws}


def gated_kinds(text: str) -> frozenset[str]:
    """The kinds of secret ``text`` may hold by the gates: those a word found in its lower-cased
    form lets through, every shape kind when it holds one of :data:`GATE_SHAPES`, and every run
    kind when it holds one of :data:`GATE_RUNS` (every finding of a kind holds one of its words,
    its shape or its run, so only these kinds' detectors need run)."""
    kinds: set[str] = set()
    for w in set(GATE.findall(_lowered(text))):
        kinds |= WORD_KINDS[w]
    if GATE_SHAPE.search(text) is not None:
        kinds.update(GATE_SHAPES)
    if run_gated(text):
        kinds.update(GATE_RUNS)
    return frozenset(kinds)


#: a mask of a known kind (:data:`MASK_FORMAT`, of a gated kind, whole or ``(cut)``): text
#: tracetui wrote, which no detector reads (its words, ``aws access key``, would open gates and
#: read as key words: ``«redacted: aws access key»: x`` is no ``key: x``)
MASKS: re.Pattern[str] = re.compile(
    re.escape(MASK_FORMAT.split("{}")[0])
    + "(?:"
    + "|".join(re.escape(k) for k in sorted({*GATE_WORDS, *GATE_SHAPES, *GATE_RUNS}, key=lambda k: (-len(k), k)))
    + ")(?: \\(cut\\))?"
    + re.escape(MASK_FORMAT.split("{}")[1])
)
_MASK_HEAD = MASK_FORMAT.split("{}")[0]


def unmasked(text: str) -> str:
    """``text`` with each mask of :data:`MASKS` blanked to ``«`` spaces ``»`` (its length kept,
    so a finding's place in it is its place in ``text``): what the detectors read. ``text``
    itself (no copy) when it holds no mask. A mask of an unknown kind (``«redacted: x=sk-…»``,
    typed in a prompt) is read as it is."""
    if _MASK_HEAD not in text:
        return text
    return MASKS.sub(lambda m: "\u00ab" + " " * (len(m.group()) - 2) + "\u00bb", text)


def words_of_keywords(pattern: str) -> tuple[str, ...] | None:
    """:data:`KEYWORD_WORDS` when ``pattern`` is a group of alternatives of letters and
    ``_?`` then ``\\w*`` (detect-secrets' ``DENYLIST_REGEX``) and every alternative, with its
    ``_`` or without it, holds one of the words in lower case; else ``None``. Then a text
    whose lower-cased form holds none of them, and no character of :data:`FOLDS_TO_ASCII`,
    has no match of ``pattern`` (searched ignoring case, an ASCII letter then matches its own
    two cases and those characters only)."""
    m = re.fullmatch(r"\(([^()\[\]\\.*+{}]*)\)\\w\*", pattern)
    if m is None:
        return None
    for alt in m.group(1).split("|"):
        if not alt or "?" in alt.replace("_?", ""):
            return None
        for form in (alt.replace("_?", "_"), alt.replace("_?", "")):
            if not any(w in form.lower() for w in KEYWORD_WORDS):
                return None
    return KEYWORD_WORDS


def keyword_may_match(scan: str, words: tuple[str, ...] | None) -> bool:
    """The key-word search may find something in ``scan`` (``False`` only when it cannot: no
    key word of ``words`` (:func:`words_of_keywords`' answer, ``None``: unknown) in its
    lower-cased form, and no character but ASCII that matches an ASCII letter ignoring case)."""
    if words is None or (not scan.isascii() and any(c in scan for c in FOLDS_TO_ASCII)):
        return True
    low = scan.lower()
    return any(w in low for w in words)
