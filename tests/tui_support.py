"""Helpers shared by the TUI tests: fixture sessions written to tmp_path, a frozen clock, and
waiting for the ingest worker. (tests/tui/test_tui_fixtures.py checks that the fixtures are what the
other tests assume.)"""

from __future__ import annotations

import os
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracetui.demo.build import TranscriptBuilder, write_demo
from tracetui.tui.app import TraceApp, make_app
from tracetui.tui.session_view import SessionView
from tracetui.tui.settings import SessionSpec, Settings

#: the frozen "now" of the app clock: two minutes after the demo session's last record
FROZEN_NOW = datetime(2026, 3, 2, 9, 6, 0, tzinfo=UTC).timestamp()
#: ten minutes later: the pending calls have stalled (the stall detector fires)
STALLED_NOW = FROZEN_NOW + 600


def demo_session(tmp_path: Path) -> Path:
    """The bundled demo session written whole under ``tmp_path`` (main path returned)."""
    main, _sub = write_demo(tmp_path / "projects" / "-home-dev-shop-api")
    return main


def small_session(path: Path, markup: bool = False) -> TranscriptBuilder:
    """Two episodes: a read and a failing command, then a second prompt with a call in flight.
    With ``markup``, the first prompt carries Rich markup and an ANSI escape (data, not markup)."""
    b = TranscriptBuilder()
    first = "Fix the [bold]parser[/bold] \x1b[31mnow\x1b[0m [link=http://x]here[/link]" if markup else "Fix the parser"
    b.prompt(first)
    b.tick(1).tool("Read", {"file_path": "/home/dev/shop-api/parser.py"}, "def parse(): ...", took=0.5)
    b.tick(1).tool("Bash", {"command": "pytest -q"}, "Exit code 1\n1 failed", is_error=True, took=2)
    b.tick(1).text("The parser fails on empty input.")
    b.tick(5).prompt("Now add a test for empty input")
    b.tick(1).tool_use("Bash", {"command": "pytest -q tests/test_parser.py"})
    b.write(path)
    return b


def settings_for(paths: list[Path], tmp_path: Path, now: float = FROZEN_NOW, follow: bool = False, watch: bool = False) -> Settings:
    """Settings with a frozen clock, exports under ``tmp_path/exports``, no cache. The sessions'
    files written after the clock's ``now`` (by the test, in real time) are stamped as written
    a minute before it: a file written later than ``now`` by more than the clock skew the views
    allow is not live (tracetui/tui/format.py); a file a test stamped earlier keeps its time."""
    for p in paths:
        for f in [p, *p.with_suffix("").rglob("*.jsonl")]:  # the transcript and its subagent files
            if f.exists() and f.stat().st_mtime > now:
                os.utime(f, (now - 60, now - 60))
    return Settings(
        sessions=[SessionSpec((p,), p.stem[:8]) for p in paths],
        follow=follow,
        watch=watch,
        use_cache=False,
        clock=lambda: now,
        export_dir=tmp_path / "exports",
        tick_seconds=3600,
        projects_root=tmp_path / "projects",
    )


def app_for(paths: list[Path], tmp_path: Path, **kw) -> TraceApp:
    return make_app(settings_for(paths, tmp_path, **kw))


#: seconds a wait gives up after at the earliest: a loaded 2-core machine is normal, and a wait
#: ends as soon as its condition holds, so only a failing test waits this long
WAIT_LIMIT = 60.0


async def wait_for_state(pilot, generation: int = 0, tries: int = 200) -> SessionView:
    """Pause until the current session view holds a state newer than ``generation`` (at least
    ``tries`` pauses of 20 ms and :data:`WAIT_LIMIT` seconds before it gives up)."""
    app = pilot.app
    deadline = time.monotonic() + WAIT_LIMIT
    n = 0
    while True:
        view = app.current_view
        if view is not None and view.state is not None and view.state.generation > generation:
            await pilot.pause()
            return view
        if n >= tries and time.monotonic() >= deadline:
            raise AssertionError("the ingest worker posted no snapshot")
        await pilot.pause(0.02)
        n += 1


async def open_sessions(pilot, app):
    """Press ``s`` and wait until the session switcher has listed the sessions; returns it."""
    from textual.widgets import DataTable

    from tracetui.tui.screens.sessions import SessionSwitcher

    await pilot.press("s")
    screen = app.screen
    assert isinstance(screen, SessionSwitcher)
    table = screen.query_one(DataTable)

    def ready() -> bool:
        # listed and focused: the modal's table takes the focus when the screen is resumed, and
        # a key pressed before that is lost (under load a lost Down opened the wrong row)
        return bool(screen.sessions) and not table.loading and table.has_focus

    await wait_until(pilot, ready, 100, 0.02)
    return screen


async def wait_until(pilot, cond, tries: int = 300, step: float | None = 0.01) -> None:
    """Pause the app (``step`` seconds, or until idle when ``None``) until ``cond()`` holds;
    it gives up after ``tries`` pauses and :data:`WAIT_LIMIT` seconds, both (a count of pauses
    alone was a wall-clock bound: under load the worker threads got less of it, and the suite
    flaked). The caller asserts the condition afterwards."""
    deadline = time.monotonic() + WAIT_LIMIT
    n = 0
    while not cond():
        if n >= tries and time.monotonic() >= deadline:
            return
        await pilot.pause(step)
        n += 1


def stored_session(tmp_path: Path, prompts: int) -> Path:
    """A session of ``prompts`` prompts, each with a Read call (``prompts - 1`` episodes closed),
    at ``tmp_path/projects/-p/s.jsonl``: the scrubbing tests' session, read through the store
    (set ``TRACETUI_CACHE_DIR`` first, and open it with :func:`store_app`)."""
    path = tmp_path / "projects" / "-p" / "s.jsonl"
    b = TranscriptBuilder()
    for i in range(prompts):
        b.tick(5).prompt(f"step {i}: edit module {i}")
        b.tick(1).tool("Read", {"file_path": f"/src/m{i}.py"}, "def f(): ...", took=0.2)
    b.write(path)
    return path


def store_app(path: Path, tmp_path: Path) -> TraceApp:
    """The monitor on ``path`` with the session store (its history read from the database)."""
    import dataclasses

    return make_app(dataclasses.replace(settings_for([path], tmp_path), use_cache=True))


def sql_on_the_ui_thread(monkeypatch: Any) -> list[str]:
    """The SQL statements every database connection opened from now on runs on the main (UI)
    thread, as they run (sqlite3's trace callback)."""
    import sqlite3

    on_ui: list[str] = []
    ui = threading.main_thread()
    connect = sqlite3.connect

    def traced(*a, **k):
        conn = connect(*a, **k)
        conn.set_trace_callback(lambda sql: on_ui.append(sql) if threading.current_thread() is ui else None)
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    return on_ui


async def press_copy(pilot, key: str, tries: int = 500) -> None:
    """Press a copy key (``c``, ``w``) and wait for its notification: the copy is compiled and
    written on a worker thread, and sent to the clipboard when it is done."""
    app = pilot.app
    before = list(app._notifications)[-1:]
    await pilot.press(key)
    await wait_until(pilot, lambda: list(app._notifications)[-1:] != before, tries, 0.01)
    await pilot.pause()


def recorded_store_app(tmp_path: Path, monkeypatch: Any, prompts: int) -> tuple[TraceApp, list[str]]:
    """The monitor on a :func:`stored_session` of ``prompts`` prompts read through the session
    store (its cache folder under ``tmp_path``), and the list :func:`sql_on_the_ui_thread`
    fills: the tests that the UI thread reads no database."""
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    on_ui = sql_on_the_ui_thread(monkeypatch)
    return store_app(stored_session(tmp_path, prompts), tmp_path), on_ui
