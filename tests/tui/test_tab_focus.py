"""A screen over the monitor (drill-down, fleet, help) gives the tab it was opened from back when
it closes: Textual gives focus back to the widget focused before, and a focused widget's tab
pane becomes the active tab, so focus has to follow the tab shown (second user trial: Esc out of
a drill-down, and Enter on the fleet, showed the first tab)."""

from __future__ import annotations

from pathlib import Path

from tui_sessions import three_sessions
from tui_support import settings_for, wait_until

from tracetui.tui.app import make_app
from tracetui.tui.screens.episode import EpisodeScreen


async def test_esc_from_a_drill_down_returns_to_its_tab(tmp_path: Path) -> None:
    paths = three_sessions(tmp_path)
    app = make_app(settings_for(paths, tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.state is not None, 500, 0.02)
        first = app.current_view
        app.action_next_tab()
        app.action_next_tab()
        await wait_until(
            pilot, lambda: app.current_view is not first and app.current_view.built and app.current_view.state is not None, 500, 0.02
        )
        third = app.current_view
        assert third.spec.paths[0] != first.spec.paths[0]
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EpisodeScreen), 300, 0.02)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, EpisodeScreen), 300, 0.02)
        await pilot.pause()
        await pilot.pause()
        assert app.current_view is third
