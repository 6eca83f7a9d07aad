"""Notifications (trial 11: the demo's and the fleet's toasts piled up over the help and the
session list, and covered the Subagents pane): held while a dialog is up (taken off as it
opens, kept back while it is open, shown on the screen beneath when it closes), and no blank
rows around a toast's text."""

from __future__ import annotations

from pathlib import Path

from textual.widgets._toast import Toast
from tui_support import app_for, demo_session, open_sessions, wait_for_state, wait_until

from tracetui.tui.screens.help import HelpScreen
from tracetui.tui.toasts import HELD_AT_MOST


def _messages(app) -> list[str]:
    return [n.message for n in app._notifications]


def _toasts_on(screen) -> list[str]:
    return [t._notification.message for t in screen.query(Toast)]


async def test_the_help_screen_holds_the_toasts_and_gives_them_back(tmp_path: Path) -> None:
    app = app_for([demo_session(tmp_path)], tmp_path)
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await wait_for_state(pilot)
        app.notify("shown before", timeout=30)
        await wait_until(pilot, lambda: "shown before" in _toasts_on(app.screen), 300, 0.01)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 300, 0.01)
        assert isinstance(app.screen, HelpScreen)
        app.notify("while open", title="Fleet", timeout=6)
        for _ in range(3):
            await pilot.pause()
        assert _messages(app) == [] and _toasts_on(app.screen) == []
        assert _toasts_on(app.monitor) == []  # its toasts showed through the dialog's backdrop
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), 300, 0.01)
        await wait_until(pilot, lambda: {"shown before", "while open"} <= set(_toasts_on(app.screen)), 300, 0.01)
        assert {"shown before", "while open"} <= set(_toasts_on(app.screen))
        by = {n.message: n for n in app._notifications}
        assert by["while open"].timeout == 6 and by["while open"].title == "Fleet"
        assert 3 <= by["shown before"].time_left <= 30  # the time it had left, not a fresh 30 s


async def test_the_session_list_holds_them_the_newest_few_once_each(tmp_path: Path) -> None:
    app = app_for([demo_session(tmp_path)], tmp_path)
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await wait_for_state(pilot)
        switcher = await open_sessions(pilot, app)
        for i in range(HELD_AT_MOST + 2):
            app.notify(f"note {i}", timeout=30)
        app.notify("note 0", timeout=30)  # a repeat is held once, as the newest
        for _ in range(3):
            await pilot.pause()
        assert _messages(app) == [] and _toasts_on(switcher) == []
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.monitor and len(_messages(app)) == HELD_AT_MOST, 300, 0.01)
        assert _messages(app) == [f"note {i}" for i in range(3, HELD_AT_MOST + 2)] + ["note 0"]
        await wait_until(pilot, lambda: set(_messages(app)) <= set(_toasts_on(app.screen)), 300, 0.01)
        assert set(_messages(app)) <= set(_toasts_on(app.screen))


async def test_a_wide_toast_takes_the_rows_of_its_text_only(tmp_path: Path) -> None:
    app = app_for([demo_session(tmp_path)], tmp_path)
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await wait_for_state(pilot)
        text = "No sessions under /tmp/x/.claude/projects or /tmp/x/.codex: playing the bundled demo instead."
        app.notify(text, title="Demo", timeout=30)

        def toast() -> list:
            return [t for t in app.screen.query(Toast) if t._notification.message == text and t.region.height]

        await wait_until(pilot, toast, 300, 0.01)
        assert toast()
        # a title and two lines of text: five rows with Textual's padding and margin
        assert toast()[0].region.height == 3, toast()[0].region
