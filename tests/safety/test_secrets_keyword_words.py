"""The key-word search (detect-secrets' keyword plugin, ``DENYLIST``) is skipped for a text
that holds none of its words: a text the keyword kind's gate lets through by ``token`` alone
("tokens" is a word of every transcript) costs no search of a pattern ignoring case."""

from __future__ import annotations

import re

import pytest

from tracetui.ingest import secret_detectors, secrets
from tracetui.ingest.secret_gate import words_of_keywords
from tracetui.ingest.secret_patterns import KEYWORD_WORDS

TEXTS = [
    "the tokens of a model, the counters, a cut\u2026",
    "tokens 1\u2192 line \u2192 two",
    "export PASSWORD=hunter2hunt and tokens",
    "db_pass: 'AbCdEf123456' token",
    "pa\u017f\u017fword=hunter2hunter2 tokens",  # long s: matches "s" ignoring case
    "api_\u212aey = 'AbCdEf123456' tokens",  # Kelvin sign: matches "k" ignoring case
    "my token=abcdef123456\u2026",
    "contrase\u00f1a = 'AbCdEf123456' token",
    "\u0130\u0131 secret: AbCdEf123456 token",
    "TOKENS passwd=hunter2hunter2",
]


class _Counting:
    def __init__(self, rx: re.Pattern[str]) -> None:
        self.rx, self.n = rx, 0

    def search(self, text: str) -> re.Match[str] | None:
        self.n += 1
        return self.rx.search(text)


@pytest.mark.parametrize("cut", [False, True])
def test_skipping_the_key_word_search_masks_what_searching_masks(monkeypatch: pytest.MonkeyPatch, cut: bool) -> None:
    got = [secrets.redact(t, cut=cut) for t in TEXTS]
    monkeypatch.setattr(secrets, "_keyword_may_match", lambda scan: True)
    want = [secrets.redact(t, cut=cut) for t in TEXTS]
    assert got == want
    assert sum(bool(k) for _, k in want) >= 7  # the texts do hold secrets


def test_a_text_with_token_alone_costs_no_key_word_search(monkeypatch: pytest.MonkeyPatch) -> None:
    secret_detectors.installed_rules()
    counting = _Counting(secret_detectors._KEYWORDS)  # type: ignore[arg-type]
    monkeypatch.setattr(secret_detectors, "_KEYWORDS", counting)
    assert secrets.redact("the tokens of a model \u2192 counters") == ("the tokens of a model \u2192 counters", ())
    assert counting.n == 0
    assert secrets.redact("export PASSWORD=hunter2hunt")[1] == ("password or secret",)
    assert counting.n == 1


def test_the_installed_key_word_pattern_is_recognised() -> None:
    from detect_secrets.plugins.keyword import DENYLIST_REGEX

    assert words_of_keywords(DENYLIST_REGEX) == KEYWORD_WORDS
    secret_detectors.installed_rules()
    assert secret_detectors.KW_WORDS == KEYWORD_WORDS


def test_a_key_word_pattern_of_another_form_is_searched_always() -> None:
    assert words_of_keywords(r"(api_?key|token)\w*") is None  # "token" holds no word
    assert words_of_keywords(r"(pass.word)\w*") is None
    assert words_of_keywords(r"(?:password)\w*") is None


def test_the_characters_that_fold_to_ascii_letters_are_those_re_knows() -> None:
    letter = re.compile("[a-z]", re.IGNORECASE)
    found = "".join(chr(c) for c in range(0x80, 0x110000) if letter.fullmatch(chr(c)))
    assert found == secrets.FOLDS_TO_ASCII


CUT_TEXTS = [
    "the tokens of a model, the counters, a cut\u2026",
    "my token=abcdef123456\u2026",
    '"access_token": "abcdefgh',
    "password = 'hunter2hu",
    "tokens => abc\u2026 and more tokens: xyz\u2026",
    "api_key:\u2026",
    "a token:  `abc",
    "TOKEN=\u2026 then token= x\u2026",
    "no separator here token\u2026 token",
    "auth_token>>>>value",
]


class _CountingRx:
    def __init__(self, rx: re.Pattern[str]) -> None:
        self.rx, self.n = rx, 0

    def finditer(self, text: str):  # noqa: ANN201 - re's own type
        self.n += 1
        return self.rx.finditer(text)


def _keyword_cut_rule() -> int:
    secret_detectors.installed_rules()
    # the key words' own (an option's value after a space is another rule of the kind)
    (i,) = [i for i, r in enumerate(secret_detectors._CUT_RULES) if r.kind == f"{secrets.KEYWORD} (cut)" and "token" in r.regex.pattern]
    return i


@pytest.mark.parametrize("cut", [False, True])
def test_the_cut_keyword_rule_with_its_tail_first_masks_what_it_alone_masks(monkeypatch: pytest.MonkeyPatch, cut: bool) -> None:
    import random

    rng = random.Random(3)
    pieces = ["token", "key", "=", ":", ">", " ", '"', "'", "`", "abc", "x1", ",", ")", "\u2026", "\n"]
    texts = [*CUT_TEXTS, *("".join(rng.choices(pieces, k=12)) for _ in range(400))]
    got = [secrets.redact(t, cut=cut) for t in texts]
    i = _keyword_cut_rule()
    rules = list(secret_detectors._CUT_RULES)
    rules[i] = secret_detectors.Rule(rules[i].kind, rules[i].regex, rules[i].group)  # no tail searched first
    monkeypatch.setattr(secret_detectors, "_CUT_RULES", rules)
    secret_detectors._BY_KINDS.clear()
    try:
        want = [secrets.redact(t, cut=cut) for t in texts]
    finally:
        secret_detectors._BY_KINDS.clear()
    assert got == want
    assert sum(bool(k) for _, k in want) >= 5


def test_a_cut_text_with_no_value_at_its_end_costs_no_keyword_search(monkeypatch: pytest.MonkeyPatch) -> None:
    i = _keyword_cut_rule()
    rules = list(secret_detectors._CUT_RULES)
    counting = _CountingRx(rules[i].regex)
    rules[i] = secret_detectors.Rule(rules[i].kind, counting, rules[i].group, pre=rules[i].pre)  # type: ignore[arg-type]
    monkeypatch.setattr(secret_detectors, "_CUT_RULES", rules)
    secret_detectors._BY_KINDS.clear()
    try:
        assert secrets.redact("the tokens of a model, the counters\u2026", cut=True)[1] == ()
        assert counting.n == 0
        assert secrets.redact("my token=abcdef123456\u2026", cut=True)[1] == ("password or secret (cut)",)
        assert counting.n == 1
    finally:
        secret_detectors._BY_KINDS.clear()
