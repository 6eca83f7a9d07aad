"""Claude Code subagent files whose session's transcript is gone (deleted, rotated).

2.1.x layout (transcript-format.md §1): ``<project>/<session-id>/subagents/**/agent-*.jsonl``
with no ``<project>/<session-id>.jsonl`` beside the folder: the session is listed under its id
by its first subagent file (discover.py ``list_sessions``), the other files its subagent files.
2.0.x layout: ``agent-*.jsonl`` siblings in the project folder, their first record naming the
session: :func:`only_subagent_files` says so when such a session is asked for by id.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Union

import msgspec

from tracetui.ingest.files import is_regular, open_regular
from tracetui.ingest.first_line import decode_first_line

__all__ = [
    "is_agent_file",
    "agent_siblings",
    "named_session_id",
    "orphan_files",
    "orphan_folder",
    "orphan_session",
    "only_subagent_files",
    "first_session_id",
]


def is_agent_file(p: Path) -> bool:
    """Whether ``p`` is named like a subagent transcript (``agent-*.jsonl``)."""
    return p.name.startswith("agent-") and p.suffix == ".jsonl"


#: a project folder -> (its mtime in ns, the names of its ``agent-*.jsonl`` entries): the 2.0.x
#: siblings every session of the folder looks among (``subagent_files``), listed once while the
#: folder is unchanged, not once a session (5,000 sessions in a folder: 50 million entries
#: read, 49 s for ``sessions``, sixth user trial)
_siblings: dict[str, tuple[int, tuple[str, ...]]] = {}
#: seconds within which a folder's mtime may not yet show an entry added since (coarse clocks
#: of some file systems): such a folder is listed again
_RACY = 2.0


def agent_siblings(folder: Path) -> list[Path]:
    """The regular ``agent-*.jsonl`` files in ``folder`` (not below it), sorted; ``[]`` when it
    cannot be read. The listing is kept while the folder's mtime stays (older than
    :data:`_RACY` seconds): a file added or removed changes it."""
    key = os.fspath(folder)
    try:
        st = os.stat(key)
    except OSError:
        return []
    got = _siblings.get(key)
    if got is None or got[0] != st.st_mtime_ns or time.time() - st.st_mtime < _RACY:
        try:
            with os.scandir(key) as it:
                names = tuple(sorted(e.name for e in it if e.name.startswith("agent-") and e.name.endswith(".jsonl")))
        except OSError:
            return []
        if len(_siblings) >= 4096:
            _siblings.clear()
        got = _siblings[key] = (st.st_mtime_ns, names)
    return [p for p in (folder / n for n in got[1]) if is_regular(p)]


def orphan_files(folder: Path) -> list[Path]:
    """The subagent files (regular ``agent-*.jsonl``) under ``<folder>/subagents``, sorted;
    ``[]`` when there is none or the folder cannot be read."""
    sub = folder / "subagents"
    try:
        if not sub.is_dir():
            return []
        return sorted(p for p in sub.rglob("agent-*.jsonl") if is_regular(p))
    except OSError:
        return []


def orphan_session(folder: Path) -> tuple[Path, int, float] | None:
    """``(first file, bytes of all its files, newest modification time in epoch seconds)`` of
    the session folder ``<project>/<session-id>/`` when it holds subagent files, else
    ``None``. The caller has checked that ``<session-id>.jsonl`` is not there."""
    if folder.suffix == ".jsonl":
        return None
    files = orphan_files(folder)
    stats = []
    for p in files:
        try:
            stats.append(p.stat())
        except OSError:
            continue
    if not stats:
        return None
    return files[0], sum(st.st_size for st in stats), max(st.st_mtime for st in stats)


def orphan_folder(main: Path) -> Path | None:
    """The ``<session-id>/`` folder when ``main`` is a subagent file under its ``subagents/``
    and that session's transcript ``<session-id>.jsonl`` is not there, else ``None`` (decided
    by the path: one ``stat``)."""
    if not is_agent_file(main):
        return None
    for folder in main.parents:
        if folder.name == "subagents":
            top = folder.parent
            return None if (top.parent / (top.name + ".jsonl")).exists() else top
    return None


def only_subagent_files(ident: str, root: Path) -> str | None:
    """One line saying so when ``ident`` is the id (or a prefix) of a session of which only
    subagent files are left beside each other (``agent-*.jsonl`` of the 2.0.x layout, the
    session's transcript gone): ``report`` lists such a session by the id its files carry;
    ``None`` otherwise. Reads the first line of each such file under ``root``."""
    try:
        projects = [d for d in root.iterdir() if d.is_dir()]
    except OSError:
        return None
    found: dict[str, list[Path]] = {}
    for proj in projects:
        try:
            agents = sorted(p for p in proj.iterdir() if is_agent_file(p) and is_regular(p))
        except OSError:
            continue
        for p in agents:
            sid = first_session_id(p)
            if sid is not None and sid.startswith(ident):
                found.setdefault(sid, []).append(p)
    if len(found) != 1:
        return None
    sid, files = next(iter(found.items()))
    return (
        f"session {sid} has no transcript of its own under {root}, only {len(files)} subagent file(s) beside each other"
        f" ({files[0].parent}); fold one by its path: tracetui state {files[0]}"
    )


class _First(msgspec.Struct):
    """Of a first record, the one field read (the others are skipped by the decoder)."""

    sessionId: Union[str, None] = None  # noqa: N815 - the transcript's name


_first = msgspec.json.Decoder(_First)
#: ``(path, device, inode) -> (its first bytes, session id)`` of first lines read to their end:
#: a transcript only grows, so its first line, read once, is not read again (the hook and every
#: discovery ask); those bytes (the first :data:`_HEAD`, and on past the id), read again, tell
#: a file rewritten in place
_seen: dict[tuple[str, int, int], tuple[bytes, Union[str, None]]] = {}
_HEAD = 128


def first_session_id(p: Path) -> str | None:
    """The ``sessionId`` of ``p``'s first record, ``None`` when it has none or cannot be read
    (a complete first line is decoded once per file: cached by path, device and inode, checked
    against its first :data:`_HEAD` bytes)."""
    try:
        with open_regular(p) as f:
            st = os.fstat(f.fileno())
            key = (str(p), st.st_dev, st.st_ino)
            hit = _seen.get(key)
            if hit is not None:
                if f.read(len(hit[0])) == hit[0]:
                    return hit[1]
                f.seek(0)
            line = f.readline(1 << 20)
    except OSError:
        return None
    try:  # read as the fold reads it: a byte order mark, an escaped lone surrogate
        sid = decode_first_line(_first, line).sessionId
    except (msgspec.DecodeError, RecursionError):
        sid = None
    if line.endswith(b"\n"):
        if len(_seen) > 100_000:
            _seen.clear()
        # the bytes kept run past the id itself (a rewrite that keeps a long ``cwd`` but names
        # another session is told too)
        sb = sid.encode("utf-8", "surrogatepass") if sid else b""
        at = line.find(sb) if sb else -1
        _seen[key] = (line[: max(_HEAD, at + len(sb) + 1)], sid)
    return sid


#: lines :func:`named_session_id` reads at most (records before the first with a ``sessionId``:
#: a file-history snapshot, a summary)
_NAMED_LINES = 50


def named_session_id(p: Path) -> str | None:
    """The ``sessionId`` of the first of ``p``'s first :data:`_NAMED_LINES` records that carries
    one (a transcript may open with a ``file-history-snapshot`` or a ``summary`` that carries
    none): the id its session is shown under. ``None`` when none does or ``p`` cannot be read."""
    sid = first_session_id(p)
    if sid is not None:
        return sid
    try:
        with open_regular(p) as f:
            for _ in range(_NAMED_LINES):
                line = f.readline(1 << 20)
                if not line:
                    break
                try:
                    sid = _first.decode(line).sessionId
                except (msgspec.DecodeError, RecursionError):
                    continue
                if sid:
                    return sid
    except OSError:
        return None
    return None
