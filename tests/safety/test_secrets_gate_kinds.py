"""The redactor runs only the detectors of the kinds the gates let through: it masks exactly
what running every detector masks (the same spans, kinds and order)."""

from __future__ import annotations

import msgspec
import pytest
from test_secrets import PASSWORD, PRIVATE_KEY, SECRETS, URL_PASS

from tracetui.ingest import secret_detectors, secrets
from tracetui.session.store.masking import masked

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
    # the shapes without a key word: a .pgpass line, an AWS secret key alone (a run of base64)
    'mysql -uroot -pS3cretPassw0rd -e \'x\' and {"auth": "dXNlcjpwYXNzd29yZDEyMw=="}',
    "db.example.com:5432:mydb:admin:hunter2secret\nthen wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.",
]


def _every_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "rules_for", lambda kinds, rules: (rules, secret_detectors._CUT_RULES))


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
    texts = ["plain", "Export TOKEN=x", "caf\u00e9 \u00c0KIA", "\u00c9KEY", "a .abcdef. b", "AKCabcdefghijk", "\u00e9t\u00e9 \u00fcber"]
    for t in texts:
        raw = t.encode()
        assert secrets.may_hold_secret_bytes(raw) == secrets.may_hold_secret(raw.decode("latin-1")), t


@pytest.mark.parametrize("word", ["token", "api_key", "password", "secret"])
def test_the_gate_of_bytes_lets_through_what_the_gate_of_the_text_does(word: str) -> None:
    # a letter of FOLDS_TO_ASCII lower-cases to an ASCII one only as text (the Kelvin sign to
    # "k"); read as Latin-1 its UTF-8 bytes are no letter: such bytes go through the gate, so the
    # store masks "to\u212aen=..." as a view does (it was kept as it was)
    for fold, ascii_letter in (("\u212a", "k"), ("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s")):
        t = word.replace(ascii_letter, fold) + "=Zq7Xw3Ec5Rv9Tb1Yn"
        raw = msgspec.msgpack.encode({"goal": t})
        if secrets.may_hold_secret(t):
            assert secrets.may_hold_secret_bytes(raw), t
        assert msgspec.msgpack.decode(masked(raw)) == {"goal": secrets.redact(t)[0]}, t
    assert secrets.redact("to\u212aen=Zq7Xw3Ec5Rv9Tb1Yn")[1]  # a secret the text's detectors mask


def test_the_gate_of_bytes_finds_what_straddles_its_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_WINDOW", 16)
    for at in range(0, 40):
        raw = b"x" * at + b"AKIAQ3EGRTYU7VWXZ2AB" + b"y" * 7
        assert secrets.may_hold_secret_bytes(raw)
        assert secrets.may_hold_secret_bytes(b"x" * at + b":" + b"a" * 35) and not secrets.may_hold_secret_bytes(b"x" * at)


def test_the_word_gate_finds_what_an_alternation_of_its_words_longest_first_finds() -> None:
    import random
    import re

    words = sorted({w for ws in secrets.GATE_WORDS.values() for w in ws}, key=lambda w: (-len(w), w))
    plain = re.compile("|".join(re.escape(w) for w in words))
    rng = random.Random(9)
    pieces = [*words, *(w[:-1] for w in words), " ", "x", "s", "-", "k", "e"]
    texts = [" ".join(words), "".join(words), "".join(reversed(words)), *("".join(rng.choices(pieces, k=60)) for _ in range(300))]
    for t in texts:
        assert secrets._GATE.findall(t) == plain.findall(t), t


def test_the_shape_gate_finds_a_shape_where_one_of_the_shapes_alone_does() -> None:
    import re

    shapes = [re.compile(p) for p in secrets.GATE_SHAPES.values()]
    texts = [
        "AKC1234",
        "an APE at AP9",
        "x.abc_de.y",
        "bot:" + "a-" * 18,
        "AC" + "0a" * 16,
        "SK" + "b1" * 16,
        "sk" + "b1" * 16,
        "AC" + "0A" * 16,
        "nothing shaped here: a.b.c, AC/DC",
        *(f"pre {s}" for s in ("AC", "SK", ":", ".", "AP", "AK")),
    ]
    for t in texts:
        assert bool(secrets._GATE_SHAPE.search(t)) == any(rx.search(t) for rx in shapes), t


@pytest.mark.parametrize("cut", [False, True])
def test_a_word_spelt_with_a_letter_that_folds_to_ascii_is_gated_as_the_detectors_read_it(
    monkeypatch: pytest.MonkeyPatch, cut: bool
) -> None:
    # "pa\u017f\u017fword=" is "password=" to a detector ignoring case ("\u017f".lower() is itself): the gate
    # stopped it, and the value was given out as it was
    texts = [
        f"{w.replace(a, f)}=Zq7Xw3Ec5Rv9Tb1Yn and more"
        for w in ("password", "secret", "api_key", "token", "passwd")
        for f, a in (("\u212a", "k"), ("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"))
        if a in w
    ]
    got = [secrets.redact(t, cut=cut) for t in texts]
    _every_detector(monkeypatch)
    assert got == [secrets.redact(t, cut=cut) for t in texts]
    assert all(k for _, k in got) and all("Zq7Xw3Ec5Rv9Tb1Yn" not in t for t, _ in got)
