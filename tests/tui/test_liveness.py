"""LIVE and IDLE: which sessions are being written, by the files' modification times.

Fixture sessions come from tui_sessions.py and tui_support.py (``TranscriptBuilder``); nothing is copied from
the corpus.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

from textual.widgets import DataTable
from tui_sessions import retry_session
from tui_support import app_for, open_sessions, wait_for_state

from tracetui.tui.format import LIVE_WINDOW, activity, is_live
from tracetui.tui.widgets.episodes import EpisodesList
from tracetui.tui.widgets.header import SessionHeader
from tracetui.tui.widgets.timeline import Timeline
from tracetui.views.fleet import RECORD_LAG


# -- 4. "live" only for a session written to lately -------------------------------------------
def test_activity_is_live_only_within_the_window() -> None:
    now = 1_800_000_000.0
    assert activity(now - 5, now) == "live" and is_live(now - LIVE_WINDOW + 1, now)
    assert activity(now + 30, now) == "live"  # a clock apart: just written
    assert activity(None, now) == "live"  # unknown: nothing says otherwise
    assert not is_live(now - LIVE_WINDOW, now)
    assert activity(now - LIVE_WINDOW, now) == "idle 10m"
    assert activity(now - 3 * 3600 - 59, now) == "idle 3h"
    assert activity(now - 452 * 86400 - 14 * 3600, now) == "idle 452d"


def test_a_file_stamped_far_in_the_future_is_not_live() -> None:
    """A modification time of 2030 says nothing of when the file was last written: not live
    for ever (trial 7 item 16), as the fleet gives it no quiet time (views/fleet.py)."""
    from tracetui.views.fleet import CLOCK_SKEW

    now = 1_800_000_000.0
    assert is_live(now + CLOCK_SKEW, now)  # a clock a little apart: just written
    assert not is_live(now + CLOCK_SKEW + 1, now)
    assert activity(now + 3 * 365 * 86400, now) == "idle (modified in the future)"


async def test_the_header_of_a_session_stamped_in_the_future_says_so(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    retry_session(path)
    app = app_for([path], tmp_path)
    future = 1_900_000_000  # 2030: after the frozen clock by years
    os.utime(path, (future, future))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for_state(pilot)
        header = str(app.screen.query_one(SessionHeader).render())
        assert "IDLE (modified in the future)" in header and "LIVE" not in header


def test_ingest_loop_reports_the_newest_write_of_the_files(tmp_path: Path) -> None:
    from tracetui.session.follow import Follow

    path = tmp_path / "s.jsonl"
    retry_session(path)
    os.utime(path, (1_700_000_000, 1_700_000_000))
    posted: list = []

    class Sink:
        def snapshot(self, state, written):
            posted.append(written)

        def progress(self, done, total):
            pass

        def notice(self, level, text):
            pass

    f = Follow(follow=False)
    try:
        assert f.open("k", [path], Sink(), use_cache=False).loaded.wait(30)
    finally:
        f.stop()
    assert posted == [1_700_000_000]


def _last_record_time(path: Path) -> float:
    """The newest record time of the transcript at ``path`` (epoch seconds)."""
    stamps = [json.loads(line).get("timestamp") for line in path.read_bytes().splitlines() if line.strip()]
    return max(datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() for t in stamps if t)


def test_a_write_long_after_the_last_record_is_no_write_of_the_session() -> None:
    """A copied transcript: its file written a minute ago, its records 276 days old. Live by
    its records' time, as the fleet's quiet time (views/fleet.py ``copied``): a fresh-user trial
    had it LIVE, its open call "waiting on you … a permission prompt?"."""
    now = 1_800_000_000.0
    old = now - 276 * 86400 - 3600
    assert not is_live(now - 60, now, old) and activity(now - 60, now, old) == "idle 276d (a copy?)"
    # a last write within the lag of the last record is the session's: its time counts
    assert is_live(now - 60, now, now - 60 - RECORD_LAG) and activity(now - 60, now, now - 60 - RECORD_LAG) == "live"
    assert activity(now - 60, now, now - 60 - RECORD_LAG - 1) == "idle 16m (a copy?)"
    assert activity(now - 60, now, None) == "live"  # no record time known: the files' time
    assert activity(now + 3 * 365 * 86400, now, old) == "idle (modified in the future)"


async def test_an_old_session_is_idle_not_live(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    retry_session(path)
    written = _last_record_time(path)  # the file written when its last record was
    os.utime(path, (written, written))
    app = app_for([path], tmp_path, now=written + 452 * 86400 + 3600)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        header = str(view.query_one(SessionHeader).content)
        timeline = str(view.query_one(Timeline).content)
        row = str(view.query_one(EpisodesList).get_option_at_index(0).prompt)
        assert "LIVE" not in header and header.startswith(" IDLE 452d ")
        assert "LIVE" not in timeline and "1/1 IDLE 452d" in timeline
        assert row.rstrip().endswith("idle") and "live" not in row
        assert view.query_one(SessionHeader).has_class("-idle")
    app = app_for([path], tmp_path, now=written + 60)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert str(view.query_one(SessionHeader).content).startswith(" LIVE ")
        assert "1/1 LIVE" in str(view.query_one(Timeline).content)
        assert str(view.query_one(EpisodesList).get_option_at_index(0).prompt).rstrip().endswith("live")
    # a copy of it: its file written a minute ago, its records 452 days old
    copy = tmp_path / "copy" / "s.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    os.utime(copy, (written + 452 * 86400, written + 452 * 86400))
    app = app_for([copy], tmp_path, now=written + 452 * 86400 + 60)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        header = str(view.query_one(SessionHeader).content)
        assert header.startswith(" IDLE 452d (a copy?) ") and "LIVE" not in str(view.query_one(Timeline).content)


async def test_session_switcher_marks_only_recently_written_sessions_live(tmp_path: Path) -> None:
    old = tmp_path / "projects" / "-p1" / "aaaa1111-0000-4000-8000-000000000001.jsonl"
    new = tmp_path / "projects" / "-p2" / "bbbb2222-0000-4000-8000-000000000002.jsonl"
    ahead = tmp_path / "projects" / "-p3" / "cccc3333-0000-4000-8000-000000000003.jsonl"
    retry_session(old)
    retry_session(new)
    retry_session(ahead)
    from tracetui.ingest.last_stamp import last_stamp
    from tracetui.tui.format import parse_ts

    # the clock a minute after the newest record, the file written 30 s before it (a file
    # written long after its newest record is a copy: test_a_copy_written_now_is_no_live_session_in_the_picker)
    last = parse_ts(last_stamp(new))
    assert last is not None
    now = last + 60
    os.utime(new, (now - 30, now - 30))
    os.utime(old, (now - 452 * 86400, now - 452 * 86400))
    # a fresh-user trial: a file modified years ahead of the clock was "-97257551s ago"
    os.utime(ahead, (now + 97_257_551, now + 97_257_551))
    app = app_for([new], tmp_path, now=now)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        table = screen.query_one(DataTable)
        cells = {str(table.get_row_at(i)[3]): str(table.get_row_at(i)[0]) for i in range(table.row_count)}
        assert cells == {new.stem: "live", old.stem: "452d00h ago", ahead.stem: "in the future"}
