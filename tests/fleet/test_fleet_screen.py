"""The fleet screen: first with --all, a key from any session, its rows and states from generated
sessions whose times the test sets, Enter opening the tab, live updates and the bell."""

from __future__ import annotations

import io
import os
from pathlib import Path

import fleet_support as fs
import pytest
from tui_support import FROZEN_NOW, settings_for, wait_until

from tracetui.tui.app import make_app
from tracetui.tui.screens.fleet import FleetScreen
from tracetui.views.fleet import FleetRules, rules_help

NOW = FROZEN_NOW


def fleet_app(tmp_path: Path, now: float = NOW, first: bool = True, **kw):
    paths = fs.write_fleet(tmp_path, now)
    s = settings_for(paths, tmp_path, now=now, **kw)
    s.fleet_first = first
    s.all_hours = None
    return make_app(s), paths


async def fleet_ready(pilot, n: int = len(fs.FLEET)) -> FleetScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen), 200, 0.02)
    screen = app.screen
    assert isinstance(screen, FleetScreen)
    await wait_until(pilot, lambda: len(screen.rows) == n, 500, 0.02)
    await pilot.pause()
    return screen


async def test_first_screen_lists_every_session_in_attention_order(tmp_path: Path) -> None:
    app, _ = fleet_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await fleet_ready(pilot)
        states = [r.status.state for r in screen.rows]
        assert states == [st for *_, st in fs.FLEET]
        projects = [r.facts.project for r in screen.rows]
        assert projects == [cwd.rsplit("/", 1)[-1] for _, _, cwd, _ in fs.FLEET]
        from tracetui.tui.widgets.fleet_rows import FleetRows

        table = screen.query_one(FleetRows)
        assert len(table.keys) == len(fs.FLEET)
        # within a state: the longest waiting first
        first, second = (table.row_text(i) for i in (0, 1))
        assert first[0] == second[0] == "waiting on you"
        assert "What does the cache layer do?" in first and "Bash(./deploy.sh staging) 1m" in second
        summary = str(screen.query_one("#fleet-summary").render())
        assert "2 waiting on you, 1 failing, 1 stalled, 1 working, 1 idle, 1 ended" in summary


async def test_enter_opens_the_sessions_tab(tmp_path: Path) -> None:
    app, paths = fleet_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await fleet_ready(pilot)
        await pilot.press("down", "down")  # the third row: the failing session
        want = screen.rows[2].facts.key
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.spec.key == want, 200, 0.02)
        assert not isinstance(app.screen, FleetScreen)
        assert app.current_view.spec.key == want == str(paths[2])


async def test_enter_opens_the_highlighted_row_after_a_too_small_spell(tmp_path: Path) -> None:
    # trial 11: shrunk until the monitor beneath hid its tabs, its focus was dropped; back from
    # the fleet, Textual focused the first tab's episode list, and that tab was shown
    app, paths = fleet_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await fleet_ready(pilot)
        await pilot.resize_terminal(20, 5)
        await pilot.pause()
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        await pilot.press("down", "down")
        want = screen.rows[2].facts.key
        assert want != app.current_view.spec.key
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, FleetScreen) and app.current_view.spec.key == want, 200, 0.02)
        for _ in range(3):  # no late focus takes another tab back
            await pilot.pause()
        assert app.current_view.spec.key == want


async def test_the_key_opens_it_from_a_session_and_escape_goes_back(tmp_path: Path) -> None:
    app, _ = fleet_app(tmp_path, first=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.state is not None, 300, 0.02)
        assert not isinstance(app.screen, FleetScreen)
        await pilot.press("f")
        screen = await fleet_ready(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, FleetScreen), 100, 0.02)
        assert screen.feed.screen is None


async def test_sessions_without_a_tab_are_followed(tmp_path: Path) -> None:
    # one tab open; the other sessions are in the window (24 h) and come from the listing
    paths = fs.write_fleet(tmp_path, NOW)
    s = settings_for(paths[:1], tmp_path, now=NOW)
    app = make_app(s)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f")
        # the ended session is 4 h old, within the window; every other one too
        screen = await fleet_ready(pilot)
        assert {r.facts.key for r in screen.rows} == {str(p) for p in paths}
        assert len(app.views) == 1


async def test_the_session_column_is_the_prefix_the_command_line_takes(tmp_path: Path) -> None:
    # trial 12: `tracetui sessions` makes a row's id long enough to start no other session's id
    # on disk, one out of the window too (state, view and card look among them all); the fleet
    # looked among its rows only, and showed a prefix the command line refused as ambiguous
    paths = fs.write_fleet(tmp_path, NOW)
    row_id = paths[1].stem  # 1111f1ee-0000-…
    old = "1111f1ee-9999-4000-8000-0000000000ff"
    b = fs.at("ended", 3 * 86400, NOW, old, "/home/dev/old")
    fs.write(b, tmp_path, "-home-dev-old", old)
    app = make_app(settings_for(paths[:1], tmp_path, now=NOW))
    async with app.run_test(size=(220, 40)) as pilot:
        await pilot.press("f")
        screen = await fleet_ready(pilot)
        assert old not in {r.facts.session_id for r in screen.rows}  # out of the window
        table = screen.query_one("#fleet-rows")
        shown = {r.facts.session_id: table.row_text(i)[-1] for i, r in enumerate(screen.rows)}  # the last column
        assert shown[row_id] == "1111f1ee-0" and shown[paths[2].stem] == "2222f1ee"


async def test_rows_follow_the_clock_and_the_bell_rings_on_a_turn(tmp_path: Path) -> None:
    clock = [NOW]
    paths = fs.write_fleet(tmp_path, NOW)
    s = settings_for(paths, tmp_path)
    s.clock = lambda: clock[0]
    s.fleet_first = True
    app = make_app(s)
    rang: list[int] = []
    app.bell = lambda: rang.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await fleet_ready(pilot)
        working = next(r for r in screen.rows if r.status.state == "working")
        assert rang == []  # the first look rings nothing
        clock[0] = NOW + 30  # the "working" session is thinking: still mid-turn
        screen.refresh_rows()
        clock[0] = NOW + 400  # past the stall threshold: the thinking session idle, the Bash call stalled
        screen.refresh_rows()
        assert rang == []  # nothing turned waiting or failing
        by = {r.facts.key: r.status.state for r in screen.rows}
        assert by[working.facts.key] == "idle"
        assert by[str(paths[1])] == "stalled"  # the Bash call
        # a Write call appended, then 20 s of quiet: a permission prompt
        b = fs.at("working", 0, NOW + 400, "4444f1ee-0000-4000-8000-000000000004", "/home/dev/health")
        b.tick(1).tool_use("Write", {"file_path": "/home/dev/health/app.py", "content": "x"})
        p = fs.write(b, tmp_path, "-home-dev-health", b.session_id)
        assert str(p) == working.facts.key
        view = app.views[working.facts.key]
        app.follow.wake(view.spec.key)
        await wait_until(pilot, lambda: any(c.tool == "Write" for r in screen.rows for c in r.facts.in_flight), 300, 0.02)
        clock[0] = NOW + 401 + 20
        os.utime(p, (NOW + 401, NOW + 401))
        screen.refresh_rows()
        by = {r.facts.key: r.status.state for r in screen.rows}
        assert by[working.facts.key] == "waiting on you"
        assert rang == [1]


async def test_no_bell_when_turned_off(tmp_path: Path) -> None:
    clock = [NOW]
    app, _ = fleet_app(tmp_path)
    app.settings.clock = lambda: clock[0]
    app.settings.bell = False
    rang: list[int] = []
    app.bell = lambda: rang.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await fleet_ready(pilot)
        # every session seen as working before: the waiting and failing ones turn now
        screen.feed._states = {k: "working" for k in screen.feed._states}
        screen.refresh_rows()
        assert rang == []


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
def test_fleet_snapshot(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    app, _ = fleet_app(tmp_path)
    app.settings.budget_usd_day = 5.0  # the summary says when it is crossed at the current rate

    async def run_before(pilot) -> None:
        await fleet_ready(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_help_lists_the_state_rules(tmp_path: Path) -> None:
    from rich.console import Console

    from tracetui.tui.screens.help import HelpScreen, fleet_legend

    app, _ = fleet_app(tmp_path)
    app.settings.fleet_rules = FleetRules(quiet_after=25.0)
    async with app.run_test(size=(160, 60)) as pilot:
        await fleet_ready(pilot)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 100, 0.02)
        titles = "\n".join(str(s.render()) for s in app.screen.query("Static"))
        assert "Fleet states" in titles
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(fleet_legend(app.settings))
    text = console.export_text()
    for state, _rule in rules_help(FleetRules(quiet_after=25.0)):
        assert state in text
    assert "25s" in text  # the thresholds of the settings


def test_the_fleet_key_is_a_binding_with_id_and_description() -> None:
    from tracetui.tui.app import TraceApp

    b = next(b for b in TraceApp.BINDINGS if getattr(b, "id", None) == "fleet")
    assert b.key == "f" and b.action == "fleet" and b.description == "Fleet" and "waiting on you" in b.tooltip


async def test_transcript_text_in_rows_is_made_safe(tmp_path: Path) -> None:
    b = fs.builder("abcdabcd-0000-4000-8000-00000000000a", start=fs.iso(NOW - 30))
    b.prompt("Fix \x1b]52;c;ZXZpbA==\x07 the \x9b31m parser sk-ant-api03-" + "A" * 90)
    b.tick(1).tool_use("Bash", {"command": "echo \x1b[2J done"})
    p = fs.write(b, tmp_path, "-p\x1b[31m", b.session_id)
    s = settings_for([p], tmp_path, now=NOW)
    s.fleet_first = True
    app = make_app(s)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await fleet_ready(pilot, 1)
        from tracetui.tui.widgets.fleet_rows import FleetRows

        cells = " ".join(screen.query_one(FleetRows).row_text(0))
        assert "\x1b" not in cells and "\x9b" not in cells and "\x07" not in cells
        assert "AAAAAAAAAAAAAAAAAAAA" not in cells  # the key is masked
        assert "Fix" in cells and "Bash(echo" in cells


async def test_budgets_in_the_rows_and_the_summary(tmp_path: Path) -> None:
    app, _ = fleet_app(tmp_path)
    app.settings.budget_usd = 0.02  # the failing session cost $0.04
    app.settings.budget_usd_day = 0.05
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await fleet_ready(pilot)
        failing = next(r for r in screen.rows if r.status.state == "failing")
        assert failing.budget is not None and failing.budget.crossed
        from tracetui.views.fleet_table import row_cells

        assert row_cells(failing, NOW)["anomalies"].startswith("2E")  # the error streak and the budget
        summary = str(screen.query_one("#fleet-summary").render())
        assert "the daily budget $0.05 is crossed" in summary


async def test_a_crossed_session_budget_is_a_badge_in_the_session(tmp_path: Path) -> None:
    from tracetui.tui.widgets.anomalies import AnomalyBadges

    app, paths = fleet_app(tmp_path, first=False)
    app.settings.budget_usd = 0.02  # the failing session cost $0.04
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: len(app.fleet_feed.pairs()) == len(paths), 300, 0.02)
        app.open_session(app.settings.sessions[2])  # the failing session's tab
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.spec.key == str(paths[2]), 200, 0.02)
        view = app.current_view
        assert view is not None and view.spec.key == str(paths[2])
        # ``built`` is true from the start for a view made eagerly, before its panes are mounted
        await wait_until(pilot, lambda: view.state is not None and view.built and view.query(AnomalyBadges), 200, 0.02)
        assert view.state is not None and view.built and view.query(AnomalyBadges), (
            view.state is not None,
            view.built,
            [type(c).__name__ for c in view.children],
            app.current_view is view,
        )
        app.fleet_feed.tick(NOW)  # what the app's clock tick does
        view.refresh_panes()
        badges = view.query_one(AnomalyBadges)
        budget = [r for r in badges.rows if r.kind == "budget"]
        assert budget and budget[0].severity == "error" and "the session budget $0.02 is crossed" in budget[0].message
        # another session, within its budget: no badge. The tab shown moves the focus into its
        # view; the report of that focus, still queued, would make it the active tab again after
        # a switch made at once (the switch then was never seen: a wait of 60 s, then a test of
        # the tab shown before)
        await wait_until(pilot, lambda: app.screen.focused is not None and view in app.screen.focused.ancestors_with_self, 200, 0.02)
        await pilot.pause()
        app.open_session(app.settings.sessions[4])
        await wait_until(pilot, lambda: app.current_view.spec.key == str(paths[4]) and app.current_view.built, 200, 0.02)
        other = app.current_view
        assert other.spec.key == str(paths[4])  # the tab asked for (it went back to the focused one's)
        await wait_until(pilot, lambda: other.state is not None and other.query(AnomalyBadges), 200, 0.02)
        app.settings.budget_usd = 100.0
        app.fleet_feed.tick(NOW)
        other.refresh_panes()
        assert not [r for r in other.query_one(AnomalyBadges).rows if r.kind == "budget"]


async def test_enter_on_the_fleet_opened_from_a_tab_shows_the_chosen_session(tmp_path: Path) -> None:
    # the monitor had focus in the first tab: closing the fleet gave it back, and a focused
    # widget's tab became the active one (second user trial: Enter showed the first tab)
    app, paths = fleet_app(tmp_path, first=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.state is not None, 300, 0.02)
        first = app.current_view.spec.key
        await pilot.press("f")
        screen = await fleet_ready(pilot)
        i = next(i for i, r in enumerate(screen.rows) if i > 0 and r.facts.key != first)
        await pilot.press(*["down"] * i)
        want = screen.rows[i].facts.key
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, FleetScreen), 300, 0.02)
        for _ in range(3):
            await pilot.pause()
        assert app.current_view is not None and app.current_view.spec.key == want


async def test_every_column_fits_at_150_with_a_long_call_in_flight(tmp_path: Path) -> None:
    # the title gives way to a long call in flight, so tokens, cost and the context stay on
    # screen (second user trial: they were off to the right at 160 columns)
    from tracetui.tui.widgets.fleet_rows import FleetRows

    app, _ = fleet_app(tmp_path)
    async with app.run_test(size=(150, 50)) as pilot:
        screen = await fleet_ready(pilot)
        table = screen.query_one(FleetRows)
        assert any(len(c[4]) >= 25 for c in table.cells)  # a long call in flight is shown (beside the session id)
        assert table.virtual_size.width <= table.size.width
