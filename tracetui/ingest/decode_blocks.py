"""Decode a record's parts, never raising: a content block (each on its own, so one new block
type costs one unknown block, not the line), its ``message``, and the ``(type, agentId)`` head
of a raw object. Re-exported by :mod:`tracetui.ingest.decode`."""

from __future__ import annotations

from typing import Any

import msgspec

from tracetui.ingest.repair import repair as _repair
from tracetui.ingest.repair import without_bad_fields as _without_bad_fields
from tracetui.ingest.schema import Block, Message, Usage, _BlockFast, _Head, _MessageRawUsage, _TypeOnly

__all__ = ["decode_block", "decode_block_fast", "decode_message", "decode_head"]

_fast_block_decoder = msgspec.json.Decoder(_BlockFast)
_head_decoder = msgspec.json.Decoder(_Head)
_type_decoder = msgspec.json.Decoder(_TypeOnly)
_block_decoder = msgspec.json.Decoder(Block)
_message_decoder = msgspec.json.Decoder(Message)
_message_raw_usage_decoder = msgspec.json.Decoder(_MessageRawUsage)
_usage_decoder = msgspec.json.Decoder(Usage)

#: fields whose bad type makes a block unknown rather than kept without them
_ESSENTIAL_BLOCK = frozenset({"type", "id", "tool_use_id"})
#: ...and a message: without its content it says nothing
_ESSENTIAL_MESSAGE = frozenset({"content"})

#: the first try of :func:`decode_block`, called in place by the fold (once per block): raises
#: ``msgspec.DecodeError``, ``msgspec.ValidationError`` or ``RecursionError`` where
#: :func:`decode_block` takes a slower path; when it returns, ``decode_block`` gives the same
decode_block_fast = _fast_block_decoder.decode


def decode_block(raw: msgspec.Raw | bytes) -> Block:
    """Decode one content block. A block of unexpected shape comes back with ``schema_error``.

    A tool_result's ``content`` comes back as :class:`msgspec.Raw` (see :func:`result_text`
    and :func:`result_excerpt`); a tool_use's ``input`` as a Python value when it decodes, else
    as :class:`msgspec.Raw` (see :func:`decode_any`, which takes both)."""
    try:
        return _fast_block_decoder.decode(raw)
    except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
        pass
    try:
        return _block_decoder.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        fixed = _repair(raw)
        if fixed is None:
            return Block(type="", schema_error="invalid JSON")
        raw = fixed
    try:
        return _block_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        try:
            return _without_bad_fields(raw, exc, (_fast_block_decoder, _block_decoder), _ESSENTIAL_BLOCK)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            pass
        try:
            head = _type_decoder.decode(raw)
            t = head.type if isinstance(head.type, str) else ""
        except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
            t = ""
        return Block(type=t, schema_error=str(exc))
    except (msgspec.DecodeError, RecursionError) as exc:
        return Block(type="", schema_error=str(exc))


def _with_usage(m: _MessageRawUsage) -> Message:
    """``m`` with its raw usage decoded, or rejected with the reason in ``usage_error``."""
    try:
        usage = _usage_decoder.decode(m.usage) if m.usage else None
        err = None
    except (msgspec.DecodeError, RecursionError, msgspec.ValidationError) as exc:
        usage, err = None, str(exc).split("\n")[0]
    return Message(m.id, m.model, m.content, usage, err, m.shape_error)


def decode_message(raw: msgspec.Raw | Message | None) -> Message | None:
    """Decode ``record.message``; ``None`` when absent or not of the expected shape. A message
    decoded with its record already is returned as is.

    A message whose ``usage`` is at fault (a token count outside ``0..MAX_TOKENS``, such as
    ``1e23`` or ``-5``, or a field of another type) comes back with ``usage=None`` and the
    reason in ``usage_error``: its content is still the record's, its tokens are not counted. A
    top-level field of another type but ``content`` (an ``id`` or a ``model`` that is a number)
    is left out, named in ``shape_error``; the rest of the message is kept (:func:`_lenient`)."""
    if raw is None or isinstance(raw, Message):
        return raw
    if not raw:
        return None
    try:
        return _message_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        return _lenient(raw, exc)
    except (msgspec.DecodeError, RecursionError):
        fixed = _repair(raw)
        if fixed is None:
            return None
        try:
            return _message_decoder.decode(fixed)
        except msgspec.ValidationError as exc:
            return _lenient(fixed, exc)
        except (msgspec.DecodeError, RecursionError):
            return None


def _lenient(raw: msgspec.Raw | bytes, exc: msgspec.ValidationError) -> Message | None:
    """A message that failed to decode with ``exc``: its usage decoded apart (rejected with the
    reason in ``usage_error`` when it is at fault) and its top-level fields of another type left
    out (``shape_error`` names them: an ``id`` or a ``model`` that is a number); ``None`` when
    something else is wrong (its ``content`` of another type: a message without it says nothing)."""
    try:
        return _with_usage(_message_raw_usage_decoder.decode(raw))
    except msgspec.ValidationError as e:  # (a DecodeError too: caught first)
        exc = e  # the usage apart, the fault is elsewhere: a top-level field, or none of ours
    except (msgspec.DecodeError, RecursionError):
        return None
    try:
        out: _MessageRawUsage = _without_bad_fields(raw, exc, (_message_raw_usage_decoder,), _ESSENTIAL_MESSAGE)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    return _with_usage(out)


def decode_head(raw: msgspec.Raw | bytes | None) -> tuple[Any, Any]:
    """``(type, agentId)`` of a raw JSON object, skipping the rest; ``(None, None)`` when it is
    absent or not an object."""
    if not raw:
        return None, None
    try:
        h = _head_decoder.decode(raw)
    except msgspec.ValidationError:
        return None, None
    except (msgspec.DecodeError, RecursionError):
        fixed = _repair(raw)
        if fixed is None:
            return None, None
        try:
            h = _head_decoder.decode(fixed)
        except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
            return None, None
    return h.type, h.agentId
