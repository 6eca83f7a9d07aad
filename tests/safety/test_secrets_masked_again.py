"""A mask tracetui wrote is not read again: masking a masked text changes nothing (the session
store keeps texts masked, the views mask what they give out: a warm reopen reads as a cold one),
its words (``aws access key``) open no detector, and a look-alike mask typed in a prompt is read."""

from __future__ import annotations

import pytest
from test_secrets import PASSWORD, PRIVATE_KEY, SECRETS, URL_PASS

from tracetui.ingest import secrets
from tracetui.ingest.secrets import redact

TEXTS = [
    *(f"export X={s} # and more" for s, _ in SECRETS.values()),
    *(f"{s}: hunter22hunter and {s} secret=abc" for s, _ in SECRETS.values()),
    *(f"{s[: len(s) * 2 // 3]}\u2026" for s, _ in SECRETS.values()),
    f"password={PASSWORD} and https://bob:{URL_PASS}@example.com/x",
    f"{PRIVATE_KEY} = value",
    "key AKIAQ3EGRTYU7VWXZ2AB token: abcdefgh1234",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("cut", [False, True])
def test_masking_a_masked_text_changes_nothing(text: str, cut: bool) -> None:
    once, kinds = redact(text, cut=cut)
    assert kinds
    assert redact(once, cut=cut) == (once, ())


def test_a_mask_opens_no_gate() -> None:
    """The words of a mask's kind are no key words: the detectors of ``key`` (the keyword
    patterns, IBM, Cloudant, SoftLayer) do not run over a long masked prompt."""
    masked = redact("deploy with AKIAQ3EGRTYU7VWXZ2AB now " + "A" * 10_000)[0]
    assert "\u00abredacted: aws access key\u00bb" in masked
    assert secrets._gated_kinds(secrets._unmasked(masked)) == frozenset()
    # a mask followed by what reads as a value is not a keyword's value
    assert redact("\u00abredacted: aws access key\u00bb: hunter22hunter") == ("\u00abredacted: aws access key\u00bb: hunter22hunter", ())


def test_a_look_alike_mask_is_read() -> None:
    """Only a mask of a known kind is blanked: a secret typed inside ``«redacted: …»`` is masked."""
    token = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
    for text in (f"\u00abredacted: {token}\u00bb", f"\u00abredacted: aws access key {token}\u00bb", f"\u00abredacted: aws\u00bb {token}"):
        out, kinds = redact(text)
        assert token[:8] not in out and kinds == ("github token",), out
