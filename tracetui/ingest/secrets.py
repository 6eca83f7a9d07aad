"""Secrets in transcript text masked in place, by detect-secrets' detectors.

:func:`redact` is pure: ``text -> (text, kinds)``, every secret replaced by
``«redacted: KIND»`` and its kind listed once per secret. The detectors are detect-secrets'
(its regex plugins' ``denylist`` and its keyword plugin's ``key = value`` patterns for config
files); its entropy plugins are left out (every hash, id and uuid of a transcript would go) and
so is its public-IP plugin (an address is not a secret). Shapes it does not know are added as
detectors of the same form (:data:`EXTRA`): Anthropic keys, OpenAI keys without the legacy
``T3BlbkFJ`` marker, Google API keys, ``github_pat_`` tokens, bearer tokens. A private-key
block is masked from its ``BEGIN`` line to its ``END`` line (or to the end of the text, when
an excerpt cut it).

Cost: the rules are read from detect-secrets once per process on first use (~80 ms to import
it), or installed from plain data a caller cached (:func:`rules_spec`, :func:`use_rules`: ~10
ms to compile). A text is first searched once for the detectors' literals (:data:`GATE_WORDS`,
~1 µs for an excerpt): one it does not hit is returned at once; one it hits costs a search per
detector (~55 µs for a short text). The session store masks its excerpts and saved state so.

A secret cut short (an excerpt, a view's line ending in ``…``) no longer matches its detector:
a token that starts like a known secret and runs into the cut is masked as ``KIND (cut)``
(:data:`CUT`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "redact",
    "may_hold_secret",
    "mask",
    "summary",
    "EXTRA",
    "KEYWORD",
    "rules_spec",
    "use_rules",
    "rules_loaded",
    "rules_stamp",
    "set_source",
]

#: detectors of the same form as detect-secrets' regex plugins, for shapes it does not know:
#: ``(kind, pattern, re flags, group holding the secret: 0 for the whole match)``
EXTRA: tuple[tuple[str, str, int, int], ...] = (
    # a key's prefix is enough to mask what follows it, so a key cut by an excerpt goes too
    ("anthropic api key", r"sk-ant-[A-Za-z0-9_-]{6,}", 0, 0),
    ("openai api key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}", 0, 0),
    ("google api key", r"AIza[0-9A-Za-z_-]{35}", 0, 0),
    ("github token", r"github_pat_[A-Za-z0-9_]{22,}", 0, 0),
    # an opaque bearer token in an Authorization header (curl -H, HTTP traces)
    ("bearer token", r"\bBearer\s+([A-Za-z0-9._~+/=-]{16,})", re.IGNORECASE, 1),
)
#: the kind of a ``password = …`` / ``secret: …`` finding (detect-secrets' keyword plugin)
KEYWORD = "password or secret"
#: kinds that say where a secret is, not what it is: a named detector's kind wins over them
_GENERIC = (KEYWORD, "bearer token")
#: where a keyword's value ends in running text
_VALUE_END = re.compile(r"[\s'\"`,;)]")
#: a token's characters: a whole-match finding runs on over them (a pattern that stops early
#: leaves no piece of the token); a JSON Web Token's over its dots too (its lazy pattern stops
#: before the signature). Not over ``/`` or ``.`` otherwise: a key in a path keeps the path.
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-=]*")
_JWT_TAIL = re.compile(r"[A-Za-z0-9_\-=.+/]*")

#: detect-secrets plugins not used: entropy (ids and hashes), public IP addresses, and the
#: keyword plugin (used through its config-file patterns instead, see :func:`_build`)
_SKIP = ("HighEntropyString", "IPPublicDetector", "KeywordDetector")
#: the end of a private-key block
_KEY_END = re.compile(r"-----END [A-Z0-9 ]*-----|---- END SSH2 ENCRYPTED PRIVATE KEY ----")


@dataclass(frozen=True)
class _Rule:
    kind: str
    regex: re.Pattern[str]
    #: the group holding the secret (0: the whole match)
    group: int = 0
    #: a private-key header: the secret runs to the block's end
    block: bool = False


_RULES: list[_Rule] | None = None
#: the keyword plugin's key words (its ``DENYLIST``), a cheap gate before its patterns
_KEYWORDS: re.Pattern[str] | None = None
#: detectors of a kind neither gate knows: run on every text
_UNGATED: list[_Rule] = []
#: the detectors of a secret cut by a truncation marker (:data:`CUT`)
_CUT_RULES: list[_Rule] = []

#: the words (lower case) one of which every finding of a kind holds, by kind: a text whose
#: lower-cased form holds none of them (one search of one regex of literals, ~1-2 µs for an
#: excerpt), and no shape of :data:`GATE_SHAPES`, holds no secret and skips the detectors. A
#: kind in neither (a detector a newer detect-secrets adds) is searched in every text.
GATE_WORDS: dict[str, tuple[str, ...]] = {
    "anthropic api key": ("sk-ant-",),
    "openai api key": ("sk-",),
    "openai token": ("t3blbkfj",),
    "google api key": ("aiza",),
    "github token": ("github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "bearer token": ("bearer",),
    "aws access key": ("a3t", "abia", "acca", "akia", "asia", "aws"),
    "azure storage account access key": ("accountkey=",),
    "basic auth credentials": ("://",),
    "cloudant credentials": ("key", "pw", "pass", "token"),
    "ibm cos hmac credentials": ("key",),
    "ibm cloud iam key": ("key", "pwd", "pass", "token"),
    "softlayer credentials": ("key", "pwd", "pass", "token", "softlayer"),
    "gitlab token": ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-", "gr1348941"),
    "json web token": ("eyj",),
    "mailchimp access key": ("-us",),
    "npm tokens": ("_authtoken=",),
    "private key": ("begin", "putty-user-key-file"),
    "pypi token": ("pypi-",),
    "sendgrid api key": ("sg.",),
    "slack token": ("xox", "hooks.slack.com"),
    "square oauth secret": ("sq0csp-",),
    "stripe access key": ("k_live_",),
    # the keyword detectors' words (``api_key``, ``db_pass``, ``passwd``...) and ``token`` (a
    # cut ``token=…``, :data:`CUT`)
    KEYWORD: ("key", "pass", "pwd", "secret", "contrase", "token"),
}
#: the kinds without a telling word: a shape (case-sensitive, starting with a literal, so the
#: search skips ahead fast) each finding holds, searched in the text as it is
GATE_SHAPES: dict[str, str] = {
    "artifactory credentials": r"AKC|AP[\dA-F]",
    "discord bot token": r"\.[\w-]{6}\.",
    "telegram bot token": r":[\w-]{35}",
    "twilio api key": r"AC[a-z0-9]{32}|SK[a-z0-9]{32}",
}


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
_GATE: re.Pattern[str] = re.compile(_trie_pattern({w for ws in GATE_WORDS.values() for w in ws}))
#: (the shapes joined as they are: each is an alternation of branches that start with a
#: literal, so the search skips ahead to the characters they start with, ~3x faster than
#: with each shape in a group of its own)
_GATE_SHAPE: re.Pattern[str] = re.compile("|".join(p for _, p in sorted(GATE_SHAPES.items())))


def _gated(text: str) -> bool:
    """``text`` holds a word or a shape of the gates (no detector needed to say so)."""
    return _GATE.search(text.lower()) is not None or _GATE_SHAPE.search(text) is not None


def _kinds_of_word(w: str) -> frozenset[str]:
    """The kinds gate word ``w`` lets through when the search finds it: those with a word it
    holds (shorter words at the same place are not found apart), and those with a word that
    starts in its last characters (the search goes on after ``w``, so that word is not found)."""
    words = {x for ws in GATE_WORDS.values() for x in ws}
    over = {x for x in words if any(w.endswith(x[:i]) for i in range(1, min(len(w), len(x))))}
    return frozenset(k for k, ws in GATE_WORDS.items() if any(x in w or x in over for x in ws))


#: gate word -> the kinds its finding lets through (:func:`_kinds_of_word`)
_WORD_KINDS: dict[str, frozenset[str]] = {w: _kinds_of_word(w) for ws in GATE_WORDS.values() for w in ws}


def _gated_kinds(text: str) -> frozenset[str]:
    """The kinds of secret ``text`` may hold by the gates: those a word found in its lower-cased
    form lets through, and every shape kind when it holds one of :data:`GATE_SHAPES` (every
    finding of a kind holds one of its words or its shape, so only these kinds' detectors need
    run)."""
    kinds: set[str] = set()
    for w in set(_GATE.findall(text.lower())):
        kinds |= _WORD_KINDS[w]
    if _GATE_SHAPE.search(text) is not None:
        kinds.update(GATE_SHAPES)
    return frozenset(kinds)


#: the detectors (and cut detectors) to run for a set of gated kinds, in their order, with the
#: ungated ones; emptied when other detectors are installed
_BY_KINDS: dict[frozenset[str], tuple[list[_Rule], list[_Rule]]] = {}


def _rules_for(kinds: frozenset[str], rules: list[_Rule]) -> tuple[list[_Rule], list[_Rule]]:
    got = _BY_KINDS.get(kinds)
    if got is None:
        run = [r for r in rules if r.kind in kinds or (r.kind not in GATE_WORDS and r.kind not in GATE_SHAPES)]
        cut = [r for r in _CUT_RULES if r.kind[: -len(" (cut)")] in kinds]
        got = (run, cut)
        if len(_BY_KINDS) < 4096:
            _BY_KINDS[kinds] = got
    return got


#: the marker a cut text ends with (the views', the fold's excerpts')
CUT_MARK = "\u2026"
#: a secret cut short by a truncation marker, which its full detector no longer matches: a
#: token that starts like a known secret and runs into the marker, by kind (``(kind, pattern,
#: group)``, the marker (or the text's end, for a text said cut) right after the match)
CUT: tuple[tuple[str, str, int], ...] = (
    ("github token", r"\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]*", 0),
    ("aws access key", r"\b(?:AKIA|ASIA|A3T[A-Z0-9]|ABIA|ACCA)[0-9A-Z]{1,15}", 0),
    ("anthropic api key", r"\bsk-ant-[A-Za-z0-9_-]*", 0),
    ("openai api key", r"\bsk-[A-Za-z0-9_-]*", 0),
    ("stripe access key", r"\b[sr]k_live_[0-9a-zA-Z]*", 0),
    ("slack token", r"\bxox[abposr]-[A-Za-z0-9-]*", 0),
    ("google api key", r"\bAIza[0-9A-Za-z_-]*", 0),
    ("gitlab token", r"\bgl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[A-Za-z0-9_-]*", 0),
    ("json web token", r"\beyJ[A-Za-z0-9_\-=.+/]*", 0),
    ("private key", r"-----BEGIN[A-Z0-9 ]*", 0),
    ("basic auth credentials", r"://[^:/?#\[\]@\s]+:([^/?#\[\]@\s\u2026]+)", 1),
)


def mask(kind: str) -> str:
    """What a secret of ``kind`` is replaced by: ``«redacted: aws access key»``."""
    return f"«redacted: {kind}»"


#: a rule as stored: ``[kind, pattern, flags, group, block]``
Spec = list[list[object]]


def rules_spec() -> dict[str, object]:
    """The detectors, read from detect-secrets' plugins (imports it: ~80 ms, most of it the
    ``requests`` package its verifiers use), as plain data: ``{"rules": [[kind, pattern,
    flags, group, block], ...], "keywords": [pattern, flags]}``; :func:`use_rules` installs it."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.keyword import CONFIG_DENYLIST_REGEX_TO_GROUP, DENYLIST_REGEX

    rules: Spec = [[kind, p, flags, group, False] for kind, p, flags, group in EXTRA]
    for secret_type, cls in sorted(get_mapping_from_secret_type_to_class().items()):
        if any(s in cls.__name__ for s in _SKIP) or not issubclass(cls, RegexBasedDetector):
            continue
        block = cls.__name__ == "PrivateKeyDetector"
        for rx in cls.denylist:
            # a single group long enough to be the value (AWS's quoted secret key) is masked
            # alone; a short one (GitHub's ``ghp``) is a prefix: the whole match goes
            rules.append([secret_type.lower(), rx.pattern, int(rx.flags), 1 if rx.groups == 1 and not block else 0, block])
    for rx, group in CONFIG_DENYLIST_REGEX_TO_GROUP.items():
        rules.append([KEYWORD, rx.pattern, int(rx.flags), group, False])
    return {"rules": rules, "keywords": [DENYLIST_REGEX, int(re.IGNORECASE)]}


def use_rules(spec: dict[str, object]) -> None:
    """Install the detectors ``spec`` (from :func:`rules_spec`, possibly through a cache file).
    Raises ``ValueError``/``TypeError``/``re.error`` when ``spec`` is not such a value."""
    global _RULES, _KEYWORDS
    rows = spec["rules"]
    kw = spec["keywords"]
    assert isinstance(rows, list) and isinstance(kw, list)
    global _UNGATED, _CUT_RULES
    rules = [_Rule(str(k), re.compile(str(p), int(f)), int(g), bool(b)) for k, p, f, g, b in rows]  # type: ignore[call-overload]
    _KEYWORDS = re.compile(str(kw[0]), int(kw[1]))
    _UNGATED = [r for r in rules if r.kind not in GATE_WORDS and r.kind not in GATE_SHAPES]
    end = f"(?={CUT_MARK}|\\Z)"
    # a keyword's value (``password=…``, ``"token": "…``) that runs into the cut
    keyword = rf"(?i:{kw[0]}|\w*token)[\]'\"]{{0,2}}\s*(?:={{1,3}}|:|=>)\s*[\'\"`]?([^\s'\"`,;)\u2026]+)"
    cut = [*CUT, (KEYWORD, keyword, re.compile(str(kw[0])).groups + 1)]
    _CUT_RULES = [_Rule(f"{k} (cut)", re.compile(p + end), g) for k, p, g in cut]
    _BY_KINDS.clear()
    _RULES = rules


def rules_loaded() -> bool:
    """The detectors are installed in this process."""
    return _RULES is not None


def rules_stamp() -> object:
    """An object that stays the same while the installed detectors do (``None`` before they
    are loaded): a memo of :func:`redact`'s results is valid while it does."""
    return _RULES


#: where the detectors come from when first needed (:func:`set_source`)
_SOURCE: Callable[[], dict[str, object]] = rules_spec


def set_source(source: Callable[[], dict[str, object]]) -> None:
    """Take the detectors, when first needed, from ``source()`` (a value of
    :func:`rules_spec`'s shape, such as one kept in a cache file) instead of reading
    detect-secrets; the commands set it, the functions here stay free of I/O."""
    global _SOURCE
    _SOURCE = source


def _rules() -> tuple[list[_Rule], re.Pattern[str]]:
    if _RULES is None or _KEYWORDS is None:
        try:
            use_rules(_SOURCE())
        except (KeyError, TypeError, ValueError, AssertionError, re.error):  # a bad cached value
            use_rules(rules_spec())
    assert _RULES is not None and _KEYWORDS is not None
    return _RULES, _KEYWORDS


def _plausible(value: str) -> bool:
    """A keyword match's value that is a value, not code: at least 4 characters, with a letter or
    digit, not a reference (``$VAR``, ``{x}``, ``<x>``, ``%s``, ``os.environ[...]``)."""
    v = value.strip("'\"")
    return len(v) >= 4 and any(c.isalnum() for c in v) and v[0] not in "${<%(" and "environ" not in v


def _finding(text: str, m: re.Match[str], rule: _Rule) -> tuple[int, int, str] | None:
    """``(start, end, kind)`` of the secret match ``m`` of ``rule`` found, or ``None`` when it
    is no secret (a keyword followed by code or a reference)."""
    if rule.block:
        end = _KEY_END.search(text, m.end())
        # the block starts with the dashes before its header
        start = text.rfind("-----", 0, m.start())
        return (start if start >= 0 and m.start() - start < 12 else m.start(), end.end() if end else len(text), rule.kind)
    keyword = rule.kind == KEYWORD
    g = rule.group
    if g and not keyword and (m.group(g) is None or len(m.group(g)) < 8):
        g = 0
    if m.group(g) is None:
        return None
    start, end = m.start(g), m.end(g)
    if keyword:
        # in a command or a sentence the value ends at the first space (or a closing quote,
        # comma, semicolon, parenthesis)
        cut = _VALUE_END.search(text, start, end)
        end = cut.start() if cut else end
        return (start, end, rule.kind) if _plausible(text[start:end]) else None
    tail = (_JWT_TAIL if rule.kind == "json web token" else _TOKEN_TAIL).match(text, end)
    end = tail.end() if tail else end
    while end > m.end() and text[end - 1] == ".":
        end -= 1
    return start, end, rule.kind


def may_hold_secret(text: str) -> bool:
    """``text`` may hold a secret :func:`redact` masks: the one search of the detectors' gates
    (:data:`GATE_WORDS`, :data:`GATE_SHAPES`: ~1-3 µs for an excerpt), exact: ``False`` only when :func:`redact` would
    return ``text`` as it is (the text read as Latin-1 bytes is searched alike, but for a
    keyword spelled with non-ASCII letters)."""
    return bool(_UNGATED) or _gated(text)


def may_hold_secret_bytes(raw: bytes | memoryview) -> bool:
    """:func:`may_hold_secret` of ``raw`` read as Latin-1 (a whole MessagePack value, say),
    without the cost of lower-casing it as a string (``str.lower`` of text with non-ASCII
    characters makes a buffer of 12 bytes a character: 30 MB for a value of 2.5 MB): the gate
    words are ASCII, and no Latin-1 character but ``A``-``Z`` lower-cases to one). Searched in
    windows of :data:`_WINDOW` bytes overlapping by more than any gate's match, so a large value
    costs a window's copies, not its own."""
    if _UNGATED:
        return True
    step = _WINDOW
    for at in range(0, max(len(raw), 1), step):
        w = bytes(raw[at : at + step + _OVERLAP])
        if _GATE.search(w.lower().decode("latin-1")) is not None or _GATE_SHAPE.search(w.decode("latin-1")) is not None:
            return True
    return False


#: bytes of a value :func:`may_hold_secret_bytes` searches at once
_WINDOW = 1 << 18
#: more than the longest match of a gate word or shape (a telegram token's 36 characters)
_OVERLAP = 64


def redact(text: str, cut: bool = False) -> tuple[str, tuple[str, ...]]:
    """``(text with every secret masked by :func:`mask`, the kind of each secret masked)``.

    A token that starts like a known secret and runs into a truncation marker (:data:`CUT_MARK`,
    or the text's end when ``cut`` says the text was cut there) is masked too, as ``KIND (cut)``:
    a secret cut short no longer matches its detector, and its head is most of it. Overlapping
    findings are masked once, as the first detector found them. ``text`` is returned as it is
    (the same object) when it holds no secret. Never raises."""
    if not text:
        return text, ()
    spans: list[tuple[int, int, str]] = []
    kinds = _gated_kinds(text)  # empty when the gates stop the text
    if not kinds:
        # a text the gates stop is returned before the detectors are even loaded
        # (every detector's kind has a gate: tests check it); of detectors loaded, only one the
        # gates do not know can find anything (every cut detector's head is a word too)
        if not _UNGATED:
            return text, ()
        _search(text, _UNGATED, False, spans)
    else:
        # only the detectors of the kinds the gates let through can find anything
        all_rules, keywords = _rules()
        rules, cut_rules = _rules_for(kinds, all_rules)
        _search(text, rules, KEYWORD in kinds and keywords.search(text) is not None, spans)
        if cut or CUT_MARK in text:
            for rule in cut_rules:
                for m in rule.regex.finditer(text):
                    g = rule.group
                    if (m.end() < len(text) or cut) and m.end(g) > m.start(g) and text[m.start(g)] not in "${<%(":
                        spans.append((m.start(g), m.end(g), rule.kind))
    if not spans:
        return text, ()
    # the longest finding first at a place; of equal ones, a named kind before a generic one
    spans.sort(key=lambda s: (s[0], -s[1], s[2] in _GENERIC))
    out: list[str] = []
    kinds: list[str] = []
    pos = 0
    for start, end, kind in spans:
        if start < pos:  # inside a secret already masked
            continue
        out.append(text[pos:start])
        out.append(mask(kind))
        kinds.append(kind)
        pos = end
    out.append(text[pos:])
    return "".join(out), tuple(kinds)


def _search(text: str, rules: list[_Rule], has_keyword: bool, spans: list[tuple[int, int, str]]) -> None:
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
