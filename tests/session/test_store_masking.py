"""What the store writes keeps no secret (issue 9): a large value is masked item by item, and
gives what masking it whole gives; a string met again is masked from the memo, as the first time."""

from __future__ import annotations

import msgspec
import pytest

from tracetui.session.store import masking

AWS = "AKIAQ3EGRTYU7VWXZ2AB"
VALUE = {
    "calls": {f"toolu_{i}": {"brief": f"Bash(echo {i})", "tokens": i} for i in range(50)} | {"toolu_x": {"brief": f"export K={AWS}"}},
    f"token {AWS}": [1, 2, f"key={AWS}"],
    (1, 2): ["plain", "tokens", ["nested", f"secret {AWS}\u2026"]],
}


def test_a_large_value_is_masked_item_by_item_as_it_is_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = msgspec.msgpack.encode(VALUE)
    whole = msgspec.msgpack.decode(masking.masked(raw))
    monkeypatch.setattr(masking, "SPLIT_BYTES", 16)
    split = masking.masked(raw)
    assert msgspec.msgpack.decode(split) == whole
    assert AWS not in split.decode("latin-1") and AWS[4:-4] not in split.decode("latin-1")
    plain = msgspec.msgpack.encode({"a": ["tokens"] * 40, "b": list(range(40))})
    assert masking.masked(plain) is plain  # nothing to mask: the same bytes


def test_the_memo_gives_what_the_detectors_give() -> None:
    texts = [f"export K={AWS}", "the tokens of a model", f"{AWS[:12]}\u2026", "plain"]
    first = [masking.mask_text(t) for t in texts]
    again = [masking.mask_text(str(t)) for t in texts]  # equal strings, met again
    assert first == again
    assert first[1] is texts[1] and first[3] is texts[3] and AWS not in first[0] and AWS[:12] not in first[2]


def test_bytes_are_kept_as_they_are_and_not_copied_to_be_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    blob = b"key=" + AWS.encode() + bytes(range(256)) * 64  # packed arrays, a digest: no text
    raw = msgspec.msgpack.encode([b"x" * 10, {"parts": [blob, f"key={AWS}"]}])
    monkeypatch.setattr(masking, "SPLIT_BYTES", 16)
    out = msgspec.msgpack.decode(masking.masked(raw))
    assert out[1]["parts"][0] == blob and AWS not in out[1]["parts"][1]
    assert masking.masked(msgspec.msgpack.encode(blob)) == msgspec.msgpack.encode(blob)
