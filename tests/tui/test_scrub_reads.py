"""A scrub step whose state as of its episode is not read ahead: read on a worker thread, the
panes keep what they show meanwhile and the header says which episode is coming; a read that
fails is said in one line. The worker's read is held by an event the test sets (no sleeps)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual import events
from tui_support import store_app, stored_session, wait_for_state, wait_until

import tracetui.tui.scrubbing as scrubbing
from tracetui.tui.widgets.header import SessionHeader


def _stored_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    return stored_session(tmp_path, 8)


def _held_reads(monkeypatch: pytest.MonkeyPatch, fail: bool = False) -> threading.Event:
    """Make the scrubbing's reads on worker threads wait for the event returned (or fail)."""
    release = threading.Event()
    real = scrubbing.state_as_of

    def held(live, k):
        if threading.current_thread() is not threading.main_thread():
            release.wait(60)
            if fail:
                raise OSError("database disk image is malformed")
        return real(live, k)

    monkeypatch.setattr(scrubbing, "state_as_of", held)
    return release


async def test_a_step_not_read_ahead_keeps_the_panes_and_says_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _stored_session(tmp_path, monkeypatch)
    release = _held_reads(monkeypatch)
    app = store_app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        n = view.completed()
        await wait_until(pilot, lambda: view.shown is not None and (n, view.state.generation) in view._as_of_cache, 300, 0.02)
        header = view.query_one(SessionHeader)
        try:
            # the first step was read ahead by the fold worker, the second not
            app.post_message(events.Key("left_square_bracket", "["))
            await wait_until(pilot, lambda: view.shown.episode == n, 300, 0.02)
            app.post_message(events.Key("left_square_bracket", "["))
            await wait_until(pilot, lambda: f"reading ep {n - 1}…" in str(header.content), 300, 0.02)
            assert view.episode == n - 1
            assert view.shown.episode == n and f"as of end of ep {n}/" in str(header.content)  # what was shown stays
        finally:
            release.set()
        await wait_until(pilot, lambda: view.shown.episode == n - 1, 300, 0.02)
        await pilot.pause()
        assert view.shown.state.main.prompts == n - 1
        assert "reading" not in str(header.content) and f"as of end of ep {n - 1}/" in str(header.content)


async def test_a_read_that_fails_is_said_in_one_line_and_the_view_goes_live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _stored_session(tmp_path, monkeypatch)
    release = _held_reads(monkeypatch, fail=True)
    release.set()
    app = store_app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        n = view.completed()
        await wait_until(pilot, lambda: view.shown is not None and (n, view.state.generation) in view._as_of_cache, 300, 0.02)
        for _ in range(2):
            app.post_message(events.Key("left_square_bracket", "["))
        said = lambda: [m for m in app._notifications if "Could not read the state as of episode" in m.message]  # noqa: E731
        await wait_until(pilot, lambda: bool(said()), 300, 0.02)
        await wait_until(pilot, lambda: view.shown.episode is None, 300, 0.02)
        assert said()[0].message == f"Could not read the state as of episode {n - 1}: OSError: database disk image is malformed"
        assert view.episode is None and "reading" not in str(view.query_one(SessionHeader).content)
