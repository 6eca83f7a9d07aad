"""Codex CLI rollouts and $CODEX_HOME trees written by the discovery and surface tests (shapes
from shared/docs/codex-format.md; a few records each, no figures a fold test would rely on)."""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["rollout", "day"]


def rollout(
    path: Path,
    thread: str,
    *,
    cwd: str = "/home/dev/app",
    parent: str | None = None,
    fork_of: str | None = None,
    mtime: float | None = None,
) -> Path:
    """Write a small rollout at ``path``: ``session_meta`` (thread id ``thread``, working folder
    ``cwd``, a ``thread_spawn`` source naming ``parent``, or ``forked_from_id`` ``fork_of``),
    a ``turn_context`` and an ``event_msg`` ``user_message``. Returns ``path``."""
    t = "2026-03-02T09:00:00.000Z"
    source: object = "cli"
    if parent:
        source = {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1, "agent_nickname": "Euler"}}}
    meta: dict[str, object] = {
        "id": thread,
        "timestamp": t,
        "cwd": cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.125.0",
        "source": source,
    }
    if fork_of:
        meta["forked_from_id"] = fork_of
    lines = [
        {"timestamp": t, "type": "session_meta", "payload": meta},
        {"timestamp": t, "type": "turn_context", "payload": {"turn_id": "t1", "cwd": cwd, "model": "gpt-5-codex"}},
        {"timestamp": t, "type": "event_msg", "payload": {"type": "user_message", "message": "Fix the failing test"}},
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def day(home: Path, date: str) -> Path:
    """The date folder ``<home>/sessions/YYYY/MM/DD`` of ``date`` (``"2026-03-02"``)."""
    y, m, d = date.split("-")
    return home / "sessions" / y / m / d
