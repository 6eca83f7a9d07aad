"""A tool_result's text and excerpt, and any raw JSON value, decoded only when a rule reads them."""

from __future__ import annotations

import json
from typing import Any, Union

import msgspec

from tracetui.ingest.decode import excerpt_of
from tracetui.ingest.repair import scrub
from tracetui.ingest.schema import ResultPart

__all__ = ["result_text", "result_excerpt", "result_tail", "decode_any", "PREFIX_BYTES", "TAIL_FROM"]

_any_decoder = msgspec.json.Decoder()

_str_decoder = msgspec.json.Decoder(str)


_result_decoder = msgspec.json.Decoder(Union[str, list[ResultPart], None])


def result_text(content: Any) -> str:
    """The text of a tool_result's content: a string as is; list parts joined by newlines (text
    parts as written, ``[image]``, ``[tool NAME]`` for tool references, other parts left out)."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if isinstance(content, list):
        parts = []
        for b in content:
            if isinstance(b, ResultPart):
                t = b.type
                if t == "text" and isinstance(b.text, str):
                    parts.append(b.text)
                elif t == "image":
                    parts.append("[image]")
                elif t == "tool_reference":
                    parts.append(f"[tool {'?' if b.tool_name is msgspec.UNSET else b.tool_name}]")
            elif isinstance(b, dict):
                if b.get("type") == "text" and isinstance(b.get("text"), str):
                    parts.append(b["text"])
                elif b.get("type") == "image":
                    parts.append("[image]")
                elif b.get("type") == "tool_reference":
                    parts.append(f"[tool {b.get('tool_name', '?')}]")
        return "\n".join(parts)
    if isinstance(content, msgspec.Raw):
        if not content:
            return ""
        try:
            return result_text(_result_decoder.decode(content))
        except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
            return result_text(decode_any(content))
    return str(content)


#: a tool_result's string content longer than :data:`PREFIX_FROM` bytes of JSON gets its
#: excerpt from a decoded prefix of about this many bytes, not from its whole text (results are
#: often megabytes; below that the whole decodes as fast)
PREFIX_BYTES = 512


PREFIX_FROM = 2048


def _prefix_text(raw: msgspec.Raw) -> str | None:
    """The text of about the first :data:`PREFIX_BYTES` of ``raw`` (a JSON string longer than
    that), cut before any escape sequence near the cut and at a UTF-8 character boundary;
    ``None`` when that prefix does not decode or ends in half a surrogate pair (the caller then
    decodes the whole)."""
    buf = bytes(memoryview(raw)[: PREFIX_BYTES + 1])  # type: ignore[arg-type]
    cut = PREFIX_BYTES
    # an escape is at most 6 bytes (12 for a surrogate pair): cut before the first backslash
    # of the last 12 bytes, and before the backslashes right before it (``\\`` is one escape)
    j = buf.find(b"\\", cut - 12, cut)
    if j >= 0:
        cut = j
        while cut > 1 and buf[cut - 1] == 92:
            cut -= 1
    while cut > 1 and buf[cut] & 0xC0 == 0x80:  # a UTF-8 continuation byte: not a boundary
        cut -= 1
    try:
        s = _str_decoder.decode(buf[:cut] + b'"')
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if s and "\ud800" <= s[-1] <= "\udfff":
        return None  # half of a surrogate pair: the whole text has the pair there
    return s


def result_excerpt(content: Any, limit: int = 80) -> str:
    """``excerpt_of(result_text(content), limit)``, the same characters, without decoding the
    whole of a long string content: its excerpt comes from a decoded prefix when that prefix
    holds more than ``limit`` characters after leading whitespace (then the whole text does too,
    and its excerpt is the prefix's first ``limit - 1`` characters and an ellipsis)."""
    if type(content) is msgspec.Raw and content:
        quoted = memoryview(content)[0] == 34  # type: ignore[arg-type]
        if quoted and len(content) > PREFIX_FROM:
            head = _prefix_text(content)
            if head is not None:
                s = head.lstrip()
                if len(s.rstrip()) > limit:
                    return (s[: limit - 1] + "…").replace("\r", " ").replace("\n", " ").replace("\t", " ")
        elif quoted:  # a string: its text is the string (what ``result_text`` gives it)
            try:
                return excerpt_of(_str_decoder.decode(content), limit)
            except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
                pass
    return excerpt_of(result_text(content), limit)


#: a tool_result's string content of more than this many bytes of JSON gets its tail from a
#: decoded suffix (:func:`result_tail`), not from its whole text
TAIL_FROM = 32768


def result_tail(content: Any, chars: int) -> str:
    """``result_text(content)[-chars:]``, the same characters, without decoding the whole of a
    long string content: its end is decoded from a literal space byte onwards (in JSON a space
    byte is always a space character: never part of an escape sequence nor of a multi-byte
    UTF-8 character, so the characters from there on are the whole text's), taking more of the
    end until the suffix holds ``chars`` characters. Anything unusual (no space near the cut,
    undecodable bytes, a lone surrogate) decodes the whole, as ``result_text`` does."""
    if type(content) is msgspec.Raw and len(content) > TAIL_FROM:
        mv = memoryview(content)  # type: ignore[arg-type]
        n = len(mv)
        if mv[0] == 34 and mv[n - 1] == 34:
            take = 2 * chars + 64
            while take < n // 2:
                start = n - take
                sp = bytes(mv[start : start + 256]).find(b" ")
                if sp < 0 or mv[start + sp - 1] == 92:  # none near, or after a backslash
                    break
                try:
                    s = _str_decoder.decode(b'"' + bytes(mv[start + sp :]))
                except (msgspec.DecodeError, msgspec.ValidationError):
                    break
                if len(s) >= chars:
                    t = s[-chars:]
                    try:
                        t.encode("utf-8")  # no lone surrogate (the whole text's would be scrubbed)
                    except UnicodeEncodeError:
                        break
                    return t
                take *= 4
    return result_text(content)[-chars:]


def decode_any(raw: msgspec.Raw | bytes | None) -> Any:
    """Decode a raw JSON value into Python objects; ``None`` when absent or undecodable. A value
    that is not raw bytes (decoded already, with its block) is returned as is."""
    if type(raw) is not msgspec.Raw and not isinstance(raw, (bytes, bytearray, memoryview)):
        return raw
    if not raw:
        return None
    try:
        return _any_decoder.decode(raw)
    except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
        try:
            return scrub(json.loads(bytes(raw).decode("utf-8", "surrogateescape")))
        except (ValueError, RecursionError):
            return None
