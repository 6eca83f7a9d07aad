"""A hang-up (the terminal went away, SIGHUP) while the app runs ends it in order and at once:
the stop is queued on the app's loop (no interrupt raised at any point of its code), the app
exits with 129 and leaves its stores unsaved (trial 5 §5: a hang-up at the end of a long first
open was swallowed, and the process ended by the last resort seconds later)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from tui_support import app_for, small_session, wait_for_state, wait_until

import tracetui.tui.main as tui_main
from tracetui.session.follow import Followed


async def test_a_hang_up_in_the_loop_queues_the_stop_and_raises_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tui_main, "HANGUP_GRACE", 3600.0)  # the last resort stays out of this test
    stopped = asyncio.Event()
    ended: list[int] = []
    old = tui_main._on_hangup(end=ended.append, stop=stopped.set)
    try:
        os.kill(os.getpid(), signal.SIGHUP)  # no KeyboardInterrupt here
        await asyncio.wait_for(stopped.wait(), 30)
    finally:
        tui_main._restore(old)
    assert stopped.is_set() and ended == []


async def test_a_hung_up_app_exits_with_129_and_saves_no_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saved: list[str] = []
    real_save = Followed.save
    monkeypatch.setattr(Followed, "save", lambda self: (saved.append(self.key), real_save(self)))
    path = tmp_path / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        app.hang_up()
        await wait_until(pilot, lambda: not app.is_running, 100, 0.02)
    assert app.hung_up and app.return_code == 128 + signal.SIGHUP
    assert saved == []  # the save of a long first open took seconds: left behind
    # a quit saves the store as before
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("q")
    assert not app.hung_up and len(saved) == 1
