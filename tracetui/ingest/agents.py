"""The agents whose session files tracetui reads, their names, and which one wrote a file."""

from __future__ import annotations

from pathlib import Path

from tracetui.ingest.codex_discover import is_rollout

__all__ = ["AGENTS", "AGENT_NAMES", "agent_name", "file_agent"]

#: the agents, as ``--agent`` and ``SessionInfo.agent`` / ``RunState.agent`` spell them
AGENTS = ("claude", "codex")
#: what each is called where the user is told
AGENT_NAMES = {"claude": "Claude Code", "codex": "Codex CLI"}


def agent_name(agent: str | None) -> str:
    """The display name of ``agent`` (``"claude"`` → ``"Claude Code"``); an unknown value is
    shown as it is, ``None`` as Claude Code (the default of every state)."""
    return AGENT_NAMES.get(agent or "claude", agent or "")


def file_agent(path: Path) -> str:
    """``"codex"`` when ``path``'s first record is a Codex ``session_meta``
    (:func:`~tracetui.ingest.codex_discover.rollout_meta`), else ``"claude"`` (also for a file
    that does not exist yet or has no complete first line). Reads at most the first line."""
    return "codex" if is_rollout(path) else "claude"
