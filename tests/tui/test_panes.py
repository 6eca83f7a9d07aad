"""What the panes and the header say: labels, figures, cut lines, the help screen.

Fixture sessions come from tui_sessions.py and tui_support.py (``TranscriptBuilder``); nothing is copied from
the corpus.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static
from tui_sessions import failed_last_call, red_span, retry_session, static_lines
from tui_support import STALLED_NOW, app_for, demo_session, small_session, wait_for_state, wait_until

from tracetui.demo.transcript import TranscriptBuilder
from tracetui.tui.screens.episode import EpisodeScreen, plural
from tracetui.tui.screens.help import PANES
from tracetui.tui.widgets.anomalies import AnomalyBadges
from tracetui.tui.widgets.counters import CountersPane
from tracetui.tui.widgets.episodes import STATUS_STYLE, EpisodesList
from tracetui.tui.widgets.files import FilesPane
from tracetui.tui.widgets.header import SessionHeader
from tracetui.tui.widgets.now import NowPane
from tracetui.tui.widgets.subagents import SubagentsTree


async def test_files_and_episodes_figures_are_labelled_apart(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    retry_session(path)
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
    retry_session(path)
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
        assert "2 updates held" in lines[1], lines[1]


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
            lines = static_lines(st)
            assert len(lines) == 1, lines  # one row each: a wrapped badge lost its tail to the pane's edge
            if cell_len(full) > st.size.width:
                cut += 1
                assert lines[0].endswith("…") and full.startswith(lines[0][:-1].rstrip()), (full, lines)
            else:
                assert lines[0] == full
        more = [str(s.content) for s in view.query_one(AnomalyBadges).query(Static) if str(s.content).startswith("+")]
        assert more or size == (120, 40)  # the small screens list only some of them
        assert not more or re.fullmatch(r"\+\d+ more( anomaly| anomalies)? \(\d+ open, \d+ cleared\)|\+\d+ more", more[0]), more
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


async def test_now_says_the_last_call_failed_in_red_live_and_in_history(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    failed_last_call(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert view.state.main.frontier.kind == "tool_error"
        now = view.query_one(NowPane).content
        assert isinstance(now, Text)
        assert now.plain.startswith("failed Bash(npm test): «Exit code 1"), now.plain
        assert "tool_error" not in now.plain and "called" not in now.plain
        assert red_span(now, "failed")
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert view.episode == 1 and view.shown_state().main.frontier.kind == "tool_error"
        now = view.query_one(NowPane).content
        assert now.plain.startswith("failed Bash(npm test): «Exit code 1"), now.plain
        assert "3 tests failed" in now.plain and red_span(now, "failed")


async def test_a_line_break_in_a_path_is_its_control_picture_on_one_files_row(tmp_path: Path) -> None:
    # `/tmp/esc/new\nline.py` took two rows, `/tmp/esc/new` and `line.py  r0 w0 ed1`
    path = tmp_path / "s.jsonl"
    b = TranscriptBuilder(cwd="/home/dev/app")
    b.prompt("edit them")
    for p in ("/tmp/esc/new\nline.py", "/home/dev/app/tab\there.py", "/home/dev/app/plain.py"):
        b.tick(1).tool("Edit", {"file_path": p, "old_string": "a", "new_string": "b"}, "The file has been updated.")
    b.write(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        pane = view.query_one(FilesPane)
        rows = str(pane.content).splitlines()
        assert len(rows) == 3, rows
        assert [r.split()[0] for r in rows] == ["plain.py", "tab\u2409here.py", "/tmp/esc/new\u240aline.py"], rows
        assert all(r.endswith("r0 w0 ed1") for r in rows), rows
        assert pane.fold().first == "plain.py"


@pytest.mark.parametrize(("model", "shown"), [("mod\x07el", "mod\u2407el"), ("mod\x1b]0;X\x07el", "mod\u241b]0;X\u2407el")])
async def test_the_counters_cost_note_shows_a_model_name_as_the_header_does(tmp_path: Path, model: str, shown: str) -> None:
    # the Counters pane dropped the BEL of `mod\x07el` (shown `model`), and with it an OSC's tail
    path = tmp_path / "s.jsonl"
    b = TranscriptBuilder(model=model)
    b.prompt("hi")
    b.tick(1).text("hello")
    b.write(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        header = view.query_one(SessionHeader).content
        counters = view.query_one(CountersPane).content
        assert isinstance(header, Text) and isinstance(counters, Text)
        assert shown in header.plain, header.plain
        cost = next(ln for ln in counters.plain.splitlines() if ln.startswith("cost "))
        assert cost == f"cost unknown (no price known for {shown})", cost
