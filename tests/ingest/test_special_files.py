"""FIFOs and other special files never block a command, the hook or the monitor.

Each case here hung before its fix (``open()`` of a FIFO waits for a writer for ever): a FIFO as
the newest session (``state``, ``view``, ``card`` with no argument), a FIFO among a session's
subagent files (``state``, the hook), a FIFO named on the command line. Every command runs in a
subprocess with a timeout, and in-process reads in a thread that is waited for with one, so a
regression fails instead of hanging the suite. Real FIFOs (``os.mkfifo``) in ``tmp_path``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from tui_support import small_session

from tracetui.ingest.discover import list_sessions
from tracetui.ingest.files import NotRegularFile, open_regular
from tracetui.ingest.session_files import subagent_files
from tracetui.ingest.tail import Tailer
from tracetui.session.reader import SessionReader

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")

#: seconds a command may take before the test calls it hung
HUNG = 60
SID = "5e55a0c1-0000-4000-8000-00000000f1f0"


def _run(args: list[str], tmp_path: Path, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess:
    e = dict(os.environ, CLAUDE_CONFIG_DIR=str(tmp_path / "claude"), XDG_CACHE_HOME=str(tmp_path / "cache"), **env)
    return subprocess.run([sys.executable, "-m", "tracetui.cli", *args], input=stdin, capture_output=True, text=True, timeout=HUNG, env=e)


def _in_thread(fn, timeout: float = HUNG):
    """``fn()`` in a daemon thread; fails the test when it has not returned within ``timeout``."""
    out: list = []
    t = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), f"{fn} blocked"
    return out[0] if out else None


def _project(tmp_path: Path) -> Path:
    d = tmp_path / "claude" / "projects" / "-home-dev-p"
    d.mkdir(parents=True)
    return d


def test_open_regular_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)

    def attempt() -> str:
        try:
            open_regular(fifo)
        except NotRegularFile as exc:
            return str(exc)
        return "opened"

    assert _in_thread(attempt) == f"{fifo}: a FIFO (named pipe), not a regular file"


def test_a_fifo_as_the_newest_session_is_no_session(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    small_session(proj / f"{SID}.jsonl")
    os.mkfifo(proj / "ffffffff-0000-4000-8000-000000000000.jsonl")  # newer than the real one
    assert [s.path.name for s in list_sessions(proj.parent)] == [f"{SID}.jsonl"]
    for cmd in ("state", "view", "card"):
        res = _run([cmd, "--no-cache"], tmp_path)
        assert res.returncode == 0, res.stderr
        assert "Traceback" not in res.stderr


def test_a_fifo_among_the_subagent_files_is_left_out(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    main = proj / f"{SID}.jsonl"
    small_session(main)
    sub = proj / SID / "subagents"
    sub.mkdir(parents=True)
    os.mkfifo(sub / "agent-a1.jsonl")
    os.mkfifo(sub / "agent-a1.meta.json")
    os.mkfifo(proj / "agent-b2.jsonl")  # the 2.0.x layout: a sibling whose first line is read
    assert _in_thread(lambda: subagent_files(main)) == []
    reader = SessionReader([main])
    _in_thread(reader.poll)
    assert reader.snapshot().main.prompts == 2
    res = _run(["state", "--no-cache", "--json", str(main)], tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["latest_ask"]["text"] == "Now add a test for empty input"
    hook_in = json.dumps({"hook_event_name": "SessionStart", "source": "compact", "session_id": SID, "transcript_path": str(main)})
    res = _run(["hook", "--no-cache"], tmp_path, stdin=hook_in)
    assert res.returncode == 0 and "tracetui state card" in res.stdout, res.stderr


def test_a_named_fifo_is_refused_in_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for cmd in ("state", "view", "card"):
        res = _run([cmd, "--no-cache", str(fifo)], tmp_path)
        assert res.returncode == 1
        assert res.stderr == f"tracetui: {fifo}: a FIFO (named pipe), not a transcript file\n"


def test_a_session_id_naming_a_fifo_or_a_device_says_what_the_file_is(tmp_path: Path) -> None:
    # a user trial: "no session matches 'aaaa' under ..." pointed away from the file that is there
    proj = _project(tmp_path)
    small_session(proj / f"{SID}.jsonl")
    fifo, dev = proj / "aaaa0000-0000-4000-8000-000000000000.jsonl", proj / "bbbb0000-0000-4000-8000-000000000000.jsonl"
    os.mkfifo(fifo)
    dev.symlink_to(os.devnull)
    for ident, path, kind in (("aaaa", fifo, "a FIFO (named pipe)"), ("bbbb", dev, "a character device")):
        res = _run(["state", "--no-cache", ident], tmp_path)
        assert res.returncode == 1
        assert res.stderr == f"tracetui: {path}: {kind}, not a transcript file (left out)\n"
    res = _run(["state", "--no-cache", "cccc"], tmp_path)  # no such file: as before
    assert res.returncode == 1 and res.stderr.startswith("tracetui: no session matches 'cccc' under ")


def test_a_file_replaced_by_a_fifo_is_an_error_of_the_source_not_a_hang(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    reader = SessionReader([path])
    _in_thread(reader.poll)
    path.unlink()
    os.mkfifo(path)
    _in_thread(reader.poll)
    err = reader.snapshot().sources[0].error
    assert err == f"{path}: a FIFO (named pipe), not a transcript file"
    t = Tailer(str(path))

    def read() -> str:
        try:
            list(t.lines())
        except NotRegularFile as exc:
            return exc.kind
        return "read"

    assert _in_thread(read) == "a FIFO (named pipe)"


def test_the_hook_gives_up_on_a_stdin_that_never_closes(tmp_path: Path) -> None:
    # Claude Code keeps the pipe open: the hook's deadline ends the wait, with nothing printed
    r, w = os.pipe()
    e = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), TRACETUI_HOOK_DEADLINE="1")
    try:
        proc = subprocess.run([sys.executable, "-m", "tracetui.cli", "hook"], stdin=r, capture_output=True, text=True, timeout=HUNG, env=e)
    finally:
        os.close(r)
        os.close(w)
    assert proc.returncode == 0 and proc.stdout == ""
    assert proc.stderr.startswith("tracetui hook: past its 1 s deadline") and len(proc.stderr.splitlines()) == 1


def test_the_hook_gives_up_on_a_transcript_that_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a transcript that cannot be stat'ed as special but blocks when read: the deadline ends it
    import tracetui.hook.run as run

    path = tmp_path / "s.jsonl"
    small_session(path)

    def stall(*_a, **_k):
        threading.Event().wait(HUNG)

    monkeypatch.setattr(run, "_fold", stall)
    monkeypatch.setenv("TRACETUI_HOOK_DEADLINE", "0.5")
    import argparse
    import io

    data = json.dumps({"hook_event_name": "SessionStart", "source": "compact", "session_id": SID, "transcript_path": str(path)})
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode())))
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert run.run_mode(argparse.Namespace()) == 0
    assert err.getvalue().startswith("tracetui hook: past its 0.5 s deadline")


async def test_the_monitor_on_a_fifo_says_so_and_quits(tmp_path: Path) -> None:
    from tui_support import app_for, wait_until

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    app = app_for([fifo], tmp_path, follow=True, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.notice_text, 300, 0.02)
        assert app.current_view.notice_text == f"{fifo}: a FIFO (named pipe), not a transcript file; still watching"
        await pilot.press("q")
    assert app.return_code == 0
    assert not [t for t in app.follow._threads if t.is_alive()]  # the fold workers ended: nothing blocked
