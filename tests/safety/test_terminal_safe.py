"""No control character of a transcript or of a file name ever reaches the terminal: the monitor
on a hostile session (escapes in every field, in the project folder and in the file names),
through every screen, and the headless commands, the hook and the CLI's error lines."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from hostile import EVIL, hostile_session, is_dirty
from rich.segment import Segment
from tui_support import app_for, open_sessions, press_copy, wait_for_state, wait_until

from tracetui.tui.screens.episode import EpisodeScreen
from tracetui.tui.screens.help import HelpScreen
from tracetui.tui.terminal_safe import safe_segments

#: the sequences the app writes itself: SGR styles, cursor moves, OSC 8 links
_OWN = re.compile(r"\x1b\[[0-9;]*m|\x1b\[[0-9]+;[0-9]+H|\x1b\[\?[0-9]+[hl]|\x1b\]8;[^\x1b\x07]*\x1b\\")


def written(app) -> str:
    """What the terminal would receive for a full redraw of the app's screen (its background
    screens included), as Textual writes it; fails on a text segment holding a control."""
    screen = app.screen
    update = screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    bad: list[str] = []
    for line in update.strips:
        for strip in line:
            for seg in strip:
                if not seg.control and is_dirty(seg.text):
                    bad.append(seg.text)
    assert bad == [], f"{type(screen).__name__}: control characters in drawn text: {bad[:5]!r}"
    return update.render_segments(app.console)


def assert_terminal_safe(app, where: str) -> str:
    out = written(app)
    rest = _OWN.sub("", out)
    assert is_dirty(rest.replace("\n", "")) == [], f"{where}: {is_dirty(rest)[:10]} reach the terminal"
    assert "\x1b]0;" not in out and "\x1b]52" not in out and "\x07" not in out, where
    return out


async def test_a_hostile_session_writes_no_control_to_the_terminal_on_any_screen(tmp_path: Path) -> None:
    main, _sub = hostile_session(tmp_path / "projects")
    app = app_for([main], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await wait_until(pilot, lambda: view.state is not None and len(view.state.agents) == 1)
        await pilot.pause()
        out = assert_terminal_safe(app, "main")
        assert "␛]0;" in out  # the escape is shown as data, not dropped
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        assert_terminal_safe(app, "help")
        await pilot.press("escape")
        screen = await open_sessions(pilot, app)
        await pilot.pause()
        assert_terminal_safe(app, "sessions")
        await pilot.press("escape")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EpisodeScreen))
        await pilot.pause()
        assert_terminal_safe(app, "drill-down (live)")
        await pilot.press("escape", "left_square_bracket")
        await pilot.pause()
        assert view.episode == 1
        assert_terminal_safe(app, "history")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EpisodeScreen))
        await pilot.pause()
        assert_terminal_safe(app, "drill-down (history)")
        await pilot.press("escape", "l", "c")
        await wait_until(pilot, lambda: app._notifications)
        await pilot.pause()
        assert_terminal_safe(app, "card copied (notification)")
        assert app.clipboard and is_dirty(app.clipboard) == []
        await press_copy(pilot, "w")
        await pilot.pause()
        assert_terminal_safe(app, "worker view copied")
        assert is_dirty(app.clipboard) == []
        app.notify("file " + EVIL, title="t " + EVIL, markup=False)  # a notification naming a hostile path
        await pilot.pause()
        assert_terminal_safe(app, "notification")
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "CommandPalette")
        await pilot.press(*"sess")
        await pilot.pause(0.2)
        assert_terminal_safe(app, "command palette")
        await pilot.press("escape")
        del screen


def test_the_guard_keeps_each_segment_at_its_width() -> None:
    segs = [Segment("│"), Segment("Bash" + EVIL + "x"), Segment("\x1b"), Segment("│")]
    out = safe_segments(segs)
    assert [s.cell_length for s in out if s.text != ""] == [1, segs[1].cell_length, 1]
    assert out[1].text.startswith("Bash␛]0;PWNED-TITLE␇")
    assert all(is_dirty(s.text) == [] for s in out)
    clean = [Segment("plain")]
    assert safe_segments(clean) is clean


def _run(*args: str, cwd: Path | None = None, env_extra: dict | None = None, stdin: str | None = None):
    import os

    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "tracetui.cli", *args], capture_output=True, text=True, env=env, input=stdin, cwd=cwd)


def test_headless_commands_and_their_errors_print_no_control(tmp_path: Path) -> None:
    main, sub = hostile_session(tmp_path / "projects")
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path)}
    for cmd in (["state"], ["state", "--json"], ["view"], ["card"], ["state", str(main)], ["view", str(main), str(sub)]):
        out = _run(*cmd, "--no-cache", env_extra=env)
        assert out.returncode == 0, out.stderr
        assert is_dirty(out.stdout) == [], (cmd, is_dirty(out.stdout)[:5])
        assert is_dirty(out.stderr) == [], (cmd, out.stderr)
    # error lines name the file: a missing one, a directory, a non-transcript with an evil name
    bad = tmp_path / ("not-a-transcript" + EVIL.replace("\x00", "") + ".jsonl")
    bad.write_text("hello\n")
    for arg in (str(tmp_path / ("missing" + EVIL + ".jsonl")), str(bad), str(main.parent / ("x" + EVIL))):
        for cmd in ("state", "view", "card"):
            out = _run(cmd, arg, env_extra=env)
            assert out.returncode != 0
            assert out.stderr.count("\n") == 1 and is_dirty(out.stderr) == [], (cmd, out.stderr)


def test_the_hook_prints_no_control(tmp_path: Path) -> None:
    main, _sub = hostile_session(tmp_path / "projects")
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path)}
    payload = {
        "session_id": main.stem,
        "transcript_path": str(main),
        "cwd": str(tmp_path),
        "hook_event_name": "SessionStart",
        "source": "resume",
    }
    out = _run("hook", env_extra=env, stdin=json.dumps(payload))
    assert out.returncode == 0
    assert "PWNED" in out.stdout  # the card is there, its escapes shown as data
    assert is_dirty(out.stdout) == [] and is_dirty(out.stderr) == [], out.stderr
    payload["transcript_path"] = str(main.parent / ("gone" + EVIL + ".jsonl"))
    out = _run("hook", env_extra=env, stdin=json.dumps(payload))
    assert out.returncode == 0 and is_dirty(out.stderr) == [], out.stderr
