"""Secrets in transcript text masked in place, by detect-secrets' detectors.

:func:`redact` is pure: ``text -> (text, kinds)``, every secret replaced by
``«redacted: KIND»`` and its kind listed once per secret. The detectors are detect-secrets'
(its regex plugins' ``denylist`` and its keyword plugin's ``key = value`` patterns for config
files); its entropy plugins are left out (every hash, id and uuid of a transcript would go) and
so is its public-IP plugin (an address is not a secret). Shapes it does not know are added as
detectors of the same form (:data:`EXTRA`): Anthropic keys, OpenAI keys without the legacy
``T3BlbkFJ`` marker, Google API keys, ``github_pat_`` tokens, bearer tokens, HTTP Basic
credentials, Hugging Face tokens, unquoted AWS secret keys, URL passwords with ``/``. A private-key
block is masked from its ``BEGIN`` line to its ``END`` line (or to the end of the text, when
an excerpt cut it). The patterns are :mod:`tracetui.ingest.secret_patterns`' (re-exported
here) and the gates :mod:`tracetui.ingest.secret_gate`'s; :mod:`tracetui.ingest.secret_detectors`
reads and installs the detectors; this module runs them.

Cost: the rules are read from detect-secrets once per process on first use (~80 ms to import
it), or installed from plain data a caller cached (``secret_detectors.rules_spec``, ``use_rules``: ~10
ms to compile). A text is first searched once for the detectors' literals (:data:`GATE_WORDS`,
~1 µs for an excerpt): one it does not hit is returned at once; one it hits costs a search per
detector (~55 µs for a short text). The session store masks its excerpts and saved state so.

A secret cut short (an excerpt, a view's line ending in ``…``) no longer matches its detector:
a token that starts like a known secret and runs into the cut is masked as ``KIND (cut)``
(:data:`CUT`). A head of a long text is masked through a window past it (:func:`redact_head`),
so a line of a 60 MB prompt costs a window's search.
"""

from __future__ import annotations

import base64
import re
from collections import Counter
from collections.abc import Callable

from tracetui.ingest import secret_detectors
from tracetui.ingest.secret_detectors import Rule, installed_rules, rules_for, rules_stamp
from tracetui.ingest.secret_gate import FOLDS_TO_ASCII, keyword_may_match
from tracetui.ingest.secret_gate import GATE as _GATE
from tracetui.ingest.secret_gate import GATE_SHAPE as _GATE_SHAPE
from tracetui.ingest.secret_gate import gated as _gated
from tracetui.ingest.secret_gate import gated_kinds as _gated_kinds
from tracetui.ingest.secret_gate import run_gated as _run_gated
from tracetui.ingest.secret_gate import unmasked as _unmasked
from tracetui.ingest.secret_patterns import (
    CUT,
    CUT_MARK,
    EXTRA,
    GATE_SHAPES,
    GATE_WORDS,
    GENERIC_KINDS,
    JWT_TAIL,
    KEY_END,
    KEYWORD,
    MASK_FORMAT,
    TOKEN_TAIL,
    VALUE_END,
    VALUE_KINDS,
)
from tracetui.ingest.secret_values import SeenSecrets

__all__ = [
    "SeenSecrets",
    "redact",
    "note_secrets",
    "redact_head",
    "window_end",
    "REDACT_MARGIN",
    "may_hold_secret",
    "may_hold_secret_bytes",
    "mask",
    "summary",
    "EXTRA",
    "KEYWORD",
    "GATE_WORDS",
    "GATE_SHAPES",
    "CUT_MARK",
    "CUT",
]


def _keyword_may_match(scan: str) -> bool:
    """:func:`~tracetui.ingest.secret_gate.keyword_may_match` of ``scan`` with the installed
    detectors' key words."""
    return keyword_may_match(scan, secret_detectors.KW_WORDS)


def mask(kind: str) -> str:
    """What a secret of ``kind`` is replaced by: ``«redacted: aws access key»``."""
    return MASK_FORMAT.format(kind)


def _plausible(value: str) -> bool:
    """A keyword match's value that is a value, not code: at least 4 characters, with a letter or
    digit, not a reference (``$VAR``, ``{x}``, ``<x>``, ``%s``, ``os.environ[...]``)."""
    v = value.strip("'\"")
    return len(v) >= 4 and any(c.isalnum() for c in v) and v[0] not in "${<%(" and "environ" not in v


def _finding(text: str, m: re.Match[str], rule: Rule) -> tuple[int, int, str] | None:
    """``(start, end, kind)`` of the secret match ``m`` of ``rule`` found, or ``None`` when it
    is no secret (a keyword followed by code or a reference)."""
    if rule.block:
        end = KEY_END.search(text, m.end())
        # the block starts with the dashes before its header
        start = text.rfind("-----", 0, m.start())
        return (start if start >= 0 and m.start() - start < 12 else m.start(), end.end() if end else len(text), rule.kind)
    keyword = rule.kind == KEYWORD
    g = rule.group
    if g and not keyword and rule.kind not in VALUE_KINDS and (m.group(g) is None or len(m.group(g)) < 8):
        g = 0
    if m.group(g) is None:
        return None
    start, end = m.start(g), m.end(g)
    if rule.kind == "docker registry auth" and not _user_password(m.group(g)):
        return None
    if keyword:
        # in a command or a sentence the value ends at the first space (or a closing quote,
        # comma, semicolon, parenthesis)
        cut = VALUE_END.search(text, start, end)
        end = cut.start() if cut else end
        return (start, end, rule.kind) if _plausible(text[start:end]) else None
    tail = (JWT_TAIL if rule.kind == "json web token" else TOKEN_TAIL).match(text, end)
    end = tail.end() if tail else end
    while end > m.end() and text[end - 1] == ".":
        end -= 1
    return start, end, rule.kind


def _user_password(value: str) -> bool:
    """``value`` is base64 of ``user:password`` (a Docker ``auth``), not a word that looks like
    base64 (``"auth": "required"``)."""
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except ValueError:
        return False
    user, sep, password = raw.partition(b":")
    return bool(sep and user and password) and raw.isascii() and raw.decode().isprintable()


def may_hold_secret(text: str) -> bool:
    """``text`` may hold a secret :func:`redact` masks: the one search of the detectors' gates
    (:data:`GATE_WORDS`, :data:`GATE_SHAPES`, ``GATE_RUNS``: ~1-4 µs for an excerpt), exact: ``False`` only when :func:`redact` would
    return ``text`` as it is (the text read as Latin-1 bytes is searched alike, but for a
    keyword spelled with non-ASCII letters)."""
    return bool(secret_detectors.UNGATED) or _gated(text)


def may_hold_secret_bytes(raw: bytes | memoryview) -> bool:
    """:func:`may_hold_secret` of ``raw`` read as Latin-1 (a whole MessagePack value, say),
    without the cost of lower-casing it as a string (``str.lower`` of text with non-ASCII
    characters makes a buffer of 12 bytes a character: 30 MB for a value of 2.5 MB): the gate
    words are ASCII, and no Latin-1 character but ``A``-``Z`` lower-cases to one; bytes holding
    a character of :data:`FOLDS_TO_ASCII` (``K`` lower-cases to ``k`` as text, its UTF-8 bytes
    to no letter) go through, so the gate lets through every text :func:`may_hold_secret` does). Searched in
    windows of :data:`_WINDOW` bytes overlapping by more than any gate's match, so a large value
    costs a window's copies, not its own."""
    if secret_detectors.UNGATED:
        return True
    step = _WINDOW
    for at in range(0, max(len(raw), 1), step):
        w = bytes(raw[at : at + step + _OVERLAP])
        text = w.decode("latin-1")
        if _GATE.search(w.lower().decode("latin-1")) is not None or _GATE_SHAPE.search(text) is not None or _run_gated(text):
            return True
        for f in _FOLDS_UTF8:
            if f in w:
                return True  # a letter that lower-cases to a gate word's only as text (``toKen``: the Kelvin sign)
    return False


#: :data:`FOLDS_TO_ASCII` as UTF-8 (``İ ı ſ K``): bytes holding one are searched as text
_FOLDS_UTF8 = tuple(c.encode() for c in FOLDS_TO_ASCII)
#: bytes of a value :func:`may_hold_secret_bytes` searches at once
_WINDOW = 1 << 18
#: more than the longest match of a gate word or shape (a telegram token's 36 characters)
_OVERLAP = 64


def redact(text: str, cut: bool = False, seen: SeenSecrets | None = None) -> tuple[str, tuple[str, ...]]:
    """``(text with every secret masked by :func:`mask`, the kind of each secret masked)``.

    A token that starts like a known secret and runs into a truncation marker (:data:`CUT_MARK`,
    or the text's end when ``cut`` says the text was cut there) is masked too, as ``KIND (cut)``:
    a secret cut short no longer matches its detector, and its head is most of it. Overlapping
    findings are masked once, as the first detector found them. ``text`` is returned as it is
    (the same object) when it holds no secret. A mask already in ``text`` (of a known kind) is
    not read (:func:`tracetui.ingest.secret_gate.unmasked`), so masking a masked text again
    changes nothing and costs the gates' search. Never raises.

    ``seen``: the secrets of the session ``text`` is of (:class:`~tracetui.ingest.secret_values.SeenSecrets`):
    each secret found is kept there, then every copy of one kept is masked too (a value found
    by what tells it, ``aws_secret_access_key=KEY``, is masked where it stands alone); an empty
    set costs a truth test."""
    if not text:
        return text, ()
    out, kinds, found = _scan(text, cut)
    if seen is not None:
        for value, kind in found:
            seen.add(value, kind)
        if seen:
            again, more = seen.mask(out)
            if more:
                return again, kinds + more
    return out, kinds


def note_secrets(text: str, seen: SeenSecrets, cut: bool = False) -> None:
    """Keep in ``seen`` each secret :func:`redact` finds in ``text`` (``cut`` as there), without
    masking anything: what ``redact(text, cut, seen)`` adds to ``seen``, for a caller that reads
    a text for its secrets only (the masking by ``seen`` of :func:`redact` adds none). Never
    raises."""
    if not text:
        return
    for value, kind in _scan(text, cut)[2]:
        seen.add(value, kind)


def _scan(text: str, cut: bool) -> _Redacted:
    """:func:`_redact` of ``text``, memoised for a long one (:func:`_redact_memo`)."""
    return _redact_memo(text, cut) if len(text) >= _LONG else _redact(text, cut)


def _redact_memo(text: str, cut: bool) -> _Redacted:
    """:func:`_redact` of a long text: a long text comes back in several outputs at once (a goal
    that is the latest ask too), masked once (~0.7 s a MB with the key words in it), while the
    detectors stay the same."""
    key = (text, cut)
    got = _long_memo.get(key)
    if got is None or got[0] is not rules_stamp():
        out = _redact(text, cut)
        if len(_long_memo) >= 4:
            del _long_memo[next(iter(_long_memo))]
        _long_memo[key] = got = (rules_stamp(), out)
    return got[1]


#: what :func:`_redact` gives: ``(text masked, the kinds masked, (value, kind) of each secret
#: found whole)`` (a value is kept only as long as the text is: the memo's and the caller's)
_Redacted = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]
#: texts of this many characters or more are memoised by :func:`redact` (the last four)
_LONG = 1 << 16
_long_memo: dict[tuple[str, bool], tuple[object, _Redacted]] = {}


def _redact(text: str, cut: bool) -> _Redacted:
    spans: list[tuple[int, int, str]] = []
    scan = _unmasked(text)  # what the detectors read: ``text`` with its masks blanked
    kinds = _gated_kinds(scan)  # empty when the gates stop the text
    if not kinds:
        # a text the gates stop is returned before the detectors are even loaded
        # (every detector's kind has a gate: tests check it); of detectors loaded, only one the
        # gates do not know can find anything (every cut detector's head is a word too)
        if not secret_detectors.UNGATED:
            return text, (), ()
        _search(scan, secret_detectors.UNGATED, False, spans)
    else:
        # only the detectors of the kinds the gates let through can find anything
        all_rules, keywords = installed_rules()
        rules, cut_rules = rules_for(kinds, all_rules)
        has_keyword = KEYWORD in kinds and _keyword_may_match(scan) and keywords.search(scan) is not None
        _search(scan, rules, has_keyword, spans)
        tr = secret_detectors.TOKEN_RULE
        if KEYWORD in kinds and tr is not None and tr.pre is not None and tr.pre.search(scan) is not None:
            _search(scan, [tr], True, spans)
        if cut or CUT_MARK in scan:
            for rule in cut_rules:
                if rule.pre is not None and rule.pre.search(scan) is None:
                    continue
                for m in rule.regex.finditer(scan):
                    g = rule.group
                    if (m.end() < len(scan) or cut) and m.end(g) > m.start(g) and scan[m.start(g)] not in "${<%(":
                        spans.append((m.start(g), m.end(g), rule.kind))
    if not spans:
        return text, (), ()
    # the longest finding first at a place; of equal ones, a named kind before a generic one
    spans.sort(key=lambda s: (s[0], -s[1], s[2] in GENERIC_KINDS))
    out: list[str] = []
    kinds: list[str] = []
    found: list[tuple[str, str]] = []
    pos = 0
    for start, end, kind in spans:
        if start < pos:  # inside a secret already masked
            continue
        out.append(text[pos:start])
        out.append(mask(kind))
        kinds.append(kind)
        if not kind.endswith(" (cut)"):  # a head is no value to find again
            found.append((text[start:end], kind))
        pos = end
    out.append(text[pos:])
    return "".join(out), tuple(kinds), tuple(found)


#: characters past a cut that are masked with the head shown: every secret that starts in the
#: head ends within them (the longest token detect-secrets knows is ~200 characters), but for a
#: private-key block or a keyword's value longer than this, which is masked from the same
#: place all the same (as ``KIND`` or ``KIND (cut)``)
REDACT_MARGIN = 1 << 16
#: a secret token holds no whitespace: a window ending just after one cuts none
_SPACE = re.compile(r"\s")
#: characters past the head that a mask spanning its end can take (a mask is ~40)
_MASK_ROOM = 120


def window_end(text: str, at: int) -> int:
    """Where a window of ``text`` masked for a head of ``at`` characters ends: just after the
    first whitespace character at ``at`` or within :data:`REDACT_MARGIN` after it (so it cuts
    no token), else at ``at``."""
    m = _SPACE.search(text, at, at + REDACT_MARGIN)
    return m.end() if m else at


def _plain_head(text: str, room: int) -> tuple[str, bool]:
    return (text, True) if len(text) <= room else (text[: window_end(text, room)], False)


def redact_head(
    text: str, limit: int, cut: bool = False, head: Callable[[str, int], tuple[str, bool]] = _plain_head, seen: SeenSecrets | None = None
) -> str:
    """:func:`redact` ``(text, cut)``'s text over its first ``limit`` characters (and a mask
    spanning them): what a cut to ``limit`` shows, at a cost bounded by ``limit``, not by the
    text. Only a window is masked (``head(text, room)``: ``(the first room characters or more,
    ending at :func:`window_end`; whether that is the whole text)``), as a text cut there
    (``cut=True``: a secret running into its end is masked by its head); one whose masks leave
    too few characters (a long private-key block) grows until they do. ``head`` may give the
    window of a text made otherwise (whitespace folded), one character for one or fewer.
    ``seen``: the session's secrets, as for :func:`redact`."""
    room = limit + REDACT_MARGIN
    while True:
        window, whole = head(text, room)
        out = redact(window, cut=cut or not whole, seen=seen)[0]
        # a mask at the window's end (a token it cut) is at most a mask long: past the head
        if whole or len(out) > limit + _MASK_ROOM:
            return out
        room *= 4


def _search(text: str, rules: list[Rule], has_keyword: bool, spans: list[tuple[int, int, str]]) -> None:
    """Add to ``spans`` the findings ``(start, end, kind)`` of ``rules`` in ``text``."""
    for rule in rules:
        if rule.kind == KEYWORD and not has_keyword:
            continue
        pos = 0
        while pos <= len(text):
            m = rule.regex.search(text, pos)
            if m is None:
                break
            span = _finding(text, m, rule)
            # a keyword's config pattern runs to the end of the line: search again after the
            # value it was cut to, so a second ``password=`` on the line is found too
            pos = max(m.start() + 1, span[1] if span else m.start() + 1)
            if span is not None:
                spans.append(span)


def summary(kinds: tuple[str, ...] | list[str]) -> str:
    """``3 secrets redacted (2 aws access key, 1 password or secret)``; ``""`` for none."""
    if not kinds:
        return ""
    by = Counter(kinds)
    n = len(kinds)
    return f"{n} secret{'s' if n != 1 else ''} redacted (" + ", ".join(f"{c} {k}" for k, c in sorted(by.items())) + ")"
