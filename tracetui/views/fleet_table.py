"""The fleet's columns, for the monitor's fleet screen and ``tracetui sessions``: one row per
session from its :class:`~tracetui.views.fleet.SessionFacts`, its files' mtime and ``now``
(epoch seconds), as text cells (made safe: secrets masked, no control character, one line) or
as JSON; and the fleet's summary line (burn rates, sparkline, the daily budget). Pure."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from tracetui.model.anomalies import fmt_span
from tracetui.views.burn import (
    Rate,
    budget_anomaly,
    budget_status,
    burn_rates,
    merge_series,
    spark_values,
    sparkline,
    spent_on,
)
from tracetui.views.fleet import FleetRules, SessionFacts, Status, attention_key, classify
from tracetui.views.format import fmt_short, fmt_usd
from tracetui.views.safe import cut_redacted, safe_text

__all__ = [
    "COLUMNS",
    "Budgets",
    "FleetRow",
    "fleet_rows",
    "row_cells",
    "row_json",
    "fleet_json",
    "fleet_summary",
    "one_line",
    "utc_day_of",
]

#: ``(id, heading)`` of each column, in order
COLUMNS = (
    ("state", "State"),
    ("project", "Project"),
    ("title", "Title or goal"),
    ("agent", "Agent"),
    ("flight", "In flight"),
    ("anomalies", "Anomalies"),
    ("tokens", "Tokens"),
    ("cost", "Cost"),
    ("hour_tokens", "Tok/1h"),
    ("hour_cost", "$/1h"),
    ("context", "Ctx"),
)
#: characters the title and the call in flight keep at most
TITLE_CHARS = 60
FLIGHT_CHARS = 40


class Budgets(msgspec.Struct, frozen=True):
    """Optional budgets in USD: ``session`` for each session's cost, ``day`` for the fleet's
    spend on the current UTC day (``None``: no budget)."""

    session: float | None = None
    day: float | None = None


class FleetRow(msgspec.Struct, frozen=True):
    """One session as the fleet shows it at ``now``: facts, file time, state, and its rates."""

    facts: SessionFacts
    written: float | None
    status: Status
    rates: tuple[Rate, ...]
    budget: Any = None  # a BudgetStatus when a session budget is set


def one_line(text: str, limit: int) -> str:
    """``text`` on one line (whitespace runs as one space), its secrets masked, cut to ``limit``
    characters, with no terminal control character (transcript text is data)."""
    return safe_text(cut_redacted(" ".join(text.split()), limit))


def utc_day_of(now: float) -> str:
    """The UTC day (``YYYY-MM-DD``) of ``now`` (epoch seconds)."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")


def fleet_rows(
    sessions: Sequence[tuple[SessionFacts, float | None]], now: float, rules: FleetRules = FleetRules(), budgets: Budgets = Budgets()
) -> list[FleetRow]:
    """Rows of ``(facts, written)`` pairs at ``now``, sorted by attention
    (:func:`tracetui.views.fleet.attention_key`)."""
    rows = []
    for facts, written in sessions:
        status = classify(facts, written, now, rules)
        rates = burn_rates(facts.minutes, now)
        budget = None
        if budgets.session is not None and facts.cost_usd is not None:
            budget = budget_status(budgets.session, facts.cost_usd, rates[1].usd_per_hour, "the session budget")
        rows.append(FleetRow(facts, written, status, rates, budget))
    rows.sort(key=lambda r: attention_key(r.status, r.facts))
    return rows


def _anomaly_counts(row: FleetRow) -> tuple[int, int, int]:
    info, warn, error = row.facts.open_anomalies
    if row.status.state == "stalled":
        warn += 1  # the stall detector's view-time anomaly (model/anomalies.py stall_anomalies)
    a = budget_anomaly(row.budget) if row.budget is not None else None
    if a is not None:
        if a.severity == "error":
            error += 1
        else:
            warn += 1
    return info, warn, error


def _flight(row: FleetRow, now: float) -> str:
    f = row.facts.in_flight
    if not f:
        return ""
    c = f[0]
    age = f" {fmt_span(max(0.0, now - c.started))}" if c.started is not None else ""
    more = f" +{len(f) - 1}" if len(f) > 1 else ""
    return one_line(f"{c.tool}({c.brief})", FLIGHT_CHARS) + age + more


def _hour(row: FleetRow) -> Rate:
    return row.rates[-1]


def row_cells(row: FleetRow, now: float) -> dict[str, str]:
    """The text of each column (:data:`COLUMNS`) of ``row`` at ``now``; safe to draw."""
    f = row.facts
    info, warn, error = _anomaly_counts(row)
    anomalies = " ".join(f"{n}{s}" for n, s in ((error, "E"), (warn, "W"), (info, "I")) if n)
    hour = _hour(row)
    fill = f"{100 * f.context_used // f.context_window}%" if f.context_window and f.context_used else ""
    return {
        "state": row.status.state,
        "project": one_line(f.project, 24),
        "title": one_line(f.title, TITLE_CHARS) or one_line(f.session_id[:8], 8),
        "agent": one_line(f.agent, 8),
        "flight": _flight(row, now),
        "anomalies": anomalies,
        "tokens": fmt_short(f.tokens),
        "cost": fmt_usd(f.cost_usd),
        "hour_tokens": fmt_short(hour.tokens_per_hour),
        "hour_cost": fmt_usd(hour.usd_per_hour),
        "context": fill,
    }


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else round(x, 6)


def row_json(row: FleetRow, now: float) -> dict[str, Any]:
    """``row`` as a JSON object: the columns' values unformatted (times in epoch seconds,
    tokens, USD; transcript text as it is: the caller masks secrets, e.g.
    :func:`tracetui.views.safe.redact_json`)."""
    f = row.facts
    info, warn, error = _anomaly_counts(row)
    flight = [
        {"tool": c.tool, "brief": c.brief, "age_s": _num(now - c.started) if c.started else None, "main": c.main} for c in f.in_flight
    ]
    return {
        "key": f.key,
        "session_id": f.session_id,
        "project": f.project,
        "title": f.title,
        "agent": f.agent,
        "state": row.status.state,
        "reason": row.status.reason,
        "quiet_s": _num(row.status.quiet),
        "written": row.written,
        "last_record": f.last_record,
        "in_flight": flight,
        "anomalies": {"error": error, "warn": warn, "info": info},
        "tokens": f.tokens,
        "cost_usd": _num(f.cost_usd),
        "last_hour": {"tokens": int(_hour(row).tokens_per_hour), "cost_usd": _num(_hour(row).usd_per_hour)},
        "burn": {f"{r.minutes}m": {"tokens_per_hour": _num(r.tokens_per_hour), "usd_per_hour": _num(r.usd_per_hour)} for r in row.rates},
        "context": {
            "used": f.context_used,
            "window": f.context_window,
            "fill": _num(f.context_used / f.context_window) if f.context_window else None,
        },
        "budget": None
        if row.budget is None
        else {"usd": row.budget.budget, "crossed": row.budget.crossed, "eta_s": _num(row.budget.eta), "text": row.budget.text},
    }


def _fleet(rows: Sequence[FleetRow], now: float, budgets: Budgets) -> tuple[tuple[Rate, ...], Any, float, str]:
    series = merge_series(r.facts.minutes for r in rows)
    rates = burn_rates(series, now)
    day = utc_day_of(now)
    today = sum(spent_on(r.facts.day_usd, day) for r in rows)
    budget = budget_status(budgets.day, today, rates[1].usd_per_hour, "the daily budget") if budgets.day is not None else None
    spark = sparkline(spark_values(series, now, 30))
    return rates, budget, today, spark


def fleet_json(rows: Sequence[FleetRow], now: float, budgets: Budgets = Budgets()) -> dict[str, Any]:
    """The fleet's totals: burn rates, today's spend, the daily budget, counts per state."""
    rates, budget, today, _ = _fleet(rows, now, budgets)
    states: dict[str, int] = {}
    for r in rows:
        states[r.status.state] = states.get(r.status.state, 0) + 1
    return {
        "sessions": len(rows),
        "states": states,
        "burn": {f"{r.minutes}m": {"tokens_per_hour": _num(r.tokens_per_hour), "usd_per_hour": _num(r.usd_per_hour)} for r in rates},
        "today_usd": _num(today),
        "budget_day": None
        if budget is None
        else {"usd": budget.budget, "crossed": budget.crossed, "eta_s": _num(budget.eta), "text": budget.text},
    }


def fleet_summary(rows: Sequence[FleetRow], now: float, budgets: Budgets = Budgets()) -> str:
    """One line: sessions per state (attention first), the fleet's rates over 5/15/60 min, a
    30-column sparkline of the last hour (tokens, two minutes a column), today's spend and the
    daily budget."""
    from tracetui.views.fleet import STATES

    rates, budget, today, spark = _fleet(rows, now, budgets)
    counts = {s: 0 for s in STATES}
    for r in rows:
        counts[r.status.state] = counts.get(r.status.state, 0) + 1
    head = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no session"
    burn = " ".join(f"{r.minutes}m {fmt_usd(r.usd_per_hour)}/h {fmt_short(r.tokens_per_hour)} tok/h" for r in rates)
    out = f"{head} · {burn} · 1h ▕{spark}▏ · today {fmt_usd(today)}"
    if budget is not None:
        out += f" · {budget.text}"
    return out
