"""Defects the third user trial of the monitor found: each test failed before its fix.

Fixture sessions are built here (``TranscriptBuilder``); nothing is copied from the corpus.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.text import Text
from test_tui_support import STALLED_NOW, app_for, demo_session, open_sessions, small_session, wait_for_state, wait_until
from textual.geometry import Region
from textual.widgets import Static

from tracetui.demo.build import TranscriptBuilder
from tracetui.tui.format import parse_ts
from tracetui.tui.screens.episode import EpisodeScreen
from tracetui.tui.widgets.anomalies import AnomalyBadges
from tracetui.tui.widgets.header import SessionHeader
from tracetui.tui.widgets.now import NowPane
from tracetui.tui.widgets.pending_calls import PendingCalls
from tracetui.tui.widgets.subagents import SubagentsTree


def _three_sessions(tmp_path: Path) -> list[Path]:
    paths = []
    for i in range(3):
        p = tmp_path / "projects" / f"-p{i}" / f"{'abc'[i] * 4}{i}{i}{i}{i}-0000-4000-8000-00000000000{i}.jsonl"
        small_session(p)
        os.utime(p, (1_700_000_000 - 60 * i, 1_700_000_000 - 60 * i))  # newest first: p0, p1, p2
        paths.append(p)
    return paths


# -- 1. a session opened from the picker is the tab shown ------------------------------------
async def _pick(pilot, app, *keys: str) -> None:
    """Open the picker, move with ``keys``, press Enter; wait until the picked session's tab is
    the one shown (20 pauses of 20 ms were a wall-clock bound, too short on a loaded machine)."""
    from textual.widgets import DataTable

    screen = await open_sessions(pilot, app)
    await pilot.press(*keys)
    want = screen.sessions[screen.query_one(DataTable).cursor_row].path
    await pilot.press("enter")

    def shown() -> bool:
        view = app.current_view
        return view is not None and view.spec.paths[0] == want and view.built

    await wait_until(pilot, shown, 100, 0.02)


async def test_a_third_session_opened_from_the_picker_is_the_tab_shown(tmp_path: Path) -> None:
    # the trial: one tab, a second opened from the picker, then s Down Down Enter
    paths = _three_sessions(tmp_path)
    app = app_for(paths[:1], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await _pick(pilot, app, "down")
        assert app.current_view.spec.paths[0] == paths[1]
        await _pick(pilot, app, "down", "down")
        assert len(app.query("SessionView")) == 3
        view = app.current_view
        assert view is not None and view.spec.paths[0] == paths[2]
        tabs = app.query_one("TabbedContent")
        assert tabs.active_pane is view.parent and view.parent.display


# -- 6. PAUSED: the held updates stay in view at 120 columns ---------------------------------
async def test_paused_header_keeps_the_held_count_in_view_at_120_columns(tmp_path: Path) -> None:
    path = tmp_path / "projects" / "-home-dev-a-rather-long-project-folder" / "d3m0c0de-0000-4000-8000-00000000abcd.jsonl"
    b = small_session(path)
    app = app_for([path], tmp_path, follow=True, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.press("p")
        for n in (1, 2):
            gen = view.latest.generation
            b.records.clear()
            b.tick(1).prompt(f"prompt {n} while paused")
            with open(path, "ab") as f:
                f.write(b.data())
            await wait_until(pilot, lambda gen=gen: view.latest.generation > gen, 200, 0.02)
        await pilot.pause()
        header = view.query_one(SessionHeader)
        lines = [s.text for s in header.render_lines(header.region.reset_offset)]
        assert "2 update(s) held" in lines[1], lines[1]


# -- 3. HISTORY: a call open at an episode's end is not "running for" the gap to the next prompt --
def _open_call_then_late_prompt(path: Path) -> TranscriptBuilder:
    """Episode 1 ends with ``Bash(npm test)`` unanswered; the next prompt comes 1h17m later."""
    b = TranscriptBuilder()
    b.prompt("Run the tests")
    b.tick(1).tool("Read", {"file_path": "/home/dev/shop-api/a.py"}, "ok", took=0.5)
    b.tick(2).tool_use("Bash", {"command": "npm test"})
    b.tick(4620).prompt("Are you there?")
    b.tick(1).text("Yes.")
    b.write(path)
    return b


async def test_history_says_a_call_open_at_the_episode_end_had_no_result_by_then(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _open_call_then_late_prompt(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert view.episode == 1
        # ages are measured to the episode's last record (the unanswered call, 09:00:03.5),
        # not to the closing prompt 1h17m later
        assert view.shown.now == parse_ts(view.rows[0].end) == parse_ts("2026-03-02T09:00:03.500Z")
        now = str(view.query_one(NowPane).content)
        assert "running" not in now and "1h17m" not in now, now
        assert "called Bash(npm test): no result by the end of episode 1" in now, now
        pending = str(view.query_one(PendingCalls).content)
        assert "1h17m" not in pending and "0s Bash" in pending, pending


# -- 4. a line cut short says so with "…" -----------------------------------------------------
def _static_lines(st: Static) -> list[str]:
    return [x.text.rstrip() for x in st.render_lines(Region(0, 0, st.size.width, st.size.height))]


@pytest.mark.parametrize("size", [(80, 24), (60, 24), (120, 40)])
@pytest.mark.parametrize("history", [False, True])
async def test_anomalies_and_subagents_lines_cut_short_end_with_an_ellipsis(tmp_path: Path, size: tuple[int, int], history: bool) -> None:
    app = app_for([demo_session(tmp_path)], tmp_path, now=STALLED_NOW)
    async with app.run_test(size=size) as pilot:
        view = await wait_for_state(pilot)
        if history:
            await pilot.press("left_square_bracket")
        await pilot.pause()
        cut = 0
        for st in view.query_one(AnomalyBadges).query(Static):
            full = str(st.content).rstrip()
            lines = _static_lines(st)
            assert len(lines) == 1, lines  # one row each: a wrapped badge lost its tail to the pane's edge
            if cell_len(full) > st.size.width:
                cut += 1
                assert lines[0].endswith("…") and full.startswith(lines[0][:-1].rstrip()), (full, lines)
            else:
                assert lines[0] == full
        more = [str(s.content) for s in view.query_one(AnomalyBadges).query(Static) if str(s.content).startswith("+")]
        assert more or size == (120, 40)  # the small screens list only some of them
        assert not more or re.fullmatch(r"\+\d+ more( anomalies)? \(\d+ open, \d+ cleared\)|\+\d+ more", more[0]), more
        tree = view.query_one(SubagentsTree)
        width = tree.scrollable_content_region.width
        for y, line in enumerate(tree._tree_lines[: tree.scrollable_content_region.height]):
            node = line.node
            full = "    " * (len(line.path) - 1) + ("▼ " if node.allow_expand else "") + node.label.plain
            shown = tree.render_line(y).text.rstrip()
            if cell_len(full) > width:
                cut += 1
                assert shown.endswith("…"), (full, shown)
                assert node.label.plain[:6] in shown, (full, shown)  # the start of the label, then "…"
            else:
                assert shown.strip().endswith(node.label.plain.strip()), (full, shown)
        assert cut  # the fixture has lines too long for these panes


# -- 5. the Now pane says a failed last call failed ------------------------------------------
def _failed_last_call(path: Path) -> TranscriptBuilder:
    """Episode 1 ends on a failed ``Bash(npm test)``; episode 2 too (nothing after it)."""
    b = TranscriptBuilder()
    b.prompt("Run the tests")
    b.tick(1).tool("Bash", {"command": "npm test"}, "Exit code 1\n3 tests failed", is_error=True, took=2)
    b.tick(30).prompt("Try again")
    b.tick(1).tool("Bash", {"command": "npm test"}, "Exit code 1\n2 tests failed", is_error=True, took=2)
    b.write(path)
    return b


def _red_span(text: Text, word: str) -> bool:
    at = text.plain.index(word)
    return any(s.start <= at < s.end and "red" in str(s.style) for s in text.spans)


async def test_now_says_the_last_call_failed_in_red_live_and_in_history(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _failed_last_call(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert view.state.main.frontier.kind == "tool_error"
        now = view.query_one(NowPane).content
        assert isinstance(now, Text)
        assert now.plain.startswith("failed Bash(npm test): «Exit code 1"), now.plain
        assert "tool_error" not in now.plain and "called" not in now.plain
        assert _red_span(now, "failed")
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert view.episode == 1 and view.shown_state().main.frontier.kind == "tool_error"
        now = view.query_one(NowPane).content
        assert now.plain.startswith("failed Bash(npm test): «Exit code 1"), now.plain
        assert "3 tests failed" in now.plain and _red_span(now, "failed")


# -- 2. the drill-down of the open episode grows with the file, and says as of which line -----
async def test_drill_down_of_the_open_episode_follows_the_file_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    b = small_session(path)
    app = app_for([path], tmp_path, follow=True, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("e")
        screen = app.screen
        assert isinstance(screen, EpisodeScreen) and screen.row.live and screen.row.index == 2
        summary = lambda: str(screen.query_one("#episode-summary", Static).content)  # noqa: E731
        steps = lambda: str(screen.query_one("#episode-steps", Static).content)  # noqa: E731
        lines = path.read_bytes().count(b"\n")
        assert f"as of line {lines} of the main file; follows the file as it grows" in summary()
        assert "Grep" not in steps()
        b.records.clear()
        b.tick(1).tool("Grep", {"pattern": "def parse", "path": "."}, "parser.py:1", took=0.5)
        with open(path, "ab") as f:
            f.write(b.data())
        grown = path.read_bytes().count(b"\n")
        await wait_until(pilot, lambda: f"as of line {grown} " in summary() and screen.loaded, 300, 0.02)
        assert f"as of line {grown} of the main file" in summary()
        assert "Grep" in steps() and "parser.py:1" in steps()
        # paused: the drill-down is held with the panes, and says so
        await pilot.press("escape", "p", "e")
        screen = app.screen
        assert isinstance(screen, EpisodeScreen)
        await pilot.pause()
        assert "held: the monitor is paused" in str(screen.query_one("#episode-summary", Static).content)
        # a completed episode's drill-down is not a moving target: no such line
        await pilot.press("escape", "p", "left_square_bracket", "e")
        assert isinstance(app.screen, EpisodeScreen) and app.screen.row.index == 1
        assert "as of line" not in str(app.screen.query_one("#episode-summary", Static).content)
