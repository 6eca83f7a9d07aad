"""The session picker and the tabs it opens.

Fixture sessions come from tui_sessions.py and tui_support.py (``TranscriptBuilder``); nothing is copied from
the corpus.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import DataTable
from tui_sessions import pick, three_sessions
from tui_support import app_for, open_sessions, small_session, wait_for_state


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


async def test_a_copy_written_now_is_no_live_session_in_the_picker(tmp_path: Path) -> None:
    # a helper's finding: the picker judged activity by the files' time alone, so a transcript
    # copied a minute ago read "live" there while the fleet said "idle (a copy?)"
    import time as _time
    from datetime import UTC, datetime

    from textual.widgets import DataTable
    from tui_support import open_sessions

    from tracetui.demo.build import TranscriptBuilder

    now = _time.time()
    live = tmp_path / "projects" / "-live" / "aaaa0000-0000-4000-8000-000000000001.jsonl"
    start = datetime.fromtimestamp(now - 20, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    b = TranscriptBuilder(session_id=live.stem, start=start)
    b.prompt("Fix the parser")
    b.tick(5).text("On it.")
    b.write(live)
    copy = tmp_path / "projects" / "-copy" / "bbbb0000-0000-4000-8000-000000000002.jsonl"
    b = TranscriptBuilder(session_id=copy.stem, start="2026-01-01T00:00:00.000Z")  # long before now
    b.prompt("An old session, copied just now")
    b.tick(5).text("Done.")
    b.write(copy)
    now = _time.time() + 1  # the app clock: a second after both files were written
    app = app_for([live], tmp_path, now=now)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        table = screen.query_one(DataTable)
        ages = {str(table.get_row_at(i)[3]): str(table.get_row_at(i)[0]) for i in range(table.row_count)}
        assert ages[live.stem] == "live", ages
        assert ages[copy.stem].endswith(" ago (a copy?)") and ages[copy.stem][0].isdigit(), ages


async def test_with_the_demo_the_picker_lists_the_users_sessions_too(tmp_path: Path) -> None:
    # trial 12: `tracetui --demo`, then s, listed the demo (and the Codex home's) but none of
    # the Claude Code sessions under the projects folder: the demo's folder had replaced it
    from tui_support import open_sessions, settings_for

    from tracetui.demo.build import DEMO_SESSION_ID
    from tracetui.tui.app import make_app

    paths = three_sessions(tmp_path)
    s = settings_for([], tmp_path)
    s.demo = True
    app = make_app(s)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await wait_for_state(pilot)
            screen = await open_sessions(pilot, app)
            assert {p.stem for p in paths} | {DEMO_SESSION_ID} <= {s.session_id for s in screen.sessions}
    finally:
        if app.replay is not None:
            app.replay.stop()


@pytest.mark.parametrize("size", [(160, 45), (100, 30), (80, 24), (60, 16)])
async def test_end_shows_the_last_session_inside_the_box(tmp_path: Path, size: tuple[int, int]) -> None:
    # trial 13: at 160x45 the table took the whole box below its title, so its last row was drawn
    # under the box's border; End moved the cursor there and nothing showed it
    paths = []
    for i in range(47):
        p = tmp_path / "projects" / f"-p{i}" / f"{i:08x}-0000-4000-8000-000000000000.jsonl"
        small_session(p)
        os.utime(p, (1_700_000_000 - 60 * i, 1_700_000_000 - 60 * i))
        paths.append(p)
    app = app_for(paths[:1], tmp_path)
    async with app.run_test(size=size) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        await pilot.press("end")
        await pilot.pause()
        table = screen.query_one(DataTable)
        inside = screen.query_one("#sessions-box").content_region
        assert table.cursor_row == len(paths) - 1
        assert table.region.bottom <= inside.bottom, (table.region, inside)
        # the cursor's row on screen: below the header, scrolled by scroll_y
        y = table.region.y + table.header_height + table.cursor_row - round(table.scroll_y)
        assert table.region.y + table.header_height <= y < min(inside.bottom, table.region.bottom - table.scrollbar_size_horizontal)


def test_the_picker_orders_its_rows_by_the_time_it_shows() -> None:
    # trial 13: rows in file-time order while a copy's "last activity" is its newest record's
    # age, so the column read 169d, 169d, 238d, 234d, 236d, 168d
    from tracetui.ingest.discover import SessionInfo
    from tracetui.tui.screens.sessions import by_time_shown

    day = 86_400.0
    now = 1_800_000_000.0

    def info(name: str, mtime: float) -> SessionInfo:
        return SessionInfo(Path(f"/p/{name}.jsonl"), name, "-p", 1, mtime)

    found = [info("copy-old", now - 60), info("copy-new", now - 70), info("written", now - 5 * day), info("unstamped", now - 9 * day)]
    stamps = {
        found[0].path: now - 200 * day,  # copied a minute ago, its newest record 200 days old
        found[1].path: now - 3 * day,
        found[2].path: now - 5 * day - 30,  # written as its records: no copy
    }
    assert [s.session_id for s in by_time_shown(found, stamps)] == ["copy-new", "written", "copy-old", "unstamped"]
