"""Scrubbing (``[``, ``]``, ``l``) on a session of many episodes: what a step costs in work (no
episode priced again, one draw for a burst of keys) and where a burst of keys lands.

The session comes from tui_sessions.py ``scrub_session`` (a cost spike and an episode with a
second version); nothing is copied from the corpus.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from tui_sessions import scrub_session, state_of
from tui_support import app_for, press_copy, wait_for_state, wait_until

import tracetui.model.pricing as pricing
from tracetui.model.anomalies import timeless_anomalies
from tracetui.tui.session_view import SessionView
from tracetui.tui.view_model import anomaly_rows
from tracetui.tui.widgets import anomalies as anomalies_pane
from tracetui.tui.widgets.anomalies import AnomalyBadges
from tracetui.tui.widgets.episodes import EpisodesList
from tracetui.tui.widgets.header import SessionHeader
from tracetui.views import anomaly_memo
from tracetui.views.anomaly_memo import timeless_of
from tracetui.views.as_of import state_as_of

EPISODES = 40


@contextlib.asynccontextmanager
async def _scrub_app(tmp_path: Path, drawn: bool = False) -> AsyncIterator[tuple[Pilot, SessionView]]:
    """The app on a session of :data:`EPISODES` episodes (``tui_sessions.scrub_session``), once
    its view holds a state (``drawn``: and has drawn it)."""
    path = tmp_path / "s.jsonl"
    scrub_session(path, EPISODES)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        if drawn:
            await wait_until(pilot, lambda: view.shown is not None and view.shown.live is view.state, 200, 0.02)
        yield pilot, view


def test_the_anomalies_as_of_each_episode_are_the_rules(tmp_path: Path) -> None:
    # the cost spikes of a past episode's state are taken from the live state's when its
    # episodes are the live state's first ones (episode 30 had another version then: computed)
    path = tmp_path / "s.jsonl"
    scrub_session(path, EPISODES)
    live = state_of(path)
    assert any(a.kind == "cost_spike" for a in timeless_anomalies(live, live.episodes)[1])
    for k in range(1, len(live.history) + 1):
        st = state_as_of(live, k)
        eps = st.episodes or None
        assert timeless_of(st, eps, live) == timeless_anomalies(st, eps), k
    assert timeless_of(live, live.episodes) == timeless_anomalies(live, live.episodes)


async def test_a_scrub_step_prices_no_episode_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with _scrub_app(tmp_path, drawn=True) as (pilot, view):
        # the live state drawn first (its anomalies, every episode priced once, are not a step's)
        live = view.state
        calls = []
        real = pricing.estimate_cost

        def counted(*a, **kw):
            import threading

            # the fleet's facts of the live state, computed on the feed's thread a moment after
            # the state came (tui/fleet_feed.py), are no step's work
            if threading.current_thread().name != "tracetui-fleet":
                calls.append(1)
            return real(*a, **kw)

        monkeypatch.setattr(pricing, "estimate_cost", counted)
        for key in ("left_square_bracket", "left_square_bracket", "right_square_bracket", "l"):
            await pilot.press(key)
            await pilot.pause()
        assert view.episode is None and view.state is live
        # the as-of states' own cost (one each), never every episode's (40 a step before)
        assert len(calls) <= 3, len(calls)


async def test_a_burst_of_presses_lands_on_the_right_episode_drawn_once(tmp_path: Path) -> None:
    async with _scrub_app(tmp_path) as (pilot, view):
        last = view.completed()
        draws = []
        real = view.refresh_panes

        def counted() -> None:
            draws.append(view.episode)
            real()

        view.refresh_panes = counted  # type: ignore[method-assign]
        # the keys arrive together, as a terminal sends a held or quickly repeated key
        keys = ["left_square_bracket"] * 25 + ["right_square_bracket"] * 3
        for key in keys:
            pilot.app.post_message(events.Key(key, "[" if key.startswith("left") else "]"))
        await wait_until(pilot, lambda: view.shown is not None and view.shown.episode == last - 24 + 3, 200, 0.02)
        want = last - 24 + 3  # the first [ goes to the last completed episode
        assert view.episode == want
        assert view.shown.episode == want and view.shown.state.main.prompts == want
        assert f"ep {want}/" in str(view.query_one(SessionHeader).content)
        assert 1 <= len(draws) < len(keys) // 2, draws  # not one draw per key
        assert draws[-1] == want
        # a key after the burst is applied too
        pilot.app.post_message(events.Key("l", "l"))
        await wait_until(pilot, lambda: view.episode is None and view.shown.episode is None, 200, 0.02)
        assert "LIVE" in str(view.query_one(SessionHeader).content) or "IDLE" in str(view.query_one(SessionHeader).content)


async def test_a_scrub_step_measures_no_row_of_the_episodes_pane_again(tmp_path: Path) -> None:
    # the scrubbed row and the one before it change; the other rows keep their measured lines
    async with _scrub_app(tmp_path) as (pilot, view):
        await pilot.press("left_square_bracket")
        await pilot.pause()
        pane = view.query_one(EpisodesList)
        cache = pane._line_cache
        clears = []
        real = cache.clear

        def counted() -> None:
            clears.append(1)
            real()

        cache.clear = counted  # type: ignore[method-assign]
        for key in ("left_square_bracket", "left_square_bracket", "right_square_bracket"):
            await pilot.press(key)
            await pilot.pause()
        assert view.episode == view.completed() - 1
        assert clears == []
        i = pane.highlighted
        assert i is not None and pane.rows_data[i].index == view.episode
        assert pane.get_option_at_index(i).prompt.spans[0].style == "reverse bold"  # the scrubbed row marked
        assert len(cache.lines) == len(pane.rows_data)


async def test_a_past_episodes_anomalies_that_need_pricing_come_from_a_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # as of episode 30 the episode had another version than now: its cost spikes cannot be
    # taken from the live state's; the keys and the other panes do not wait for them
    monkeypatch.setattr(anomalies_pane, "THREAD_EPISODES", 0)
    threaded = []
    real_later = AnomalyBadges._later

    def later(self, shown) -> None:
        threaded.append(shown.episode)
        real_later(self, shown)

    monkeypatch.setattr(AnomalyBadges, "_later", later)
    async with _scrub_app(tmp_path, drawn=True) as (pilot, view):
        while view.episode != 30:
            await pilot.press("left_square_bracket")
        await pilot.pause()
        pane = view.query_one(AnomalyBadges)
        assert view.shown.episode == 30 and "ep 30/" in str(view.query_one(SessionHeader).content)
        await wait_until(pilot, lambda: "computing" not in str(pane.border_title), 300, 0.02)
        shown = view.shown
        assert "computing" not in str(pane.border_title)
        want, _ = anomaly_rows(shown.state, shown.now, shown.live)
        assert pane.rows == want
        assert threaded == [30]  # only there: the steps before took the live state's spikes
        # the worker view compiles its own state as of episode 30: the spikes priced are kept
        full = []
        real = anomaly_memo.timeless_anomalies

        def counted(state, episodes=None):
            if episodes:
                full.append(1)  # every episode priced
            return real(state, episodes)

        monkeypatch.setattr(anomaly_memo, "timeless_anomalies", counted)
        await press_copy(pilot, "w")
        await pilot.pause()
        assert "end of episode 30 of" in (pilot.app.clipboard or "")
        assert full == []
