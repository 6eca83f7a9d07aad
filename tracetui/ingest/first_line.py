"""Whether a file starts as a transcript does: its first line a JSON object with a ``type``.

Used where no session was named and a folder's newest ``*.jsonl`` is taken for a session
(``tracetui``, ``state``, ``--all``): a stray file (empty, random bytes, text, another format's
JSON values) is passed over there. A file named explicitly is folded and refused with one line
by the reader instead. Only the first line is read, at most :data:`SNIFF_BYTES` of it.

Every reader of a first line (this one, a Claude Code file's ``sessionId``, a Codex rollout's
``session_meta``) decodes it with :func:`decode_first_line`, so a line the fold reads as a record
(a byte order mark before it, an escaped lone surrogate in it) is one everywhere.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from tracetui.ingest.files import open_regular
from tracetui.ingest.repair import repair

__all__ = ["opens_a_transcript", "decode_first_line", "decode_repaired", "SNIFF_BYTES", "BOM"]

T = TypeVar("T")

#: the UTF-8 byte order mark some editors write at the start of a file (``decode.BOM``)
BOM = b"\xef\xbb\xbf"

#: bytes read from the start of a file to judge its first line
SNIFF_BYTES = 1 << 16
#: bytes read first (most first lines are shorter; the session lists judge every file)
FIRST_READ = 1 << 12

_any = msgspec.json.Decoder()
#: files whose complete first line was a record: ``(path, device, inode)``; a transcript only
#: grows, so its first line stays what it was
_known: set[tuple[str, int, int]] = set()


def decode_first_line(decoder: msgspec.json.Decoder[T], line: bytes) -> T:
    """``decoder.decode(line)`` of a file's first line (bytes, with or without its newline) as
    the fold reads it (``FileFold.feed_line``, ``decode_line``): a UTF-8 byte order mark at its
    start is no part of the record, and bytes msgspec rejects (invalid UTF-8, an escaped lone
    surrogate such as ``"\\ud800"``) are read with U+FFFD in their place (``repair.repair``).
    Raises what ``decoder.decode`` raises (``msgspec.DecodeError``, ``msgspec.ValidationError``,
    ``RecursionError``) when the line is no JSON even so (cut short, not JSON at all)."""
    return _decode_repaired(decoder, line[3:] if line.startswith(BOM) else line)


def decode_repaired(decoder: msgspec.json.Decoder[T], line: bytes) -> T:
    """``decoder.decode(line)`` of any line of a file as the fold reads it: bytes msgspec rejects
    (invalid UTF-8, an escaped lone surrogate) read with U+FFFD in their place; a byte order mark
    is kept (it starts a record only at the start of the file: :func:`decode_first_line`).
    Raises what ``decoder.decode`` raises when the line is no JSON even so."""
    return _decode_repaired(decoder, line)


def _decode_repaired(decoder: msgspec.json.Decoder[T], line: bytes) -> T:
    try:
        return decoder.decode(line)
    except msgspec.DecodeError:
        fixed = repair(line)
        if fixed is None:
            raise
    return decoder.decode(fixed)


def _is_record(line: bytes) -> bool:
    try:  # the mark is taken off by the caller, at the start of the file only
        obj: Any = _decode_repaired(_any, line)
    except (msgspec.DecodeError, RecursionError):
        return False
    return isinstance(obj, dict) and isinstance(obj.get("type"), str)


def opens_a_transcript(path: Path) -> bool:
    """``True`` when the first line of ``path`` (a byte order mark at the start of the file and
    leading blank lines skipped; read by :func:`decode_first_line`) is a JSON object
    with a string ``type`` (every Claude Code record and a rollout's ``session_meta``), or
    when that line is longer than :data:`SNIFF_BYTES` or not written to its end yet and so far
    reads as the start of one (``{`` then UTF-8 text). ``False`` for an empty, binary or other
    file, a file that cannot be opened, and one that is not a regular file. Never raises."""
    try:
        with open_regular(path) as f:
            st = os.fstat(f.fileno())
            key = (str(path), st.st_dev, st.st_ino)
            if key in _known:
                return True
            data = f.read(FIRST_READ)
            if len(data) == FIRST_READ and b"\n" not in data:  # a long first line: read on to SNIFF_BYTES
                data += f.read(SNIFF_BYTES - FIRST_READ)
    except OSError:
        return False
    if data.startswith(BOM):  # at the start of the file only, as the fold takes it
        data = data[3:]
    data = data.lstrip(b" \t\r\n")
    nl = data.find(b"\n")
    if nl >= 0:
        ok = _is_record(data[:nl].rstrip(b"\r"))
        if ok:
            _known.add(key)
        return ok
    if _is_record(data):
        return True
    if data[:1] != b"{":
        return False
    try:  # an unfinished first line: text so far (a character cut at the end is no proof of bytes)
        data[:-4].decode("utf-8") if len(data) > 4 else data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in data
