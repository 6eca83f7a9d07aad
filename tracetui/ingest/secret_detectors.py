"""The secret detectors: read from detect-secrets' plugins (or a cached copy), installed once per process, chosen by kind."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tracetui.ingest.secret_gate import words_of_keywords
from tracetui.ingest.secret_patterns import CUT, CUT_MARK, EXTRA, GATE_SHAPES, GATE_WORDS, KEYWORD, SKIP_PLUGINS

__all__ = [
    "Rule",
    "rules_spec",
    "use_rules",
    "rules_loaded",
    "load_rules",
    "rules_stamp",
    "set_source",
    "installed_rules",
    "rules_for",
]


@dataclass(frozen=True)
class Rule:
    """One detector: the kind of secret it finds (``"aws access key"``) and the pattern it finds
    it by (:mod:`tracetui.ingest.secrets` runs it)."""

    kind: str
    regex: re.Pattern[str]
    #: the group holding the secret (0: the whole match)
    group: int = 0
    #: a private-key header: the secret runs to the block's end
    block: bool = False
    #: a pattern every match of ``regex`` holds a match of (cheap to search): no match of
    #: it, no need to search ``regex``
    pre: re.Pattern[str] | None = None


_RULES: list[Rule] | None = None
#: the value :data:`_RULES` were installed from (:func:`use_rules`)
_SPEC: dict[str, object] | None = None
#: the keyword plugin's key words (its ``DENYLIST``), a cheap gate before its patterns
_KEYWORDS: re.Pattern[str] | None = None
#: :data:`KEYWORD_WORDS` when every alternative of the installed key-word pattern holds one
#: of them (checked by :func:`~tracetui.ingest.secret_gate.words_of_keywords`), else ``None`` (its search runs whenever
#: the keyword kind's gate lets a text through)
KW_WORDS: tuple[str, ...] | None = None
#: detectors of a kind neither gate knows: run on every text
#: (:data:`UNGATED`, :data:`KW_WORDS` and :data:`TOKEN_RULE` are rebound by :func:`use_rules`:
#: read them through this module, never imported by name)
UNGATED: list[Rule] = []
#: the detectors of a secret cut by a truncation marker (:data:`CUT`)
_CUT_RULES: list[Rule] = []
#: a ``…token`` key's value (``--token=…``, ``"access_token": "…"``), searched as the key words'
#: values are: the cut detector masks it when a cut runs into it, so whole it is masked too
#: (fifth user trial: the same value was masked in a cut brief and shown whole in the goal)
TOKEN_RULE: Rule | None = None

#: the detectors (and cut detectors) to run for a set of gated kinds, in their order, with the
#: ungated ones; emptied when other detectors are installed
_BY_KINDS: dict[frozenset[str], tuple[list[Rule], list[Rule]]] = {}


def rules_for(kinds: frozenset[str], rules: list[Rule]) -> tuple[list[Rule], list[Rule]]:
    """``(detectors, cut detectors)`` to run on a text whose gates let ``kinds`` through: those of
    ``rules`` of these kinds or of a kind no gate knows, and the cut detectors of these kinds, in
    their order; kept for up to 4096 sets of kinds."""
    got = _BY_KINDS.get(kinds)
    if got is None:
        run = [r for r in rules if r.kind in kinds or (r.kind not in GATE_WORDS and r.kind not in GATE_SHAPES)]
        cut = [r for r in _CUT_RULES if r.kind[: -len(" (cut)")] in kinds]
        got = (run, cut)
        if len(_BY_KINDS) < 4096:
            _BY_KINDS[kinds] = got
    return got


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
        if any(s in cls.__name__ for s in SKIP_PLUGINS) or not issubclass(cls, RegexBasedDetector):
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
    global UNGATED, _CUT_RULES, KW_WORDS, _SPEC, TOKEN_RULE
    rules = [Rule(str(k), re.compile(str(p), int(f)), int(g), bool(b)) for k, p, f, g, b in rows]  # type: ignore[call-overload]
    _KEYWORDS = re.compile(str(kw[0]), int(kw[1]))
    KW_WORDS = words_of_keywords(str(kw[0]))
    UNGATED = [r for r in rules if r.kind not in GATE_WORDS and r.kind not in GATE_SHAPES]
    end = f"(?={CUT_MARK}|\\Z)"
    # a keyword's value (``password=…``, ``"token": "…``) that runs into the cut
    value = r"\s*[\'\"`]?([^\s'\"`,;)\u2026]+)"
    keyword = rf"(?i:{kw[0]}|token)[\]'\"]{{0,2}}\s*(?:={{1,3}}|:|=>){value}"
    cut = [*CUT, (KEYWORD, keyword, re.compile(str(kw[0])).groups + 1)]
    _CUT_RULES = [Rule(f"{k} (cut)", re.compile(p + end), g) for k, p, g in cut]
    # the keyword's is searched ignoring case at every place (``\w*token``): first its tail,
    # the last character of its separator then the value running into the cut, which every
    # match of it holds (most texts have none: no ``=``, ``:`` or ``>`` just before their end)
    kw_cut = _CUT_RULES[-1]
    _CUT_RULES[-1] = Rule(kw_cut.kind, kw_cut.regex, kw_cut.group, pre=re.compile(f"[=:>]{value}{end}"))
    # (no ``\w*`` before ``token``: searched at every place, it backtracks over a long word)
    token_key = r"token[\]'\"]{0,2}\s*(?:={1,3}|:|=>)"
    TOKEN_RULE = Rule(KEYWORD, re.compile(f"(?i:{token_key}){value}"), 1, pre=re.compile(f"(?i){token_key}"))
    _BY_KINDS.clear()
    _RULES = rules
    _SPEC = spec


def load_rules() -> dict[str, object]:
    """Install the detectors now, from the source :func:`set_source` gave (else detect-secrets),
    unless they are; returns them as plain data (:func:`rules_spec`'s shape): a process
    starting a child that masks too hands it these, read once for both (:func:`use_rules`)."""
    installed_rules()
    assert _SPEC is not None
    return _SPEC


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


def installed_rules() -> tuple[list[Rule], re.Pattern[str]]:
    """``(detectors, the keyword plugin's key-word pattern)``, installed first when they are not:
    from :func:`set_source`'s source, else (its value is not such a value) from detect-secrets."""
    if _RULES is None or _KEYWORDS is None:
        try:
            use_rules(_SOURCE())
        except (KeyError, TypeError, ValueError, AssertionError, re.error):  # a bad cached value
            use_rules(rules_spec())
    assert _RULES is not None and _KEYWORDS is not None
    return _RULES, _KEYWORDS
