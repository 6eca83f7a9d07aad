"""Decode one transcript line into typed msgspec structs, never raising.

The transcript format has no official spec and gains fields and types with every Claude Code
release (``../shared/docs/transcript-format.md``). So the structs declare only the fields the fold
uses, leave unknown fields alone, keep large payloads as :class:`msgspec.Raw`, and every failure
degrades to a counted result instead of an exception:

* a line that is not JSON, or JSON that is not an object, is *quarantined* (:class:`Quarantined`);
* a declared field of an unexpected type (a ``timestamp`` that is a number, a ``uuid`` that is
  an object) is ignored: the record is kept without it, with ``shape_error`` saying which field
  and why, and the fold counts it as a shape problem (its tool results still pair); only a
  ``type`` of another type makes the record unknown (``schema_error`` set): nothing says what it is;
* likewise a content block keeps its place when a field it can do without (``text``,
  ``name``, ``is_error``) has another type; a bad ``type``, ``id`` or ``tool_use_id`` makes it
  unknown;
* two objects written on one line (``…}{"type":"summary",…}``, seen in the corpus) are both
  recovered, each anchored at its own byte offset;
* invalid UTF-8 and escaped lone surrogates (``\\udcb2``) become U+FFFD;
* JSON nested deeper than the decoders' recursion limit is quarantined, never a ``RecursionError``.

Content blocks, messages and heads are decoded by :mod:`tracetui.ingest.decode_blocks`, the
repairs both share are :mod:`tracetui.ingest.repair`'s; this module re-exports their functions.
"""

from __future__ import annotations

import json
from typing import Any, Union

import msgspec

from tracetui.ingest.decode_blocks import decode_block, decode_block_fast, decode_head, decode_message
from tracetui.ingest.repair import scrub as _scrub
from tracetui.ingest.repair import without_bad_fields as _without_bad_fields
from tracetui.ingest.schema import (
    KNOWN_BLOCK_TYPES,
    KNOWN_RECORD_TYPES,
    MAX_TOKENS,
    Block,
    CacheCreation,
    Message,
    Quarantined,
    Record,
    ResultPart,
    Usage,
    _RecordFast,
    _TypeOnly,
)

__all__ = [
    "Usage",
    "CacheCreation",
    "MAX_TOKENS",
    "Message",
    "Block",
    "Record",
    "Quarantined",
    "Decoded",
    "decode_line",
    "decode_record_fast",
    "decode_block",
    "decode_block_fast",
    "decode_message",
    "decode_head",
    "ResultPart",
    "KNOWN_RECORD_TYPES",
    "KNOWN_BLOCK_TYPES",
    "excerpt_of",
    "BOM",
    "bom_length",
]


_record_decoder = msgspec.json.Decoder(Record)
_fast_record_decoder = msgspec.json.Decoder(_RecordFast)
_type_decoder = msgspec.json.Decoder(_TypeOnly)
_encoder = msgspec.json.Encoder()

#: fields whose bad type makes the object unknown rather than kept without them
_ESSENTIAL_RECORD = frozenset({"type"})

#: one decoded item of a line: the byte offset within the line, and the record or quarantine
Decoded = tuple[int, Union[Record, Quarantined], bytes | memoryview]


def excerpt_of(text: str, limit: int = 80) -> str:
    """The first ``limit`` characters of ``text`` on one line (newlines folded to spaces)."""
    n = len(text)
    if n <= limit and text.isprintable() and text[:1] != " " and text[-1:] != " ":
        # already an excerpt: short, and no white space but inner ASCII spaces (a printable
        # string holds no other), so nothing to strip, cut or fold
        return text
    if n >= limit + 64 and not text[-64:].isspace():
        # long and not blank at the end: strip the head only, never copy the whole text (tool
        # results are often megabytes and start with spaces, such as Read's line numbers)
        head = text[: limit + 256]
        s = head.lstrip()
        if len(s) >= limit - 1 and n - (len(head) - len(s)) >= limit + 64:
            text = s[: limit - 1] + "…"
            return text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
    text = text.lstrip()
    if len(text) >= limit + 64 and not text[-64:].isspace():
        # long and not blank at the end: the stripped text is longer than ``limit`` too, so cut
        # without copying the whole (tool results can be megabytes)
        text = text[: limit - 1] + "…"
        return text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
    text = text.rstrip()
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("\r", " ").replace("\n", " ").replace("\t", " ")


def _record_from_obj(obj: dict[str, Any]) -> Record:
    try:
        return msgspec.convert(obj, Record)
    except msgspec.ValidationError as exc:
        t = obj.get("type")
        return Record(type=t if isinstance(t, str) else None, schema_error=str(exc))


def _typed(buf: bytes | memoryview) -> Record:
    """Decode one JSON object; a field of unexpected type is left out (``shape_error``), a
    ``type`` of another type keeps only the type (``schema_error``). Raises DecodeError."""
    try:
        return _fast_record_decoder.decode(buf)
    except msgspec.ValidationError:
        pass  # e.g. a message of unexpected shape: decode the envelope alone
    try:
        return _record_decoder.decode(buf)
    except msgspec.ValidationError as exc:
        err = exc
    try:
        return _without_bad_fields(buf, err, (_fast_record_decoder, _record_decoder), _ESSENTIAL_RECORD)
    except (msgspec.ValidationError, RecursionError):
        pass
    head = _type_decoder.decode(buf)  # raises ValidationError if not an object
    t = head.type
    return Record(type=t if isinstance(t, str) else None, schema_error=str(err))


_py_decoder = json.JSONDecoder()


def _slow_decode(buf: bytes | memoryview) -> list[Decoded]:
    """The fallback path: repair encoding, then recover every JSON value on the line.

    Each undecodable byte becomes one U+FFFD. Offsets of recovered objects are byte offsets in
    the original bytes (the text is decoded with ``surrogateescape``, which maps each bad byte to
    one character and back), so an anchor is the same whether a part arrives on its own or
    after a record on the same line.
    """
    raw = bytes(buf)
    text = raw.decode("utf-8", "surrogateescape")
    out: list[Decoded] = []
    pos = 0
    n = len(text)
    while pos < n:
        while pos < n and text[pos] in " \t\r\n":
            pos += 1
        if pos >= n:
            break
        rel = len(text[:pos].encode("utf-8", "surrogateescape"))
        # a bad part right after another (no record between) is the same bad part: one line of
        # junk is one malformed part, whatever JSON values its bytes happen to begin with
        bad_before = bool(out) and isinstance(out[-1][1], Quarantined)
        try:
            obj, end = _py_decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            # the column counts from the start of the bad part (its anchor), not of the line, so
            # the reason is the same whether the part arrived after a record or on a line of its own
            col = exc.pos - pos + 1
            if not bad_before:
                out.append(
                    (rel, Quarantined(rel, f"invalid JSON: {exc.msg} (column {col})", excerpt_of(_scrub(text[pos : pos + 400]))), b"")
                )
            break
        except RecursionError:
            # thousands of nested arrays or objects: no record is that deep (the decoders stop
            # at their recursion limit); quarantined like any line that is not a record
            if not bad_before:
                out.append((rel, Quarantined(rel, "JSON nested too deeply to decode", excerpt_of(_scrub(text[pos : pos + 400]))), b""))
            break
        piece = text[pos:end]
        if not isinstance(obj, dict):
            if not bad_before:
                out.append((rel, Quarantined(rel, f"not a JSON object ({type(obj).__name__})", excerpt_of(_scrub(piece[:400]))), b""))
        else:
            orig = raw[rel : rel + len(piece.encode("utf-8", "surrogateescape"))]
            try:
                # the object's own bytes, when they decode: the same payload (and digest) as
                # when the object arrives on a line of its own
                rec, payload = _typed(orig), orig
            except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
                clean = _scrub(obj)
                payload = _encoder.encode(clean)
                # decode the repaired bytes (not msgspec.convert: Raw fields need JSON bytes)
                try:
                    rec = _typed(payload)
                except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
                    rec = _record_from_obj(clean)
            out.append((rel, rec, payload))
        pos = end
    return out


def decode_line(buf: bytes | memoryview) -> list[Decoded]:
    """Decode one line (without its newline) into ``[(rel_offset, Record | Quarantined, payload)]``.

    The common case is one record at offset 0 whose payload is ``buf`` itself. Whitespace
    around an object is not part of its payload (nor of its offset). Never raises.
    """
    try:
        rec = _typed(buf)
    except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
        return _slow_decode(buf)
    if buf[0] in _WS or buf[-1] in _WS:
        b = bytes(buf)
        core = b.lstrip(b" \t\r\n")
        return [(len(b) - len(core), rec, core.rstrip(b" \t\r\n"))]
    return [(0, rec, buf)]


_WS = frozenset(b" \t\r\n")
#: the UTF-8 byte order mark some editors write at the start of a file
BOM = b"\xef\xbb\xbf"


def bom_length(offset: int, buf: bytes | memoryview) -> int:
    """Bytes of a byte order mark at the start of ``buf`` when ``buf`` starts the file (``offset``
    0), else 0: the mark is not part of the first record, which is anchored after it."""
    return 3 if offset == 0 and buf[:3] == BOM else 0


#: the one-pass decode of the common line: one record whose message has the usual shape, the
#: line starting and ending with its braces (no whitespace around). Raises ``msgspec.DecodeError``
#: or ``msgspec.ValidationError`` where :func:`decode_line` takes a slower path; when it
#: returns, ``decode_line(buf)`` would give ``[(0, that record, buf)]`` (callers check the ends).
decode_record_fast = _fast_record_decoder.decode
