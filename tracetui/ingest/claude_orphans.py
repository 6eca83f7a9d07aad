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
from tracetui.ingest.first_line import decode_first_line, decode_repaired

__all__ = [
    "is_agent_file",
    "agent_siblings",
    "agent_names",
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


#: a folder -> (its inode, its mtime in ns, when it was listed (ns since the epoch), the names of
#: its ``agent-*.jsonl`` entries, the names of its subfolders): the 2.0.x siblings every session
#: of a project folder looks among (``subagent_files``; 5,000 sessions in a folder: 50 million
#: entries read, 49 s for ``sessions``, sixth user trial) and the folders of a session's
#: ``subagents/`` tree (a fresh-user trial: 5,000 subagent files walked at every poll), each
#: listed once while it is unchanged
_listings: dict[str, tuple[int, int, int, tuple[str, ...], tuple[str, ...]]] = {}
#: seconds within which a folder's mtime may not yet show an entry added since (coarse clocks
#: of some file systems): a listing taken that soon after the folder's last change is taken again
_RACY = 2.0
_RACY_NS = int(_RACY * 1e9)
#: folders whose listing is kept at most (then every listing is taken again once)
_MAX_LISTINGS = 4096


def _listing(key: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``(agent-*.jsonl names, subfolder names)`` of the folder ``key``, each sorted (a
    subfolder: a folder entry that is not a symbolic link, as ``Path.rglob`` descends into);
    ``None`` when it cannot be read. One ``stat`` when the folder is unchanged (same inode and
    mtime) since a listing taken :data:`_RACY` seconds or more after its mtime: an entry added
    or removed since changes the mtime; one added in the same tick of a coarse clock as the
    listing does not, hence the margin."""
    try:
        st = os.stat(key)
    except OSError:
        return None
    got = _listings.get(key)
    if got is not None and got[0] == st.st_ino and got[1] == st.st_mtime_ns and got[2] - st.st_mtime_ns >= _RACY_NS:
        return got[3], got[4]
    listed_at = time.time_ns()
    agents: list[str] = []
    dirs: list[str] = []
    try:
        with os.scandir(key) as it:
            for e in it:
                name = e.name
                if name.startswith("agent-") and name.endswith(".jsonl"):
                    agents.append(name)
                try:
                    if e.is_dir(follow_symlinks=False):
                        dirs.append(name)
                except OSError:
                    pass
    except OSError:
        return None
    if len(_listings) >= _MAX_LISTINGS:
        _listings.clear()
    _listings[key] = (st.st_ino, st.st_mtime_ns, listed_at, tuple(sorted(agents)), tuple(sorted(dirs)))
    return _listings[key][3], _listings[key][4]


def agent_siblings(folder: Path) -> list[Path]:
    """The regular ``agent-*.jsonl`` files in ``folder`` (not below it), sorted; ``[]`` when it
    cannot be read. The listing is kept while the folder is unchanged (:func:`_listing`): a
    file added or removed changes its mtime."""
    got = _listing(os.fspath(folder))
    if got is None:
        return []
    return [p for p in (folder / n for n in got[0]) if is_regular(p)]


def agent_names(folder: str, tree: bool = False) -> list[str]:
    """The paths of the ``agent-*.jsonl`` entries in ``folder`` (a path's text as ``str(Path)``
    writes it), with ``tree`` in its subfolders too (not through symbolic links, as
    ``Path.rglob``), each as ``str(Path(folder) / name)`` writes it; of any kind (the caller
    checks that a new one is a regular file), unsorted; ``[]`` when ``folder`` cannot be read.
    Each folder is listed again only when it changed (:func:`_listing`): an unchanged tree of
    any size costs a ``stat`` per folder."""
    out: list[str] = []
    todo = [folder]
    while todo:
        d = todo.pop()
        got = _listing(d)
        if got is None:
            continue
        if d == ".":  # as ``str(Path(".") / name)`` writes it
            out.extend(got[0])
            if tree:
                todo.extend(got[1])
            continue
        out.extend(os.path.join(d, n) for n in got[0])
        if tree:
            todo.extend(os.path.join(d, n) for n in got[1])
    return out


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
    n = len(files)
    return (
        f"session {sid} has no transcript of its own under {root}, only {n} subagent file{'' if n == 1 else 's'} beside each other"
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
            for i in range(_NAMED_LINES):
                line = f.readline(1 << 20)
                if not line:
                    break
                try:  # each line as the fold reads it (an escaped lone surrogate, bad UTF-8)
                    sid = (decode_first_line if i == 0 else decode_repaired)(_first, line).sessionId
                except (msgspec.DecodeError, RecursionError):
                    continue
                if sid:
                    return sid
    except OSError:
        return None
    return None
