"""``tracetui hook`` run as the command ends its process at once after answering; called
in-process (tests, an embedding program) it returns as usual."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures import prompt, tool_call, write

from tracetui.cli import main
from tracetui.hook import run as hook


def test_in_process_callers_are_not_the_command() -> None:
    assert hook._is_command() is False


def test_the_command_answers_saves_and_exits_0(tmp_path: Path) -> None:
    p = write(tmp_path / "proj" / "s1.jsonl", [prompt("find the bug"), tool_call("t1", "Bash", {"command": "pytest -q"})])
    inp = json.dumps(
        {"session_id": "s1", "transcript_path": str(p), "cwd": str(tmp_path), "hook_event_name": "SessionStart", "source": "resume"}
    )
    env = {**os.environ, "TRACETUI_CACHE_DIR": str(tmp_path / "cache")}
    run = subprocess.run(
        [sys.executable, "-m", "tracetui.cli", "hook"], input=inp.encode(), env=env, capture_output=True, check=False, timeout=60
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout.decode()
    assert out.endswith("\n") and "find the bug" in out and "pending call Bash" in out
    assert "TRACE-AS-STATE CARD" in out and out.rstrip("\n").endswith(hook.FOOTER)
    # a small session's fold state is saved before the process ends
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
        from tracetui.session.store import open_cached

        assert open_cached([p]).cache_status == "warm"
    # the same text as an in-process call (which returns instead of exiting)
    again = subprocess.run(
        [sys.executable, "-m", "tracetui.cli", "hook"], input=inp.encode(), env=env, capture_output=True, check=False, timeout=60
    )
    assert again.returncode == 0 and again.stdout == run.stdout


def test_in_process_main_returns(tmp_path: Path, monkeypatch, capsys) -> None:
    p = write(tmp_path / "proj" / "s2.jsonl", [prompt("goal")])
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    inp = json.dumps(
        {"session_id": "s2", "transcript_path": str(p), "cwd": str(tmp_path), "hook_event_name": "SessionStart", "source": "resume"}
    )
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(inp.encode())))
    assert main(["hook"]) == 0
    assert "goal" in capsys.readouterr().out
