"""One fleet row per session, whatever path its tab was opened by: a relative path, a path
through a symlinked folder, or a copy of the transcript outside the projects folder (eighth
user trial: two identical rows, and the burn rate and state counts took both)."""

from __future__ import annotations

import shutil
from pathlib import Path

import fleet_support as fs
import pytest
from tui_support import FROZEN_NOW, settings_for, wait_until

from tracetui.tui.app import make_app
from tracetui.tui.screens.fleet import FleetScreen
from tracetui.views.fleet_facts import session_facts
from tracetui.views.fleet_table import fleet_rows
from tracetui.views.fleet_totals import fleet_json

NOW = FROZEN_NOW
SID = "2222aaaa-2222-3333-4444-555555555555"


def busy_session(root: Path) -> Path:
    """A session working for the last five minutes, under ``root/projects/-tmp-live``."""
    b = fs.busy(SID, 5, start=fs.iso(NOW - 5 * 60 - 10))
    return fs.write(b, root, "-tmp-live", SID)


def one_session_totals(path: Path) -> dict:
    """The fleet's totals with ``path``'s session alone in it."""
    facts = session_facts(fs.state_of(path), str(path), "-tmp-live")
    return fleet_json(fleet_rows([(facts, path.stat().st_mtime)], NOW), NOW)


def app_with_tab(tmp_path: Path, tab: Path):
    """The app with one tab, on ``tab``, and the sessions under ``tmp_path/projects`` in its fleet."""
    s = settings_for([tab], tmp_path, now=NOW)
    s.all_hours = None
    return make_app(s)


async def settled_rows(pilot, app) -> FleetScreen:
    """The fleet screen (``f``) once every file it reads has its facts: the tab's and those
    found under the projects folder it follows."""
    await pilot.press("f")
    await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen), 200, 0.02)
    screen = app.screen
    assert isinstance(screen, FleetScreen)
    feed = screen.feed
    want = {sp.key for sp in app.settings.sessions}

    def settled() -> bool:
        keys = feed.keys()
        return feed.discovered and (want | feed.followed) <= keys and bool(screen.rows)

    await wait_until(pilot, settled, 500, 0.02)
    assert settled()
    screen.refresh_rows()
    await pilot.pause()
    return screen


@pytest.mark.parametrize("how", ["relative", "symlink", "copy"])
async def test_a_session_is_one_row_whatever_path_opened_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    real = busy_session(tmp_path)
    if how == "relative":
        monkeypatch.chdir(real.parent)
        tab = Path(f"./{real.name}")
    elif how == "symlink":
        (tmp_path / "link").symlink_to(tmp_path / "projects", target_is_directory=True)
        tab = tmp_path / "link" / real.parent.name / real.name
    else:
        tab = tmp_path / "elsewhere" / real.name
        tab.parent.mkdir()
        shutil.copy2(real, tab)
    app = app_with_tab(tmp_path, tab)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await settled_rows(pilot, app)
        assert len(screen.rows) == 1
        totals, alone = fleet_json(screen.rows, NOW), one_session_totals(real)
        assert totals["sessions"] == alone["sessions"] == 1
        assert totals["states"] == alone["states"]
        assert totals["burn"] == alone["burn"]
        assert totals["burn"]["5m"]["tokens_per_hour"] > 0
        # the tab reads the path it was given
        assert app.current_view is not None and app.current_view.spec.key == str(tab)
        # the same file, or a copy of the same size: the row is the tab's (Enter goes to it)
        assert screen.rows[0].facts.key == str(tab)
        if how != "copy":  # and the feed does not read the file a second time
            assert not screen.feed.followed


@pytest.mark.parametrize("shorter", ["copy", "session"])
async def test_of_a_session_and_its_copy_the_larger_is_the_row(tmp_path: Path, shorter: str) -> None:
    # the copy rule (tracetui/ingest/codex_copies.py): the largest file of a session is read, a
    # copy being a snapshot of a transcript that only grows
    real = busy_session(tmp_path)
    tab = tmp_path / "elsewhere" / real.name
    tab.parent.mkdir()
    shutil.copy2(real, tab)
    cut = tab if shorter == "copy" else real
    lines = cut.read_bytes().splitlines(keepends=True)
    cut.write_bytes(b"".join(lines[:-4]))
    app = app_with_tab(tmp_path, tab)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await settled_rows(pilot, app)
        assert [r.facts.key for r in screen.rows] == [str(real if shorter == "copy" else tab)]


async def test_two_sessions_stay_two_rows(tmp_path: Path) -> None:
    real = busy_session(tmp_path)
    sid = "3333bbbb-2222-3333-4444-555555555555"
    other = fs.write(fs.busy(sid, 5, start=fs.iso(NOW - 5 * 60 - 10)), tmp_path, "-tmp-live", sid)
    app = app_with_tab(tmp_path, real)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await settled_rows(pilot, app)
        assert sorted(r.facts.key for r in screen.rows) == sorted([str(real), str(other)])


@pytest.mark.parametrize("how", ["relative", "symlink"])
def test_all_opens_one_tab_for_a_session_named_by_another_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    from tracetui.tui.main import build_settings

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    real = busy_session(tmp_path)
    if how == "relative":
        monkeypatch.chdir(real.parent)
        arg = f"./{real.name}"
    else:
        (tmp_path / "link").symlink_to(tmp_path / "projects", target_is_directory=True)
        arg = str(tmp_path / "link" / real.parent.name / real.name)
    s = build_settings(["--all", arg], now=NOW)
    assert [sp.key for sp in s.sessions] == [str(Path(arg))]


def test_the_watch_takes_a_tabs_file_named_another_way_as_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.tui.sessions_watch import SessionsWatch

    real = busy_session(tmp_path)
    monkeypatch.chdir(real.parent)
    posted: list = []
    # --all's watch (hours given): a session it does not know is posted, and opened in a tab
    w = SessionsWatch(posted.append, {real.name}, tmp_path / "projects", 24.0, lambda: NOW, agent="claude")
    assert w.scan(first=True) == []
    sid = "3333bbbb-2222-3333-4444-555555555555"
    other = fs.write(fs.busy(sid, 5, start=fs.iso(NOW - 5 * 60 - 10)), tmp_path, "-tmp-live", sid)
    assert [s.path for s in w.scan()] == [other]
