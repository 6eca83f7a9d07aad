"""What the panes show, computed from a ``RunState``: episode rows, anomaly rows, the context
gauge, and the state as of the end of an episode (scrubbing).

Pure (no clock, no I/O). Episodes and anomalies come from the derived state of the model
(``state.episodes`` / ``state.anomalies``) when this build has them; otherwise episodes are
computed from ``state.history`` (one per human prompt) and anomalies are limited to ingest
honesty, and the pane says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from tracetui.model.state import AgentState, Anchor, Counters, Event, PromptInfo, RunState, unknown_text
from tracetui.session.follow import not_a_transcript  # noqa: F401 - re-exported for the panes
from tracetui.views.as_of import state_as_of as views_state_as_of
from tracetui.views.format import plural

__all__ = [
    "EpisodeRow",
    "AnomalyRow",
    "episode_rows",
    "anomaly_rows",
    "state_as_of",
    "context_usage",
    "context_window",
    "main_model",
    "episode_events",
    "not_a_transcript",
    "anomaly_message",
    "SEVERITIES",
]

#: severities, mildest first; the badge colour follows this order
SEVERITIES = ("info", "warning", "error", "critical")


@dataclass(frozen=True)
class EpisodeRow:
    """One episode (1-based ``index``: the n-th human prompt) as the Episodes pane lists it."""

    index: int
    ask: str
    ask_anchor: Anchor | None
    status: str
    tool_calls: int
    tool_errors: int
    tokens: int
    start: str | None
    end: str | None
    ledger_start: int
    ledger_end: int
    live: bool = False
    versions: tuple[Any, ...] = ()
    source: Any = None  # the derived Episode, when the model has them


@dataclass(frozen=True)
class AnomalyRow:
    """An anomaly as a badge: kind, severity (one of :data:`SEVERITIES`), message, where it
    began, and whether it cleared."""

    kind: str
    severity: str
    message: str
    anchor: Anchor | None
    cleared: bool = False
    evidence: tuple[Anchor, ...] = field(default=())
    key: str = ""


def _diff(a: Counters, b: Counters | None) -> Counters:
    if b is None:
        return a
    return Counters(*(x - y for x, y in zip(msgspec.structs.astuple(a), msgspec.structs.astuple(b))))


def _derived_episodes(state: RunState) -> tuple[Any, ...] | None:
    eps = getattr(state, "episodes", None)
    if eps is None:
        derived = getattr(state, "derived", None)
        eps = getattr(derived, "episodes", None) if derived is not None else None
    return tuple(eps) if eps is not None else None


def episode_rows(state: RunState) -> list[EpisodeRow]:
    """One row per human prompt of the main thread, oldest first; the last is live while the
    session runs. Each completed episode ``k`` ends where ``state.history[k-1]`` was taken."""
    derived = _derived_episodes(state)
    if derived:
        return _rows_from_derived(state, derived)
    main = state.main
    hist = state.history
    rows: list[EpisodeRow] = []
    prev: AgentState | None = None
    n = len(hist) + (1 if main.latest_ask is not None else 0)
    for k in range(1, n + 1):
        end_state = hist[k - 1] if k <= len(hist) else main
        ask: PromptInfo | None = end_state.latest_ask
        d = _diff(end_state.counters, prev.counters if prev is not None else None)
        tok = end_state.tokens.total - (prev.tokens.total if prev is not None else 0)
        live = k > len(hist)
        if live:
            status = "in_progress"
        elif d.interrupts:
            status = "interrupted"
        elif d.tool_errors or d.api_errors:
            status = "errors"
        else:
            status = "ok"
        rows.append(
            EpisodeRow(
                index=k,
                ask=ask.text if ask else "",
                ask_anchor=ask.anchor if ask else None,
                status=status,
                tool_calls=d.tool_calls,
                tool_errors=d.tool_errors + d.api_errors,
                tokens=tok,
                start=ask.timestamp if ask else None,
                end=None if live else end_state.last_timestamp,
                ledger_start=max(0, (ask.seq - 1) if ask else 0),
                ledger_end=end_state.ledger_len,
                live=live,
            )
        )
        prev = end_state
    return rows


def _rows_from_derived(state: RunState, eps: tuple[Any, ...]) -> list[EpisodeRow]:
    current: dict[int, Any] = {}
    versions: dict[int, list[Any]] = {}
    for ep in eps:
        idx = getattr(ep, "index", 0)
        versions.setdefault(idx, []).append(ep)
        if getattr(ep, "lifecycle", "current") != "superseded":
            current[idx] = ep
    rows = []
    for idx in sorted(current):
        if idx == 0:
            continue  # the stretch before the first prompt is not an episode of a prompt
        ep = current[idx]
        tok = getattr(ep, "tokens", None)
        rows.append(
            EpisodeRow(
                index=idx,
                ask=getattr(ep, "ask", ""),
                ask_anchor=getattr(ep, "ask_anchor", None),
                status=getattr(ep, "status", "?"),
                tool_calls=getattr(ep, "tool_calls", 0),
                tool_errors=getattr(ep, "tool_errors", 0) + getattr(ep, "api_errors", 0),
                tokens=tok.total if tok is not None else 0,
                start=getattr(ep, "start", None),
                end=getattr(ep, "end", None),
                ledger_start=getattr(ep, "ledger_start", 0),
                ledger_end=getattr(ep, "ledger_end", 0),
                live=getattr(ep, "status", "") == "in_progress",
                versions=tuple(sorted(versions[idx], key=lambda e: getattr(e, "version", 0))),
                source=ep,
            )
        )
    return rows


def state_as_of(state: RunState, k: int) -> RunState:
    """The state as of the end of completed episode ``k`` (1-based, ``1 <= k <= len(history)``),
    by the views' rule (:func:`tracetui.views.as_of.state_as_of`), so the panes and the exported
    card and worker view show the same state. Raises ``IndexError`` for a bad ``k``."""
    if not 1 <= k <= len(state.history):
        raise IndexError(f"episode {k} is not a completed episode (1..{len(state.history)})")
    return views_state_as_of(state, k)


def main_model(state: RunState) -> tuple[str | None, int]:
    """``(model, others)``: the main thread's model with the most tokens (the one doing the
    work), and how many other models the session used; with no tokens counted, the first model
    recorded (the usage of its every message rejected: ``state`` and ``card`` list it too, trial
    12), the main thread's first; ``(None, 0)`` before the first call."""
    by = state.main.tokens_by_model or state.tokens_by_model
    if not by:
        seen = state.main.models or state.models
        if not seen:
            return None, 0
        return seen[0], len(set(state.models) - {seen[0]})
    name = max(by, key=lambda m: (by[m].total, m))
    return name, len(set(state.models) - {name})


def context_window(model: str | None, used: int = 0, declared: int = 0) -> int:
    """The context window of ``model`` in tokens, by the model's rule
    (``tracetui.model.anomalies.context_window``): the one the agent ``declared`` (Codex), else
    1,000,000 for ``1m`` variants or once a call used more than 200,000, else 200,000."""
    if declared > 0:
        return declared
    try:
        from tracetui.model.anomaly_rules import context_window as rule
    except ImportError:
        rule = None
    if rule is not None:
        return rule(model, used)
    if (model and "1m" in model.lower()) or used > 200_000:
        return 1_000_000
    return 200_000


def context_usage(state: RunState, scan: int = 400) -> tuple[int, Anchor | None]:
    """Tokens the main thread's last API call saw (input + cache creation + cache read) and its
    anchor; ``(0, None)`` before the first call. Looks back at most ``scan`` events. The rule
    is the views' (:func:`tracetui.views.fleet_facts.context_usage`, the fleet's context fill too)."""
    from tracetui.views.fleet_facts import context_usage as rule

    return rule(state, scan)


def _severity(s: Any) -> str:
    s = str(s or "info").lower()
    if s in SEVERITIES:
        return s
    return {"warn": "warning", "high": "error", "low": "info", "medium": "warning", "crit": "critical"}.get(s, "warning")


#: anomalies about one file: their key is ``kind:path`` (``tracetui.model.anomalies``)
_PATH_KINDS = ("edit_thrash", "reread_loop")
#: characters a path outside the session's folder keeps in a badge (its end: the file name)
PATH_CHARS = 40


def anomaly_message(message: str, key: str, cwd: str | None) -> str:
    """``message`` with paths relative to the session's folder ``cwd``, as the worker view
    shows them (``tracetui.views.worker``: the cwd prefix dropped), so a badge cut at the
    pane's width still names the file. A file anomaly's path outside ``cwd`` keeps its last
    :data:`PATH_CHARS` characters (``…/other-tree/app/x.py``)."""
    root = (cwd or "").rstrip("/")
    kind, _, path = key.partition(":")
    if kind in _PATH_KINDS and path and path in message and not (root and path.startswith(root + "/")) and len(path) > PATH_CHARS:
        message = message.replace(path, "…" + path[-(PATH_CHARS - 1) :])
    return message.replace(root + "/", "") if root else message


def anomaly_rows(state: RunState, now: float | None = None, live: RunState | None = None) -> tuple[list[AnomalyRow], bool]:
    """``(rows, derived)``: open anomalies first (most severe first), then cleared ones.

    Uses the model's detectors (``tracetui.model.anomalies.detect_anomalies``, with ``now``
    (seconds since the epoch) for the stall detector; ``None``: no stall check). The monitor
    passes the ``now`` its panes and copies use (:meth:`SessionView.now_for`). ``derived`` is False when this build has no
    detectors: the rows are then only the ingest-honesty facts the state itself carries.
    ``live``: while scrubbing, the live state ``state`` was compiled from (its cost spikes are
    reused: :func:`tracetui.views.anomaly_memo.timeless_of`).
    """
    try:
        from tracetui.model.anomalies import stall_anomalies
        from tracetui.views.anomaly_memo import timeless_of
    except ImportError:
        timeless_of = None  # type: ignore[assignment]
    rows: list[AnomalyRow] = []
    cwd = state.main.cwd
    if timeless_of is not None:
        # the detectors that ignore the clock run once per state, not on every tick (pricing
        # every episode for the cost spikes each second was most of an idle big session's CPU),
        # and not again for a scrubbed state whose episodes the live state priced
        head, tail = timeless_of(state, getattr(state, "episodes", None) or None, live)
        for a in head + stall_anomalies(state, now) + tail:
            is_open = getattr(a, "open", True)
            rows.append(
                AnomalyRow(
                    kind=str(a.kind),
                    severity=_severity(a.severity),
                    message=anomaly_message(str(a.message), str(getattr(a, "key", "")), cwd),
                    anchor=getattr(a, "began", None),
                    cleared=not is_open,
                    evidence=tuple(getattr(a, "evidence", ()) or ()),
                    key=str(getattr(a, "key", "")),
                )
            )
        is_derived = True
    else:
        is_derived = False
        for s in state.sources:
            if s.error:
                rows.append(AnomalyRow("unreadable", "error", s.error, s.last_anchor))
            if s.truncated or s.replaced:
                rows.append(AnomalyRow("file_reset", "warning", f"{s.name}: " + "; ".join(s.resets[-2:]), s.last_anchor))
            if s.malformed:
                rows.append(
                    AnomalyRow("malformed", "warning", f"{s.name}: {plural(s.malformed, 'malformed line')} quarantined", s.last_anchor)
                )
            if s.unknown:
                rows.append(
                    AnomalyRow("unknown", "info", f"{s.name}: {unknown_text(s.unknown_records, s.unknown_blocks)} kept", s.last_anchor)
                )
    order = {s: i for i, s in enumerate(SEVERITIES)}
    rows.sort(key=lambda r: (r.cleared, -order.get(r.severity, 1)))
    return rows, is_derived


def episode_events(state: RunState, row: EpisodeRow) -> list[Event]:
    """The main-thread ledger events of episode ``row`` (from its prompt to the next one)."""
    led = state.ledgers[state.main.src] if state.ledgers else []
    return led[row.ledger_start : min(row.ledger_end, len(led))]
