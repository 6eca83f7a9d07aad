"""Pilot tests: every binding of the monitor, what lands in the clipboard, and bad situations."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.selection import Selection
from textual.widgets import Static
from tui_support import FROZEN_NOW, app_for, demo_session, open_sessions, press_copy, small_session, wait_for_state, wait_until

from tracetui.tui.app import TraceApp
from tracetui.tui.screens.episode import EpisodeScreen
from tracetui.tui.screens.help import HelpScreen
from tracetui.tui.screens.sessions import SessionSwitcher
from tracetui.tui.widgets.episodes import EpisodesList
from tracetui.tui.widgets.goal import GoalPane
from tracetui.tui.widgets.header import SessionHeader
from tracetui.tui.widgets.pending_calls import PendingCalls
from tracetui.tui.widgets.timeline import Timeline


def text_of(widget) -> str:
    return str(widget.content)


async def test_every_binding_has_an_id_and_a_description() -> None:
    ids = set()
    for b in TraceApp.BINDINGS:
        assert b.id and b.description, b
        ids.add(b.id)
    assert len(ids) == len(TraceApp.BINDINGS)
    for screen in (HelpScreen, EpisodeScreen, SessionSwitcher):
        for b in screen.BINDINGS:
            assert b.id and b.description, (screen, b)


async def test_panes_show_the_folded_state(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    async with app_for([path], tmp_path).run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert view.state.main.prompts == 2
        goal = text_of(view.query_one(GoalPane))
        assert "Fix the parser" in goal and "Latest ask" in goal and "Now add a test" in goal
        pending = text_of(view.query_one(PendingCalls))
        assert "Bash" in pending and "pytest -q tests/test_parser.py" in pending
        # the frozen clock drives the age: the call was made at 09:00:11.5, now is 09:06:00
        assert "5m48s" in pending
        header = text_of(view.query_one(SessionHeader))
        assert "LIVE" in header and "s.jsonl:" in header and "0 malformed" in header
        assert len(view.query_one(EpisodesList).rows_data) == 2


async def test_history_keys_scrub_and_return_to_live(tmp_path: Path) -> None:
    path = demo_session(tmp_path)
    async with app_for([path], tmp_path).run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        n = len(view.state.history)
        assert n == 4 and view.episode is None
        await pilot.press("left_square_bracket")
        assert view.episode == 4
        assert "HISTORY" in text_of(view.query_one(SessionHeader))
        assert "HISTORY" in text_of(view.query_one(Timeline))
        await pilot.press("left_square_bracket", "left_square_bracket", "left_square_bracket")
        assert view.episode == 1
        # the panes show the state as of the end of episode 1: its prompt is the latest ask
        shown = view.shown_state()
        assert shown.main.prompts == 1 and shown.latest_ask.text.startswith("Add rate limiting")
        assert "Latest ask" not in text_of(view.query_one(GoalPane))
        await pilot.press("left_square_bracket")  # already at the first: stays
        assert view.episode == 1
        await pilot.press("right_square_bracket")
        assert view.episode == 2
        await pilot.press("l")
        assert view.episode is None
        assert "LIVE" in text_of(view.query_one(SessionHeader))
        await pilot.press("left_square_bracket", "right_square_bracket")
        assert view.episode is None  # forward past the last completed episode is live


async def test_copy_card_and_worker_view_land_in_clipboard_and_files(tmp_path: Path) -> None:
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await press_copy(pilot, "c")
        card = app.clipboard
        assert card and "Add rate limiting" in card
        files = sorted((tmp_path / "exports").iterdir())
        assert [f.name for f in files] == [f"{path.stem}-card-live.txt"]
        assert files[0].read_text("utf-8") == card + "\n"  # a text file: a final newline
        await press_copy(pilot, "w")
        view_text = app.clipboard
        assert view_text != card and "GOAL" in view_text
        assert (tmp_path / "exports" / f"{path.stem}-worker-live.txt").read_text("utf-8") == view_text + "\n"
        # scrubbed: the card is compiled as of the end of episode 4
        await pilot.press("left_square_bracket", "c")
        assert (tmp_path / "exports" / f"{path.stem}-card-ep4.txt").read_text("utf-8") == app.clipboard + "\n"
        assert app.clipboard != card


async def test_clipboard_is_capped_but_the_file_is_whole(tmp_path: Path) -> None:
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    app.settings.clipboard_cap = 300
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await press_copy(pilot, "w")
        whole = (tmp_path / "exports" / f"{path.stem}-worker-live.txt").read_text("utf-8")
        assert len(app.clipboard.encode()) <= 300 < len(whole.encode())
        assert "cut at 300 bytes" in app.clipboard and str(tmp_path / "exports") in app.clipboard


async def test_help_opens_with_f1_and_question_mark(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        await pilot.pause()
        drawn = screen_rows(app)
        assert any(
            r.split("│")[1].split() == ["q", "Quit", "tracetui,", "from", "any", "screen", "(esc", "goes", "back)"]
            for r in drawn
            if r.count("│") >= 2
        )
        assert any(" esc " in r and "Go back: close this help, the episode drill-down" in r for r in drawn)
        await pilot.press("f1")
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("keys, screen_type", [(("f1",), HelpScreen), (("e",), EpisodeScreen), (("s",), SessionSwitcher)])
async def test_q_quits_from_every_screen_and_escape_goes_back(tmp_path: Path, keys: tuple[str, ...], screen_type: type) -> None:
    # the README says "q quit": in help and the drill-down q went back instead
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press(*keys)
        assert isinstance(app.screen, screen_type)
        await pilot.press("escape")
        assert not isinstance(app.screen, screen_type) and not app._exit
        await pilot.press(*keys)
        assert isinstance(app.screen, screen_type)
        await pilot.press("q")
        await pilot.pause()
        assert app._exit


async def test_drill_down_reads_excerpts_back_by_anchor(tmp_path: Path) -> None:
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("left_square_bracket", "left_square_bracket", "left_square_bracket", "left_square_bracket", "e")
        screen = app.screen
        assert isinstance(screen, EpisodeScreen) and screen.row.index == 1
        await wait_until(pilot, lambda: screen.loaded, 100, 0.02)
        assert screen.loaded
        steps = str(screen.query_one("#episode-steps").content)
        # the failing pytest run: its result is longer than the ledger's 100-character excerpt
        assert "2 failed, 12 passed" in steps
        assert "ERROR" in steps and "Task" in steps
        versions = str(screen.query_one("#episode-versions").content)
        assert "v1" in versions
        await pilot.press("escape")
        assert not isinstance(app.screen, EpisodeScreen)


async def test_enter_on_an_episode_opens_it(tmp_path: Path) -> None:
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        lst = view.query_one(EpisodesList)
        lst.focus()
        lst.highlighted = 1
        await pilot.press("enter")
        assert isinstance(app.screen, EpisodeScreen) and app.screen.row.index == 2


async def test_pause_holds_updates_and_resume_applies_them(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    b = small_session(path)
    app = app_for([path], tmp_path, follow=True, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.press("p")
        assert view.paused and "PAUSED" in text_of(view.query_one(SessionHeader))
        gen = view.state.generation
        b.records.clear()
        b.tick(1).prompt("third prompt while paused")
        with open(path, "ab") as f:
            f.write(b.data())
        await wait_until(pilot, lambda: view.latest is not None and view.latest.generation > gen, 200, 0.02)
        assert view.latest.main.prompts == 3
        assert view.state.main.prompts == 2  # held
        await pilot.press("p")
        assert not view.paused and view.state.main.prompts == 3


async def test_session_switcher_lists_sessions_and_opens_a_tab(tmp_path: Path) -> None:
    first = tmp_path / "projects" / "-p1" / "aaaa1111-0000-4000-8000-000000000001.jsonl"
    second = tmp_path / "projects" / "-p2" / "bbbb2222-0000-4000-8000-000000000002.jsonl"
    small_session(first)
    small_session(second)
    app = app_for([first], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        assert {s.project for s in screen.sessions} == {"-p1", "-p2"}
        table = screen.query_one("#sessions-table")
        row = [s.path for s in screen.sessions].index(second)
        table.move_cursor(row=row)
        await pilot.press("enter")
        assert not isinstance(app.screen, SessionSwitcher)
        await pilot.pause()
        view = await wait_for_state(pilot)
        assert view.spec.paths[0] == second
        assert len(app.query("SessionView")) == 2
        await pilot.press("ctrl+pagedown")
        assert app.current_view.spec.paths[0] == first
        await pilot.press("ctrl+pageup")
        assert app.current_view.spec.paths[0] == second


async def test_home_and_end_go_to_the_first_and_last_session(tmp_path: Path) -> None:
    # found by the third tester: Home and End did nothing in the switcher
    paths = [tmp_path / "projects" / f"-p{i}" / f"{i:04d}1111-0000-4000-8000-00000000000{i}.jsonl" for i in range(1, 4)]
    for p in paths:
        small_session(p)
    app = app_for([paths[0]], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        table = screen.query_one("#sessions-table")
        await pilot.press("end")
        assert table.cursor_row == len(screen.sessions) - 1 == 2
        await pilot.press("home")
        assert table.cursor_row == 0


async def test_palette_has_an_entry_for_every_action(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for needed in (
            "Copy card",
            "Copy worker view",
            "Episode back",
            "Episode forward",
            "Back to live",
            "Open episode",
            "Pause / resume",
            "Sessions",
            "Next tab",
            "Previous tab",
            "Help",
        ):
            assert needed in titles
        callbacks = {c.callback.__name__ for c in app.get_system_commands(app.screen) if hasattr(c.callback, "__name__")}
        bound = {f"action_{b.action}" for b in TraceApp.BINDINGS if b.action != "quit"}
        assert bound <= callbacks
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")


async def test_q_quits(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert app._exit


async def test_ctrl_c_quits_but_copies_in_an_input(tmp_path: Path) -> None:
    # a fresh-user trial: ctrl+c showed Textual's "press ctrl+q to quit" instead of quitting
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("ctrl+p", "c", "a", "r", "d")  # the palette's search box has the focus
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("ctrl+c")  # the input's own: copy its selection
        await pilot.pause()
        assert not app._exit and isinstance(app.screen, CommandPalette)
        await pilot.press("escape", "f1")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        first = help_screen.query(Static).first()
        help_screen.selections = {first: Selection(None, None)}  # text selected with the mouse: copied
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app._exit and app.clipboard.startswith("tracetui")
        help_screen.selections = {}
        await pilot.press("ctrl+c")  # nothing selected: quit, no "press ctrl+q" notice
        await pilot.pause()
        assert app._exit and not app._notifications
    for keys in ((), ("f",)):  # the monitor's own screen, and one that is no modal
        app = app_for([path], tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for_state(pilot)
            await pilot.press(*keys, "ctrl+c")
            await pilot.pause()
            assert app._exit and not app._notifications, keys


async def test_transcript_text_is_data_not_markup(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path, markup=True)
    async with app_for([path], tmp_path).run_test(size=(160, 40)) as pilot:
        view = await wait_for_state(pilot)
        goal = view.query_one(GoalPane)
        shown = text_of(goal)
        assert "[bold]parser[/bold]" in shown and "[link=http://x]here[/link]" in shown
        assert "\x1b" not in shown and "␛[31mnow" in shown
        rendered = "".join(s.text for s in goal.render_lines(goal.region.reset_offset)[1])  # first content line as drawn
        assert "[bold]" in rendered


async def test_missing_file_is_reported_and_the_app_keeps_running(tmp_path: Path) -> None:
    path = tmp_path / "late.jsonl"
    app = app_for([path], tmp_path, follow=True, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await wait_until(pilot, lambda: view.notice_text, 100, 0.02)
        assert "no such file" in view.notice_text
        small_session(path)
        await wait_until(pilot, lambda: view.state.main.prompts == 2, 200, 0.02)
        assert view.state.main.prompts == 2
        assert view.notice_text == ""


async def test_truncated_file_is_folded_again_and_said_so(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path, follow=True, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert view.state.main.prompts == 2
        b = small_session(tmp_path / "other.jsonl")
        path.write_bytes(b.lines()[0] + b"\n")  # shrink to its first record
        await wait_until(pilot, lambda: view.state.main.prompts == 1, 200, 0.02)
        assert view.state.main.prompts == 1
        assert view.state.sources[0].truncated + view.state.sources[0].replaced >= 1
        # notify() posts a message: let the app handle it
        await wait_until(pilot, lambda: any("folded again" in str(n.message) for n in app._notifications), 100, 0.02)
        assert any("folded again" in str(n.message) for n in app._notifications)


async def test_terminal_too_small_says_so(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(50, 12)) as pilot:
        await wait_for_state(pilot)
        box = app.query_one("#too-small")
        assert box.display and "too small" in str(box.content)
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert not box.display


async def test_no_session_at_all_says_so(tmp_path: Path) -> None:
    from tracetui.tui.app import make_app
    from tracetui.tui.settings import Settings

    app = make_app(Settings(clock=lambda: FROZEN_NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.query_one("#empty").display
        assert "No session to show" in str(app.query_one("#empty").content)
        await pilot.press("c")  # nothing to copy: no crash
        assert app.clipboard == ""


@pytest.mark.parametrize("key", ["c", "w", "e", "left_square_bracket"])
async def test_actions_before_the_first_snapshot_do_not_crash(tmp_path: Path, key: str) -> None:
    path = tmp_path / "missing" / "nothing.jsonl"
    app = app_for([path], tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(key)
        await pilot.pause()
        assert app.is_running


async def test_long_read_shows_a_progress_bar_then_hides_it(tmp_path: Path) -> None:
    from textual.widgets import ProgressBar

    from tracetui.tui.messages import IngestProgress, SnapshotReady

    path = tmp_path / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        state = view.state
        view.post_message(IngestProgress(view.spec.key, 30 << 20, 120 << 20))
        await pilot.pause()
        bar = view.query_one(".fold-progress", ProgressBar)
        assert bar.display and bar.percentage == 0.25
        assert "folding 30.0 MiB of 120.0 MiB" in str(view.query_one(".notice").content)
        view.post_message(SnapshotReady(view.spec.key, state))
        await pilot.pause()
        assert not bar.display and not view.query_one(".notice").display


async def test_unreadable_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # root ignores file modes, so the denial is simulated where the tailer opens the file
    import tracetui.ingest.tail as tail

    path = tmp_path / "s.jsonl"
    small_session(path)
    real_open = tail.open_regular

    def deny(file, *a, **kw):
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *a, **kw)

    monkeypatch.setattr(tail, "open_regular", deny)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await wait_until(pilot, lambda: view.notice_text, 100, 0.02)
        assert "permission denied" in view.notice_text
        assert app.is_running


async def test_a_failing_pane_says_so_and_the_app_keeps_running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.tui.widgets.files import FilesPane

    def boom(self, shown):
        raise RuntimeError("unexpected shape")

    monkeypatch.setattr(FilesPane, "build", boom)
    path = tmp_path / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert "FilesPane failed: RuntimeError: unexpected shape" in str(view.query_one(FilesPane).content)
        assert "Fix the parser" in str(view.query_one(GoalPane).content)  # the others still drew
        assert app.is_running


async def test_theme_setting(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path)
    app.settings.theme = "textual-light"
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        assert app.theme == "textual-light"
    app = app_for([path], tmp_path)
    app.settings.theme = "no-such-theme"
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        assert any("No theme 'no-such-theme'" in str(n.message) for n in app._notifications)


async def test_drill_down_shows_a_late_result_and_the_version_history(tmp_path: Path) -> None:
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("left_square_bracket", "left_square_bracket", "left_square_bracket", "e")
        screen = app.screen
        assert isinstance(screen, EpisodeScreen) and screen.row.index == 2
        await wait_until(pilot, lambda: screen.loaded, 100, 0.02)
        steps = str(screen.query_one("#episode-steps").content)
        assert "LATE (after the episode ended)" in steps and "Exit code 137" in steps
        assert "Exit code 137" in str(screen.query_one("#episode-errors").content)
        versions = str(screen.query_one("#episode-versions").content)
        assert "v1 superseded" in versions and "v2 current" in versions and "late tool_result" in versions


async def test_episodes_pane_has_the_focus_and_enter_opens_the_episode(tmp_path: Path) -> None:
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        assert isinstance(app.focused, EpisodesList)
        await pilot.press("up", "up", "enter")
        assert isinstance(app.screen, EpisodeScreen) and app.screen.row.index == 3


def screen_rows(app) -> list[str]:
    """The text of every row of the screen as the compositor draws it."""
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


def footer_keys(app) -> list[tuple[str, str, str]]:
    """``(binding id, key, description)`` of every key the footer holds, left to right (the
    palette key, docked right, last)."""
    from textual.widgets._footer import FooterKey

    by_key = {b.key: b.id for b in TraceApp.BINDINGS}
    keys = sorted(app.screen.query(FooterKey), key=lambda k: ("-command-palette" in k.classes, k.region.x))
    return [("palette" if "-command-palette" in k.classes else by_key.get(k.key, k.key), k.key_display, k.description) for k in keys]


#: the keys the footer keeps at every width from 60 columns: live, and added while scrubbing
ESSENTIAL_LIVE = ["help", "history-back", "drill-down", "copy-card", "copy-worker", "quit"]
ESSENTIAL_HISTORY = ["help", "history-back", "history-forward", "live", "drill-down", "copy-card", "copy-worker", "quit"]


@pytest.mark.parametrize("tabs", [1, 2])
async def test_footer_keeps_every_essential_key_whole_at_every_width(tmp_path: Path, tabs: int) -> None:
    # at 60 columns the footer cut its rightmost keys ("… p Pause s Se▏^p palette": no q Quit);
    # a stray cell also showed in the last column ("▏^p palettea" at 40, "…palettei" at 60)
    paths = [demo_session(tmp_path)]
    for i in range(tabs - 1):
        paths.append(tmp_path / f"s{i}.jsonl")
        small_session(paths[-1])
    app = app_for(paths, tmp_path)
    async with app.run_test(size=(130, 24)) as pilot:
        await wait_for_state(pilot)
        for history, essential in ((False, ESSENTIAL_LIVE), (True, ESSENTIAL_HISTORY)):
            if history:
                await pilot.press("left_square_bracket")
                assert app.current_view.episode is not None
            for w in (40, 41, 50, 59, 60, 61, 65, 70, 75, 79, 80, 90, 99, 100, 119, 120, 130):
                await pilot.resize_terminal(w, 24)
                await pilot.pause()
                row = screen_rows(app)[-1]
                assert len(row) == w
                keys = footer_keys(app)
                left, bar, palette = row.partition("▏")
                if bar:
                    assert keys[-1][0] == "palette" and palette == "^p palette ", (w, row)
                    keys = keys[:-1]
                drawn = " ".join(left.split())
                whole = " ".join(f"{k} {d}" for _, k, d in keys)
                if w < 60:  # below MIN_SIZE: whole keys from the left, help and quit kept, never a stray cell
                    assert drawn == whole, (w, row)
                    ids = [i for i, _, _ in keys]
                    assert ids[0] == "help" and "quit" in ids, (w, row)
                    # the essential keys that leave are the rightmost ones (but quit)
                    kept = [i for i in essential if i in ids]
                    assert kept == essential[: len(kept) - 1] + ["quit"], (w, row)
                    continue
                # from 60 columns every key the footer holds is drawn whole, the essential ones among them
                assert drawn == whole, (w, row)
                ids = [i for i, _, _ in keys]
                assert [i for i in ids if i in essential] == essential, (w, history, row)
                # a key left out of the footer still has its place in the help screen and palette
                assert set(ids) <= {b.id for b in TraceApp.BINDINGS}
                if w >= 120 and not history:
                    assert "pause" in ids and "sessions" in ids and "fleet" in ids and bar, (w, row)


async def test_keys_left_out_of_the_footer_still_work(tmp_path: Path) -> None:
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(60, 24)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("left_square_bracket")
        await pilot.pause()
        ids = [i for i, _, _ in footer_keys(app)]
        assert "pause" not in ids and "palette" not in ids
        await pilot.press("p")
        assert app.current_view.paused
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)


async def test_a_text_file_is_said_not_a_transcript_and_still_watched(tmp_path: Path) -> None:
    # the headless commands refuse it ("not a transcript"); the tab showed only "2 malformed"
    from tracetui.demo.build import TranscriptBuilder

    path = tmp_path / "notes.txt"
    path.write_text("hello world\nthis is text\n", "utf-8")
    app = app_for([path], tmp_path, follow=True, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        view = await wait_for_state(pilot)
        notice = view.query_one(".notice")
        await wait_until(pilot, lambda: notice.display, 100, 0.02)
        assert notice.display and str(notice.content).startswith(" ✖ notes.txt: not a transcript (2 lines, none a JSON object)")
        assert "still watching" in str(notice.content)
        assert any("not a transcript" in str(n.message) for n in app._notifications)
        # it becomes one: the notice goes, the record is folded
        b = TranscriptBuilder()
        b.prompt("Now it is a transcript")
        with path.open("ab") as f:
            f.write(b.data())
        # the app adds a notification when it handles the Notify message the view's handler
        # posted: a wait for the view alone raced it on a loaded machine
        said = lambda: any("a transcript now" in str(n.message) for n in app._notifications)
        await wait_until(
            pilot, lambda: view.state is not None and view.state.main.prompts == 1 and not notice.display and said(), 200, 0.02
        )
        assert view.state.main.prompts == 1 and not notice.display
        assert said()


async def test_anomaly_badges_show_paths_relative_to_the_session_and_mark_cleared_ones(tmp_path: Path) -> None:
    from tui_support import STALLED_NOW

    from tracetui.model.anomalies import detect_anomalies
    from tracetui.tui.widgets.anomalies import AnomalyBadges

    path = demo_session(tmp_path)
    app = app_for([path], tmp_path, now=STALLED_NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        st = view.state
        found = detect_anomalies(st, STALLED_NOW, getattr(st, "episodes", None) or None)
        n_open = sum(1 for a in found if a.open)
        assert 0 < n_open < len(found)  # the fixture has both kinds
        pane = view.query_one(AnomalyBadges)
        assert pane.border_title == f"Anomalies ({n_open} open, {len(found) - n_open} cleared)"
        drawn = [r for r in screen_rows(app) if "edit_thrash" in r]
        cwd = st.main.cwd
        assert cwd and any(a.kind == "edit_thrash" and cwd + "/" in a.message for a in found)
        # the file is named relative to the session's folder, so a cut badge still names it
        assert drawn and "app/ratelimit.py edited" in drawn[0] and cwd not in drawn[0]
        badges = [str(b.content) for b in pane.query(".badge")]
        cleared = [b for b in badges if "✓ cleared" in b]
        assert cleared and all(b.startswith(" ✓ cleared ") for b in cleared)
        assert len(badges) - len(cleared) == n_open


async def test_tab_keys_work_from_the_episodes_pane_and_show_when_there_are_tabs(tmp_path: Path) -> None:
    paths = []
    for name in ("one", "two"):
        paths.append(tmp_path / f"{name}.jsonl")
        small_session(paths[-1])
    app = app_for(paths, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_state(pilot)
        await pilot.pause()
        assert isinstance(app.focused, EpisodesList)  # its list bindings took ctrl+pageup/down
        footer = screen_rows(app)[-1]
        assert footer.startswith("^pgdn Next tab ") and footer.rstrip().endswith("q Quit"), footer
        first = app.current_view
        await pilot.press("ctrl+pagedown")
        assert app.current_view is not first and app.current_view.spec.paths[0] == paths[1]
        await pilot.press("ctrl+pageup")
        assert app.current_view is first
        await pilot.resize_terminal(120, 50)  # the whole key table in view
        await pilot.press("f1")
        await pilot.pause()
        drawn = screen_rows(app)
        assert any("ctrl+pagedown" in r and "Show the next session's tab" in r for r in drawn)
        assert any("ctrl+pageup" in r and "Show the previous session's tab" in r for r in drawn)
    # one session: no tab key in the footer, the other keys as with two (its room stays blank)
    app = app_for(paths[:1], tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_state(pilot)
        await pilot.pause()
        single = screen_rows(app)[-1]
        assert "Next tab" not in single and single.split() == footer.split()[3:], (single, footer)


async def test_no_duplicated_words_for_an_unpriced_model_and_a_compaction(tmp_path: Path) -> None:
    # "cost cost ? (no price known …)" in Counters, "compaction compaction (manual, …)" in the drill-down
    from tracetui.demo.build import TranscriptBuilder
    from tracetui.tui.widgets.counters import CountersPane

    b = TranscriptBuilder(model="claude-unheard-of-9")
    b.prompt("Summarise the repo")
    b.tick(1).tool("Read", {"file_path": "/home/dev/shop-api/README.md"}, "# shop-api", took=0.2)
    b.tick(1).compaction("The user asked for a summary.")
    b.tick(1).text("Done.")
    path = b.write(tmp_path / "u.jsonl")
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert view.state.cost_usd is None and "claude-unheard-of-9" in view.state.cost_note
        counters = text_of(view.query_one(CountersPane))
        assert f"cost unknown ({view.state.cost_note})" in counters and "cost cost" not in counters
        await pilot.press("e")
        screen = app.screen
        assert isinstance(screen, EpisodeScreen)
        steps = str(screen.query_one("#episode-steps").content)
        assert "• compaction (manual, " in steps and "compaction compaction" not in steps


async def test_e_opens_the_live_episode_unless_the_cursor_was_moved(tmp_path: Path) -> None:
    # `e` opened the episode under the list's cursor, which scrubbing had left on episode 1
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        latest = view.rows[-1].index
        assert latest == 5 and view.rows[-1].live

        async def opened(*keys: str) -> int:
            await pilot.press(*keys)
            assert isinstance(app.screen, EpisodeScreen), keys
            index = app.screen.row.index
            await pilot.press("escape")
            return index

        assert await opened("e") == latest
        # scrub back to episode 1 and return: live again, `e` opens the live episode
        assert await opened(*["left_square_bracket"] * 4, "l", "e") == latest
        # in HISTORY, the episode being viewed, wherever the cursor is
        assert await opened("left_square_bracket", "left_square_bracket", "up", "e") == 3
        await pilot.press("l")
        # live, after the user moved the cursor: the episode under it, also after a resize
        assert await opened("up", "up", "e") == 3
        await pilot.resize_terminal(100, 40)
        await pilot.pause()
        assert await opened("e") == 3
        # Enter opens the row under the cursor
        assert await opened("down", "enter") == 4
        # back to live resets the cursor to the newest
        assert await opened("left_square_bracket", "l", "e") == latest


async def test_copies_measure_ages_to_the_now_the_panes_were_drawn_with(tmp_path: Path) -> None:
    # the panes and the copied worker view each read the clock: a copy a few seconds after the
    # last redraw said "(5m55s ago)" beside a pane's "for 5m48s"; while scrubbing the copy was
    # measured to today, the panes to the end of the episode
    import itertools
    import re

    from tracetui.tui.widgets.now import NowPane

    path = tmp_path / "s.jsonl"
    small_session(path)
    # a clock that moves 7 s on every read; the .2 puts the ages (x.5 s in the fixture) at
    # x.7 s, where truncating (the panes did) and rounding (the views do) part
    ticks = itertools.count()
    app = app_for([path], tmp_path)
    app.settings.clock = lambda: FROZEN_NOW + 0.2 + 7 * next(ticks)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)

        def pane_age() -> str:
            m = re.search(r"(?:for (\S+)|(\S+) ago)  s\.jsonl:", text_of(view.query_one(NowPane)))
            assert m, text_of(view.query_one(NowPane))
            return m.group(1) or m.group(2)

        def copied_age() -> str:
            m = re.search(r"^NOW: .* \((\S+) ago\) @", app.clipboard, re.M)
            assert m, app.clipboard[:400]
            return m.group(1)

        await press_copy(pilot, "w")
        assert copied_age() == pane_age()
        pending = text_of(view.query_one(PendingCalls))
        assert f"({pane_age()} ago)" in app.clipboard.split("IN FLIGHT", 1)[1].split("\n")[1] and pane_age() in pending
        await pilot.press("left_square_bracket", "w")
        assert view.episode == 1
        # ages run to the episode's last record (the fixture's text), not to the closing prompt
        # 5 s later (third user trial: an open call read "running X for 1h17m")
        assert copied_age() == pane_age() == "0s"


async def test_history_header_shows_the_as_of_state_and_labels_live_figures(tmp_path: Path) -> None:
    # in HISTORY the header showed the live file size, branch and version beside past panes
    from tracetui.tui.format import fmt_bytes
    from tracetui.tui.view_model import main_model

    path = tmp_path / "s.jsonl"
    b = small_session(path)  # episode 1 on branch main, version 2.1.30
    b.git_branch, b.version = "fix/parser-later", "2.9.99"
    b.tick(1).text("Working on it on another branch.")
    b.write(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(200, 40)) as pilot:
        view = await wait_for_state(pilot)
        live = text_of(view.query_one(SessionHeader))
        assert "fix/parser-later" in live and "cc 2.9.99" in live
        size = fmt_bytes(view.state.sources[0].consumed)
        assert f"@{size} " in live and "live:" not in live
        await pilot.press("left_square_bracket")
        assert view.episode == 1
        shown = view.shown_state()
        head = text_of(view.query_one(SessionHeader))
        first, second = head.split("\n")
        # its own values: the project, branch, version and model as of the end of episode 1
        assert "HISTORY" in first and "as of end of ep 1/2" in first
        assert "(main)" in first and "cc 2.1.30" in first and "fix/parser-later" not in first and "2.9.99" not in first
        assert main_model(shown)[0] in first
        # the watermark is the as-of state's: the bytes before the closing prompt, main thread
        as_of = fmt_bytes(shown.sources[0].consumed)
        assert as_of != size
        mine, _, rest = second.partition(" · live: ")
        assert f"through {shown.fmt_anchor(shown.main.last_anchor)} @{as_of} " in mine and size not in mine
        assert mine.startswith(" main thread:")
        # the one live figure is labelled
        assert rest.startswith(f"line {view.state.main.last_anchor.line} @{size}")
        # and so is the episode list, which stays the live one (later episodes, later versions)
        assert view.query_one(EpisodesList).border_title == "Episodes (2, live, main thread)"
        await pilot.press("l")
        assert view.query_one(EpisodesList).border_title == "Episodes (2, main thread)"


async def test_narrow_history_header_keeps_the_as_of_bytes_in_view(tmp_path: Path) -> None:
    # at 60 columns the whole file name filled the watermark line and cut the as-of bytes off
    from tracetui.tui.format import fmt_bytes

    path = demo_session(tmp_path)
    assert len(path.name) > 22
    app = app_for([path], tmp_path)
    async with app.run_test(size=(60, 24)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.press("left_square_bracket")
        await pilot.pause()
        shown = view.shown_state()
        second = screen_rows(app)[1]
        assert second.startswith(
            f" main thread: through {path.name[:8]}…:{shown.main.last_anchor.line} @{fmt_bytes(shown.sources[0].consumed)} "
        ), second
        await pilot.resize_terminal(120, 24)
        await pilot.pause()
        assert f"through {path.name}:" in screen_rows(app)[1]
