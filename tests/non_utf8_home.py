"""A projects folder with a session whose path is not UTF-8, beside an equal one whose path is.

POSIX allows any bytes but ``/`` and NUL in a name, and Python gives the bytes that do not
decode as lone surrogates (``surrogateescape``). :func:`bad_home` writes, under ``root``:

* ``projects/-home-dev-ok/<OK_SID>.jsonl``: a session, an hour old;
* ``projects/-home-dev-\\xff\\xfe/<BAD_SID>.jsonl`` (the folder named with the two bytes
  ``0xff 0xfe``) with a subagent file under ``<BAD_SID>/subagents/``: the same records as the
  first but for the session id (so the same figures), the newest session;
* ``named/bad\\xff\\xfename.jsonl``: a copy of the first, a file named with such bytes.

It skips the test on a file system that refuses such names (APFS, say).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from tracetui.demo.transcript import TranscriptBuilder

OK_SID = "11111111-0000-4000-8000-000000000001"
BAD_SID = "22222222-0000-4000-8000-000000000002"
#: a project folder's name that is not UTF-8, and how tracetui shows it (ingest/files.py path_text)
BAD_FOLDER = os.fsdecode(b"-home-dev-\xff\xfe")
BAD_FOLDER_TEXT = "-home-dev-\\xff\\xfe"
BAD_NAME = os.fsdecode(b"bad\xff\xfename.jsonl")
BAD_NAME_TEXT = "bad\\xff\\xfename.jsonl"


@dataclass(frozen=True)
class BadHome:
    projects: Path
    ok: Path
    bad: Path
    bad_sub: Path
    named: Path


def session(sid: str) -> TranscriptBuilder:
    """A prompt, a read, a failing command, a reply, and a subagent's task: the records of both sessions."""
    b = TranscriptBuilder(session_id=sid, cwd="/home/dev/shop")
    b.prompt("hello parser")
    b.tick(1).tool("Read", {"file_path": "/home/dev/shop/parser.py"}, "def parse(): ...", took=0.5)
    b.tick(1).tool("Bash", {"command": "pytest -q"}, "Exit code 1\n1 failed", is_error=True, took=2)
    task = b.tick(1).tool_use("Task", {"description": "look", "prompt": "look at it"})
    sub = b.subagent("a1b2c3", task)
    sub.prompt("look at it")
    sub.tick(1).text("looked")
    b.tick(3).task_result(sub, "looked")
    b.tick(1).text("The parser fails on empty input.")
    return b


def bad_home(root: Path, now: float) -> BadHome:
    """Write the sessions (see the module docstring) under ``root``, stamped an hour and a
    minute before ``now`` (epoch seconds); skips when the file system refuses the names."""
    projects = root / "projects"
    try:
        (projects / BAD_FOLDER).mkdir(parents=True)
        (root / "named").mkdir()
        (root / "named" / BAD_NAME).write_bytes(b"")
    except (OSError, UnicodeError) as exc:
        pytest.skip(f"this file system takes no name that is not UTF-8: {exc}")
    ok = session(OK_SID).write_session(projects / "-home-dev-ok")
    bad = session(BAD_SID).write_session(projects / BAD_FOLDER)
    named = root / "named" / BAD_NAME
    named.write_bytes(ok.read_bytes())
    subs = sorted((projects / BAD_FOLDER / BAD_SID / "subagents").glob("*.jsonl"))
    for p in [ok, *sorted((projects / "-home-dev-ok").rglob("*.jsonl")), named]:
        os.utime(p, (now - 3600, now - 3600))
    for p in [bad, *subs]:
        os.utime(p, (now - 60, now - 60))
    return BadHome(projects, ok, bad, subs[0], named)


def home_under(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BadHome:
    """:func:`bad_home` under ``tmp_path/claude``, made ``$CLAUDE_CONFIG_DIR``, at the TUI tests'
    frozen clock."""
    from tui_support import FROZEN_NOW

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    return bad_home(tmp_path / "claude", FROZEN_NOW)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``tracetui ARGV`` in process: ``(exit code, stdout, stderr)``, asserting no traceback
    and text that is UTF-8 (no lone surrogate reaches the terminal)."""
    from tracetui.cli import main

    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    for text in (out, err):
        text.encode("utf-8")
    return rc, out, err
