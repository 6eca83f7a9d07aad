"""Anomaly detectors: deterministic rules over ledger events, each with a kind, a severity, the
anchor where it began, evidence anchors, a message, and the rule that clears it.

Detectors that need no clock run incrementally in :class:`AnomalyTracker`
(:mod:`tracetui.model.anomaly_tracker`, fed by the deriver); cleared anomalies stay in its
history. Detectors that need the wall clock or the whole session (stall, cost spike, ingest
honesty) run at view time here, in :func:`detect_anomalies`, which takes ``now`` as an argument
and never reads the clock. The thresholds are :mod:`tracetui.model.anomaly_rules`' (re-exported
here, with the tracker, :func:`as_datetime` and :func:`fmt_span`, for the modules that import
them from this one).
"""

from __future__ import annotations

import bisect
from datetime import datetime
from typing import TYPE_CHECKING

from tracetui.model.anomaly_rules import (
    API_ERROR_STREAK,
    CONTEXT_PRESSURE_RATIO,
    CONTEXT_WINDOW_TOKENS,
    COST_SPIKE_FACTOR,
    COST_SPIKE_MIN_USD,
    EDIT_THRASH,
    ENDED_SECONDS,
    HISTORY_KEPT,
    LONG_CONTEXT_WINDOW_TOKENS,
    REREAD_LOOP,
    RUNAWAY_SUBAGENTS,
    SEVERITIES,
    STALL_SECONDS,
    TOOL_ERROR_STREAK,
    TOOL_LOOP_REPEATS,
    TOOL_LOOP_WINDOW,
    context_window,
    stall_severity,
)
from tracetui.model.anomaly_tracker import AnomalyTracker
from tracetui.model.numbers import fmt_usd, plural
from tracetui.model.state import unknown_text
from tracetui.model.timestamps import as_datetime, fmt_span, parse_ts
from tracetui.model.types import EVIDENCE_KEPT, Anomaly

if TYPE_CHECKING:  # pragma: no cover
    from tracetui.model.state import RunState

__all__ = [
    "Anomaly",
    "AnomalyTracker",
    "detect_anomalies",
    "timeless_anomalies",
    "stall_anomalies",
    "stall_severity",
    "as_datetime",
    "fmt_span",
    "context_window",
    "TOOL_LOOP_REPEATS",
    "TOOL_LOOP_WINDOW",
    "TOOL_ERROR_STREAK",
    "API_ERROR_STREAK",
    "EDIT_THRASH",
    "REREAD_LOOP",
    "STALL_SECONDS",
    "ENDED_SECONDS",
    "CONTEXT_PRESSURE_RATIO",
    "CONTEXT_WINDOW_TOKENS",
    "LONG_CONTEXT_WINDOW_TOKENS",
    "COST_SPIKE_FACTOR",
    "COST_SPIKE_MIN_USD",
    "RUNAWAY_SUBAGENTS",
    "HISTORY_KEPT",
    "EVIDENCE_KEPT",
    "SEVERITIES",
]


def _sorted_median(xs: list[float]) -> float:
    """``statistics.median(xs)`` for ``xs`` already sorted (same arithmetic, no sort)."""
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def detect_anomalies(state: "RunState", now: datetime | float | int | None = None, episodes: tuple | None = None) -> tuple[Anomaly, ...]:
    """Every anomaly of ``state``: the incremental ones of each file (main first), then the
    view-time ones: stall (only when ``now`` is given: a datetime, or epoch seconds), cost spike
    per episode (priced with genai-prices' bundled table), and ingest honesty (malformed or
    unknown records, truncated or replaced files, read errors, pending bytes).

    Pure: reads neither the clock nor files. ``episodes`` overrides the main thread's episodes
    (defaults to ``state.main.derived.episodes``).
    """

    head, tail = timeless_anomalies(state, episodes)
    return head + stall_anomalies(state, now) + tail


def timeless_anomalies(state: "RunState", episodes: tuple | None = None) -> tuple[tuple[Anomaly, ...], tuple[Anomaly, ...]]:
    """The anomalies of :func:`detect_anomalies` that do not depend on ``now``, in its order:
    ``(incremental, rest)``: those of each file, then cost spikes and ingest honesty (the
    stall goes between). A caller that redraws every second with the same state computes these
    once (pricing every episode is the costly part) and :func:`stall_anomalies` each time."""
    from tracetui.model.pricing import estimate_cost

    out: list[Anomaly] = []
    for st in (state.main, *state.agents):
        d = getattr(st, "derived", None)
        if d is not None:
            out.extend(d.anomalies)
    head = tuple(out)
    out = []
    # cost spike per episode (current versions only, closed or open)
    derived = state.main.derived
    eps = episodes if episodes is not None else (derived.episodes if derived is not None else ())
    costs: list[float] = []  # earlier episodes' costs, kept sorted (the median of each step)
    for ep in eps:
        if ep.lifecycle == "superseded":
            continue
        cost, _ = estimate_cost(ep.usage_buckets, ep.end) if ep.tokens_by_model else (0.0, "")
        if cost is None:
            continue
        if len(costs) >= 2:
            med = _sorted_median(costs)
            if cost >= COST_SPIKE_MIN_USD and cost >= COST_SPIKE_FACTOR * max(med, 1e-9):
                out.append(
                    Anomaly(
                        "cost_spike",
                        "warn",
                        f"cost_spike:{ep.index}",
                        ep.first or ep.ask_anchor,
                        f"episode {ep.index} cost {fmt_usd(cost)}, {cost / max(med, 1e-9):.1f}× the median {fmt_usd(med)} of earlier episodes",
                        "a per-episode finding: it stands once the episode ends",
                        tuple(a for a in (ep.ask_anchor, ep.last) if a is not None),
                        2,
                        cleared=ep.last if ep.status != "in_progress" else None,
                        cleared_reason="episode ended" if ep.status != "in_progress" else "",
                        view_time=True,
                    )
                )
        bisect.insort(costs, cost)
    # ingest honesty
    for s in state.sources:
        probs = []
        if s.malformed:
            probs.append(plural(s.malformed, "malformed line"))
        if s.unknown:
            probs.append(unknown_text(s.unknown_records, s.unknown_blocks))
        if s.truncated or s.replaced:
            probs.append("; ".join(s.resets) or "file truncated or replaced")
        if s.error:
            probs.append(f"read error: {s.error}")
        if probs:
            sev = "error" if (s.truncated or s.replaced or s.error) else "info"
            out.append(
                Anomaly(
                    "ingest",
                    sev,
                    f"ingest:{s.name}",
                    s.last_anchor,
                    f"{s.name}: " + ", ".join(probs),
                    "never: counts of what was read stay",
                    (s.last_anchor,) if s.last_anchor is not None else (),
                    1,
                    view_time=True,
                )
            )
    return head, tuple(out)


def stall_anomalies(state: "RunState", now: datetime | float | int | None) -> tuple[Anomaly, ...]:
    """The stall anomaly of :func:`detect_anomalies` (none without ``now``, epoch seconds or a
    datetime): calls pending and no record for :data:`STALL_SECONDS`."""
    out: list[Anomaly] = []
    # stall
    nowdt = as_datetime(now)
    if nowdt is not None and state.pending:
        last = None
        for st in (state.main, *state.agents):
            t = parse_ts(st.newest_timestamp or st.last_timestamp)
            if t is not None and (last is None or t > last):
                last = t
        age = (nowdt - last).total_seconds() if last is not None else None
        severity = stall_severity(len(state.pending), age)
        if severity is not None and age is not None:
            newest = max(state.pending, key=lambda c: (c.anchor.src == state.main.src, c.seq))
            # a day without a record: the session ended with the calls unanswered, nothing is
            # running any more; said so, and as info, not as a warning about a stuck call
            ended = severity == "info"
            out.append(
                Anomaly(
                    "stall",
                    severity,
                    "stall",
                    newest.anchor,
                    f"no new record for {fmt_span(age)} with {plural(len(state.pending), 'call')} pending (newest {newest.name} …{newest.id[-8:]})"
                    + ("; the session looks ended with them unanswered" if ended else ""),
                    "when a new record arrives or the pending calls complete",
                    tuple(c.anchor for c in state.pending[:EVIDENCE_KEPT]),
                    len(state.pending),
                    view_time=True,
                )
            )
    return tuple(out)
