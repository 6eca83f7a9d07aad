"""Burn rates over 5, 15 and 60 minutes, the per-minute series, the sparkline and budgets."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from fleet_support import busy, last_time, state_of, write

from tracetui.model.pricing import model_price
from tracetui.views.burn import (
    SERIES_MINUTES,
    budget_anomaly,
    budget_status,
    burn_rates,
    merge_series,
    minute_series,
    spark_values,
    sparkline,
    spent_on,
)


def test_rates_over_each_window() -> None:
    now = 100 * 60 + 30.0  # 30 s into minute 100
    # 1,000 tokens and $0.10 in each of the last 60 minutes, 10,000 more in the current minute
    series = tuple((m * 60, 1000 + (9000 if m == 100 else 0), 0.1) for m in range(41, 101))
    r5, r15, r60 = burn_rates(series, now)
    assert (r5.minutes, r15.minutes, r60.minutes) == (5, 15, 60)
    assert r5.tokens_per_hour == pytest.approx((5 * 1000 + 9000) * 12)
    assert r15.tokens_per_hour == pytest.approx((15 * 1000 + 9000) * 4)
    assert r60.tokens_per_hour == pytest.approx(60 * 1000 + 9000)
    assert r5.usd_per_hour == pytest.approx(0.5 * 12)
    assert r60.usd_per_hour == pytest.approx(6.0)


def test_minutes_outside_the_window_do_not_count() -> None:
    now = 200 * 60.0
    series = ((100 * 60, 5000, 1.0), (194 * 60, 600, 0.06))
    r5, r15, r60 = burn_rates(series, now)
    assert r5.tokens_per_hour == 0  # minute 194 is 6 minutes back
    assert r15.tokens_per_hour == pytest.approx(600 * 4)
    assert r60.tokens_per_hour == pytest.approx(600)


def test_unknown_price_is_none() -> None:
    r5, _, _ = burn_rates(((60, 10, math.nan),), 90.0)
    assert r5.usd_per_hour is None and r5.tokens_per_hour == 120


def test_series_from_a_session_dedups_messages_and_is_bounded(tmp_path: Path) -> None:
    b = busy("88888888-0000-4000-8000-000000000008", minutes=90)
    st = state_of(write(b, tmp_path, "-p", b.session_id))
    series = minute_series(st)
    assert 0 < len(series) <= SERIES_MINUTES + 1
    # the series is the last hour of the session: each minute's tokens sum the messages in it
    # (each message once, by id); the whole session is more
    assert sum(t for _, t, _ in series) < st.tokens.total
    assert all(m % 60 == 0 for m, _, _ in series)
    end = last_time(b)
    assert series[-1][0] <= end <= series[-1][0] + 120  # the last record is a result (no usage)
    assert series[0][0] >= end - (SERIES_MINUTES + 1) * 60
    # one usage event per tool_use here: the series total is the events' usage in the window
    evs = [e for e in st.ledgers[0] if e.usage is not None and e.timestamp and e.timestamp >= _iso(series[0][0])]
    assert sum(t for _, t, _ in series) == sum(e.usage[0] + e.usage[1] + e.usage[2] + e.usage[3] for e in evs)


def test_the_series_reads_a_ledger_by_slices_and_gives_the_same(tmp_path: Path) -> None:
    """The fleet's thread scans up to 50,000 events back: by slices, which a stored ledger's view
    reads without keeping, so the scan does not push out the blocks the monitor's panes keep
    (indexed reads would)."""
    import msgspec

    from tracetui.model.state import Event

    b = busy("88888888-0000-4000-8000-000000000009", minutes=90)
    st = state_of(write(b, tmp_path, "-p", b.session_id))

    class SlicesOnly(list[Event]):
        def __getitem__(self, i):  # type: ignore[override]
            if not isinstance(i, slice):
                raise AssertionError(f"indexed read of event {i}")
            return list.__getitem__(self, i)

    sliced = msgspec.structs.replace(st, ledgers=(SlicesOnly(st.ledgers[0]), *st.ledgers[1:]))
    assert minute_series(sliced) == minute_series(st) != ()


def _iso(t: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def test_series_is_priced_with_the_files_model(tmp_path: Path) -> None:
    b = busy("99999999-0000-4000-8000-000000000009", minutes=2, per_minute=1)
    st = state_of(write(b, tmp_path, "-p", b.session_id))
    series = minute_series(st)
    model = next(iter(st.main.tokens_by_model))
    evs = [e for e in st.ledgers[0] if e.usage is not None]
    want = sum(model_price(model, e.usage[0], e.usage[1], e.usage[2], e.usage[3], "2026-03-02", 1, e.usage[4]) for e in evs)
    assert sum(u for _, _, u in series) == pytest.approx(want)


def test_fleet_series_sums_sessions() -> None:
    a = ((60, 10, 0.1), (120, 5, 0.05))
    b = ((120, 7, 0.07), (180, 1, 0.01))
    assert merge_series([a, b]) == ((60, 10, 0.1), (120, 12, pytest.approx(0.12)), (180, 1, 0.01))


def test_sparkline() -> None:
    assert sparkline([0, 1, 2, 4, 8]) == " ▁▂▄█"
    assert sparkline([0, 0]) == "  "
    now = 10 * 60.0
    vals = spark_values(((9 * 60, 4, 0.0), (10 * 60, 8, 0.0)), now, width=5, minutes=10)
    assert vals == [0, 0, 0, 0, 12]


def test_budget_crossed_is_an_error_anomaly() -> None:
    st = budget_status(5.0, 6.25, 2.0, "the session budget")
    assert st.crossed and st.eta is None
    a = budget_anomaly(st)
    assert a is not None and a.severity == "error" and "crossed" in a.message and a.open


def test_budget_eta_at_the_current_rate() -> None:
    st = budget_status(10.0, 4.0, 3.0, "the daily budget")
    assert not st.crossed and st.eta == pytest.approx(2 * 3600)
    assert "crossed in 2h00m" in st.text and "$3.00/h" in st.text
    assert budget_anomaly(st) is None  # two hours away: no anomaly yet
    soon = budget_status(10.0, 9.0, 3.0)
    a = budget_anomaly(soon)
    assert a is not None and a.severity == "warn" and "crossed in 20m00s" in a.message


def test_budget_without_spending() -> None:
    st = budget_status(10.0, 1.0, None)
    assert st.eta is None and not st.crossed and "nothing spent" in st.text


def test_spent_on_a_day() -> None:
    assert spent_on([("2026-03-01", 1.0), ("2026-03-02", 2.5), ("2026-03-02", 0.5)], "2026-03-02") == 3.0


def test_a_file_with_an_unpriced_model_has_minutes_of_unknown_cost(tmp_path: Path) -> None:
    """The session's cost is unknown when one of its models has no price: its burn rate is
    unknown too, never the priced model's rate applied to the other's tokens."""
    b = busy("99999999-0000-4000-8000-00000000000a", minutes=3, per_minute=1)
    b.model = "model-with-no-price-anywhere"
    b.tick(5).tool("Grep", {"pattern": "x"}, "billing.py:4", took=1)
    st = state_of(write(b, tmp_path, "-p", b.session_id))
    assert len(st.main.tokens_by_model) == 2 and st.cost_usd is None
    series = minute_series(st)
    assert series and all(math.isnan(u) for _, _, u in series)
    assert all(r.usd_per_hour is None for r in burn_rates(series, last_time(b)))
