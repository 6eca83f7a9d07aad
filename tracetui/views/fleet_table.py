"""The fleet's columns, for the monitor's fleet screen and ``tracetui sessions``: one row per
session from its :class:`~tracetui.views.fleet_facts.SessionFacts`, its files' mtime and ``now``
(epoch seconds), as text cells (made safe: secrets masked, no control character, one line) or
as JSON. The fleet's totals over the rows: :mod:`tracetui.views.fleet_totals`. Pure."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import msgspec

from tracetui.ingest.codex_discover import ROLE_CHARS
from tracetui.ingest.files import path_text
from tracetui.model.anomaly_rules import stall_severity
from tracetui.model.timestamps import fmt_span
from tracetui.views.burn import (
    Rate,
    budget_anomaly,
    budget_status,
    burn_rates,
)
from tracetui.views.fleet import FleetRules, Status, attention_key, classify, past_clock
from tracetui.views.fleet_facts import SessionFacts, context_fill
from tracetui.views.format import fmt_short, fmt_usd
from tracetui.views.safe import line_redacted, safe_text

__all__ = [
    "COLUMNS",
    "Budgets",
    "FleetRow",
    "fleet_rows",
    "row_cells",
    "give_way",
    "row_detail",
    "agent_cell",
    "row_json",
    "stall_counted",
    "one_line",
    "fit_line",
    "coarse_age",
    "flight_age",
    "utc_day_of",
    "id_chars",
    "ID_CHARS",
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
    ("session", "Session"),
)
#: characters of a session id the session column shows at least (more where ids share them: :func:`id_chars`)
ID_CHARS = 8
#: characters the title and the call in flight keep at most
TITLE_CHARS = 60
FLIGHT_CHARS = 40
#: characters they keep at least when they give way to the other columns (a narrow terminal;
#: the title's heading, "Title or goal", stays whole)
TITLE_MIN = 13
FLIGHT_MIN = 16


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


@lru_cache(maxsize=8192)
def one_line(text: str, limit: int) -> str:
    """``text`` on one line (whitespace runs as one space), its secrets masked, cut to ``limit``
    characters, with no terminal control character (transcript text is data)."""
    return safe_text(line_redacted(text, limit))


def fit_line(text: str, limit: int, measure: Callable[[str], int] | None = None) -> str:
    """:func:`one_line` of ``text`` in at most ``limit`` characters, or with ``measure`` (the
    cells a string takes on a terminal, e.g. ``rich.cells.cell_len``: a CJK character takes
    two) in at most ``limit`` cells; a cut ends in ``…``."""
    out = one_line(text, limit)
    n = limit
    while measure is not None and n > 1 and measure(out) > limit:
        n -= max(1, (measure(out) - limit) // 2)
        out = one_line(text, max(1, n))
    return out


def utc_day_of(now: float) -> str:
    """The UTC day (``YYYY-MM-DD``) of ``now`` (epoch seconds)."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")


def fleet_rows(
    sessions: Sequence[tuple[SessionFacts, float | None]],
    now: float,
    rules: FleetRules = FleetRules(),
    budgets: Budgets = Budgets(),
    cache: dict | None = None,
) -> list[FleetRow]:
    """Rows of ``(facts, written)`` pairs at ``now``, sorted by attention
    (:func:`tracetui.views.fleet.attention_key`). ``cache``: a dict kept between calls, where
    each session's burn rates are kept for the minute of ``now`` (they change only with the
    minute or the facts)."""
    rows = []
    minute = int(now) // 60
    for facts, written in sessions:
        status = classify(facts, written, now, rules)
        got = cache.get(facts.key) if cache is not None else None
        if got is not None and got[0] is facts and got[1] == minute:
            rates = got[2]
        else:
            rates = burn_rates(facts.minutes, now)
            if cache is not None:
                cache[facts.key] = (facts, minute, rates)
        budget = None
        if budgets.session is not None and facts.cost_usd is not None:
            budget = budget_status(budgets.session, facts.cost_usd, rates[1].usd_per_hour, "the session budget")
        rows.append(FleetRow(facts, written, status, rates, budget))
    rows.sort(key=lambda r: attention_key(r.status, r.facts))
    return rows


def stall_counted(facts: SessionFacts, now: float) -> str | None:
    """The severity of the stall anomaly ``facts`` has at ``now`` (epoch seconds), ``None``
    for none: the model's rule (:func:`tracetui.model.anomaly_rules.stall_severity`) over the
    same pending calls and newest record time as :func:`tracetui.model.anomalies.stall_anomalies`,
    so the fleet counts the stall exactly when the monitor and the views list it (not when the
    fleet's *stalled* state, with its own threshold and file times, holds)."""
    last = facts.last_record
    return stall_severity(facts.pending, now - last if last is not None else None)


def _anomaly_counts(row: FleetRow, now: float) -> tuple[int, int, int]:
    """``(info, warn, error)`` open anomalies of ``row`` at ``now``: the clock-free ones, the
    stall (:func:`stall_counted`) and the session budget's."""
    info, warn, error = row.facts.open_anomalies
    stall = stall_counted(row.facts, now)
    if stall == "info":
        info += 1
    elif stall is not None:
        warn += 1
    a = budget_anomaly(row.budget) if row.budget is not None else None
    if a is not None:
        if a.severity == "error":
            error += 1
        else:
            warn += 1
    return info, warn, error


def coarse_age(seconds: float) -> str:
    """An age as the fleet's rows show it, to the second under a minute, then to the minute
    (``42s``, ``7m``, ``2h05m``, ``3d04h``): a row then changes once a minute, not every second."""
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    return fmt_span(s)


#: what the age of a call stamped after the clock (by more than ``fleet.CLOCK_SKEW``) says
FUTURE_AGE = "in the future"


def flight_age(row: FleetRow, now: float) -> str:
    """The age of ``row``'s first call in flight (:func:`coarse_age`), ``""`` when none or
    unknown, :data:`FUTURE_AGE` when it started after ``now`` (``fleet.past_clock``: a record of
    year 2999 has no age; "0s" was one invented)."""
    f = row.facts.in_flight
    if not f or f[0].started is None:
        return ""
    if past_clock(f[0].started, now):
        return FUTURE_AGE
    return coarse_age(max(0.0, now - f[0].started))


def _flight(row: FleetRow, now: float, chars: int | None = None, measure: Callable[[str], int] | None = None) -> str:
    """The first call in flight (cut to :data:`FLIGHT_CHARS`, ending in ``…``), its age and
    how many more; with ``chars``, the whole in at most that many characters (cells with
    ``measure``: :func:`fit_line`), the call cut further, its age and count whole."""
    f = row.facts.in_flight
    if not f:
        return ""
    c = f[0]
    age = f" {flight_age(row, now)}" if c.started is not None else ""
    more = f" +{len(f) - 1}" if len(f) > 1 else ""
    call = FLIGHT_CHARS if chars is None else min(FLIGHT_CHARS, max(4, chars - len(age) - len(more)))
    return fit_line(f"{c.tool}({c.brief})", call, measure) + age + more


def _hour(row: FleetRow) -> Rate:
    return row.rates[-1]


def id_chars(ids: Iterable[str], known: Iterable[str] = ()) -> dict[str, int]:
    """Each of ``ids`` (the rows' session ids) -> the characters the session column shows of
    it: the fewest, at least :data:`ID_CHARS`, whose prefix starts no other id of ``ids`` or
    ``known`` (every session id the command line looks a prefix up among: discover.py
    ``find_session``), so that each row's cell names its session alone; an id that is a
    prefix of another is named whole (an exact id wins there)."""
    mine = set(ids)
    every = sorted(mine | set(known))
    out: dict[str, int] = {}
    for i, sid in enumerate(every):
        if sid not in mine:
            continue
        common = 0
        for j in (i - 1, i + 1):  # in sorted order the longest shared prefix is a neighbour's
            if 0 <= j < len(every):
                other = every[j]
                n = 0
                while n < min(len(sid), len(other)) and sid[n] == other[n]:
                    n += 1
                common = max(common, n)
        out[sid] = max(ID_CHARS, min(len(sid), common + 1))
    return out


def row_cells(
    row: FleetRow,
    now: float,
    title_chars: int = TITLE_CHARS,
    flight_chars: int | None = None,
    measure: Callable[[str], int] | None = None,
    session_chars: int = ID_CHARS,
) -> dict[str, str]:
    """The text of each column (:data:`COLUMNS`) of ``row`` at ``now``, the title cut to
    ``title_chars`` characters, the call in flight with its age to ``flight_chars`` (``None``:
    the call to :data:`FLIGHT_CHARS`), the session id to its first ``session_chars`` characters
    (its :func:`id_chars` among the rows: a prefix the command line takes for it); cells instead of
    characters with ``measure`` (:func:`fit_line`); a cut ends in ``…``; safe to draw."""
    f = row.facts
    info, warn, error = _anomaly_counts(row, now)
    anomalies = " ".join(f"{n}{s}" for n, s in ((error, "E"), (warn, "W"), (info, "I")) if n)
    hour = _hour(row)
    share = context_fill(f.context_used, f.context_window)
    fill = f"{int(round(100 * share, 6))}%" if share is not None and f.context_used else ""  # 6 places: 0.29 * 100 is 28.99…
    return {
        "state": row.status.state,
        "project": one_line(f.project, 24),
        "title": fit_line(f.title, title_chars, measure) or one_line(f.session_id[:8], 8),
        "agent": agent_cell(f),
        "flight": _flight(row, now, flight_chars, measure),
        "anomalies": anomalies,
        "tokens": fmt_short(f.tokens),
        "cost": fmt_usd(f.cost_usd) if f.cost_usd is not None or f.known_usd <= 0 else f"{fmt_usd(f.known_usd)}+?",  # known part + unknown
        "hour_tokens": fmt_short(hour.tokens_per_hour),
        "hour_cost": fmt_usd(hour.usd_per_hour),
        "context": fill,
        "session": one_line(f.session_id[:session_chars], session_chars),
    }


def agent_cell(facts: SessionFacts) -> str:
    """The agent column: the agent (``claude``, ``codex``), and what a rollout that names no
    parent says it is (``codex review``): such a run is listed as a session of its own, and the
    column says so; and a child's file listed as a session of its own, why (``codex parent
    missing``, ``claude parent missing``, ``codex fork cycle``). Safe to draw."""
    return one_line(" ".join(w for w in (facts.agent, facts.role, facts.orphan) if w), 8 + ROLE_CHARS)


def give_way(title: int, flight: int, excess: int) -> tuple[int, int]:
    """The title's and the call in flight's widths (cells) when the table is ``excess`` cells
    wider than the view: the wider of the two gives a cell, then again, until the excess is
    gone or both are at their minimum (:data:`TITLE_MIN`, :data:`FLIGHT_MIN`; a column
    narrower than that already keeps its width)."""
    t_min, f_min = min(title, TITLE_MIN), min(flight, FLIGHT_MIN)
    while excess > 0 and (title > t_min or flight > f_min):
        if title - t_min >= flight - f_min:
            title -= 1
        else:
            flight -= 1
        excess -= 1
    return title, flight


def row_detail(row: FleetRow) -> str:
    """One line about ``row``: its state and why, the budget when one is set, and for a
    rollout naming no parent (a review) that its parent session is not known (safe to draw)."""
    out = f"{row.status.state}: {one_line(row.status.reason, 200)}"
    if row.budget is not None:
        out += f" · {row.budget.text}"
    if row.facts.role:
        out += f" · a Codex {one_line(row.facts.role, ROLE_CHARS)} run: its rollout names no parent session"
    if row.facts.orphan == "fork cycle":
        out += " · its rollouts are forked from each other: listed as a session under the first of them"
    elif row.facts.orphan:
        out += " · its parent session is not on disk: listed as a session of its own"
    return out


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else round(x, 6)


def _age_s(started: float | None, now: float) -> float | None:
    """Seconds from ``started`` to ``now`` (at least 0: a clock a little ahead), ``None`` when
    unknown or after ``now`` by more than the clock skew (``fleet.past_clock``)."""
    if started is None or past_clock(started, now):
        return None
    return _num(max(0.0, now - started))


def row_json(row: FleetRow, now: float) -> dict[str, Any]:
    """``row`` as a JSON object: the columns' values unformatted (times in epoch seconds,
    tokens, USD; transcript text as it is: the caller masks secrets, e.g.
    :func:`tracetui.views.safe.redact_json`). ``context``: ``used`` and ``window`` (tokens) as
    counted, and ``fill``, their ratio clamped to ``0..1`` (:func:`~tracetui.views.fleet_facts.context_fill`;
    ``null`` with no window)."""
    f = row.facts
    info, warn, error = _anomaly_counts(row, now)
    flight = [{"tool": c.tool, "brief": c.brief, "age_s": _age_s(c.started, now), "main": c.main} for c in f.in_flight]
    return {
        "key": path_text(f.key),  # the key is the main file's path (opened by the monitor)
        "path": path_text(f.key),  # said as what it is: the file `state`, `view` and `card` take (trial 12)
        "session_id": f.session_id,
        "project": f.project,
        "title": f.title,
        "agent": f.agent,
        "role": f.role or None,
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
            "fill": _num(context_fill(f.context_used, f.context_window)),
        },
        "budget": None
        if row.budget is None
        else {"usd": row.budget.budget, "crossed": row.budget.crossed, "eta_s": _num(row.budget.eta), "text": row.budget.text},
        "orphan": f.orphan or None,
    }
