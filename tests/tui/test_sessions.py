"""The session picker and the tabs it opens.

Fixture sessions come from tui_sessions.py and tui_support.py (``TranscriptBuilder``); nothing is copied from
the corpus.
"""

from __future__ import annotations

from pathlib import Path

from tui_sessions import pick, three_sessions
from tui_support import app_for, wait_for_state


async def test_a_third_session_opened_from_the_picker_is_the_tab_shown(tmp_path: Path) -> None:
    # the trial: one tab, a second opened from the picker, then s Down Down Enter
    paths = three_sessions(tmp_path)
    app = app_for(paths[:1], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pick(pilot, app, "down")
        assert app.current_view.spec.paths[0] == paths[1]
        await pick(pilot, app, "down", "down")
        assert len(app.query("SessionView")) == 3
        view = app.current_view
        assert view is not None and view.spec.paths[0] == paths[2]
        tabs = app.query_one("TabbedContent")
        assert tabs.active_pane is view.parent and view.parent.display
