"""The repairs of the decoders' fallbacks: JSON whose bytes msgspec rejects re-encoded with
U+FFFD for the bad characters, and an object decoded again without the fields of an unexpected
type. Used by :mod:`tracetui.ingest.decode` (records) and :mod:`tracetui.ingest.decode_blocks`
(content blocks, messages)."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

__all__ = ["scrub", "repair", "without_bad_fields"]

_any_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()

#: the path of a ValidationError at a top-level field: ``... - at `$.timestamp```
_AT_FIELD = re.compile(r"^(.*) - at `\$\.([A-Za-z_][A-Za-z0-9_]*)`$", re.S)


def without_bad_fields(buf: Any, exc: msgspec.ValidationError, decoders: tuple[Any, ...], essential: frozenset[str]) -> Any:
    """Decode ``buf`` (a JSON object that failed with ``exc``) with the bad-typed fields left
    out, trying each of ``decoders`` in turn; the result's ``shape_error`` names them. Raises
    ``exc`` (or the next ValidationError) when a field of ``essential`` is bad or the error is
    not at a top-level field."""
    obj: Any = None
    reasons: list[str] = []
    while True:
        m = _AT_FIELD.match(str(exc))
        if m is None or m.group(2) in essential:
            raise exc
        if obj is None:
            obj = _any_decoder.decode(buf)
            if not isinstance(obj, dict):
                raise exc
        field = m.group(2)
        if field not in obj:  # the message names a field the object lacks: not ours to fix
            raise exc
        del obj[field]
        reasons.append(f"{field}: {m.group(1)} (field ignored)")
        fixed = _encoder.encode(obj)
        for dec in decoders:
            try:
                out = dec.decode(fixed)
            except msgspec.ValidationError as e:
                exc = e
                continue
            out.shape_error = "; ".join(reasons)
            return out


def scrub(obj: Any) -> Any:
    """Replace lone UTF-16 surrogates in every string of ``obj`` with U+FFFD."""
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
            return obj
        except UnicodeEncodeError:
            return obj.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(obj, dict):
        return {scrub(k): scrub(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [scrub(v) for v in obj]
    return obj


def repair(raw: msgspec.Raw | bytes | memoryview) -> bytes | None:
    """Re-encode a JSON value whose bytes msgspec rejects (invalid UTF-8, escaped lone
    surrogates) with U+FFFD in place of the bad characters; ``None`` when it is not JSON."""
    try:
        obj = json.loads(bytes(raw).decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        return None
    return _encoder.encode(scrub(obj))
