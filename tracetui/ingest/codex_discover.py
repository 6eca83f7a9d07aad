"""Find OpenAI Codex CLI rollouts on disk, and a parent rollout's child rollouts.

Layout (codex-format.md, "Where the files are"): ``$CODEX_HOME`` (default ``~/.codex``)
``/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl``, and ``archived_sessions/``
(flat). A file is a rollout when its first record is a ``session_meta`` with a thread id, whatever
its name; only that first line is read, and what it says is cached per file. A thread found in
several files (a rollout and its copies) is read from one of them (:func:`copy_rank`).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from tracetui.ingest.codex_copies import copy_rank, one_each
from tracetui.ingest.files import open_regular
from tracetui.ingest.first_line import decode_first_line

__all__ = [
    "RolloutMeta",
    "codex_dir",
    "codex_trees",
    "rollout_meta",
    "is_rollout",
    "rollout_role",
    "rollouts",
    "copy_rank",
    "session_tops",
    "PARENT_MISSING",
    "FORK_CYCLE",
    "child_rollouts",
    "child_places",
    "home_of",
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
    #: what the rollout is when its ``source`` says it is a subagent's but names no parent
    #: (``{"subagent": "review"}``, written by ``codex review``): that word (``"review"``), or
    #: ``"subagent"`` for another shape; ``""`` for a top-level session and for a child whose
    #: parent is named (codex-format.md, "Subagents and forks", says how those are linked; it
    #: says of no link for these, so they stay sessions of their own, labelled)
    role: str = ""


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


#: characters of a ``source.subagent`` word kept as a role (it is file text)
ROLE_CHARS = 24


def _source_of(source: msgspec.Raw) -> tuple[str | None, str]:
    """``(parent thread id, role)`` of a ``session_meta.source`` (see :class:`RolloutMeta`)."""
    if not bytes(source).lstrip().startswith(b"{"):
        return None, ""  # "cli", "exec", … : a session of its own
    try:
        obj = _ANY.decode(source)
    except msgspec.DecodeError:
        return None, ""
    if not isinstance(obj, dict) or "subagent" not in obj:
        return None, ""
    sub = obj["subagent"]
    if isinstance(sub, str) and sub.strip():
        return None, " ".join(sub.split())[:ROLE_CHARS]
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    pid = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    if isinstance(pid, str) and pid:
        return pid, ""
    return None, "subagent"


def parse_first_line(line: bytes) -> RolloutMeta | None:
    """The :class:`RolloutMeta` of a rollout's first line (bytes, without or with its newline;
    read as the fold reads it: :func:`~tracetui.ingest.first_line.decode_first_line`, a UTF-8
    byte order mark skipped, an escaped lone surrogate read as U+FFFD), or ``None`` when it is
    no ``session_meta`` record with a string ``payload.id``. Never raises."""
    try:
        rec = decode_first_line(_LINE, line)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    p = rec.payload
    if rec.type != "session_meta" or p is None or not p.id:
        return None
    parent, role = _source_of(p.source)
    parent = parent or p.forked_from_id or None
    return RolloutMeta(p.id, p.cwd or "", parent, p.timestamp or "", "" if parent else role)


#: path -> (stamp, length, meta): a file's first line is read once. A first line that is whole
#: (it ends in a newline, parses, or passed :data:`FIRST_LINE_MAX`) cannot change while the file
#: grows, so its stamp is the file's identity (device, inode) and it holds while the file is at
#: least ``length`` bytes long (a Claude Code transcript's first line is read once too, not on
#: every poll); a first line still being written (or none yet) is read again when the file's
#: size or modification time changes.
_CACHE: dict[str, tuple[tuple[int, ...], int, RolloutMeta | None]] = {}
_CACHE_LOCK = threading.Lock()


def _meta_for(p: str, st: os.stat_result) -> RolloutMeta | None:
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
    return _meta_for(os.fspath(path), st)


def rollout_role(path: Path) -> str:
    """The :attr:`RolloutMeta.role` of rollout ``path`` (``"review"``, ``"subagent"``), ``""``
    for a top-level session or when ``path`` is no rollout. Reads the first line at most once."""
    meta = rollout_meta(path)
    return meta.role if meta is not None else ""


def is_rollout(path: Path) -> bool:
    """``True`` when ``path``'s first record is a Codex ``session_meta`` (:func:`rollout_meta`)."""
    return rollout_meta(path) is not None


#: folder -> (modification time in ns, its subfolders, its ``*.jsonl`` names): a folder's
#: entries change only with its modification time, so an unchanged folder is not listed again
_DIRS: dict[str, tuple[int, tuple[str, ...], tuple[str, ...]]] = {}
#: a folder modified this recently (ns) is listed again anyway: on a file system with a coarse
#: clock a file created in the same tick as the last listing leaves the time unchanged
RACY_NS = 2_000_000_000


def _listing(d: str) -> tuple[tuple[str, ...], tuple[str, ...], bool] | None:
    """``(subfolders, *.jsonl names, listed_now)`` of folder ``d``, ``None`` when it cannot be
    read; ``listed_now`` is false when the cached listing still holds."""
    try:
        m = os.stat(d).st_mtime_ns
    except OSError:
        return None
    with _CACHE_LOCK:
        hit = _DIRS.get(d)
    if hit is not None and hit[0] == m and time.time_ns() - m > RACY_NS:
        return hit[1], hit[2], False
    subs: list[str] = []
    files: list[str] = []
    try:
        with os.scandir(d) as it:
            for e in it:
                try:
                    # a folder's symlink is not followed (as the Claude Code walk): a link back up
                    # the tree listed every rollout once per turn of the loop
                    if e.is_dir(follow_symlinks=False):
                        subs.append(e.name)
                    elif e.name.endswith(".jsonl"):
                        files.append(e.name)
                except OSError:
                    continue
    except OSError:
        return None
    with _CACHE_LOCK:
        if len(_DIRS) > 100_000:
            _DIRS.clear()
        _DIRS[d] = (m, tuple(subs), tuple(files))
    return tuple(subs), tuple(files), True


def _walk(top: Path, since: tuple[str, ...] = ()) -> Iterator[tuple[str, bool]]:
    """Every ``*.jsonl`` name under ``top`` (not yet stat'ed), with whether its folder was
    listed again now (:func:`_listing`); with ``since`` (the date folders of a rollout,
    ``("2026", "03", "02")``), folders named before it are skipped."""
    # paths are strings here: pathlib's joins and hashes were most of a listing's time
    stack: list[tuple[str, tuple[str, ...]]] = [(os.fspath(top), ())]
    while stack:
        d, rel = stack.pop()
        got = _listing(d)
        if got is None:
            continue
        subs, files, fresh = got
        for name in subs:
            sub = (*rel, name)
            if not (since and sub < since[: len(sub)]):
                stack.append((os.path.join(d, name), sub))
        for name in files:
            yield os.path.join(d, name), fresh


def _stat_meta(p: str) -> tuple[os.stat_result, RolloutMeta | None] | None:
    try:
        st = os.stat(p)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return st, _meta_for(p, st)


def rollouts(home: Path | None = None) -> list[tuple[Path, os.stat_result, RolloutMeta]]:
    """Every rollout under ``<home>/sessions`` and ``<home>/archived_sessions`` (``home``:
    :func:`codex_dir`), child rollouts included, one file per thread id (:func:`copy_rank`: a
    thread found in several files, a rollout and its copies, is read from one), in no
    particular order, as ``(path, stat, meta)``. Missing folders give an empty list; files
    whose first record is no ``session_meta`` (a torn or other first line), and special files,
    are left out."""
    out = []
    for archived, top in enumerate(codex_trees(home)):
        for p, _fresh in _walk(top):
            got = _stat_meta(p)
            if got is not None and got[1] is not None:
                out.append((p, bool(archived), got[0], got[1]))
    keep = one_each([(p, a, m.thread_id) for p, a, _st, m in out])
    return [(Path(p), st, m) for p, _a, st, m in out if p in keep]


#: why a child rollout is a session of its own (:func:`session_tops`): the parent thread its
#: ``session_meta`` names has no rollout under the Codex home (deleted, or kept in another home)
PARENT_MISSING = "parent missing"
#: ... or its parent chain loops back (rollouts forked from each other, or from themselves)
FORK_CYCLE = "fork cycle"


def session_tops(found: list[tuple[Path, os.stat_result, RolloutMeta]]) -> dict[str, tuple[str, str]]:
    """The session of every thread of ``found`` (:func:`rollouts`' list): thread id ->
    ``(top thread id, why)``. The top is the thread at the head of its parent chain: a
    top-level rollout's (``why`` ``""``); when the chain ends at a parent with no rollout in
    ``found``, the last thread on disk (``why`` :data:`PARENT_MISSING`); when it loops back,
    the loop's thread whose rollout comes first (in ``sessions/`` before ``archived_sessions/``,
    then by path: its date folder is the earliest, which :func:`child_rollouts` looks from;
    ``why`` :data:`FORK_CYCLE`). A thread that is its own top is a session; every other thread
    is a child rollout of its top's session. A thread in several files takes a top-level
    rollout's first record when it has one. Pure; linear in ``len(found)``."""
    meta: dict[str, RolloutMeta] = {}
    first: dict[str, tuple[bool, str]] = {}
    for p, _st, m in found:
        if m.thread_id not in meta or (m.parent_id is None and meta[m.thread_id].parent_id is not None):
            meta[m.thread_id] = m
        text = os.fspath(p)
        key = (os.sep + "archived_sessions" + os.sep in text, text)
        first[m.thread_id] = min(first.get(m.thread_id, key), key)
    tops: dict[str, tuple[str, str]] = {}
    for start in meta:
        chain: list[str] = []
        on: dict[str, int] = {}
        t: str | None = start
        while t is not None and t not in tops:
            m = meta.get(t)
            if m is None:  # the parent named by chain[-1] is not on disk
                top: tuple[str, str] = (chain[-1], PARENT_MISSING)
                break
            if t in on:  # the chain loops back to t: the loop is chain[on[t]:]
                loop = chain[on[t] :]
                top = (min(loop, key=lambda x: first[x]), FORK_CYCLE)
                break
            on[t] = len(chain)
            chain.append(t)
            t = m.parent_id
        else:
            top = (chain[-1], "") if t is None else tops[t]
        for x in chain:
            tops[x] = top
    return tops


def _settled(p: str) -> tuple[bool, RolloutMeta | None]:
    """``(True, meta)`` when ``p``'s first line was read whole (its cache entry holds while the
    file is not replaced), else ``(False, None)``."""
    with _CACHE_LOCK:
        hit = _CACHE.get(p)
    if hit is not None and len(hit[0]) == 2:
        return True, hit[2]
    return False, None


def home_of(main: Path) -> Path:
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
    ``archived_sessions/`` always; a child thread in several files is read from one
    (:func:`copy_rank`). ``[]`` when ``main`` is no rollout."""
    meta = rollout_meta(main)
    if meta is None:
        return []
    sessions, archived = codex_trees(home_of(main))
    kids: list[tuple[str, bool, RolloutMeta]] = []
    for top, since, old in ((sessions, _date_of(main, sessions), False), (archived, (), True)):
        for p, fresh in _walk(top, since):
            # a file of a folder whose entries did not change, its first line read whole: the
            # same file as last time (a replacement renames into the folder, which changes it)
            known, m = _settled(p) if not fresh else (False, None)
            if not known:
                got = _stat_meta(p)
                m = got[1] if got is not None else None
            if m is not None and m.parent_id:
                kids.append((p, old, m))
    keep = one_each([(p, old, m.thread_id) for p, old, m in kids])  # a child thread copied (into archived_sessions/, say) is read once
    by_parent: dict[str, list[tuple[str, RolloutMeta]]] = {}
    for p, _old, m in kids:
        if p in keep and m.parent_id:
            by_parent.setdefault(m.parent_id, []).append((p, m))
    me = os.path.abspath(main)
    found: dict[Path, tuple[Path, RolloutMeta]] = {}
    todo, seen = [meta.thread_id], {meta.thread_id}
    while todo:
        for p, m in by_parent.get(todo.pop(), ()):
            if os.path.abspath(p) != me and Path(p) not in found:
                found[Path(p)] = (Path(p), m)
                if m.thread_id not in seen:
                    seen.add(m.thread_id)
                    todo.append(m.thread_id)
    return [found[p] for p in sorted(found)]


def child_places(main: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Where new child rollouts of ``main`` can appear, for a file watcher: ``(trees, globs)``:
    the ``sessions/`` tree of its Codex home (new date folders appear there) and
    ``archived_sessions/*.jsonl``. See :func:`child_rollouts`."""
    sessions, archived = codex_trees(home_of(main))
    return [sessions], [(archived, "*.jsonl")]
