"""Copying the card and the worker view: OSC 52, the export file, what the notification says.

Fixture sessions are built here (``TranscriptBuilder``); nothing is copied from the corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets._toast import Toast
from tui_support import app_for, demo_session, press_copy, recorded_store_app, wait_for_state, wait_until

from tracetui.tui.app import NARROW_TIMEOUT
from tracetui.tui.copy_actions import copy_note


# -- 2. the copy notification promises only what is true; 5. compact toasts when narrow -------
async def test_copy_says_it_sent_the_text_by_osc52_and_wrote_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = demo_session(tmp_path)
    monkeypatch.delenv("TMUX", raising=False)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await press_copy(pilot, "c")
        note = list(app._notifications)[-1]
        file = tmp_path / "exports" / f"{path.stem}-card-live.txt"
        chars = len(file.read_text("utf-8")) - 1  # the file ends in a newline; the clipboard's text does not
        # "Copied" promised what the app cannot know (tmux drops OSC 52 by default)
        assert "Copied" not in note.message and note.title != "Copied"
        assert (
            note.message
            == f"Sent the card (live, {chars:,} chars) to the clipboard by OSC 52 (if the terminal accepts it) and wrote it to {file}"
        )
        monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
        await press_copy(pilot, "w")
        note = list(app._notifications)[-1]
        assert "(the terminal may refuse it; under tmux it needs set-clipboard on)" in note.message
        assert note.message.startswith("Sent the worker view (live, ")


def test_the_copy_note_writes_its_counts_with_separators(tmp_path: Path) -> None:
    # trial 11: "the card (as of episode 1, 2698 chars)"
    note = copy_note("card", "as of episode 1", 2698, tmp_path / "c.txt", 1_048_576, False, False, None)
    assert note.startswith("Sent the card (as of episode 1, 2,698 chars, cut to 1,048,576 bytes) to the clipboard")
    assert "(as of episode 1, 1 char)" in copy_note("card", "as of episode 1", 1, None, None, False, False, None)


async def test_narrow_terminal_gets_a_compact_short_lived_copy_toast(tmp_path: Path) -> None:
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(60, 24), notifications=True) as pilot:
        await wait_for_state(pilot)
        await press_copy(pilot, "c")
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
        await press_copy(pilot, "c")
        await pilot.pause()
        note = list(app._notifications)[-1]
        assert note.timeout == 8 and note.message.startswith("Sent the card (live")


async def test_a_copy_is_written_under_the_cache_folder_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # with TRACETUI_CACHE_DIR set, a copy went to ~/.cache/tracetui/exports all the same
    import dataclasses
    import stat

    from tui_support import settings_for

    from tracetui.tui.app import make_app

    cache = tmp_path / "my-cache"
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(cache))
    monkeypatch.delenv("TRACETUI_EXPORT_DIR", raising=False)
    path = demo_session(tmp_path)
    app = make_app(dataclasses.replace(settings_for([path], tmp_path), export_dir=None))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await press_copy(pilot, "c")
        await wait_until(pilot, lambda: app._notifications)
    file = cache / "exports" / f"{path.stem}-card-live.txt"
    # the file is a text file, ending in a newline (trial 13); the clipboard has the text as it is
    assert file.read_text("utf-8") == app.clipboard + "\n" and not app.clipboard.endswith("\n")
    assert stat.S_IMODE(file.stat().st_mode) == 0o600 and stat.S_IMODE(file.parent.stat().st_mode) == 0o700


async def test_a_copy_whose_file_cannot_be_written_says_so(tmp_path: Path) -> None:
    # found by the third tester: with --export-dir /proc/nonexist the note just left out the file
    import dataclasses

    from tui_support import settings_for

    from tracetui.tui.app import make_app

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    path = demo_session(tmp_path)
    app = make_app(dataclasses.replace(settings_for([path], tmp_path), export_dir=str(blocker / "exports")))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await press_copy(pilot, "c")
        await wait_until(pilot, lambda: app._notifications)
        note = list(app._notifications)[-1]
    assert note.message.startswith("Sent the card (live, ")
    assert "; the file could not be written: " in note.message and note.severity == "warning"
    assert app.clipboard  # the clipboard got the text all the same


# -- the UI never waits on I/O: a copy compiles its text off the UI thread ----------------------
@pytest.mark.parametrize("key", ["c", "w"])
async def test_a_copy_of_a_stored_session_reads_no_database_on_the_ui_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """The card and the worker view list the episodes and, scrubbed, the state as of one: of a
    stored session they are read from its database, which the copy reads on a worker thread
    (the notification comes when the text is sent), live and scrubbed alike."""
    app, on_ui = recorded_store_app(tmp_path, monkeypatch, 6)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert type(view.state.history).__name__ == "HistoryView"  # the store's
        await pilot.pause()
        for scrub, scope in ((None, "live"), ("left_square_bracket", "as of episode 5")):
            if scrub:
                await pilot.press(scrub)
                await wait_until(pilot, lambda: view.shown is not None and view.shown.episode == 5, 300, 0.01)
                await pilot.pause()
            on_ui.clear()
            await press_copy(pilot, key)
            assert f"({scope}, " in list(app._notifications)[-1].message
            assert on_ui == [], on_ui
