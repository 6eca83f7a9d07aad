"""The UserPromptSubmit gate under concurrency: Claude Code runs matching hooks in parallel (an
entry in both settings.json and settings.local.json), and each call of one session used to give
the card (user trial: two of six printed it)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures import compact_boundary, prompt, write

import tracetui.hook.run as hook
from tracetui.hook import HookSkip
from tracetui.hook.deadline import Deadline
from tracetui.hook.gate import _hook_state_path

SID = "5e55e55e-0000-4000-8000-0000000000c1"


def _payload(t: Path) -> bytes:
    return (f'{{"session_id": "{SID}", "transcript_path": "{t}", "hook_event_name": "UserPromptSubmit", "prompt": "hi"}}').encode()


def _compacted(tmp_path: Path) -> Path:
    d = tmp_path / "projects" / "-work-demo"
    d.mkdir(parents=True)
    return write(d / f"{SID}.jsonl", [prompt("make the API tests pass", session=SID), compact_boundary(150000, session=SID)])


def test_concurrent_calls_of_one_session_give_one_card(tmp_path: Path) -> None:
    t = _compacted(tmp_path)
    env = {**os.environ, "TRACETUI_CACHE_DIR": str(tmp_path / "cache"), "TRACETUI_HOOK_DEADLINE": "60"}
    env.pop("TRACETUI_HOOK_GATE", None)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tracetui.cli", "hook"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        for _ in range(6)
    ]
    results = [p.communicate(_payload(t), timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 6
    outs = [out for out, _ in results]
    assert sum(1 for out in outs if out.strip()) == 1, [len(o) for o in outs]
    assert all(err == b"" for _, err in results), [err for _, err in results]


def test_calls_that_read_the_gate_at_once_give_one_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four calls of one session, each holding the gate's state it read for 0.2 s before deciding
    (a wide window for the race the six processes above hit now and then): under the gate's
    lock one gives the card and the others read what it recorded; without the lock all four
    read nothing given yet and each gives it."""
    import threading
    import time

    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    t = _compacted(tmp_path)
    load = hook._load_hook_state

    def slow_load(sid: str) -> dict:
        got = load(sid)
        time.sleep(0.2)
        return got

    monkeypatch.setattr(hook, "_load_hook_state", slow_load)
    outs: list[str] = []
    errors: list[BaseException] = []

    def call() -> None:
        try:
            outs.append(hook.run_hook(_payload(t), use_cache=False))
        except BaseException as exc:  # noqa: BLE001 - reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert errors == [] and len(outs) == 4
    assert sum(1 for out in outs if out.strip()) == 1, [len(o) for o in outs]


def test_a_gate_lock_not_taken_in_time_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    t = _compacted(tmp_path)
    lock = _hook_state_path(SID).with_suffix(".lock")
    lock.parent.mkdir(parents=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another hook call holds the gate
        with pytest.raises(HookSkip) as exc, Deadline(0.5):
            hook.run_hook(_payload(t), use_cache=False)
    finally:
        os.close(fd)
    msg = str(exc.value)
    assert msg.startswith("no card: what it gave cannot be remembered (") and str(lock) in msg
    assert "\n" not in msg
    assert not _hook_state_path(SID).exists()  # nothing recorded: the next call may still give it
    assert hook.run_hook(_payload(t), use_cache=False).strip()  # the lock released, the gate opens
