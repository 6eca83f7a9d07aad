"""A line cut from a long text masks only a window past the cut (ingest/secrets.py ``redact_head``): the
line reads as the whole text masked and cut does, secrets placed anywhere (across the cut,
across the window's end), no secret's head shows, and a 60 MB prompt costs a window's masking."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tracetui.ingest import secret_detectors, secrets
from tracetui.ingest.secrets import redact
from tracetui.views.safe import cut_redacted, cut_whole, line_redacted, safe_text

#: secrets of several kinds, the lengths of their tokens below the test's window margin
SECRETS = (
    "AKIAQ3EGRTYU7VWXZ2AB",
    "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "xoxb-2718281828-3141592653589-aQ7wE3rT9yU1iO5pL2kJ8hG4",
    "sk-ant-api03-Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "glpat-Zx9Cv8Bn7Mq6Wp5Ek4Rj",
    "password=Hunter2Hunter2",
    'api_key: "Zq7Xw3Ec5Rv9Tb1Yn"',
    "Authorization: Bearer abcdEFGHijklMNOP1234qrst",
    "https://deploy:S3cretPassw0rd@git.example.com/repo.git",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4Qw\nZm9vYmFy\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA",
)
#: filler: words, paths, code, a base64 blob, a hash, controls and whitespace
FILLER = (
    "the",
    "deploy the service",
    "src/app/main.py:12",
    "def f(x): return x",
    "http://localhost:8080/api/v1",
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
    "3f786850e387550fdab836ed7e6dc881de23001b",
    "key",
    "token",
    "\u2026",
    "\r\n",
    "\x1b[31m",
    "\t",
    "     ",
    "«quoted»",
)
SEPARATORS = (" ", "\n", "  ", ", ", "", "/", "=", ": ")
#: the window margin the property runs with: longer than any token above, short enough that
#: secrets often straddle the window's end
MARGIN = 512


def _whole(text: str, limit: int) -> str:
    """The line as the whole text masked and cut gives it (the rule before windows)."""
    return text if len(text) <= limit else cut_whole(redact(text)[0], limit)


def _longest_run(text: str) -> int:
    return max((len(r) for r in re.split(r"\s", text)), default=0)


texts = st.lists(
    st.tuples(st.sampled_from(SEPARATORS), st.one_of(st.sampled_from(SECRETS), st.sampled_from(FILLER))),
    min_size=1,
    max_size=60,
).map(lambda parts: "".join(sep + piece for sep, piece in parts))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])
@given(text=texts, at=st.floats(0, 1))
def test_a_windowed_cut_reads_as_the_whole_text_masked(monkeypatch: pytest.MonkeyPatch, text: str, at: float) -> None:
    # (the margin is set and undone within each example)
    assume(_longest_run(text) < MARGIN - 16)
    limit = max(1, int(at * len(text)))
    with monkeypatch.context() as m:
        m.setattr(secrets, "REDACT_MARGIN", MARGIN)
        got = cut_redacted(text, limit)
        line = line_redacted(text, limit)
        safe_line = line_redacted(text, limit, safe=True)
    assert got == _whole(text, limit)
    assert line == _whole(" ".join(text.split()), limit)
    assert safe_line == _whole(" ".join(safe_text(text).split()), limit)


@pytest.mark.parametrize("secret", [s for s in SECRETS if "\n" not in s and " " not in s])
@pytest.mark.parametrize("shift", [-30, -12, -3, -1, 0, 1, 5])
def test_a_secret_across_the_window_end_shows_no_head(monkeypatch: pytest.MonkeyPatch, secret: str, shift: int) -> None:
    """A token that runs past the window (longer than the margin, so it starts in the shown
    part) is masked from its start all the same; one that starts near the cut too."""
    margin = 64
    limit = 40
    monkeypatch.setattr(secrets, "REDACT_MARGIN", margin)
    # the secret starts just before the cut, padded to run past the window's end
    body = "x" * (limit + shift) + " " + secret + "Q" * (margin + 20) + " tail " * 40
    head = secret.split("=")[-1].split(": ")[-1].split("@")[0].split(":")[-1][:6]
    for fn, whole in ((cut_redacted, _whole(body, limit)), (line_redacted, _whole(" ".join(body.split()), limit))):
        out = fn(body, limit)
        assert len(out) <= limit
        # masked from the same place as in the whole text (its kind may read "KIND (cut)")
        assert out.replace(" (cut)", "") == whole.replace(" (cut)", ""), (fn.__name__, out, whole)
        if "«redacted" in whole:
            assert head not in out, (fn.__name__, out)


def test_a_long_private_key_block_across_the_window_is_masked_alike() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\n" + ("MIIEowIBAAKCAQEAx4Qw\n" * 8000) + "-----END RSA PRIVATE KEY-----"
    text = "here is the key " + block + " and more"
    assert len(text) > 2 * secrets.REDACT_MARGIN
    for limit in (10, 20, 40, 100):
        assert cut_redacted(text, limit) == _whole(text, limit)
        assert line_redacted(text, limit) == _whole(" ".join(text.split()), limit)


def test_a_huge_prompt_masks_only_a_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cost of a line of a 4 MB prompt is a window's: the detectors never see the whole."""
    text = "big prompt " + "A" * 2_000_000 + " key AKIAQ3EGRTYU7VWXZ2AB " + "word " * 400_000 + "password=Hunter2Hunter2"
    seen: list[int] = []
    real = secrets.redact

    def spy(t: str, cut: bool = False, **kw: Any) -> tuple[str, tuple[str, ...]]:
        seen.append(len(t))
        return real(t, cut, **kw)  # the set of values seen too

    monkeypatch.setattr(secrets, "redact", spy)
    for limit in (1, 100, 5000):
        assert cut_redacted(text, limit) == _whole(text, limit)
        assert line_redacted(text, limit) == _whole(" ".join(text.split()), limit)
    assert seen and max(seen) <= 5000 + 2 * secrets.REDACT_MARGIN + 1, seen


def test_a_mostly_blank_text_folds_only_what_it_shows() -> None:
    text = " \n\t" * 500_000 + "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6 " + "spaced  out  " * 100_000
    for limit in (3, 30, 300):
        assert line_redacted(text, limit) == _whole(" ".join(text.split()), limit)
        assert "ghp_aB" not in line_redacted(text, limit)


def test_the_search_index_masks_a_window_of_a_long_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search index keeps a head of each message, masked as the whole text masked is."""
    from tracetui.ingest.secret_values import SeenSecrets
    from tracetui.session.index import scan

    text = "key AKIAQ3EGRTYU7VWXZ2AB " + "word " * 200_000 + "password=Hunter2Hunter2"
    seen: list[int] = []
    real = secrets.redact

    def spy(t: str, cut: bool = False, **kw: Any) -> tuple[str, tuple[str, ...]]:
        seen.append(len(t))
        return real(t, cut, **kw)  # the set of values seen too

    want = {limit: (lambda m: m if len(m) <= limit else m[: limit - 1] + "\u2026")(real(text)[0]) for limit in (10, 30, 2000)}
    monkeypatch.setattr(secrets, "redact", spy)
    for limit in (10, 30, 2000):
        assert scan._masked(text, limit, SeenSecrets()) == want[limit]
    assert max(seen) <= 2000 + 2 * secrets.REDACT_MARGIN, seen


def test_a_long_text_masked_twice_runs_the_detectors_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # a goal that is the latest ask too, in one `state --json`: the second costs a lookup
    text = ("deploy the service with password=Hunter2Hunter2 and the token " * 2000)[: secrets._LONG + 10]
    first = redact(text)
    assert "Hunter2Hunter2" not in first[0] and first[1]
    calls: list[str] = []
    real = secrets._redact
    monkeypatch.setattr(secrets, "_redact", lambda t, c: calls.append(t) or real(t, c))
    again = redact(str(text))  # an equal text, another object (as decoded twice)
    assert again == first and calls == []
    assert redact(text, cut=True)[0] == real(text, True)[0] and len(calls) == 1  # cut is part of the key


def test_a_long_text_is_masked_again_when_the_detectors_change(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "x " * secrets._LONG + "password=Hunter2Hunter2"
    assert "Hunter2Hunter2" not in redact(text)[0]
    spec = secret_detectors.load_rules()
    try:
        secret_detectors.use_rules({"rules": [], "keywords": spec["keywords"]})  # no detector at all
        assert redact(text)[0] == text  # not the memo of the other detectors
    finally:
        secret_detectors.use_rules(spec)
    assert "Hunter2Hunter2" not in redact(text)[0]
