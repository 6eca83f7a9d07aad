"""The fleet's totals over its rows: burn rates, today's spend and the daily budget, as JSON
(:func:`fleet_json`) and as lines (:func:`fleet_summary`). A total with sessions of no known
price says the known part and how many sessions are unpriced, never ``$0.00`` for them
(:func:`~tracetui.views.format.fmt_usd_known`). Pure: ``now`` is an argument."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from tracetui.views.burn import Rate, budget_status, burn_rates, merge_series, spark_values, sparkline, spent_on
from tracetui.views.fleet_table import Budgets, FleetRow, _num, utc_day_of
from tracetui.views.format import fmt_short, fmt_usd, fmt_usd_known

__all__ = ["FleetRate", "fleet_json", "fleet_summary"]


#: the last :func:`_fleet` answer and what it was for (the fleet's facts, the minute, the
#: budgets): the monitor asks every second, and it changes only with those
_FLEET_MEMO: list = [None, None]


def _fleet(rows: Sequence[FleetRow], now: float, budgets: Budgets) -> tuple[tuple[FleetRate, ...], Any, float, str, tuple[FleetRow, ...]]:
    key = (tuple(r.facts for r in rows), int(now) // 60, budgets)
    if _FLEET_MEMO[0] is not None and _FLEET_MEMO[0] == key:
        return _FLEET_MEMO[1]
    out = _fleet_now(rows, now, budgets)
    _FLEET_MEMO[0], _FLEET_MEMO[1] = key, out
    return out


def _fleet_now(
    rows: Sequence[FleetRow], now: float, budgets: Budgets
) -> tuple[tuple[FleetRate, ...], Any, float, str, tuple[FleetRow, ...]]:
    """``(burn rates, daily budget status, today's known spend in USD, sparkline, the rows with
    tokens of no known price today)``: today's spend is what is known; the daily budget is
    measured against it (a lower bound when some row is unpriced)."""
    series = merge_series(r.facts.minutes for r in rows)
    merged = burn_rates(series, now)
    day = utc_day_of(now)
    today = float(sum(spent_on(r.facts.day_usd, day) for r in rows))
    unpriced = tuple(r for r in rows if day in r.facts.day_unpriced)
    rates = tuple(_known_rate(w, i, rows) for i, w in enumerate(merged))
    # the known spend and rate: a lower bound when some session is unpriced
    budget = budget_status(budgets.day, today, rates[1].known_usd_per_hour, "the daily budget") if budgets.day is not None else None
    spark = sparkline(spark_values(series, now, 30))
    return rates, budget, today, spark, unpriced


class FleetRate(msgspec.Struct, frozen=True):
    """A fleet burn rate (:class:`~tracetui.views.burn.Rate`'s fields) and what of it is
    known: ``known_usd_per_hour`` sums the sessions whose rate is priced, ``unpriced`` counts
    the sessions that spent tokens of no known price in the window (``usd_per_hour`` is
    ``None`` then, as a session's is)."""

    minutes: int
    tokens_per_hour: float
    usd_per_hour: float | None
    known_usd_per_hour: float = 0.0
    unpriced: int = 0


def _known_rate(rate: Rate, i: int, rows: Sequence[FleetRow]) -> FleetRate:
    """The fleet's rate ``rate`` (window ``i`` of its rows' rates) with its known part."""
    known, unpriced = 0.0, 0
    for r in rows:
        own = r.rates[i] if i < len(r.rates) else None
        if own is None or own.tokens_per_hour <= 0:
            continue
        if own.usd_per_hour is None:
            unpriced += 1
        else:
            known += own.usd_per_hour
    if unpriced:
        return FleetRate(rate.minutes, rate.tokens_per_hour, None, known, unpriced)
    usd = rate.usd_per_hour if rate.usd_per_hour is not None else known  # a NaN minute without tokens
    return FleetRate(rate.minutes, rate.tokens_per_hour, usd, usd, 0)


def _rate_text(r: FleetRate) -> str:
    """``5m $1.20/h``, or with unpriced sessions ``5m $1.20/h + unknown (1 session unpriced)``."""
    if not r.unpriced:
        return f"{r.minutes}m {fmt_usd(r.usd_per_hour)}/h"
    what = f"unknown ({r.unpriced} session{'' if r.unpriced == 1 else 's'} unpriced)"
    return f"{r.minutes}m {fmt_usd(r.known_usd_per_hour)}/h + {what}" if r.known_usd_per_hour > 0 else f"{r.minutes}m {what}"


def fleet_json(rows: Sequence[FleetRow], now: float, budgets: Budgets = Budgets()) -> dict[str, Any]:
    """The fleet's totals: burn rates, today's spend, the daily budget, counts per state.
    ``today_usd`` is ``None`` (unknown, never a figure too low) when some session spent tokens
    of no known price today; ``today_known_usd`` is the known part, ``today_unpriced`` says
    which sessions are not priced (``{"sessions": n, "session_ids": [...]}``)."""
    rates, budget, today, _, unpriced = _fleet(rows, now, budgets)
    states: dict[str, int] = {}
    for r in rows:
        states[r.status.state] = states.get(r.status.state, 0) + 1
    return {
        "sessions": len(rows),
        "states": states,
        "burn": {
            f"{r.minutes}m": {
                "tokens_per_hour": _num(r.tokens_per_hour),
                "usd_per_hour": _num(r.usd_per_hour),
                "known_usd_per_hour": _num(r.known_usd_per_hour),
                "unpriced_sessions": r.unpriced,
            }
            for r in rates
        },
        "today_usd": None if unpriced else _num(today),
        "budget_day": None
        if budget is None
        else {"usd": budget.budget, "crossed": budget.crossed, "eta_s": _num(budget.eta), "text": budget.text},
        "today_known_usd": _num(today),
        "today_unpriced": {"sessions": len(unpriced), "session_ids": [r.facts.session_id for r in unpriced]},
    }


def fleet_summary(rows: Sequence[FleetRow], now: float, budgets: Budgets = Budgets()) -> str:
    """Lines about the whole fleet: sessions per state (attention first); the burn rates over
    5/15/60 min in USD and tokens per hour; a 30-column sparkline of the last hour (tokens, two
    minutes a column) and today's spend (UTC day: the known part, and how many sessions are
    unpriced: :func:`~tracetui.views.format.fmt_usd_known`); the daily budget when one is set."""
    from tracetui.views.fleet import STATES

    rates, budget, today, spark, unpriced = _fleet(rows, now, budgets)
    counts = {s: 0 for s in STATES}
    for r in rows:
        counts[r.status.state] = counts.get(r.status.state, 0) + 1
    head = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no session"
    usd = " · ".join(_rate_text(r) for r in rates)
    tok = " ".join(fmt_short(r.tokens_per_hour) for r in rates)
    lines = [head, f"burn {usd} ({tok} tok/h)", f"last hour ▕{spark}▏ today {fmt_usd_known(today, len(unpriced))}"]
    if budget is not None:
        lines.append(budget.text)
    return "\n".join(lines)
