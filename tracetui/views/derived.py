"""What the views read from the derived state, shared by the worker view and the card: the
current episodes and their cost, the fact aggregates in a stable order, failed calls and the
retries that fixed them, and the wording of a missing goal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracetui.ingest.agents import agent_name
from tracetui.model.episodes import Episode
from tracetui.model.state import RunState, one_line_name
from tracetui.views.text import Item

__all__ = [
    "agent_session",
    "current_episodes",
    "episode_cost",
    "key_aggregates",
    "retry_fixes",
    "recent_failures",
    "no_goal_item",
    "rel_path",
    "under",
]

_FACT_ORDER = ("tests.", "git.", "pr.", "cmd.", "todo.")


def current_episodes(state: RunState) -> Sequence[Episode]:
    """The newest version of each episode (lifecycle current or suspected-stale), oldest first.
    (Episodes the session store reads on demand pick them without reading the others.)"""
    pick = getattr(state.episodes, "current", None)
    if pick is not None:
        return pick()
    best: dict[int, Episode] = {}
    for ep in state.episodes:
        if ep.lifecycle == "superseded":
            continue
        old = best.get(ep.index)
        if old is None or ep.version > old.version:
            best[ep.index] = ep
    return [best[k] for k in sorted(best)]


def episode_cost(state: RunState, ep: Episode) -> float | None:
    """Estimated USD of an episode (genai-prices), ``None`` when unpriced or pricing is off.

    Each of its messages is priced at its own UTC day and tier band, as the session total is
    (model/pricing.py), so the episodes' costs add up to at most the session's."""
    if state.cost_note == "not priced" or not ep.tokens_by_model:
        return None if state.cost_note == "not priced" else 0.0
    from tracetui.model.pricing import estimate_cost

    cost, _ = estimate_cost(ep.usage_buckets, ep.end)
    return cost


def _derived_of(state: RunState):
    for st in (state.main, *state.agents):
        d = getattr(st, "derived", None)
        if d is not None:
            yield st, d


def key_aggregates(state: RunState) -> list[tuple[int, Any]]:
    """``[(src, Aggregate)]`` of every file, main first, in a stable key order (tests, git, PR,
    exit codes, todos)."""
    out = []
    for st, d in _derived_of(state):
        for _key, agg in d.aggregates.items():
            out.append((st.src, agg))

    def rank(x: tuple[int, Any]) -> tuple:
        src, agg = x
        k = agg.key
        pre = next((i for i, p in enumerate(_FACT_ORDER) if k.startswith(p)), len(_FACT_ORDER))
        return (src != state.main.src, pre, k, src)

    return sorted(out, key=rank)


def retry_fixes(state: RunState) -> dict[Any, Any]:
    """``{anchor of a failed call's result: anchor of the successful result of its retry}``, for
    every file (``ErrorNote.resolved_by``, model/derive.py ``retry_keys``): a failure listed
    there did not stay failed. The main thread's episodes as the state gives them (as of an
    episode, the versions of then), each subagent file's from its own derived state."""
    eps = [*_with_resolved(state.episodes)]
    for st in state.agents:
        d = getattr(st, "derived", None)
        if d is not None:
            eps.extend(_with_resolved(d.episodes))
    return {e.anchor: e.resolved_by for ep in eps for e in ep.errors if e.resolved_by is not None}


def _with_resolved(episodes: Sequence[Episode]) -> Sequence[Episode]:
    """The versions of ``episodes`` that may say an error was resolved (episodes the session
    store reads on demand give only those that count one; else all)."""
    pick = getattr(episodes, "resolved", None)
    return pick() if pick is not None else episodes


def recent_failures(state: RunState) -> list[tuple[Any, str, Any]]:
    """``[(anchor, text, quote)]`` of failed tool calls, rejected/interrupted tool uses and API
    errors, newest first (main thread first among equals). A failed call that a later retry
    fixed (:func:`retry_fixes`) says where the retry succeeded."""
    fixed = retry_fixes(state)
    out = []
    for _st, d in _derived_of(state):
        for n in d.ruled_out:
            if n.kind in ("error", "rejected", "interrupted"):
                by = fixed.get(n.anchor) if n.kind == "error" else None
                text = n.text if by is None else f"{n.text}; a retry succeeded at {state.fmt_anchor(by)}"
                out.append((n.anchor, text, n.quote))
    for ep in current_episodes(state):
        for e in ep.errors:
            if e.tool == "API":
                out.append((e.anchor, "API error", e.excerpt))
    out.sort(key=lambda x: (x[0].src == state.main.src, x[0].line), reverse=True)
    return out


def _ruled_out_total(state: RunState) -> int:
    return sum(1 for _st, d in _derived_of(state) for n in d.ruled_out if n.kind in ("error", "rejected", "interrupted"))


def no_goal_item(state: RunState) -> Item:
    """What GOAL says for a main file with no human prompt. A subagent's own transcript gets its
    task from the parent's Task call, which is in the parent's file (a view of this file alone
    does not have it, so no anchor)."""
    m = state.main
    if m.sidechain_file or m.agent_id:
        return Item("none recorded in this file; a subagent's task comes from its parent's Task call, in the parent's transcript")
    return Item("none recorded in this file (no human prompt found)")


def rel_path(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it lies inside it (views show shorter paths), on one
    line: a line break or tab in it as its control picture (``new␊line.py``:
    :func:`~tracetui.model.state.one_line_name`; a view's line would show it as a space, which
    reads as a space in the name)."""
    if cwd and under(path, cwd):
        path = path[len(cwd.rstrip("/")) + 1 :]
    return one_line_name(path)


def under(path: str, cwd: str | None) -> bool:
    """``path`` lies inside the folder ``cwd`` (:func:`rel_path` shows it relative to it)."""
    return path.startswith(cwd.rstrip("/") + "/") if cwd else False


def agent_session(state: RunState) -> str:
    """How a view's first line names the session: ``session`` for a Claude Code one (the
    default, named by nothing else), ``Codex CLI session`` for a Codex one (``state.agent``)."""
    return "session" if state.agent == "claude" else f"{agent_name(state.agent)} session"
