"""SVG snapshot tests (pytest-textual-snapshot): main screen, drill-down, history mode, an
anomaly state, and 80×24. The clock is frozen and the fixture is the demo session, written by the
tests under tmp_path (the app shows file names, never the folder they are in)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import STALLED_NOW, app_for, demo_session, wait_for_state, wait_until

from tracetui.tui.screens.episode import EpisodeScreen


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return demo_session(tmp_path)


async def _ready(pilot) -> None:
    await wait_for_state(pilot)
    await pilot.pause()


def test_main_screen(snap_compare, session: Path, tmp_path: Path) -> None:
    assert snap_compare(app_for([session], tmp_path), terminal_size=(120, 40), run_before=_ready)


def test_main_screen_80x24(snap_compare, session: Path, tmp_path: Path) -> None:
    assert snap_compare(app_for([session], tmp_path), terminal_size=(80, 24), run_before=_ready)


def test_history_mode(snap_compare, session: Path, tmp_path: Path) -> None:
    async def run_before(pilot) -> None:
        await _ready(pilot)
        await pilot.press("left_square_bracket", "left_square_bracket", "left_square_bracket")
        await pilot.pause()

    assert snap_compare(app_for([session], tmp_path), terminal_size=(120, 40), run_before=run_before)


def test_anomaly_state(snap_compare, session: Path, tmp_path: Path) -> None:
    # ten minutes after the last record, with two calls still pending: the stall detector fires
    assert snap_compare(app_for([session], tmp_path, now=STALLED_NOW), terminal_size=(120, 40), run_before=_ready)


def test_episode_drill_down(snap_compare, session: Path, tmp_path: Path) -> None:
    async def run_before(pilot) -> None:
        await _ready(pilot)
        await pilot.press(*["left_square_bracket"] * 4, "e")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, EpisodeScreen) and pilot.app.screen.loaded, 200, 0.02)
        await pilot.pause()

    assert snap_compare(app_for([session], tmp_path), terminal_size=(120, 40), run_before=run_before)
