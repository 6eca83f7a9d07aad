"""Sessions and helpers shared by the TUI tests of the drill-down, copying, liveness, panes, history and the picker."""

from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text
from textual.geometry import Region
from textual.widgets import DataTable, Static
from tui_support import open_sessions, small_session, wait_until

from tracetui.demo.build import TranscriptBuilder
from tracetui.session.reader import SessionReader
from tracetui.tui.screens.episode import EpisodeScreen


def state_of(path: Path):
    r = SessionReader(path)
    r.poll()
    return r.snapshot()


def big_result_session(path: Path, size: int) -> TranscriptBuilder:
    """A Read whose result is one record of more than ``size`` bytes, then a short answer."""
    b = TranscriptBuilder()
    b.prompt("Read the log")
    b.tick(1).tool("Read", {"file_path": "/home/dev/shop-api/big.log"}, "BEGIN " + "x" * size + " END", took=0.5)
    b.tick(1).text("The log is long.")
    b.write(path)
    return b


async def open_drill_down(pilot, app) -> EpisodeScreen:
    await pilot.press("e")
    screen = app.screen
    assert isinstance(screen, EpisodeScreen)
    await wait_until(pilot, lambda: screen.loaded, 200, 0.02)
    assert screen.loaded
    return screen


def retry_session(path: Path) -> TranscriptBuilder:
    """A failing test run retried with success, a whitespace-only text block, an API error."""
    b = TranscriptBuilder()
    b.prompt("Make the tests pass")
    b.tick(1).tool("Bash", {"command": "pytest -q"}, "Exit code 1\n1 failed", is_error=True, took=2)
    b.tick(1).tool(
        "Edit", {"file_path": "/home/dev/shop-api/app/x.py", "old_string": "a", "new_string": "b"}, "The file has been updated.", took=0.2
    )
    b.tick(1).api_error(529, "Overloaded")
    b.tick(1).text("  \n\t ")
    b.tick(1).tool("Bash", {"command": "pytest -q"}, "3 passed", took=2)
    b.tick(1).text("All tests pass now.")
    b.write(path)
    return b


def three_sessions(tmp_path: Path) -> list[Path]:
    paths = []
    for i in range(3):
        p = tmp_path / "projects" / f"-p{i}" / f"{'abc'[i] * 4}{i}{i}{i}{i}-0000-4000-8000-00000000000{i}.jsonl"
        small_session(p)
        os.utime(p, (1_700_000_000 - 60 * i, 1_700_000_000 - 60 * i))  # newest first: p0, p1, p2
        paths.append(p)
    return paths


async def pick(pilot, app, *keys: str) -> None:
    """Open the picker, move with ``keys``, press Enter; wait until the picked session's tab is
    the one shown (20 pauses of 20 ms were a wall-clock bound, too short on a loaded machine)."""

    screen = await open_sessions(pilot, app)
    await pilot.press(*keys)
    want = screen.sessions[screen.query_one(DataTable).cursor_row].path
    await pilot.press("enter")

    def shown() -> bool:
        view = app.current_view
        return view is not None and view.spec.paths[0] == want and view.built

    await wait_until(pilot, shown, 100, 0.02)


def open_call_then_late_prompt(path: Path) -> TranscriptBuilder:
    """Episode 1 ends with ``Bash(npm test)`` unanswered; the next prompt comes 1h17m later."""
    b = TranscriptBuilder()
    b.prompt("Run the tests")
    b.tick(1).tool("Read", {"file_path": "/home/dev/shop-api/a.py"}, "ok", took=0.5)
    b.tick(2).tool_use("Bash", {"command": "npm test"})
    b.tick(4620).prompt("Are you there?")
    b.tick(1).text("Yes.")
    b.write(path)
    return b


def static_lines(st: Static) -> list[str]:
    return [x.text.rstrip() for x in st.render_lines(Region(0, 0, st.size.width, st.size.height))]


def failed_last_call(path: Path) -> TranscriptBuilder:
    """Episode 1 ends on a failed ``Bash(npm test)``; episode 2 too (nothing after it)."""
    b = TranscriptBuilder()
    b.prompt("Run the tests")
    b.tick(1).tool("Bash", {"command": "npm test"}, "Exit code 1\n3 tests failed", is_error=True, took=2)
    b.tick(30).prompt("Try again")
    b.tick(1).tool("Bash", {"command": "npm test"}, "Exit code 1\n2 tests failed", is_error=True, took=2)
    b.write(path)
    return b


def red_span(text: Text, word: str) -> bool:
    at = text.plain.index(word)
    return any(s.start <= at < s.end and "red" in str(s.style) for s in text.spans)


def scrub_session(path: Path, episodes: int) -> TranscriptBuilder:
    """``episodes`` prompts of a few calls each; episode 6 costs far more than the others (a
    cost spike), and a call of episode 30 gets its result only after the next prompt (episode 30
    gets a second version), so the states as of each episode differ in what scrubbing reuses."""
    b = TranscriptBuilder(context=20_000)
    late = None
    for e in range(1, episodes + 1):
        b.context = 5_000_000 if e == 6 else 20_000 + e * 100
        b.tick(30).prompt(f"Episode {e}: tidy module {e}")
        if late is not None:
            b.tick(1).tool_result(late, "late result")
            late = None
        b.tick(1).tool("Read", {"file_path": f"/home/dev/shop-api/m{e}.py"}, "def f(): ...", took=0.2)
        if e == 30:
            late = b.tick(1).tool_use("Bash", {"command": "sleep 1"})
        else:
            b.tick(1).tool("Bash", {"command": f"pytest -q tests/test_m{e}.py"}, "3 passed", took=1)
        b.tick(1).text(f"Episode {e} done.")
    b.write(path)
    return b
