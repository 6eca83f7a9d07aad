"""Nothing is repainted while nothing changes (fourth user trial: the fleet screen of 200 idle
sessions wrote ~35 KB/s to the terminal: the monitor beneath it ticked, every pane set its title
again, and Textual repainted those regions of the fleet screen over it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import FROZEN_NOW, app_for, demo_session, wait_for_state, wait_until

from tracetui.tui.screens.fleet import FleetScreen
from tracetui.tui.widgets.anomalies import AnomalyBadges
from tracetui.tui.widgets.counters import CountersPane
from tracetui.tui.widgets.episodes import EpisodesList
from tracetui.tui.widgets.files import FilesPane
from tracetui.tui.widgets.pending_calls import PendingCalls
from tracetui.tui.widgets.subagents import SubagentsTree
from tracetui.tui.widgets.todos import TodosPane


@pytest.mark.parametrize("kind", [PendingCalls, EpisodesList, FilesPane, TodosPane, CountersPane, AnomalyBadges, SubagentsTree])
async def test_a_pane_shown_the_same_state_again_is_not_repainted(tmp_path: Path, kind: type) -> None:
    app = app_for([demo_session(tmp_path)], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        pane = view.query_one(kind)
        shown = view.shown
        assert shown is not None
        pane.show(shown)
        painted: list[object] = []
        real = pane.refresh
        pane.refresh = lambda *a, **k: painted.append((a, k)) or real(*a, **k)  # type: ignore[method-assign]
        pane.show(shown)
        assert painted == []


async def test_the_monitor_does_not_tick_beneath_the_fleet_screen(tmp_path: Path) -> None:
    clock = [FROZEN_NOW]
    app = app_for([demo_session(tmp_path)], tmp_path)
    app.settings.clock = lambda: clock[0]
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        ticks: list[float] = []
        real = view.tick
        view.tick = lambda: ticks.append(clock[0]) or real()  # type: ignore[method-assign]
        app._tick()
        assert ticks == [FROZEN_NOW]
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen))
        assert isinstance(app.screen, FleetScreen)
        clock[0] += 1
        app._tick()
        assert ticks == [FROZEN_NOW]
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, FleetScreen))
        clock[0] += 1
        app._tick()  # the monitor again: its ages move
        assert ticks == [FROZEN_NOW, FROZEN_NOW + 2]
