"""The Files | Todos | Subagents column at small sizes (fourth user trial: at 80x24 with two tabs,
Todos and Subagents were laid out below the screen and Files lost its ``+N more`` line), and the
Subagents pane saying how many entries are out of view."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import Footer
from tui_support import app_for, demo_session, wait_for_state, wait_until

from tracetui.demo.build import TranscriptBuilder
from tracetui.tui.layout import share
from tracetui.tui.widgets.files import FilesPane
from tracetui.tui.widgets.subagents import SubagentsTree
from tracetui.tui.widgets.todos import TodosPane

_COLUMN = ((2, 1, 1), (None, 10, None))


@pytest.mark.parametrize(
    ("total", "heights"),
    # what Textual's 2fr / 1fr (max 10) / 1fr with min-height 3 gave where it fit: the
    # one-tab layout is unchanged
    [(10, [4, 3, 3]), (12, [6, 3, 3]), (13, [6, 3, 4]), (18, [9, 4, 5]), (28, [14, 7, 7]), (38, [19, 9, 10])],
)
def test_share_gives_what_the_stylesheet_gave_where_it_fit(total: int, heights: list[int]) -> None:
    assert share(total, *_COLUMN) == heights


@pytest.mark.parametrize("total", range(2, 30))
def test_share_keeps_every_pane_on_its_column(total: int) -> None:
    heights = share(total, *_COLUMN)
    assert sum(heights) == total
    # a title and two lines while all fit, else a title and one line, else an even split
    low = 3 if total >= 9 else 2 if total >= 6 else total // 3
    assert min(heights) >= low, heights
    assert heights[1] <= 10


def test_share_caps_a_pane_at_its_maximum() -> None:
    assert share(60, *_COLUMN) == [33, 10, 17]
    assert share(0, *_COLUMN) == [0, 0, 0]


def _many_files(path: Path, files: int, tasks: int = 0) -> Path:
    b = TranscriptBuilder()
    b.prompt("Touch many files")
    for i in range(files):
        b.tick(1).tool("Read", {"file_path": f"/home/dev/shop-api/app/module_{i:02}.py"}, "x = 1", took=0.1)
    for i in range(tasks):
        b.tick(1).tool("Task", {"description": f"look at part {i}", "subagent_type": "Explore", "prompt": "look"}, "done", took=0.5)
    b.tick(1).text("Done.")
    return b.write(path)


@pytest.mark.parametrize("tabs", [1, 2])
async def test_every_pane_of_the_right_column_keeps_its_title_and_says_more_at_80x24(tmp_path: Path, tabs: int) -> None:
    paths = [_many_files(tmp_path / "projects" / "p" / f"s{i}.jsonl", files=20, tasks=6) for i in range(tabs)]
    app = app_for(paths, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        bottom = app.screen.query_one(Footer).region.y
        for kind in (FilesPane, TodosPane, SubagentsTree):
            pane = view.query_one(kind)
            # drawn on the screen, above the footer, with its title row and a line beneath it
            assert pane.region.height >= 2 and pane.region.bottom <= bottom, (kind.__name__, pane.region, bottom)
        pane = view.query_one(FilesPane)
        files = str(pane.content).splitlines()
        assert len(files) == pane.content_size.height and files[-1] == f"+{20 - (len(files) - 1)} more files", files
        assert str(view.query_one(TodosPane).content) == "no todos"
        tree = view.query_one(SubagentsTree)
        assert re.fullmatch(r"Subagents \(6\) \+\d+ more", str(tree.border_title)), tree.border_title


async def test_subagents_title_says_how_many_entries_are_out_of_view(tmp_path: Path) -> None:
    path = _many_files(tmp_path / "projects" / "p" / "s.jsonl", files=1, tasks=14)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        tree = view.query_one(SubagentsTree)
        rows = tree.scrollable_content_region.height
        assert rows >= 3
        # each call takes two lines (the call, then "no transcript file" beneath it)
        shown = (rows + 1) // 2
        assert str(tree.border_title) == f"Subagents (14) +{14 - shown} more"
        # scrolled to the end: the entries above the view are not shown either
        tree.scroll_end(animate=False)
        await wait_until(pilot, lambda: tree.scroll_y > 0)
        await pilot.pause()
        top = round(tree.scroll_y)
        shown = len([i for i in range(14) if top <= 2 * i < top + rows])
        assert str(tree.border_title) == f"Subagents (14) +{14 - shown} more"


async def test_subagents_title_has_no_more_when_all_are_in_view(tmp_path: Path) -> None:
    app = app_for([demo_session(tmp_path)], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        assert str(view.query_one(SubagentsTree).border_title) == "Subagents (1)"
