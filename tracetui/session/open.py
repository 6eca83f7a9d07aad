"""Open a session for a headless command: paths or session ids to files, files to a folded state."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tracetui.model.state import RunState

__all__ = ["resolve_paths", "check_agent", "load_state", "save_store"]


def resolve_paths(args: Sequence[str], check: bool = True, agent: str | None = None) -> list[Path]:
    """Paths, session ids or Codex thread ids → transcript paths; no argument → the newest
    session of either agent. ``agent`` (``"claude"`` | ``"codex"``, ``--agent``) looks up ids
    among that agent's sessions only, and with ``check`` a named file of the other agent is an error.

    With ``check`` each path must be a readable, non-empty regular file. Raises
    ``DiscoveryError`` / ``TranscriptError`` with a one-line message."""
    from tracetui.ingest.discover import DiscoveryError, newest_session, resolve_target, where_sessions
    from tracetui.session.reader import open_paths

    if not args:
        s = newest_session(agent=agent)
        if s is None:
            raise DiscoveryError(f"no sessions under {where_sessions(agent)}; name a transcript file")
        return [s.path]
    targets = [resolve_target(a, agent=agent) for a in args]
    if not check:
        return targets
    open_paths(targets)
    if agent is not None:
        check_agent(targets, agent)
    return targets


def check_agent(paths: Sequence[Path], agent: str) -> None:
    """Raise ``TranscriptError`` (one line) for the first of ``paths`` that is not ``agent``'s
    (``--agent``): a Codex CLI rollout (its first record a ``session_meta``) with ``"claude"``,
    any other file with ``"codex"``."""
    from tracetui.ingest.codex_discover import is_rollout
    from tracetui.session.reader import TranscriptError

    for p in paths:
        codex = is_rollout(p)
        if agent == "claude" and codex:
            raise TranscriptError(f"{p}: a Codex CLI rollout, not a Claude Code transcript (--agent claude)")
        if agent == "codex" and not codex:
            raise TranscriptError(f"{p}: not a Codex CLI rollout (its first record is no session_meta) (--agent codex)")


def load_state(paths: list[Path], subagents: bool = True, use_cache: bool = True) -> tuple[Any, RunState]:
    """Fold ``paths`` to a RunState (via the fold cache when available). Returns ``(reader, state)``.

    Raises ``TranscriptError`` when a file is missing, unreadable, empty or not a transcript."""
    from tracetui.session.reader import SessionReader

    reader: SessionReader
    if use_cache:
        from tracetui.session.store import open_cached

        reader = open_cached(paths, subagents=subagents)
        reader.poll()
    else:
        from tracetui.session.derive_proc import DeriveProcessError

        # a long cold read derives in a second process (session/derive_proc.py); should that
        # process fail, the files are folded again with the hook in process: the same figures
        reader = SessionReader(paths, subagents=subagents, derive_process=True)
        try:
            reader.poll()
        except DeriveProcessError:
            reader = SessionReader(paths, subagents=subagents)
            reader.poll()
        reader.derive_process = False  # the reads that follow are appends: in process
    reader.check_transcript()
    return reader, reader.snapshot()


def save_store(reader: Any) -> None:
    """Save what ``reader`` folded, when it keeps a store (a reader opened with the cache)."""
    save = getattr(reader, "save_cache", None)
    if save is not None:
        save()
