"""The Files | Todos | Subagents column in a terminal too short for every pane's title and a line
(60x16, the smallest the monitor draws: the demo's Subagents pane got no row under its count,
Files and Todos a title over an empty line): a pane on screen shows a line of what it lists (or
``+N more``), and the panes that do not fit are folded into one-line summaries beneath them."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import app_for, demo_session, wait_for_state, wait_until

from tracetui.tui.layout import PaneStack, folded
from tracetui.tui.widgets.files import FilesPane
from tracetui.tui.widgets.pane import Folded, fold_text, squeeze
from tracetui.tui.widgets.subagents import SubagentsTree
from tracetui.tui.widgets.todos import TodosPane


@pytest.mark.parametrize(("total", "n_folded"), [(0, 3), (1, 3), (2, 3), (3, 2), (4, 2), (5, 1), (6, 0), (30, 0)])
def test_the_last_panes_fold_when_the_column_cannot_give_each_a_title_and_a_line(total: int, n_folded: int) -> None:
    assert folded(total, 3) == n_folded
    assert folded(total, 0) == 0


def test_folded_panes_get_a_line_each_while_the_rows_allow() -> None:
    parts = [Folded("Files (6)", 6, "app/ratelimit.py"), Folded("Todos 2/3", 3, "▶ Run the upload tests"), Folded("Todos", 0)]
    lines = fold_text(parts, 3, 40).plain.splitlines()
    assert lines == ["Files (6) app/ratelimit.py +5 more", "Todos 2/3 ▶ Run the upload tests +2 more", "Todos none"]
    # cut to the width, the count and +N more kept
    assert fold_text(parts[:1], 1, 25).plain == "Files (6) app/ra… +5 more"


def test_folded_panes_beyond_the_rows_share_the_last_line_with_their_counts() -> None:
    parts = [Folded("Files (6)", 6, "README.md"), Folded("Todos 2/3", 3, "x"), Folded("Subagents (1)", 1, "Task")]
    assert fold_text(parts, 2, 25).plain.splitlines() == ["Files (6) README… +5 more", "Todos 2/3 · Subagents (1)"]
    one = fold_text(parts, 1, 25).plain
    assert len(one) <= 25 and one.count(" · ") == 2 and "(6)" in one and "2/3" in one and "(1)" in one, one
    assert squeeze("Subagents (1)", 10) == "Subag… (1)"
    assert squeeze("Todos 2/3", 20) == "Todos 2/3"


def _row_text(rows: list[str], y: int, x: int, width: int) -> str:
    return rows[y][x : x + width] if 0 <= y < len(rows) else ""


@pytest.mark.parametrize(("size", "tabs"), [((60, 16), 1), ((60, 17), 1), ((60, 18), 1), ((60, 16), 2), ((80, 24), 2)])
async def test_every_pane_with_entries_shows_one_or_is_folded_into_a_summary(tmp_path: Path, size: tuple[int, int], tabs: int) -> None:
    from test_tui_app import screen_rows

    paths = [demo_session(tmp_path / f"t{i}") for i in range(tabs)]
    app = app_for(paths, tmp_path)
    async with app.run_test(size=size) as pilot:
        view = await wait_for_state(pilot)
        await wait_until(pilot, lambda: view.shown is not None, 300, 0.02)
        await pilot.pause()
        rows = screen_rows(app)
        stack = view.query_one(PaneStack)
        fold = stack.fold_line
        fold_lines = [_row_text(rows, fold.region.y + i, fold.region.x, fold.region.width) for i in range(fold.region.height)]
        for kind, title in ((FilesPane, "Files (6)"), (TodosPane, "Todos 2/3"), (SubagentsTree, "Subagents (1)")):
            pane = view.query_one(kind)
            if pane.display:
                r = pane.region
                # its title row and, beneath it, a line that says something (an entry, +N more)
                assert r.height >= 2, (kind.__name__, r)
                assert title in _row_text(rows, r.y, r.x, r.width), (kind.__name__, rows[r.y])
                assert _row_text(rows, r.y + 1, r.x, r.width).strip(), (kind.__name__, rows[r.y + 1])
            else:
                # folded: its count in the summary lines beneath the panes shown, on screen
                name, _, count = title.partition(" ")
                assert any(count in line and name[:1] in line for line in fold_lines), (kind.__name__, fold_lines)
        assert fold.display == any(not view.query_one(k).display for k in (FilesPane, TodosPane, SubagentsTree))
