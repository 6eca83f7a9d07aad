"""Stray ``*.jsonl`` files under the projects folder (empty, a JSON array, other JSON lines):
``tracetui`` with no argument passes them over (ingest/first_line.py); the session lists (the
switcher, ``tracetui sessions``, the fleet, ``--all``, the watch for new sessions) agree with it
and list them nowhere."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import fleet_support as fs
import pytest
from textual.widgets import DataTable
from tui_support import FROZEN_NOW, app_for, open_sessions, settings_for, wait_for_state, wait_until

from tracetui.cli import main
from tracetui.ingest.discover import list_sessions, newest_session, transcript_sessions
from tracetui.tui.app import make_app
from tracetui.tui.sessions_watch import SessionsWatch

#: name -> content of each stray file
STRAYS = {
    "empty.jsonl": b"",
    "array.jsonl": b'[{"type": "user"}, {"type": "assistant"}]\n',
    "events.jsonl": b'{"event": "start", "n": 1}\n{"event": "stop", "n": 2}\n',
}


def strays(root: Path, mtime: float) -> list[Path]:
    """The :data:`STRAYS` under ``root/projects/-home-dev-stray``, newer than every session."""
    d = root / "projects" / "-home-dev-stray"
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for name, data in STRAYS.items():
        p = d / name
        p.write_bytes(data)
        os.utime(p, (mtime, mtime))
        out.append(p)
    return out


def test_the_listing_of_sessions_leaves_strays_out_like_the_newest_session(tmp_path: Path) -> None:
    b = fs.working()
    real = fs.write(b, tmp_path, "-home-dev-shop-api", b.session_id)
    stray = strays(tmp_path, fs.last_time(b) + 60)
    root = tmp_path / "projects"
    assert {s.path for s in list_sessions(root)} == {real, *stray}  # every file, as before
    assert [s.path for s in transcript_sessions(root)] == [real]
    assert newest_session(root).path == real


def test_sessions_command_lists_no_stray(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    now = time.time()
    b = fs.working(start=fs.iso(now - 600))
    fs.write(b, tmp_path / "claude", "-home-dev-shop-api", b.session_id)
    strays(tmp_path / "claude", now - 5)
    assert main(["sessions", "--json", "--no-cache"]) == 0
    out = capsys.readouterr()
    assert [r["session_id"] for r in json.loads(out.out)["sessions"]] == [b.session_id]
    assert "stray" not in out.err  # passed over, as tracetui passes them over: no "could not be read"
    assert main(["sessions", "--no-cache"]) == 0
    table = capsys.readouterr().out
    assert "stray" not in table and table.count(" claude ") == 1  # one row: the session's


async def test_the_switcher_lists_no_stray(tmp_path: Path) -> None:
    b = fs.working()
    real = fs.write(b, tmp_path, "-home-dev-shop-api", b.session_id)
    strays(tmp_path, FROZEN_NOW - 5)
    app = app_for([real], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        table = screen.query_one(DataTable)
        assert [s.path for s in screen.sessions] == [real]
        assert table.row_count == 1


async def test_the_fleet_follows_no_stray(tmp_path: Path) -> None:
    paths = fs.write_fleet(tmp_path, FROZEN_NOW)
    stray = strays(tmp_path, FROZEN_NOW - 5)
    s = settings_for(paths[:1], tmp_path)
    app = make_app(s)
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("f")
        feed = app.fleet_feed
        await wait_until(pilot, lambda: feed.discovered, 300, 0.02)
        assert feed.followed == {str(p) for p in paths[1:]}
        assert not {str(p) for p in stray} & {r.facts.key for r in feed.rows}


def test_the_watch_for_new_sessions_posts_no_stray_until_it_is_one(tmp_path: Path) -> None:
    posted: list = []
    w = SessionsWatch(posted.append, set(), tmp_path / "projects", None, lambda: FROZEN_NOW, agent="claude")
    w.scan(first=True)
    empty, *_ = strays(tmp_path, FROZEN_NOW)
    assert w.scan() == []
    b = fs.working(sid="abababab-0000-4000-8000-000000000001")  # the empty file gets its first record
    empty.write_bytes(b.data())
    assert [s.path for s in w.scan()] == [empty]
