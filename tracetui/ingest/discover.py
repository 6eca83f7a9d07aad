"""Find Claude Code and Codex CLI sessions on disk: list them, find one by id, resolve an argument.

Claude Code layouts (transcript-format.md §1, §9): ``<projects>/<encoded-cwd>/<session-id>.jsonl``;
subagents inline (``isSidechain`` records in the main file), as ``agent-*.jsonl`` siblings (2.0.x),
or under ``<session-id>/subagents/**/agent-*.jsonl`` with an optional ``agent-*.meta.json`` (2.1.x).
Codex CLI rollouts and their child rollouts: :mod:`tracetui.ingest.codex_discover`. A session's
subagent files, and every session's transcript files at once: :mod:`tracetui.ingest.session_files`.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tracetui.ingest import codex_discover
from tracetui.ingest.claude_orphans import is_agent_file as _is_agent_file
from tracetui.ingest.claude_orphans import named_session_id, only_subagent_files, orphan_folder, orphan_session
from tracetui.ingest.codex_copies import copy_rank
from tracetui.ingest.codex_discover import codex_dir
from tracetui.ingest.files import file_kind, first_names, path_text
from tracetui.ingest.first_line import opens_a_transcript

__all__ = [
    "SessionInfo",
    "DiscoveryError",
    "claude_dir",
    "codex_dir",
    "where_sessions",
    "projects_dir",
    "list_sessions",
    "newest_session",
    "is_session",
    "is_session_file",
    "transcript_sessions",
    "opens_a_transcript",
    "find_session",
    "one_of_copies",
    "resolve_target",
    "orphan_of",
]


class DiscoveryError(Exception):
    """A session or path could not be resolved; the message is one line naming what and where."""


@dataclass(frozen=True)
class SessionInfo:
    """A main transcript: its path, session id, project, size in bytes, modification time in
    seconds since the epoch, the agent that wrote it (``"claude"`` | ``"codex"``), and its
    ``role``: ``""``, or for a Codex rollout that says it is a subagent's but names no parent
    (a ``codex review`` run) what it says it is (``"review"``: ``RolloutMeta.role``).

    Claude Code: the id is the file stem, the project the project folder's name (each as
    :func:`~tracetui.ingest.files.path_text` writes it: valid UTF-8). Codex CLI: the
    id is the thread id and the project the ``cwd`` of the rollout's ``session_meta``."""

    path: Path
    session_id: str
    project: str
    size: int
    mtime: float
    agent: str = "claude"
    role: str = ""
    #: why a child's file is a session of its own (``""`` for a session's main transcript):
    #: ``"parent missing"`` (a Codex child rollout whose parent thread has no rollout on disk;
    #: Claude Code subagent files whose session's transcript is gone: then ``path`` is the
    #: first of them) or ``"fork cycle"`` (rollouts forked from each other:
    #: ``codex_discover.session_tops``)
    orphan: str = ""


def claude_dir() -> Path:
    """``$CLAUDE_CONFIG_DIR`` if set, else ``~/.claude``."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env).expanduser() if env else Path.home() / ".claude"


def projects_dir() -> Path:
    """The folder holding one folder per project: ``<claude dir>/projects``."""
    return claude_dir() / "projects"


def where_sessions(agent: str | None = None, root: Path | None = None) -> str:
    """Where sessions are looked for, in words, for messages: the projects folder (``root``,
    default :func:`projects_dir`) and/or the Codex home (``agent`` narrows it to one)."""
    places = []
    if agent != "codex":
        places.append(path_text(root or projects_dir()))
    if agent != "claude":
        places.append(path_text(codex_dir()))
    return " or ".join(places)


def list_sessions(root: Path | None = None, agent: str | None = None, codex_root: Path | None = None) -> list[SessionInfo]:
    """Every main transcript, newest first: Claude Code sessions under ``root`` (default
    :func:`projects_dir`) and Codex CLI rollouts under ``codex_root`` (default :func:`codex_dir`;
    ``sessions/`` and ``archived_sessions/``, one file per thread: ``codex_discover.copy_rank``),
    child rollouts that name their parent left out
    (they are subagents of their parent: :func:`~tracetui.ingest.session_files.subagent_files`); one that names none (a
    review) is listed, with its :attr:`SessionInfo.role`, and so is one whose parent chain
    ends at a thread not on disk or loops (:func:`codex_discover.session_tops`), and Claude
    Code subagent files whose transcript is gone, with their :attr:`SessionInfo.orphan`.
    ``agent`` (``"claude"`` | ``"codex"``) keeps one.

    Missing or unreadable folders give an empty list, never an error. A ``*.jsonl`` that is
    not a regular file (a FIFO, a socket, a device) is no session and is left out.
    """
    out: list[SessionInfo] = []
    if agent != "claude":
        found = codex_discover.rollouts(codex_root)
        tops = codex_discover.session_tops(found)
        for p, st, meta in found:
            top, why = tops[meta.thread_id]
            if meta.parent_id is None or top == meta.thread_id:
                orphan = "" if meta.parent_id is None else why
                out.append(SessionInfo(p, meta.thread_id, meta.cwd or "?", st.st_size, st.st_mtime, "codex", meta.role, orphan))
    if agent != "codex":
        out += _claude_sessions(root or projects_dir())
    out.sort(key=lambda s: (s.mtime, str(s.path)), reverse=True)
    return out


def _claude_sessions(root: Path) -> list[SessionInfo]:
    out: list[SessionInfo] = []
    try:
        projects = [d for d in root.iterdir() if d.is_dir()]
    except OSError:
        return []
    listed: list[tuple[Path, list[Path], set[str]]] = []
    found: list[tuple[Path, Path, tuple[int, int], SessionInfo]] = []
    for proj in projects:
        try:
            entries = list(proj.iterdir())
        except OSError:
            continue
        mains: set[str] = set()
        listed.append((proj, entries, mains))
        for p in entries:
            if p.suffix != ".jsonl" or _is_agent_file(p):
                continue
            try:
                st = p.stat()
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            mains.add(p.stem)
            # the names as text (ingest/files.py path_text): shown and matched; the path is opened
            info = SessionInfo(p, path_text(p.stem), path_text(proj.name), st.st_size, st.st_mtime)
            found.append((proj, p, (st.st_dev, st.st_ino), info))
    # a file reached by several names (a symlinked project folder or transcript: seventh and
    # thirteenth user trials, every session twice in the fleet, or under a second id) is one
    # session, listed once, under its own name, as report and search index it
    out += first_names(found)
    for proj, entries, mains in sorted(listed, key=lambda x: x[0].name):
        for p in entries:  # subagent files whose session's transcript is gone: that session
            got = orphan_session(p) if p.name not in mains else None
            if got is not None:
                out.append(
                    SessionInfo(got[0], path_text(p.name), path_text(proj.name), got[1], got[2], orphan=codex_discover.PARENT_MISSING)
                )
    return out


def is_session_file(path: Path, agent: str = "claude") -> bool:
    """The one rule of which listed main file is a session where no session was named (the
    newest session, ``--all``, the fleet, the session switcher, ``tracetui sessions``, and the
    files ``report`` and ``search`` index: session/index/sync.py): a Claude Code ``*.jsonl``
    whose first line is a transcript record (:func:`opens_a_transcript`; an empty, binary or
    other-JSON file is a stray, not a session), or a rollout (``agent == "codex"``: one by its
    first record already). Reads at most the first line of a Claude Code file; never raises."""
    return agent == "codex" or opens_a_transcript(path)


def is_session(info: SessionInfo) -> bool:
    """:func:`is_session_file` of a listed file."""
    return is_session_file(info.path, info.agent)


def transcript_sessions(root: Path | None = None, agent: str | None = None, codex_root: Path | None = None) -> list[SessionInfo]:
    """:func:`list_sessions` without the stray files (:func:`is_session`), newest first."""
    return [s for s in list_sessions(root, agent, codex_root) if is_session(s)]


#: seconds a file's mtime may run ahead of the clock and still count as its time (two clocks
#: a little apart; views/fleet.py ``CLOCK_SKEW`` is the same rule for the fleet)
FUTURE_SKEW = 300.0


def newest_session(root: Path | None = None, agent: str | None = None) -> SessionInfo | None:
    """The most recently modified main transcript of either agent (or of ``agent``) that is a
    session (:func:`is_session`: with no session named, a stray file is not "the newest
    session"), or ``None`` when there is none. See :func:`list_sessions`."""
    # a file stamped in the future (touch -d, a clock apart) is not the newest for ever: the
    # newest of the others, when there is one (seventh user trial)
    # (newest first: only the sessions stamped in the future and the first other are read)
    late = time.time() + FUTURE_SKEW
    future: SessionInfo | None = None
    for s in list_sessions(root, agent):
        if s.mtime > late:
            if future is None and is_session(s):
                future = s
        elif is_session(s):
            return s
    return future


def find_session(ident: str, root: Path | None = None, agent: str | None = None) -> SessionInfo:
    """The session whose id (a Claude Code session id or a Codex thread id) is ``ident`` or
    starts with it: a transcript's file name, else the ``sessionId`` of its first record, else
    a Codex child rollout's thread (its session); ``agent`` narrows the search to one agent.
    A session in several project folders is the file :func:`one_of_copies` takes. Raises
    :class:`DiscoveryError` when none or several sessions match (the message names them)."""
    ident = path_text(ident)  # as the listing writes a file's name (an argument's bytes may not be UTF-8)
    found = list_sessions(root, agent)
    matches = [s for s in found if s.session_id == ident]
    if not matches:
        matches = [s for s in found if s.session_id.startswith(ident)]
    if not matches and agent != "codex":
        # the id a transcript's records carry, when it is not its file's name (a resumed
        # session, a renamed file): the id `sessions` and the state's header show
        named = [(s, named_session_id(s.path) or "") for s in found if s.agent == "claude"]
        matches = [s for s, i in named if i == ident] or [s for s, i in named if i.startswith(ident)]
    if not matches and agent != "codex":
        matches = _other_names(ident, root or projects_dir(), found)
    if not matches:
        said = only_subagent_files(ident, root or projects_dir()) if agent != "codex" else None
        if said is None and agent != "codex":
            said = _special_named(ident, root or projects_dir())
        if said is not None:
            raise DiscoveryError(said)
        top = _codex_top_of(ident) if agent != "claude" and root is None else None
        if top is not None:
            matches = [s for s in found if s.agent == "codex" and s.session_id == top]
        if not matches:
            raise DiscoveryError(f"no session matches {ident!r} under {where_sessions(agent, root)}")
    if len(matches) > 1:
        if len({s.agent for s in matches}) > 1 and len({s.session_id for s in matches}) == 1:
            # a Codex thread and a Claude Code session of the same id (fourth user trial: this
            # called the Claude Code transcript a rollout file)
            where = ", ".join(path_text(s.path) for s in matches[:3]) + (f" and {len(matches) - 3} more" if len(matches) > 3 else "")
            raise DiscoveryError(
                f"{matches[0].session_id} is the id of a Claude Code session and a Codex thread; add --agent claude|codex or name the path: {where}"
            )
        if len({s.session_id for s in matches}) == 1:
            # one session in several project folders (a copied or moved project): read from the
            # file the fleet and `tracetui sessions` read it from, whose row shows this id
            # (trial 12: the id `sessions` showed was refused, the whole id too)
            return one_of_copies(matches)
        raise DiscoveryError(f"{ident!r} matches {_several(matches)}; give more of the id")
    return matches[0]


def one_of_copies(copies: list[SessionInfo]) -> SessionInfo:
    """Of the files of one Claude Code session id (a copy of its transcript under another
    project folder), the one it is read from: the largest (a copy is a snapshot of a transcript,
    which only grows), then the path that sorts first; the rule of
    :func:`tracetui.ingest.codex_copies.copy_rank`, which the fleet's one row a session
    (views/fleet_copies.py) and ``tracetui sessions`` follow too. ``copies`` is not empty."""
    return min(copies, key=lambda s: copy_rank(str(s.path), False, s.size))


def _several(matches: list[SessionInfo]) -> str:
    """``"2 sessions (ID in 2 project folders: -a, -b, ID2)"``: the sessions (distinct ids,
    whole: cut to a common length, ids that share a long prefix looked the same) that ``matches``
    holds, the first five named, and where an id is in several files, where those are."""
    by_id: dict[str, list[SessionInfo]] = {}
    for s in matches:
        by_id.setdefault(s.session_id, []).append(s)
    named = []
    for sid, files in list(by_id.items())[:5]:
        if len({s.agent for s in files}) > 1:
            named.append(f"{sid} (a Claude Code session and a Codex thread)")
        elif len(files) > 1:
            named.append(f"{sid} (in {len(files)} project folders: {', '.join(sorted(s.project for s in files))})")
        else:
            named.append(sid)
    more = f" and {len(by_id) - 5} more" if len(by_id) > 5 else ""
    return f"{len(by_id)} sessions ({'; '.join(named)}{more})"


def _named(ident: str, root: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """Each ``<project>/<ident...>.jsonl`` under ``root`` (no subagent file) and its ``stat``
    (links followed), by folder and name; one that cannot be stat'ed is left out. Nothing is opened."""
    try:
        projects = sorted(d for d in root.iterdir() if d.is_dir())
    except OSError:
        return
    for proj in projects:
        try:
            entries = sorted(proj.iterdir())
        except OSError:
            continue
        for p in entries:
            if p.suffix != ".jsonl" or _is_agent_file(p) or not path_text(p.stem).startswith(ident):
                continue
            try:
                yield p, p.stat()
            except OSError:
                continue


def _other_names(ident: str, root: Path, found: list[SessionInfo]) -> list[SessionInfo]:
    """The listed sessions a ``<project>/<ident...>.jsonl`` under ``root`` that is not listed is
    another name of (the same file: a symlink to a transcript, or a file reached through a
    symlinked folder; :func:`list_sessions` lists it once, under its own name): naming the link
    opens that session. A ``stat`` per listed Claude Code session and per such entry."""
    listed = {s.path for s in found}
    wanted = {(st.st_dev, st.st_ino) for p, st in _named(ident, root) if p not in listed}
    if not wanted:
        return []
    out = []
    for s in found:
        if s.agent != "claude" or s.orphan:
            continue
        try:
            st = s.path.stat()
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in wanted:
            out.append(s)
    return out


def _special_named(ident: str, root: Path) -> str | None:
    """One line when a ``<project>/<ident...>.jsonl`` under ``root`` is there but is no regular
    file (a FIFO, a device, a link to one), which :func:`list_sessions` leaves out (it is never
    opened: a read could block or never end): ``"PATH: a character device, not a transcript
    file (left out)"``, as a named one is refused; ``None`` when there is none. A ``stat`` per such entry; nothing is opened."""
    for p, st in _named(ident, root):
        if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
            return f"{path_text(p)}: {file_kind(st.st_mode)}, not a transcript file (left out)"
    return None


def _codex_top_of(ident: str) -> str | None:
    """The session (its top thread, :func:`codex_discover.session_tops`) of the one Codex thread
    whose id is ``ident`` or starts with it, when that thread is a child rollout (a subagent, a
    fork, a thread of a fork cycle folded into its first one): naming it opens the session it
    is read in; ``None`` when no thread or several match."""
    found = codex_discover.rollouts()
    threads = {m.thread_id for _p, _st, m in found}
    hit = [t for t in threads if t == ident] or [t for t in threads if t.startswith(ident)]
    if len(hit) != 1:
        return None
    return codex_discover.session_tops(found)[hit[0]][0]


def orphan_of(main: Path) -> str:
    """:attr:`SessionInfo.orphan` of the session whose main file is ``main`` (``""`` for a
    session's own transcript or top-level rollout), for a view that knows a session by its
    path only. Reads a rollout's first line (cached); lists the Codex home only for a child
    rollout, a Claude Code file only by its path."""
    meta = codex_discover.rollout_meta(main)
    if meta is None:
        return codex_discover.PARENT_MISSING if orphan_folder(main) is not None else ""
    if meta.parent_id is None:
        return ""
    top, why = codex_discover.session_tops(codex_discover.rollouts(codex_discover.home_of(main))).get(meta.thread_id, ("", ""))
    return why if top == meta.thread_id else ""


def resolve_target(arg: str, root: Path | None = None, agent: str | None = None) -> Path:
    """A path argument as given, or a session id / Codex thread id (or a prefix of either)
    looked up under the projects folder and the Codex home (``agent``: only that agent's).

    Raises :class:`DiscoveryError` naming the argument when it is neither.
    """
    if not arg.strip():
        raise DiscoveryError("an empty argument is neither a transcript path nor a session id")
    p = Path(arg).expanduser()
    if p.exists() or os.sep in arg or arg.endswith(".jsonl"):
        return p
    return find_session(arg, root, agent).path
