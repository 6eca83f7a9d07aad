"""An idle monitor costs about nothing: the one-second tick redraws only what changed.

Before the fix each tick priced every episode again (the cost-spike detector: most of an idle
big session's CPU), re-rendered every pane whether its text changed or not, and every tab of
``--all`` mounted its panes at start (200 tabs: 12 s to the first screen), while the footer's
binding checks queried every widget of every tab many times a second (~90% of a core idle
with 200 tabs). bench/idle.py measures the figures; these tests pin the mechanisms.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tui_support import app_for, settings_for, small_session, wait_for_state, wait_until

from tracetui.tui.app import make_app
from tracetui.tui.session_view import SessionView
from tracetui.tui.widgets.goal import GoalPane
from tracetui.tui.widgets.header import SessionHeader


async def test_a_tick_with_the_same_state_prices_nothing_and_redraws_nothing(tmp_path: Path, monkeypatch) -> None:
    import tracetui.model.anomalies as anomalies

    path = tmp_path / "s.jsonl"
    small_session(path)
    calls = []
    real = anomalies.timeless_anomalies

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(anomalies, "timeless_anomalies", counted)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        updates = []
        header = view.query_one(SessionHeader)
        real_update = type(header).update
        monkeypatch.setattr(header, "update", lambda *a, **k: (updates.append(header), real_update(header, *a, **k))[1])
        n = len(calls)
        for _ in range(5):
            view.tick()
        await pilot.pause()
        assert len(calls) == n  # the clock-free detectors ran once for this state
        assert updates == []  # the frozen clock changes no text: nothing is redrawn


class _Walked(tuple):
    """A state's tuple that counts the walks through it."""

    walks = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        _Walked.walks += 1
        return super().__iter__()


async def test_a_tick_walks_no_file_or_subagent_of_the_same_state(tmp_path: Path) -> None:
    # a fresh-user trial: 5,000 subagents and their files walked by the Files and Subagents
    # panes at every tick (their keys), 2 % of a core with nothing written
    import msgspec
    from fixtures import fan_out

    main = fan_out(tmp_path / "projects" / "-p", 20)
    app = app_for([main], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        st = view.state
        main_st = msgspec.structs.replace(st.main, subagents=_Walked(st.main.subagents))
        view.state = msgspec.structs.replace(st, files=_Walked(st.files), agents=_Walked(st.agents), main=main_st)
        await pilot.pause()
        drawn = _Walked.walks
        assert drawn > 0  # the panes read the new state
        for _ in range(5):
            view.tick()
        await pilot.pause()
        assert _Walked.walks == drawn


async def test_only_the_tab_on_screen_mounts_its_panes(tmp_path: Path) -> None:
    paths = []
    for i in range(12):
        p = tmp_path / "projects" / "-p" / f"5e55a0c1-0000-4000-8000-{i:012d}.jsonl"
        small_session(p)
        paths.append(p)
    app = make_app(settings_for(paths, tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        views = list(app.query(SessionView))
        await wait_until(pilot, lambda: all(v.state is not None for v in views), 1500, 0.02)
        assert all(v.state is not None for v in views)
        assert len(app.query(GoalPane)) == 1 and views[0].built and not any(v.built for v in views[1:])
        tabs = app.query_one("TabbedContent")

        def drawn() -> bool:
            # Textual's tab bar may activate the first tab once more just after start-up (seen
            # under load): switch again until the second tab is the one shown
            if tabs.active != "tab-2":
                tabs.active = "tab-2"  # as ctrl+pagedown does (app._cycle_tab)
                return False
            panes = views[1].query(GoalPane)
            return bool(panes) and "Now add a test for empty input" in str(panes.first().content)

        await wait_until(pilot, drawn, 300, 0.01)
        assert app.current_view is views[1] and views[1].built
        assert "Now add a test for empty input" in str(views[1].query_one(GoalPane).content)


async def test_a_view_is_built_only_once_its_panes_are_mounted(tmp_path: Path) -> None:
    # ``built`` means every pane is there: a snapshot or a refresh arriving while the panes
    # are being mounted (recompose awaits, other messages run) must not look for them
    paths = []
    for i in range(2):
        p = tmp_path / "projects" / "-p" / f"5e55a0c2-0000-4000-8000-{i:012d}.jsonl"
        small_session(p)
        paths.append(p)
    app = make_app(settings_for(paths, tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        views = list(app.query(SessionView))
        await wait_until(pilot, lambda: all(v.state is not None for v in views), 1500, 0.02)
        view = views[1]
        assert not view.built
        task = asyncio.ensure_future(view.build())
        await asyncio.sleep(0)  # the build has started: it waits inside recompose
        assert not task.done() and not view.built
        view.refresh_panes()  # what a snapshot arriving now does: nothing, no pane looked up
        await task
        assert view.built and len(view.query(GoalPane)) == 1
