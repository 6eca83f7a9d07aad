"""Find OpenAI Codex CLI rollouts on disk, and a parent rollout's child rollouts.

Layout (codex-format.md, "Where the files are"): ``$CODEX_HOME`` (default ``~/.codex``)
``/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl``, and ``archived_sessions/``
(flat). A file is a rollout when its first record is a ``session_meta`` with a thread id, whatever
its name; only that first line is read, and what it says is cached per file.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from tracetui.ingest.files import open_regular

__all__ = [
    "RolloutMeta",
    "codex_dir",
    "codex_trees",
    "rollout_meta",
    "is_rollout",
    "rollouts",
    "child_rollouts",
    "child_places",
]

#: a first line longer than this is read no further: no rollout (its ``base_instructions``
#: make the ``session_meta`` line ~20-30 KB in Codex CLI 0.118-0.139)
FIRST_LINE_MAX = 4 << 20


@dataclass(frozen=True)
class RolloutMeta:
    """What a rollout's first record (``session_meta``) says: the thread id, the working folder
    (``""`` when absent), the parent's thread id for a child rollout (``source.subagent.
    thread_spawn.parent_thread_id``, else ``forked_from_id``; ``None`` for a top-level session),
    and the record's ``timestamp`` as written (RFC 3339, ``""`` when absent)."""

    thread_id: str
    cwd: str
    parent_id: str | None
    timestamp: str


class _Payload(msgspec.Struct):
    id: str | None = None
    cwd: str | None = None
    timestamp: str | None = None
    forked_from_id: str | None = None
    source: msgspec.Raw = msgspec.Raw(b"null")


class _Line(msgspec.Struct):
    type: str | None = None
    payload: _Payload | None = None


_LINE = msgspec.json.Decoder(_Line)
_ANY = msgspec.json.Decoder()


def codex_dir() -> Path:
    """``$CODEX_HOME`` if set (and not empty), else ``~/.codex``."""
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else Path.home() / ".codex"


def codex_trees(home: Path | None = None) -> tuple[Path, Path]:
    """The two folders that hold rollouts: ``(<home>/sessions, <home>/archived_sessions)``
    (``home`` defaults to :func:`codex_dir`)."""
    home = home or codex_dir()
    return home / "sessions", home / "archived_sessions"


def _parent_of(source: msgspec.Raw) -> str | None:
    if not bytes(source).lstrip().startswith(b"{"):
        return None  # "cli", "exec", … : no parent
    try:
        obj = _ANY.decode(source)
    except msgspec.DecodeError:
        return None
    if not isinstance(obj, dict):
        return None
    spawn = obj.get("subagent")
    spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
    pid = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    return pid if isinstance(pid, str) and pid else None


def parse_first_line(line: bytes) -> RolloutMeta | None:
    """The :class:`RolloutMeta` of a rollout's first line (bytes, without or with its newline;
    a UTF-8 byte order mark is skipped), or ``None`` when it is no ``session_meta`` record
    with a string ``payload.id``. Never raises."""
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    try:
        rec = _LINE.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    p = rec.payload
    if rec.type != "session_meta" or p is None or not p.id:
        return None
    parent = _parent_of(p.source) or p.forked_from_id or None
    return RolloutMeta(p.id, p.cwd or "", parent, p.timestamp or "")


#: path -> (stamp, length, meta): a file's first line is read once. A first line that is whole
#: (it ends in a newline, parses, or passed :data:`FIRST_LINE_MAX`) cannot change while the file
#: grows, so its stamp is the file's identity (device, inode) and it holds while the file is at
#: least ``length`` bytes long (a Claude Code transcript's first line is read once too, not on
#: every poll); a first line still being written (or none yet) is read again when the file's
#: size or modification time changes.
_CACHE: dict[Path, tuple[tuple[int, ...], int, RolloutMeta | None]] = {}
_CACHE_LOCK = threading.Lock()


def _meta_for(p: Path, st: os.stat_result) -> RolloutMeta | None:
    ident = (st.st_dev, st.st_ino)
    full = (*ident, st.st_size, st.st_mtime_ns)
    with _CACHE_LOCK:
        hit = _CACHE.get(p)
    if hit is not None and (hit[0] == full or (hit[0] == ident and st.st_size >= hit[1])):
        return hit[2]
    try:
        with open_regular(p) as f:
            line = f.readline(FIRST_LINE_MAX)
    except OSError:
        return None
    meta = parse_first_line(line)
    whole = meta is not None or line.endswith(b"\n") or len(line) >= FIRST_LINE_MAX
    with _CACHE_LOCK:
        if len(_CACHE) > 100_000:  # a bound for a very long-running monitor; refilled on demand
            _CACHE.clear()
        _CACHE[p] = (ident if whole else full, len(line), meta)
    return meta


def rollout_meta(path: Path) -> RolloutMeta | None:
    """The first record of ``path`` when it is a Codex rollout's ``session_meta``, else
    ``None`` (also for a missing or unreadable file, or one that is not a regular file, which is
    never opened). Reads the first line at most once per file (cached)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return _meta_for(Path(path), st)


def is_rollout(path: Path) -> bool:
    """``True`` when ``path``'s first record is a Codex ``session_meta`` (:func:`rollout_meta`)."""
    return rollout_meta(path) is not None


def _walk(top: Path, since: tuple[str, ...] = ()) -> Iterator[tuple[Path, os.stat_result]]:
    """Every regular ``*.jsonl`` under ``top`` with its stat; with ``since`` (the date folders
    of a rollout, ``("2026", "03", "02")``), folders named before it are skipped."""
    stack: list[tuple[Path, tuple[str, ...]]] = [(top, ())]
    while stack:
        d, rel = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir():
                    sub = (*rel, e.name)
                    if since and sub < since[: len(sub)]:
                        continue
                    stack.append((Path(e.path), sub))
                elif e.name.endswith(".jsonl"):
                    st = e.stat()
                    if stat.S_ISREG(st.st_mode):
                        yield Path(e.path), st
            except OSError:
                continue


def rollouts(home: Path | None = None) -> list[tuple[Path, os.stat_result, RolloutMeta]]:
    """Every rollout under ``<home>/sessions`` and ``<home>/archived_sessions`` (``home``:
    :func:`codex_dir`), child rollouts included, in no particular order, as ``(path, stat,
    meta)``. Missing folders give an empty list; files whose first record is no
    ``session_meta`` (a torn or other first line) are left out."""
    out = []
    for top in codex_trees(home):
        for p, st in _walk(top):
            meta = _meta_for(p, st)
            if meta is not None:
                out.append((p, st, meta))
    return out


def _home_of(main: Path) -> Path:
    """The Codex home holding ``main`` (the folder above its ``sessions`` or
    ``archived_sessions``), else :func:`codex_dir`."""
    for parent in Path(main).absolute().parents:
        if parent.name in ("sessions", "archived_sessions"):
            return parent.parent
    return codex_dir()


def _date_of(main: Path, sessions: Path) -> tuple[str, ...]:
    try:
        rel = Path(main).absolute().relative_to(sessions.absolute()).parts[:-1]
    except ValueError:
        return ()
    return tuple(rel[:3])


def child_rollouts(main: Path) -> list[tuple[Path, RolloutMeta]]:
    """The child rollouts of the rollout ``main`` (subagents and forks, and theirs in turn),
    sorted by path, as ``(path, meta)``: the rollouts of ``main``'s Codex home whose
    ``session_meta`` names ``main``'s thread id, or a child's, as parent. Under ``sessions/``
    only date folders from ``main``'s own on are looked in (a child starts after its parent);
    ``archived_sessions/`` always. ``[]`` when ``main`` is no rollout."""
    meta = rollout_meta(main)
    if meta is None:
        return []
    sessions, archived = codex_trees(_home_of(main))
    by_parent: dict[str, list[tuple[Path, RolloutMeta]]] = {}
    for top, since in ((sessions, _date_of(main, sessions)), (archived, ())):
        for p, st in _walk(top, since):
            m = _meta_for(p, st)
            if m is not None and m.parent_id:
                by_parent.setdefault(m.parent_id, []).append((p, m))
    me = Path(main).absolute()
    found: dict[Path, tuple[Path, RolloutMeta]] = {}
    todo, seen = [meta.thread_id], {meta.thread_id}
    while todo:
        for p, m in by_parent.get(todo.pop(), ()):
            if p.absolute() != me and p not in found:
                found[p] = (p, m)
                if m.thread_id not in seen:
                    seen.add(m.thread_id)
                    todo.append(m.thread_id)
    return [found[p] for p in sorted(found)]


def child_places(main: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Where new child rollouts of ``main`` can appear, for a file watcher: ``(trees, globs)``:
    the ``sessions/`` tree of its Codex home (new date folders appear there) and
    ``archived_sessions/*.jsonl``. See :func:`child_rollouts`."""
    sessions, archived = codex_trees(_home_of(main))
    return [sessions], [(archived, "*.jsonl")]
