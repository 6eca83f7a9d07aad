"""Defects a fresh-user trial of the monitor found: each test failed before its fix.

Fixture sessions are built here (``TranscriptBuilder``); nothing is copied from the corpus.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from rich.text import Text
from test_tui_support import app_for, demo_session, open_sessions, wait_for_state, wait_until
from textual.widgets import DataTable, Static
from textual.widgets._toast import Toast

from tracetui.demo.build import TranscriptBuilder
from tracetui.session.reader import SessionReader
from tracetui.tui.app import NARROW_TIMEOUT
from tracetui.tui.excerpts import MAX_LINE_BYTES, read_excerpt
from tracetui.tui.format import LIVE_WINDOW, activity, is_live
from tracetui.tui.screens.episode import EpisodeScreen, plural
from tracetui.tui.screens.help import PANES
from tracetui.tui.widgets.episodes import STATUS_STYLE, EpisodesList
from tracetui.tui.widgets.files import FilesPane
from tracetui.tui.widgets.header import SessionHeader
from tracetui.tui.widgets.timeline import Timeline


def _state(path: Path):
    r = SessionReader(path)
    r.poll()
    return r.snapshot()


def _big_result_session(path: Path, size: int) -> TranscriptBuilder:
    """A Read whose result is one record of more than ``size`` bytes, then a short answer."""
    b = TranscriptBuilder()
    b.prompt("Read the log")
    b.tick(1).tool("Read", {"file_path": "/home/dev/shop-api/big.log"}, "BEGIN " + "x" * size + " END", took=0.5)
    b.tick(1).text("The log is long.")
    b.write(path)
    return b


async def _open_drill_down(pilot, app) -> EpisodeScreen:
    await pilot.press("e")
    screen = app.screen
    assert isinstance(screen, EpisodeScreen)
    await wait_until(pilot, lambda: screen.loaded, 200, 0.02)
    assert screen.loaded
    return screen


# -- 1. a record longer than the read-back bound is too large, not "changed" ----------------
def test_a_record_longer_than_the_bound_is_said_too_large_with_its_size(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    _big_result_session(path, 3000)
    st = _state(path)
    res = next(ev for ev in st.ledgers[0] if ev.kind == "tool_result")
    line = path.read_bytes().split(b"\n")[res.anchor.line - 1]
    said = read_excerpt(st, res.anchor, res.block, inline=res.excerpt, max_bytes=1024)
    assert "changed" not in said
    assert f"record too large to show here: {len(line) / 1024:.1f} KiB at big.jsonl:{res.anchor.line}" in said
    assert "reads at most 1.0 KiB of a line" in said
    # the ledger's own excerpt of the block is kept in front of the note
    assert said.startswith("BEGIN xxx")
    # within the bound the same block reads back whole (head and tail)
    whole = read_excerpt(st, res.anchor, res.block)
    assert whole.startswith("BEGIN") and whole.endswith("END")


def test_a_record_that_really_changed_is_still_said_changed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _big_result_session(path, 10)
    st = _state(path)
    res = next(ev for ev in st.ledgers[0] if ev.kind == "tool_result")
    raw = path.read_bytes()
    # rewritten in place: the record's bytes are no longer a JSON object there
    path.write_bytes(raw[: res.anchor.offset] + b"garbage that is not JSON at all\n")
    said = read_excerpt(st, res.anchor, res.block)
    assert "the file changed since it was folded" in said and "too large" not in said


async def test_drill_down_says_a_record_over_4_mib_is_too_large(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    _big_result_session(path, MAX_LINE_BYTES + 1000)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await _open_drill_down(pilot, app)
        steps = str(screen.query_one("#episode-steps").content)
        size = len(path.read_bytes().split(b"\n")[2])  # line 3: the result (its text twice: content and toolUseResult)
        assert size > MAX_LINE_BYTES
        assert "the file changed" not in steps
        assert f"record too large to show here: {size / 1024 / 1024:.1f} MiB at big.jsonl:3" in steps
        assert "reads at most 4.0 MiB of a line for an excerpt" in steps


# -- 3. labels, counts that agree, blank steps, fixed errors ----------------------------------
def _retry_session(path: Path) -> TranscriptBuilder:
    """A failing test run retried with success, a whitespace-only text block, an API error."""
    b = TranscriptBuilder()
    b.prompt("Make the tests pass")
    b.tick(1).tool("Bash", {"command": "pytest -q"}, "Exit code 1\n1 failed", is_error=True, took=2)
    b.tick(1).tool(
        "Edit", {"file_path": "/home/dev/shop-api/app/x.py", "old_string": "a", "new_string": "b"}, "The file has been updated.", took=0.2
    )
    b.tick(1).api_error(529, "Overloaded")
    b.tick(1).text("  \n\t ")
    b.tick(1).tool("Bash", {"command": "pytest -q"}, "3 passed", took=2)
    b.tick(1).text("All tests pass now.")
    b.write(path)
    return b


async def test_files_and_episodes_figures_are_labelled_apart(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _retry_session(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        files = str(view.query_one(FilesPane).content)
        assert "app/x.py" in files and "r0 w0 ed1" in files
        line = str(view.query_one(EpisodesList).get_option_at_index(0).prompt)
        # one tool error and one API error: "2 err", not "2e" beside the Files pane's "1e"
        assert re.search(r"\b3c\s+2 err\b", line), line


async def test_help_explains_the_figures_and_the_status_marks(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _retry_session(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 60)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("f1")
        text = "\n".join(str(w.content) if isinstance(w.content, (str, Text)) else "" for w in app.screen.query(Static))
        panes = " ".join(f"{name} {what}" for name, what in PANES)
        assert "r1 w0 ed2 is 1 read, 0 writes, 2 edits" in panes and "(4 err)" in panes
        for status, (mark, _style) in STATUS_STYLE.items():
            assert re.search(rf"^{re.escape(mark)}  \S", text, re.M), (status, mark)
        assert "‖  interrupted" in text and "?  unresolved" in text and "!  errors" in text


def test_plural() -> None:
    assert plural(1, "tool error") == "1 tool error"
    assert plural(0, "tool error") == plural(0, "tool error") == "0 tool errors"
    assert plural(2, "interrupt") == "2 interrupts"


async def test_drill_down_counts_agree_with_its_errors_list(tmp_path: Path) -> None:
    # the demo's episode 2: one failed call (its result came late) and one interrupt; the
    # header said "1 errors" above a list of two entries
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        view = await wait_for_state(pilot)
        view.query_one(EpisodesList).highlighted = 1
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, EpisodeScreen) and screen.row.index == 2
        summary = str(screen.query_one("#episode-summary").content)
        errors = str(screen.query_one("#episode-errors").content)
        assert "1 errors" not in summary
        assert "3 tool calls · 1 tool error · 1 interrupt · " in summary
        head, _, _rest = errors.partition("Anchors")
        title, *entries = [ln for ln in head.splitlines() if ln.strip()]
        assert title == "Errors  1 tool error · 1 interrupt"
        assert len(entries) == 2
        assert sum(" interrupt [Request interrupted" in e for e in entries) == 1 and sum(" Bash Exit code 137" in e for e in entries) == 1


async def test_drill_down_shows_fixed_errors_and_blank_text(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _retry_session(path)
    st = _state(path)
    ok = [ev for ev in st.ledgers[0] if ev.kind == "tool_result" and not ev.is_error and "passed" in ev.excerpt][0]
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for_state(pilot)
        screen = await _open_drill_down(pilot, app)
        summary = str(screen.query_one("#episode-summary").content)
        assert "3 tool calls · 1 tool error (1 fixed by retry) · 1 API error · 1 API retry notice · " in summary
        errors = str(screen.query_one("#episode-errors").content)
        bash = next(ln for ln in errors.splitlines() if " Bash " in ln)
        assert bash.endswith(f"✓ fixed by retry at s.jsonl:{ok.anchor.line}")
        assert "API error" in errors and "fixed" not in next(ln for ln in errors.splitlines() if "API error" in ln and "·" not in ln)
        steps = str(screen.query_one("#episode-steps").content)
        blank = next(ev for ev in st.ledgers[0] if ev.kind == "assistant_text" and not ev.excerpt.strip())
        assert f"✎ (blank text)  s.jsonl:{blank.anchor.line}" in steps
        assert not re.search(r"✎\s+s\.jsonl:", steps)


# -- 2. the copy notification promises only what is true; 5. compact toasts when narrow -------
async def test_copy_says_it_sent_the_text_by_osc52_and_wrote_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = demo_session(tmp_path)
    monkeypatch.delenv("TMUX", raising=False)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("c")
        note = list(app._notifications)[-1]
        file = tmp_path / "exports" / f"{path.stem}-card-live.txt"
        chars = len(file.read_text("utf-8"))
        # "Copied" promised what the app cannot know (tmux drops OSC 52 by default)
        assert "Copied" not in note.message and note.title != "Copied"
        assert (
            note.message
            == f"Sent the card (live, {chars} chars) to the clipboard by OSC 52 (if the terminal accepts it) and wrote it to {file}"
        )
        monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
        await pilot.press("w")
        note = list(app._notifications)[-1]
        assert "(the terminal may refuse it; under tmux it needs set-clipboard on)" in note.message
        assert note.message.startswith("Sent the worker view (live, ")


async def test_narrow_terminal_gets_a_compact_short_lived_copy_toast(tmp_path: Path) -> None:
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(60, 24), notifications=True) as pilot:
        await wait_for_state(pilot)
        await pilot.press("c")
        await pilot.pause()
        note = list(app._notifications)[-1]
        assert note.message == f"Card sent by OSC 52; file {path.stem[:8]}…-card-live.txt"
        assert note.timeout <= NARROW_TIMEOUT

        def toasts() -> list:
            return [t for t in app.screen.query(Toast) if t._notification.message == note.message]

        await wait_until(pilot, lambda: toasts() and toasts()[0].region.height > 0, 300, 0.01)
        toasts = toasts()
        assert len(toasts) == 1
        region = toasts[0].region
        # it covered 9 rows and 30 columns (a third of the Episodes and Files panes)
        assert region.height <= 3 and region.width <= 27, region
        # errors get longer, still bounded
        app.notify("an error", severity="error", timeout=20)
        await pilot.pause()
        assert [n.timeout for n in app._notifications if n.message == "an error"] == [2 * NARROW_TIMEOUT]
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("c")
        await pilot.pause()
        note = list(app._notifications)[-1]
        assert note.timeout == 8 and note.message.startswith("Sent the card (live")


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


def test_ingest_loop_reports_the_newest_write_of_the_files(tmp_path: Path) -> None:
    from tracetui.session.follow import Follow

    path = tmp_path / "s.jsonl"
    _retry_session(path)
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


async def test_an_old_session_is_idle_not_live(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _retry_session(path)
    written = path.stat().st_mtime
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


async def test_session_switcher_marks_only_recently_written_sessions_live(tmp_path: Path) -> None:
    old = tmp_path / "projects" / "-p1" / "aaaa1111-0000-4000-8000-000000000001.jsonl"
    new = tmp_path / "projects" / "-p2" / "bbbb2222-0000-4000-8000-000000000002.jsonl"
    _retry_session(old)
    _retry_session(new)
    now = new.stat().st_mtime + 30
    os.utime(old, (now - 452 * 86400, now - 452 * 86400))
    app = app_for([new], tmp_path, now=now)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        table = screen.query_one(DataTable)
        cells = {str(table.get_row_at(i)[3]): str(table.get_row_at(i)[0]) for i in range(table.row_count)}
        assert cells == {new.stem: "live", old.stem: "452d00h ago"}


# -- 6. the Episodes and Files panes start on the same row -------------------------------------
@pytest.mark.parametrize("size", [(200, 50), (200, 60), (200, 30), (100, 30), (120, 40), (80, 24), (60, 24)])
async def test_episodes_and_files_headers_are_on_one_row(tmp_path: Path, size: tuple[int, int]) -> None:
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=size) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        episodes, files = view.query_one(EpisodesList).region, view.query_one(FilesPane).region
        assert episodes.y == files.y and episodes.height >= 4, (episodes, files)


async def test_a_late_failed_result_is_counted_in_its_calls_episode_not_where_it_landed(tmp_path: Path) -> None:
    # the demo's episode 2 Bash was interrupted; its failed result (Exit code 137) landed in
    # episode 3, which the episode model (and the Episodes pane: 0 err) does not charge with it
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        view = await wait_for_state(pilot)
        view.query_one(EpisodesList).highlighted = 2
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, EpisodeScreen) and screen.row.index == 3 and screen.row.tool_errors == 0
        summary = str(screen.query_one("#episode-summary").content)
        errors = str(screen.query_one("#episode-errors").content)
        assert "· 0 tool errors · 1 failed result of earlier calls · " in summary
        assert "Episodes pane counts" not in summary
        assert "Bash (a call made before this episode) Exit code 137" in errors
