"""The session picker with a session whose project folder is not UTF-8: its row shows the
folder with stand-ins (ingest/files.py ``path_text``), never a lone surrogate, and Enter opens it.

The sessions are written by the test (tests/non_utf8_home.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from non_utf8_home import BAD_FOLDER_TEXT, BAD_SID, bad_home
from textual.widgets import DataTable
from tui_support import FROZEN_NOW, app_for, open_sessions, wait_for_state, wait_until


async def test_the_picker_shows_it_with_stand_ins_and_opens_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    home = bad_home(tmp_path, FROZEN_NOW)  # tmp_path/projects: the picker's folder (tui_support.settings_for)
    app = app_for([home.ok], tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        table = screen.query_one(DataTable)
        rows = [" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
        bad_row = next(r for r in rows if BAD_SID[:8] in r)
        assert BAD_FOLDER_TEXT in bad_row
        for r in rows:
            r.encode("utf-8")  # no lone surrogate reaches the terminal
        row = next(i for i, s in enumerate(screen.sessions) if s.path == home.bad)
        table.move_cursor(row=row)
        await pilot.press("enter")

        def opened() -> bool:
            view = app.current_view
            return view is not None and view.spec.paths[0] == home.bad and view.state is not None

        await wait_until(pilot, opened)
        view = app.current_view
        assert view is not None and view.state is not None
        assert view.state.main.session_id == BAD_SID and view.state.counters.records > 0
