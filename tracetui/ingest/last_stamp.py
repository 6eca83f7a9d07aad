"""The ``timestamp`` of a transcript's last record that has one, read from the end of the file.

The session switcher judges a session's last activity by its file's modification time, and,
as the fleet does (``views/fleet.copied``), a file written long after its newest record is a
copy or a touch, not a write of the session. The fleet knows the newest record from the fold;
the switcher lists hundreds of files it has not folded, so it reads this: at most
:data:`TAIL_BYTES` from the end of each file, the complete lines there, newest first, until one
is a JSON object with a string ``timestamp`` (every Claude Code record and every Codex CLI
rollout line carries one). A torn last line is passed over, as the fold holds it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec

from tracetui.ingest.files import open_regular
from tracetui.ingest.first_line import decode_repaired

__all__ = ["last_stamp", "TAIL_BYTES"]

#: bytes read from the end of a file (lines longer than this are not read: ``None`` then)
TAIL_BYTES = 1 << 16


class _Stamped(msgspec.Struct):
    timestamp: Any = None


_decoder = msgspec.json.Decoder(_Stamped)


def last_stamp(path: str | os.PathLike[str] | Path, tail_bytes: int = TAIL_BYTES) -> str | None:
    """The ``timestamp`` text of the last complete line of ``path`` (within its last
    ``tail_bytes`` bytes) that is a JSON object with a string ``timestamp``; ``None`` when there
    is none there, or the file cannot be read or is not a regular file. The text is as written:
    the caller parses it (``tui/format.parse_ts``). Never raises."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            start = max(0, size - tail_bytes)
            f.seek(start)
            data = f.read(tail_bytes)
    except OSError:
        return None
    end = data.rfind(b"\n")  # what follows the last newline is a torn line: held, not read
    if end < 0:
        return None
    lines = data[:end].split(b"\n")
    if start > 0:
        lines = lines[1:]  # the first piece may be the end of a longer line
    for line in reversed(lines):
        line = line.strip()
        if not line.startswith(b"{"):
            continue
        try:
            ts = decode_repaired(_decoder, line).timestamp
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            continue
        if isinstance(ts, str) and ts:
            return ts
    return None
