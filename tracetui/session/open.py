"""Open a session for a headless command: paths or session ids to files, files to a folded state."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tracetui.model.state import RunState

__all__ = ["resolve_paths", "load_state", "save_store"]


def resolve_paths(args: Sequence[str], check: bool = True) -> list[Path]:
    """Paths or session ids → transcript paths; no argument → the newest session.

    With ``check`` each path must be a readable, non-empty regular file. Raises
    ``DiscoveryError`` / ``TranscriptError`` with a one-line message."""
    from tracetui.ingest.discover import DiscoveryError, newest_session, projects_dir, resolve_target
    from tracetui.session.reader import open_paths

    if not args:
        s = newest_session()
        if s is None:
            raise DiscoveryError(f"no sessions under {projects_dir()}; name a transcript file")
        return [s.path]
    targets = [resolve_target(a) for a in args]
    return open_paths(targets) if check else targets


def load_state(paths: list[Path], subagents: bool = True, use_cache: bool = True) -> tuple[Any, RunState]:
    """Fold ``paths`` to a RunState (via the fold cache when available). Returns ``(reader, state)``.

    Raises ``TranscriptError`` when a file is missing, unreadable, empty or not a transcript."""
    from tracetui.session.reader import SessionReader

    reader: SessionReader
    if use_cache:
        from tracetui.session.store import open_cached

        reader = open_cached(paths, subagents=subagents)
    else:
        reader = SessionReader(paths, subagents=subagents)
    reader.poll()
    reader.check_transcript()
    return reader, reader.snapshot()


def save_store(reader: Any) -> None:
    """Save what ``reader`` folded, when it keeps a store (a reader opened with the cache)."""
    save = getattr(reader, "save_cache", None)
    if save is not None:
        save()
