"""The redactor runs only the detectors of the kinds the gates let through: it masks exactly
what running every detector masks (the same spans, kinds and order)."""

from __future__ import annotations

import pytest
from test_secrets import PASSWORD, PRIVATE_KEY, SECRETS, URL_PASS

from tracetui.ingest import secrets

TEXTS = [
    *(f"export X={s} # and more" for s, _ in SECRETS.values()),
    *(f"{s[: len(s) * 2 // 3]}\u2026" for s, _ in SECRETS.values()),
    f"password={PASSWORD} and https://bob:{URL_PASS}@example.com/x",
    PRIVATE_KEY,
    PRIVATE_KEY[:60] + "\u2026",
    "awsk-ant-api03-Zx9_kLm2-Qw8Zx9_kLm2-Qw8Zx9 pass",  # a word found inside another's tail
    "the tokens of a model, the key of a dict, a passage",
    "export PASSWORD=hunter2hunt\u2026",
    "api_key: 'AbCdEf123456' and AKCabcdefghij12345 ",
]


def _every_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_rules_for", lambda kinds, rules: (rules, secrets._CUT_RULES))


@pytest.mark.parametrize("cut", [False, True])
def test_gated_kinds_mask_what_every_detector_masks(monkeypatch: pytest.MonkeyPatch, cut: bool) -> None:
    got = [secrets.redact(t, cut=cut) for t in TEXTS]
    _every_detector(monkeypatch)
    want = [secrets.redact(t, cut=cut) for t in TEXTS]
    assert got == want
    assert sum(bool(k) for _, k in want) >= len(SECRETS)  # the texts do hold secrets


def test_a_word_found_lets_through_the_kinds_of_the_words_it_holds_or_overlaps() -> None:
    # "aws" is found where "sk-" starts in its tail ("awsk-"): the search goes on after "aws"
    assert "openai api key" in secrets._gated_kinds("awsk-0123456789abcdef")
    # "accountkey=" holds "key"
    assert "ibm cos hmac credentials" in secrets._gated_kinds("AccountKey=abc")
    assert secrets._gated_kinds("plain words only") == frozenset()


def test_the_gate_of_bytes_is_the_gate_of_their_latin_1_text() -> None:
    texts = ["plain", "Export TOKEN=x", "caf\u00e9 \u00c0KIA", "\u00c9KEY", "a .abcdef. b", "\u212aey=abc", "AKCabcdefghijk"]
    for t in texts:
        raw = t.encode()
        assert secrets.may_hold_secret_bytes(raw) == secrets.may_hold_secret(raw.decode("latin-1")), t


def test_the_gate_of_bytes_finds_what_straddles_its_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_WINDOW", 16)
    for at in range(0, 40):
        raw = b"x" * at + b"AKIAQ3EGRTYU7VWXZ2AB" + b"y" * 7
        assert secrets.may_hold_secret_bytes(raw)
        assert secrets.may_hold_secret_bytes(b"x" * at + b":" + b"a" * 35) and not secrets.may_hold_secret_bytes(b"x" * at)
