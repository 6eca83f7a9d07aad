"""The transcript files of a session (its subagent files) and of every session at once, on disk."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Container
from dataclasses import dataclass
from pathlib import Path

from tracetui.ingest import codex_discover
from tracetui.ingest.claude_orphans import agent_names, first_session_id, orphan_files, orphan_folder
from tracetui.ingest.claude_orphans import is_agent_file as _is_agent_file
from tracetui.ingest.discover import projects_dir
from tracetui.ingest.files import first_names, is_regular, open_regular, path_text

__all__ = [
    "SubagentFile",
    "subagent_files",
    "subagent_places",
    "TranscriptFile",
    "all_transcripts",
    "codex_transcripts",
]


@dataclass(frozen=True)
class SubagentFile:
    """A subagent transcript: path, agent id (from ``agent-<id>.jsonl``), and the Task/Agent
    tool_use id from its ``.meta.json`` where present."""

    path: Path
    agent_id: str
    tool_use_id: str | None


#: bytes of a ``.meta.json`` read at most
_META_BYTES = 1 << 20


def _meta_tool_use_id(p: Path) -> str | None:
    meta = p.with_name(p.name[: -len(".jsonl")] + ".meta.json")
    try:
        with open_regular(meta) as f:
            # as much as it holds (a read of 1 MiB allocated 1 MiB: 0.4 ms a small file)
            size = os.fstat(f.fileno()).st_size
            obj = json.loads(f.read(min(max(size, 4096), _META_BYTES)).decode("utf-8"))
    except (OSError, ValueError):
        return None
    tid = obj.get("toolUseId") if isinstance(obj, dict) else None
    return tid if isinstance(tid, str) else None


def subagent_files(main: Path, known: Container[str] = (), meta: bool = True) -> list[SubagentFile]:
    """The subagent transcripts of the session whose main transcript is ``main``, sorted by path.

    A file under ``subagents/`` whose first record names another session (neither the file
    name's nor the one the main transcript's first record carries) is left out: it is not
    this session's. A Codex rollout's are its child rollouts (:func:`~tracetui.ingest.codex_discover.child_rollouts`;
    ``agent_id`` is the child's thread id, which the parent's ``collab_agent_spawn_end`` names as
    ``new_thread_id``; no ``tool_use_id``). A Claude Code transcript's: looks in ``<dir>/<session-id>/subagents/**`` (2.1.x) and at ``agent-*.jsonl`` siblings whose
    first record carries this session's id (2.0.x). Inline sidechains need no file. A FIFO,
    socket or device named like a subagent file is left out (never opened). When ``main`` is
    itself a subagent file under ``<session-id>/subagents/`` and that session's transcript is
    gone (the session is listed by that file: :func:`~tracetui.ingest.discover.list_sessions`), its subagent files are
    the other files of that tree.

    ``known``: paths (``str(path)``) the caller has taken already, left out of a Claude Code
    session's files without a ``stat`` or a read, so that a reader asking again at every poll
    costs a ``stat`` per folder while its folders are unchanged (``claude_orphans.agent_names``),
    not a read of every file. Without ``meta`` no ``.meta.json`` is read (``tool_use_id`` is
    ``None``): for a caller that wants the paths only.
    """
    if codex_discover.is_rollout(main):
        return [SubagentFile(p, m.thread_id, None) for p, m in codex_discover.child_rollouts(main)]
    orphan = orphan_folder(main)
    if orphan is not None:  # the session's transcript is gone: its other subagent files
        me = main.absolute()
        return [
            SubagentFile(p, p.stem[len("agent-") :], _meta_tool_use_id(p) if meta else None)
            for p in orphan_files(orphan)
            if p.absolute() != me and str(p) not in known
        ]
    sid = main.stem
    found: dict[Path, SubagentFile] = {}
    sub = main.parent / sid / "subagents"
    own: str | None = None  # the session id the main transcript's records carry
    for name in agent_names(str(sub), tree=True):
        if name in known or not is_regular(name):
            continue
        p = Path(name)
        other = first_session_id(p)
        if other is not None and other != sid and own is None:
            own = first_session_id(main) or sid
        if other is not None and other != sid and other != own:
            # another session's subagent file put here: its figures are not this session's
            # (fourth user trial: its tokens, calls and folder were taken as this one's)
            continue
        found[p] = SubagentFile(p, p.stem[len("agent-") :], _meta_tool_use_id(p) if meta else None)
    for name in agent_names(str(main.parent)):
        if name in known or not is_regular(name):
            continue
        p = Path(name)
        if p not in found and first_session_id(p) == sid:
            found[p] = SubagentFile(p, p.stem[len("agent-") :], _meta_tool_use_id(p) if meta else None)
    return [found[p] for p in sorted(found)]


def subagent_places(main: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Where new subagent files of the session ``main`` can appear, for a file watcher:
    ``(trees, globs)``: the ``<session-id>/`` folder (its ``subagents/**``, 2.1.x), and
    ``agent-*.jsonl`` siblings in the project folder (2.0.x); for a Codex rollout, its Codex
    home's ``sessions/`` tree and ``archived_sessions/``. See :func:`subagent_files`."""
    if codex_discover.is_rollout(main):
        return codex_discover.child_places(main)
    orphan = orphan_folder(main)
    if orphan is not None:
        return [orphan], []
    return [main.parent / main.stem], [(main.parent, "agent-*.jsonl")]


@dataclass(frozen=True)
class TranscriptFile:
    """One transcript file of every session: its path, project (a Claude Code project folder
    name; a Codex rollout's working folder), the session it belongs to (``None`` for a 2.0.x
    ``agent-*.jsonl`` sibling: its first record says), its role (``"main"`` or ``"subagent"``)
    and the agent whose layout it was found in (``"claude"`` | ``"codex"``)."""

    path: Path
    project: str  # names as text (ingest/files.py path_text); ``path`` is what is opened
    session_id: str | None
    role: str
    agent: str = "claude"


def all_transcripts(root: Path | None = None) -> list[TranscriptFile]:
    """Every transcript file under ``root`` (default :func:`~tracetui.ingest.discover.projects_dir`), main and subagent,
    sorted by path: the layouts of :func:`~tracetui.ingest.discover.list_sessions` and :func:`subagent_files` in one walk
    (one listing per project folder, a tree walk only under a ``<session-id>/`` folder), for
    readers of every session at once. Missing or unreadable folders are left out, never an
    error; so is a ``*.jsonl`` that is not a regular file."""
    root = root or projects_dir()
    out: list[TranscriptFile] = []
    try:
        projects = [d for d in root.iterdir() if d.is_dir()]
    except OSError:
        return []
    for proj in projects:
        try:
            entries = list(os.scandir(proj))
        except OSError:
            continue
        for e in entries:
            name = e.name
            try:
                if e.is_dir(follow_symlinks=False):
                    sub = Path(e.path) / "subagents"
                    if sub.is_dir():
                        out.extend(_subagents_of(proj, name, sub))
                    continue
                if not name.endswith(".jsonl") or not stat.S_ISREG(e.stat().st_mode):
                    continue
            except OSError:
                continue
            p = Path(e.path)
            if _is_agent_file(p):
                out.append(TranscriptFile(p, path_text(proj.name), None, "subagent"))
            else:
                out.append(TranscriptFile(p, path_text(proj.name), path_text(p.stem), "main"))
    out = _once_each(out, root)
    out.sort(key=lambda t: str(t.path))
    return out


def _once_each(files: list[TranscriptFile], root: Path) -> list[TranscriptFile]:
    """``files`` with each file once, under the name :func:`~tracetui.ingest.files.first_names`
    keeps, as ``list_sessions`` lists it (a link was indexed as a second session: its figures
    counted twice in ``report`` and every ``search`` hit shown twice, thirteenth user trial).
    A file that cannot be stat'ed is left out. A ``stat`` and two ``lstat`` a file."""
    named = []
    for t in files:
        try:
            st = os.stat(t.path)
        except OSError:
            continue
        folder = root / t.path.relative_to(root).parts[0] if t.path.is_relative_to(root) else t.path.parent
        named.append((folder, t.path, (st.st_dev, st.st_ino), t))
    return first_names(named)


def _subagents_of(proj: Path, sid: str, sub: Path) -> list[TranscriptFile]:
    """The subagent files under ``<sid>/subagents/``, each filed under the session its records
    name: ``sid`` (or the id the session's transcript carries), else the other session's
    (another session's file put here: :func:`subagent_files` leaves it out of ``sid``, so its
    figures go to its own session, not this one)."""
    out = []
    own: str | None = None
    for p in sub.rglob("agent-*.jsonl"):
        if not is_regular(p):
            continue
        session = sid
        other = first_session_id(p)
        if other is not None and other != sid:
            if own is None:
                own = first_session_id(proj / f"{sid}.jsonl") or sid
            if other != own:
                session = other
        out.append(TranscriptFile(p, path_text(proj.name), path_text(session), "subagent"))
    return out


def codex_transcripts(home: Path | None = None) -> list[TranscriptFile]:
    """Every Codex CLI rollout under ``<home>/sessions`` and ``<home>/archived_sessions``
    (``home``: :func:`~tracetui.ingest.codex_discover.codex_dir`), one file per thread (``codex_discover.copy_rank``: a
    rollout's copies are left out), sorted by path, as :class:`TranscriptFile` of agent
    ``"codex"``. A top-level rollout is a ``"main"`` file of its own thread; a child rollout
    (subagent or fork) a ``"subagent"`` file of the session at the top of its parent chain
    (:func:`codex_discover.session_tops`: the topmost ancestor found on disk, a session of its
    own when its parent is not, or the first rollout of a loop), the top's own file a
    ``"main"`` one: the sessions :func:`~tracetui.ingest.discover.list_sessions` lists. The project is that top rollout's working folder
    (``session_meta.cwd``; ``"?"`` when it has none), so a session's files share one project.
    Missing folders give an empty list, never an error."""
    found = codex_discover.rollouts(home)
    tops = codex_discover.session_tops(found)
    by_thread = {meta.thread_id: meta for _p, _st, meta in found if meta.parent_id is None}
    for _p, _st, meta in found:
        by_thread.setdefault(meta.thread_id, meta)
    out = []
    for p, _st, meta in found:
        session = tops[meta.thread_id][0]
        role = "main" if meta.parent_id is None or session == meta.thread_id else "subagent"
        out.append(TranscriptFile(p, by_thread[session].cwd or "?", session, role, "codex"))
    out.sort(key=lambda t: str(t.path))
    return out
