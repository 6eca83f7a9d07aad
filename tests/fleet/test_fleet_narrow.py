"""The fleet in a narrow terminal (80 columns and less): the title and the call in flight give
way first, down to their minimum; the state and project stay while the other columns scroll
sideways (left/right a column, Home/End to either edge, then to the first/last row); and every
cell cut, by its column or by an edge of the view, shows ``…`` where text was left out."""

from __future__ import annotations

from pathlib import Path

import fleet_support as fs
import pytest
from textual.app import App, ComposeResult
from tui_support import FROZEN_NOW, settings_for, wait_until

from tracetui.tui.app import make_app
from tracetui.tui.screens.fleet import FleetScreen
from tracetui.tui.widgets.fleet_rows import HELD_MIN, FleetRows
from tracetui.views.fleet_table import COLUMNS, FLIGHT_MIN, TITLE_MIN, give_way, row_cells


def fleet_app(tmp_path: Path):
    paths = fs.write_fleet(tmp_path, FROZEN_NOW)
    s = settings_for(paths, tmp_path, now=FROZEN_NOW)
    s.fleet_first = True
    s.all_hours = None
    return make_app(s)


async def fleet_ready(pilot) -> FleetScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen) and len(app.screen.rows) == len(fs.FLEET), 500, 0.02)
    await pilot.pause()
    return app.screen


def lines(table: FleetRows) -> list[str]:
    """The table's lines as drawn (header first)."""
    return ["".join(seg.text for seg in table.render_line(y)) for y in range(len(table.keys) + 1)]


def check_cuts(table: FleetRows) -> None:
    """Every cell of every drawn line, whole or cut: a cut end ends in ``…``, a cut start
    begins with it (the cell's text as the views gave it, against what the line shows)."""
    held_widths = table.held_widths()
    held = len(held_widths)
    x0 = 1 + sum(w + 2 for w in held_widths)
    starts = [1 + sum(w + 2 for w in held_widths[:i]) for i in range(held)] + [x0 + s for s in table._starts()]
    scroll = table.scroll_offset.x
    values = [[h for _, h in table.columns]] + [list(c) for c in table.cells]
    for line, row in zip(lines(table), values):
        for i, v in enumerate(row):
            text = table._cell(i, v, held_widths[i] if i < held else None)
            a = starts[i] - (scroll if i >= held else 0)
            lo, hi = max(a, x0 if i >= held else 0), min(a + len(text), len(line))
            if hi <= lo:
                continue
            seen = line[lo:hi]
            hidden_right = text[hi - a :].strip()
            hidden_left = text[: lo - a].strip()
            if hidden_right or v != text.strip():
                assert seen.rstrip().endswith("…") or not seen.strip() and not hidden_right, (v, seen, line)
            if hidden_left:
                assert seen.startswith("…"), (v, seen, line)


def test_title_and_flight_give_way_to_their_minimum() -> None:
    assert give_way(40, 30, 0) == (40, 30)
    assert give_way(40, 30, 14) == (26, 30)  # the one with more room over its minimum gives first
    assert give_way(40, 30, 30) == (18, 22)  # then both in turn
    assert give_way(40, 30, 500) == (TITLE_MIN, FLIGHT_MIN)
    assert give_way(8, 30, 500) == (8, FLIGHT_MIN)  # a column narrower than its minimum keeps its width


async def test_at_80_columns_every_column_is_reached_and_home_goes_back(tmp_path: Path) -> None:
    app = fleet_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await fleet_ready(pilot)
        table = screen.query_one(FleetRows)
        head = lines(table)[0]
        assert all(h in head for h in ("State", "Project", "Title or goal", "Agent", "In flight")), head
        assert table.max_scroll_x > 0  # the rest is to the right
        await pilot.press("end")
        await pilot.pause()
        head = lines(table)[0]
        assert all(h in head for h in ("State", "Project", "Tokens", "Cost", "Tok/1h", "$/1h", "Ctx", "Session")), head
        for i, line in enumerate(lines(table)[1:]):
            cells = dict(zip((k for k, _ in COLUMNS), table.row_text(i)))
            assert cells["state"] in line and cells["project"] in line  # still says which session
            assert all(cells[k] in line for k in ("tokens", "cost", "hour_tokens", "hour_cost", "context", "session")), line
        await pilot.press("home")
        await pilot.pause()
        assert table.scroll_offset.x == 0 and "Title or goal" in lines(table)[0]
        await pilot.press("down", "down")
        assert table.cursor == 2
        await pilot.press("home")  # at the left edge already: the first row
        assert table.cursor == 0
        await pilot.press("end", "end")  # the right edge, then the last row
        assert table.cursor == len(table.keys) - 1
        await pilot.press("home")
        for _ in range(len(COLUMNS)):  # a column at a time, all the way
            await pilot.press("right")
        assert table.scroll_offset.x == table.max_scroll_x
        for _ in range(len(COLUMNS)):
            await pilot.press("left")
        assert table.scroll_offset.x == 0


async def test_at_80_columns_the_cut_title_and_flight_cells_say_so(tmp_path: Path) -> None:
    app = fleet_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await fleet_ready(pilot)
        table = screen.query_one(FleetRows)
        cols = [k for k, _ in COLUMNS]
        for i, r in enumerate(screen.rows):
            full = row_cells(r, FROZEN_NOW)  # the widest cells
            drawn = dict(zip(cols, table.row_text(i)))
            assert len(drawn["title"]) <= TITLE_MIN + 1
            for k in ("title", "flight"):
                if drawn[k] != full[k]:
                    assert "…" in drawn[k], (k, drawn[k], full[k])  # the call ends in … before its age
        deploy = dict(zip(cols, table.row_text(1)))
        assert deploy["flight"].startswith("Bash(./") and deploy["flight"].endswith("… 1m")


@pytest.mark.parametrize("width", [64, 70, 80, 100])
async def test_every_cell_an_edge_cuts_shows_it(tmp_path: Path, width: int) -> None:
    app = fleet_app(tmp_path)
    async with app.run_test(size=(width, 24)) as pilot:
        screen = await fleet_ready(pilot)
        table = screen.query_one(FleetRows)
        check_cuts(table)
        seen = [table.scroll_offset.x]
        while table.scroll_offset.x < table.max_scroll_x:
            await pilot.press("right")
            await pilot.pause()
            seen.append(table.scroll_offset.x)
            check_cuts(table)
        for x in range(0, table.max_scroll_x + 1, 3):  # the mouse or the scrollbar: any cell
            table.scroll_to(x=x, animate=False)
            await pilot.pause()
            check_cuts(table)
        assert seen == sorted(set(seen))


class _Rows(App[None]):
    def compose(self) -> ComposeResult:
        yield FleetRows([("state", "State"), ("title", "Title"), ("flight", "In flight")], frozen=1, id="rows")


async def test_a_cell_cut_by_the_right_or_left_edge_is_marked() -> None:
    app = _Rows()
    async with app.run_test(size=(40, 6)) as pilot:
        rows = app.query_one(FleetRows)
        rows.set_rows(["a"], [("working", "Add a health endpoint", "Bash(./deploy.sh staging) 1m")], [("", "", "")])
        await pilot.pause()
        line = lines(rows)[1]
        assert line.rstrip().endswith("Bash(.…"), line
        rows.scroll_to(x=8, animate=False)  # the title's start hidden
        await pilot.pause()
        line = lines(rows)[1]
        assert line.startswith(" working  …lth endpoint"), line
        await pilot.press("end")
        await pilot.pause()
        line = lines(rows)[1]
        assert line.rstrip().endswith("staging) 1m") and line.startswith(" working  "), line


async def test_held_columns_are_cut_to_half_a_narrow_view() -> None:
    # trial 13: the state and a long project took more than half the view, and the project
    # scrolled away though the README and F1 say it stays; now it stays, cut to the room left
    app = _Rows()
    async with app.run_test(size=(40, 6)) as pilot:
        rows = app.query_one(FleetRows)
        rows.frozen = 2
        rows.set_rows(["a"], [("working", "a-rather-long-project-name", "Bash(./deploy.sh staging) 1m")], [("", "", "")])
        await pilot.pause()
        assert rows._held() == 2 and rows.held_widths() == [7, HELD_MIN]  # 1 + 9 + 10 = half of 40
        await pilot.press("end")
        await pilot.pause()
        line = lines(rows)[1]
        assert line.startswith(" working  a-rathe…  ") and line.rstrip().endswith("staging) 1m"), line
        assert len(line.rstrip()) == rows.size.width - 2  # End stops where the last column ends (and its two blanks)
        rows.scroll_to(x=5, animate=False)
        await pilot.pause()
        assert lines(rows)[1].startswith(" working  a-rathe…  …/deploy"), lines(rows)[1]
        check_cuts(rows)


async def test_at_80_columns_a_long_project_stays_in_view_cut(tmp_path: Path) -> None:
    # trial 13: a 26-cell project (a real project name) never stayed at 80 columns
    long = "ent-109-text-output-check-x"
    paths = fs.write_fleet(tmp_path, FROZEN_NOW)
    b = fs.at("working", 5, FROZEN_NOW, "abababab-0000-4000-8000-00000000000f", f"/home/dev/{long}")
    paths.append(fs.write(b, tmp_path, f"-home-dev-{long}", "abababab-0000-4000-8000-00000000000f"))
    s = settings_for(paths, tmp_path, now=FROZEN_NOW)
    s.fleet_first = True
    s.all_hours = None
    app = make_app(s)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen) and len(app.screen.rows) == len(paths), 500, 0.02)
        await pilot.pause()
        table = app.screen.query_one(FleetRows)
        project = [k for k, _ in COLUMNS].index("project")
        for key in ["right", "right", "end"]:
            await pilot.press(key)
            await pilot.pause()
            head, *body = lines(table)
            assert head.startswith(" State ") and "Project" in head, head
            for i, line in enumerate(body):
                state, proj = table.row_text(i)[0], table.row_text(i)[project]
                assert line.startswith(f" {state}") and f"  {proj[: HELD_MIN - 1]}" in line, (line, proj)
        assert "Session" in lines(table)[0]
        cut = table.held_widths()[project]
        assert HELD_MIN <= cut < table.widths[project]  # cut, to half the width at most
        assert 1 + sum(w + 2 for w in table.held_widths()) <= 40
        for i, line in enumerate(lines(table)[1:]):
            assert f"  {table.row_text(i)[project][: cut - 1]}…  " in line or table.row_text(i)[project] in line, line
        check_cuts(table)


def test_a_cut_in_cells_keeps_wide_characters_to_their_cells() -> None:
    from rich.cells import cell_len

    from tracetui.views.fleet_table import fit_line

    title = "修复登录页面的错误并添加测试"
    assert fit_line(title, 12) == title[:11] + "…"  # characters: 23 cells
    got = fit_line(title, 12, cell_len)
    assert cell_len(got) <= 12 and got.endswith("…") and got.startswith("修复登录")
    assert fit_line("Add a health endpoint", 12, cell_len) == fit_line("Add a health endpoint", 12)


def test_the_help_names_the_fleet_keys() -> None:
    from tracetui.tui.screens.help import FLEET_KEYS

    names = {"up": "up", "down": "down", "left": "left", "right": "right", "home": "Home", "end": "End", "enter": "Enter"}
    names |= {"ctrl+home": "Ctrl+Home", "ctrl+end": "Ctrl+End"}
    for b in FleetRows.BINDINGS:
        if b.key in names:
            assert names[b.key] in FLEET_KEYS, b.key
