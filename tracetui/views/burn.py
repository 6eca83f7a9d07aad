"""Burn rate and budgets: tokens and USD per hour over the last 5, 15 and 60 minutes, a
sparkline of the last hour, and when a budget is (or will be) crossed. Pure: ``now`` is always
an argument (epoch seconds).

The per-minute series comes from the ledger events that carry usage and a timestamp (one per
assistant record): :func:`minute_series` reads each file's ledger backwards from its end for the
:data:`SERIES_MINUTES` minutes before the session's last record (at most :data:`SCAN_EVENTS`
events a file), takes each API message once (the max of each field over its records, as the
session's totals do) at the minute of its first record there, and prices it with the file's
main model (events do not carry the model; a session rarely mixes models within a file), and a
file with a model of no known price among its models has minutes of unknown cost. It is
at most ``SERIES_MINUTES + 1`` entries ``(minute, tokens, usd)``: bounded memory per session.
Tokens are all four kinds (input, output, cache writes and reads), as the session's total.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence

import msgspec

from tracetui.model.state import AgentState, RunState
from tracetui.model.timestamps import parse_ts
from tracetui.model.types import Anomaly
from tracetui.views.format import fmt_usd

__all__ = [
    "WINDOWS",
    "SERIES_MINUTES",
    "SCAN_EVENTS",
    "BUDGET_SOON",
    "Rate",
    "BudgetStatus",
    "minute_series",
    "merge_series",
    "burn_rates",
    "sparkline",
    "spark_values",
    "budget_status",
    "budget_anomaly",
    "spent_on",
]

#: the windows of a burn rate, in minutes
WINDOWS = (5, 15, 60)
#: minutes of usage a session's series keeps (the longest window)
SERIES_MINUTES = 60
#: ledger events a file is read back at most for its series (a dense hour is a few thousand)
SCAN_EVENTS = 50_000
#: a budget that the current rate crosses within this many seconds is a warning already
BUDGET_SOON = 3600.0
#: the sparkline's blocks, lowest to highest (no usage in a minute: a space)
BLOCKS = "▁▂▃▄▅▆▇█"

Series = tuple[tuple[int, int, float], ...]


class Rate(msgspec.Struct, frozen=True):
    """Tokens and USD per hour over the last ``minutes`` minutes (``usd`` ``None``: a model
    without a known price)."""

    minutes: int
    tokens_per_hour: float
    usd_per_hour: float | None


class BudgetStatus(msgspec.Struct, frozen=True):
    """A budget against what was spent: ``crossed``, and at ``usd_per_hour`` the seconds until it
    is (``eta``, ``None`` when crossed already or nothing is being spent), with one line saying so."""

    budget: float
    spent: float
    usd_per_hour: float
    crossed: bool
    eta: float | None
    text: str


def _file_model(st: AgentState) -> str | None:
    """The model a file's usage events are priced with: its model of most tokens, or, when one
    of its models has no known price (genai-prices), that model, so that the file's minutes are
    unknown (``nan``), never priced at another model's rate (its events do not say which of the
    file's models each message used)."""
    from tracetui.model.pricing import model_price, utc_day

    by = st.tokens_by_model
    if not by:
        return None
    if len(by) > 1:
        day = utc_day(st.last_timestamp) or "2026-01-01"
        for m in sorted(by):
            if model_price(m, 1, 1, 0, 0, day) is None:
                return m
    return max(by, key=lambda m: (by[m].total, m))


def _backwards(led: Sequence, end: int, n: int, chunk: int = 1024) -> Iterator:
    """Events ``end - 1`` down to ``end - n`` of ledger ``led`` (a list, or a stored ledger's
    view), read a slice of ``chunk`` at a time: a stored view reads a slice from its database
    without keeping it, so a long scan here (the fleet's thread) does not push out the blocks
    the monitor's panes keep for their own reads."""
    lo_all = max(0, end - n)
    hi = end
    while hi > lo_all:
        lo = max(lo_all, hi - chunk)
        yield from reversed(led[lo:hi])
        hi = lo


def minute_series(state: RunState) -> Series:
    """``((minute, tokens, usd), ...)`` per minute (``minute``: epoch seconds of its start, a
    multiple of 60) of the :data:`SERIES_MINUTES` minutes ending at the session's last record,
    oldest first; ``usd`` is ``nan`` for a minute with a model of no known price. Empty when no
    event has usage and a timestamp."""
    from tracetui.model.pricing import model_price, utc_day

    last = None
    for st in (state.main, *state.agents):
        t = parse_ts(st.last_timestamp)
        if t is not None and (last is None or t > last):
            last = t
    if last is None:
        return ()
    cutoff = (int(last.timestamp()) // 60 - SERIES_MINUTES) * 60
    # message id -> [minute, model, day, input, output, cache_creation, cache_read, cache_1h]
    msgs: dict[str, list] = {}
    # "YYYY-MM-DDTHH:MM" of a timestamp in the form Claude Code writes (UTC, ``Z``) -> its
    # minute: a dense hour has thousands of records and a few dozen minutes to parse
    minutes: dict[str, int] = {}
    for st in (state.main, *state.agents):
        if st.src >= len(state.ledgers):
            continue
        led: Sequence = state.ledgers[st.src]
        end = min(st.ledger_len, len(led))
        model = _file_model(st)
        for ev in _backwards(led, end, SCAN_EVENTS):
            u = ev.usage
            raw = ev.timestamp
            if u is None or raw is None:
                continue
            plain = len(raw) >= 20 and raw[-1] == "Z" and raw[10] == "T"
            minute = minutes.get(raw[:16]) if plain else None
            if minute is None:
                t = parse_ts(raw)
                if t is None:
                    continue
                minute = int(t.timestamp()) // 60 * 60
                if plain:
                    minutes[raw[:16]] = minute
            if minute < cutoff:
                break  # read backwards: the rest of the file is older
            if model is None:
                continue
            key = ev.message_id or f"{st.src}:{ev.seq}"
            m = msgs.get(key)
            if m is None:
                msgs[key] = [minute, model, raw[:10] if plain else utc_day(raw), *u]
            else:
                m[0] = min(m[0], minute)  # the earliest record seen wins
                for j in range(5):
                    m[3 + j] = max(m[3 + j], u[j])
    per: dict[tuple[int, str, str], list[int]] = {}
    for minute, model, day, *u in msgs.values():
        b = per.setdefault((minute, model, day), [0, 0, 0, 0, 0, 0])
        b[0] += 1
        for j in range(5):
            b[1 + j] += u[j]
    out: dict[int, list] = {}
    for (minute, model, day), b in per.items():
        tok = b[1] + b[2] + b[3] + b[4]
        usd = model_price(model, b[1], b[2], b[3], b[4], day or "2026-01-01", b[0], b[5]) if day else None
        o = out.setdefault(minute, [0, 0.0])
        o[0] += tok
        o[1] = math.nan if usd is None else o[1] + usd
    return tuple((m, v[0], v[1]) for m, v in sorted(out.items()))


def merge_series(series: Iterable[Series]) -> Series:
    """The sum of several sessions' series, per minute (the fleet's)."""
    out: dict[int, list] = {}
    for s in series:
        for minute, tok, usd in s:
            o = out.setdefault(minute, [0, 0.0])
            o[0] += tok
            o[1] += usd
    return tuple((m, v[0], v[1]) for m, v in sorted(out.items()))


def burn_rates(series: Series, now: float, windows: Sequence[int] = WINDOWS) -> tuple[Rate, ...]:
    """Per window of ``windows`` minutes: the tokens and USD of the minutes that start within
    the last that many minutes before ``now`` (the current minute included), per hour."""
    out = []
    for w in windows:
        start = (int(now) // 60 - w + 1) * 60
        tok = 0
        usd = 0.0
        for minute, t, u in series:
            if start <= minute <= now:
                tok += t
                usd += u
        f = 60.0 / w
        out.append(Rate(w, tok * f, None if math.isnan(usd) else usd * f))
    return tuple(out)


def spark_values(series: Series, now: float, width: int = SERIES_MINUTES, minutes: int = SERIES_MINUTES) -> list[float]:
    """Tokens of the last ``minutes`` minutes before ``now`` in ``width`` equal columns (oldest first)."""
    width = max(1, width)
    first = int(now) // 60 - minutes + 1
    cols = [0.0] * width
    for minute, tok, _ in series:
        k = minute // 60 - first
        if 0 <= k < minutes:
            cols[k * width // minutes] += tok
    return cols


def sparkline(values: Sequence[float]) -> str:
    """One block character per value, scaled to the largest (zero: a space)."""
    top = max(values, default=0.0)
    if top <= 0:
        return " " * len(values)
    n = len(BLOCKS)
    return "".join(" " if v <= 0 else BLOCKS[min(n - 1, int(v / top * n - 1e-9))] for v in values)


def spent_on(day_usd: Iterable[tuple[str, float]], day: str) -> float:
    """USD spent on UTC ``day`` (``YYYY-MM-DD``) by ``(day, usd)`` pairs (several sessions' summed)."""
    return sum(u for d, u in day_usd if d == day)


def budget_status(budget: float, spent: float, usd_per_hour: float | None, what: str = "the budget") -> BudgetStatus:
    """``spent`` USD against ``budget`` USD at ``usd_per_hour``; ``text`` says whether it is
    crossed or when it will be (``what`` names the budget: ``the session budget``)."""
    from tracetui.model.timestamps import fmt_span

    rate = usd_per_hour if usd_per_hour is not None and usd_per_hour > 0 else 0.0
    if spent >= budget:
        return BudgetStatus(budget, spent, rate, True, None, f"{what} {fmt_usd(budget)} is crossed: {fmt_usd(spent)} spent")
    if rate <= 0:
        return BudgetStatus(
            budget, spent, rate, False, None, f"{fmt_usd(spent)} of {what} {fmt_usd(budget)}, nothing spent in the last hour"
        )
    eta = (budget - spent) / rate * 3600
    return BudgetStatus(
        budget, spent, rate, False, eta, f"{fmt_usd(spent)} of {what} {fmt_usd(budget)}; at {fmt_usd(rate)}/h crossed in {fmt_span(eta)}"
    )


def budget_anomaly(status: BudgetStatus, key: str = "budget") -> Anomaly | None:
    """The anomaly of a budget: ``error`` once crossed, ``warn`` when the current rate crosses it
    within :data:`BUDGET_SOON` seconds, else ``None``. A view-time anomaly (``view_time``)."""
    if status.crossed:
        sev = "error"
    elif status.eta is not None and status.eta <= BUDGET_SOON:
        sev = "warn"
    else:
        return None
    return Anomaly("budget", sev, key, None, status.text, "when the budget is raised (a new day for the daily budget)", view_time=True)
