"""Closed tool calls found again in the stored ledger (``StoreLedger.find_call``).

A file fold keeps a tool call in memory while it is pending and for a while after
(``fold_tools.ToolHandlers._trim_calls``); a later tool_result or a repeated tool_use of a call
that left memory asks the ledger, whose ``tool_use`` event of that id holds the call: its id,
tool name, anchor, sequence number, timestamp and thread. The call's brief (the one-line summary
of its input) is the event's excerpt ``name(brief)`` when that excerpt is whole; when it was cut
(a long tool name), the record is read back from the transcript at the event's offset and the
brief made again from it, by the rule the fold used (``ingest.tools.brief_input``).

Only the events of the asking fold's own ledger are searched (row ids ``src << 40 | seq`` up to
its length): rows beyond it belong to another lineage of the file, as for every ledger read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec

from tracetui.ingest.content import decode_any
from tracetui.ingest.decode import Quarantined, decode_block, decode_line, decode_message, decode_record_fast
from tracetui.ingest.tools import brief_input
from tracetui.model.state import Anchor, Event, ToolCall
from tracetui.session.store.db import SRC_SHIFT

__all__ = ["find_call", "brief_of_excerpt", "brief_from_file"]

_FIND = (
    "SELECT id, line, offset, block, name, timestamp, sidechain, excerpt FROM events"
    " WHERE tool_use_id = ? AND kind = 'tool_use' AND id > ? AND id <= ? ORDER BY id LIMIT 1"
)
#: bytes read back at once when a record is read from the transcript
_READ = 1 << 16


def brief_of_excerpt(name: str, excerpt: str) -> str | None:
    """The brief in a tool_use event's excerpt ``name(brief)``, or ``None`` when the excerpt is
    not the whole of it: cut (it then ends with ``…``), or a name the excerpt rule changed (a
    leading space, a tab or newline in it). Briefs are single-line (``tools.one_line``), so a
    whole excerpt is exactly ``f"{name}({brief})"``."""
    if excerpt.endswith(")") and excerpt.startswith(name + "(") and not name[:1].isspace():
        return excerpt[len(name) + 1 : -1]
    return None


def brief_from_file(path: str, offset: int, block: int, name: str) -> str | None:
    """The brief of the tool_use at content block ``block`` of the record at byte ``offset``
    of ``path``, made as the fold made it, or ``None`` when it cannot be read back."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            parts = []
            while True:
                chunk = f.read(_READ)
                if not chunk:
                    break
                nl = chunk.find(b"\n")
                if nl >= 0:
                    parts.append(chunk[:nl])
                    break
                parts.append(chunk)
    except OSError:
        return None
    buf = b"".join(parts).rstrip(b"\r")
    rec: Any = None
    if buf[:1] == b"{" and buf[-1:] == b"}":
        try:
            rec = decode_record_fast(buf)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            rec = None
    if rec is None:
        for _rel, item, _payload in decode_line(buf):
            if not isinstance(item, Quarantined):
                rec = item
            break
    msg = decode_message(rec.message) if rec is not None else None
    if msg is None or not isinstance(msg.content, list) or not 0 <= block < len(msg.content):
        return None
    b = decode_block(msg.content[block])
    return brief_input(name, decode_any(b.input))


def find_call(link: Any, src: int, n: int, tid: str, path: str | None, mem: dict[str, Event] | None = None) -> ToolCall | None:
    """The call ``tid`` made by the first ``n`` events of source ``src`` (the fold's ledger),
    or ``None``; ``link`` (store/pool.py :class:`~tracetui.session.store.pool.Link`) is read
    holding its lock. ``path``: the source's transcript, read back
    for a brief the excerpt cut; ``mem``: the first tool_use event of each id among the events a
    failed write kept in memory (``Writer.mem_calls``, which the writer thread may be adding to:
    looked up, never walked)."""
    ev = mem.get(tid) if mem else None
    if ev is not None and ev.seq <= n:
        a = ev.anchor
        return call_of(src, ev.seq, a.line, a.offset, ev.block, ev.name or "?", tid, ev.timestamp, ev.sidechain, ev.excerpt, path)
    base = src << SRC_SHIFT
    try:
        with link.lock:
            row = link.get().execute(_FIND, (tid, base, base + n)).fetchone()
    except (sqlite3.Error, OSError):
        return None  # no tables (nothing could be written), or damaged: as a list ledger
    if row is None:
        return None
    rid, line, offset, block, name, ts, side, excerpt = row
    return call_of(src, rid & ((1 << SRC_SHIFT) - 1), line, offset, block, name or "?", tid, ts, bool(side), excerpt or "", path)


def call_of(
    src: int, seq: int, line: int, offset: int, block: int, name: str, tid: str, ts: str | None, side: bool, excerpt: str, path: str | None
) -> ToolCall:
    """The :class:`ToolCall` (without its result) a stored ``tool_use`` event stands for."""
    brief = brief_of_excerpt(name, excerpt)
    if brief is None and path is not None:
        brief = brief_from_file(path, offset, block, name)
    if brief is None:  # the transcript is gone: what the excerpt says of it
        brief = excerpt[len(name) + 1 :] if excerpt.startswith(name + "(") else excerpt
    return ToolCall(tid, name, brief, Anchor(src, line, offset), seq, ts, side)


@contextmanager
def open_calls_only(folds: list[Any]) -> Iterator[None]:
    """While inside, each fold whose ledger finds its closed calls again (the store's:
    ``events.find_call``) holds only its pending calls in ``calls``: what a save writes. The
    closed ones are rows of the ledger, found there when a late result or a repeated tool_use
    asks for them (``FileFold._find_call``, as for the calls ``_trim_calls`` lets go), so a warm
    reopen does not decode thousands of calls it may never need (8,119 ToolCalls, about 8 MiB,
    at 1 GB of the dense mix)."""
    kept = []
    for f in folds:
        calls = getattr(f, "calls", None)
        if isinstance(calls, dict) and getattr(f.events, "find_call", None) is not None:
            pending = f.pending
            kept.append((f, calls))
            f.calls = {tid: c for tid, c in calls.items() if tid in pending}
    try:
        yield
    finally:
        for f, calls in kept:
            f.calls = calls
