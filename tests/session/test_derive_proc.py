"""The derive hook in a second process (session/derive_proc.py) gives the state the hook gives
in process: the same RunState, the same per-prompt history, the same deriver; a failed child
costs a refold, never a different figure."""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path
from typing import Any

import msgspec
import pytest

import tracetui.session.derive_proc as dp
from tracetui.demo.build import TranscriptBuilder, write_demo
from tracetui.model.fold import FileFold
from tracetui.session.open import load_state
from tracetui.session.reader import SessionReader

pytestmark = pytest.mark.skipif(not dp.sys.platform.startswith("linux"), reason="the derive process runs on Linux only (a fork)")

_PYTEST_FAIL = "=================== 2 failed, 11 passed in 0.41s ===================\n"
_PYTEST_OK = "=================== 13 passed in 0.40s ===================\n"


def _sources(started: list[tuple[str, int]]) -> list[int]:
    """The sources a derive process was started for (tests/conftest.py ``derive_process``)."""
    return [src for _, src in started]


def _session(tmp_path: Path, seed: int = 7, prompts: int = 30) -> Path:
    """A main transcript with every kind of call the deriver has a rule for: shell runs with
    test summaries and commits, failed and retried calls, edits undone, todos and tasks,
    interrupts, API errors, compactions and PR links; the last lines add a tool input with an
    integer past 64 bits and a lone surrogate (what MessagePack cannot carry)."""
    rng = random.Random(seed)
    b = TranscriptBuilder("5e55105e-0000-4000-8000-00000000d0c0", "/home/dev/app")
    for n in range(prompts):
        b.prompt(f"Task {n}: make sure the tests pass and don't touch the API, only src/app{n % 3}.py")
        for _ in range(rng.randint(1, 6)):
            k = rng.randrange(9)
            if k == 0:
                b.tool(
                    "Bash",
                    {"command": "pytest -q", "description": "run"},
                    rng.choice([_PYTEST_FAIL, _PYTEST_OK]),
                    is_error=rng.random() < 0.3,
                )
            elif k == 1:
                b.tool("Edit", {"file_path": f"src/app{n % 3}.py", "old_string": "a = 1", "new_string": "a = 2"}, "ok")
                if rng.random() < 0.5:
                    b.tool("Edit", {"file_path": f"src/app{n % 3}.py", "old_string": "a = 2", "new_string": "a = 1"}, "ok")
            elif k == 2:
                todos = [{"content": f"step {i}", "status": rng.choice(["pending", "in_progress", "completed"])} for i in range(3)]
                b.tool("TodoWrite", {"todos": todos}, "Todos updated")
            elif k == 3:
                b.tool("Bash", {"command": 'git commit -m "fix"'}, "[main 1a2b3c4] fix the upload\n 1 file changed")
            elif k == 4:
                b.tool("Read", {"file_path": f"src/app{n % 3}.py"}, "x" * rng.randint(10, 5000), is_error=rng.random() < 0.2)
            elif k == 5:
                b.api_error()
            elif k == 6:
                tid = b.tool_use("Bash", {"command": "sleep 100"})
                b.interrupt()
                if rng.random() < 0.5:
                    b.tool_result(tid, "[Request interrupted by user for tool use]", is_error=True)
            elif k == 7:
                b.meta("pr-link", prUrl=f"https://github.com/o/r/pull/{n}")
            else:
                b.text("Done with this part.")
        if n == prompts // 2:
            b.compaction("Summary of the work so far")
    path = b.write_session(tmp_path)
    with open(path, "ab") as f:
        f.write(
            b'{"type":"assistant","uuid":"u-big","timestamp":"2026-03-02T12:00:00.000Z","sessionId":"5e55105e-0000-4000-8000-00000000d0c0",'
            b'"message":{"id":"msg_big","model":"claude-opus-4-5","role":"assistant","usage":{"input_tokens":1,"output_tokens":2},'
            b'"content":[{"type":"tool_use","id":"toolu_big","name":"Bash","input":{"command":"echo \\ud800","n":123456789012345678901234567890}}]}}\n'
        )
        f.write(
            b'{"type":"user","uuid":"u-big2","timestamp":"2026-03-02T12:00:01.000Z","sessionId":"5e55105e-0000-4000-8000-00000000d0c0",'
            b'"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_big","content":"bad \\udc80 end","is_error":true}]}}\n'
        )
    return path


def _fold(paths: list[Path], process: bool) -> SessionReader:
    reader = SessionReader(paths, subagents=True, derive_process=process)
    reader.poll()
    return reader


def _same(a: SessionReader, b: SessionReader) -> None:
    sa, sb = a.snapshot(), b.snapshot()
    assert sa == sb
    assert msgspec.msgpack.encode(sa) == msgspec.msgpack.encode(sb)
    for fa, fb in zip(a.fold.folds, b.fold.folds, strict=True):
        assert fa.history == fb.history
        assert fa.derive == fb.derive
        assert type(fa.derive) is type(fb.derive) is dp.Deriver


def test_a_rich_session_folds_to_the_same_state(tmp_path: Path, derive_process: list[tuple[str, int]]) -> None:
    path = _session(tmp_path)
    inproc = _fold([path], process=False)
    assert _sources(derive_process) == []
    parallel = _fold([path], process=True)
    assert _sources(derive_process) == [0]
    _same(inproc, parallel)
    st = parallel.snapshot()
    assert len(parallel.fold.folds[0].history) >= 29  # one per prompt closed
    assert st.main.derived is not None and st.main.derived.facts_total > 0 and st.main.derived.ruled_out_total > 0


def test_a_copied_record_set_folds_to_the_same_episodes(tmp_path: Path, derive_process: list[tuple[str, int]]) -> None:
    """The fold tells its deriver of a message met again (``on_known_message``): the child
    replays it, so the episodes leave out the copy's tokens there too (trial 11)."""
    import json

    path = _session(tmp_path, prompts=8)
    lines = path.read_bytes().splitlines()
    copy = [json.loads(ln) for ln in lines]
    with open(path, "ab") as f:
        for rec in copy:
            rec["uuid"] = str(rec.get("uuid")) + "-copy"
            f.write(json.dumps(rec).encode() + b"\n")
    inproc = _fold([path], process=False)
    parallel = _fold([path], process=True)
    assert _sources(derive_process) == [0]
    _same(inproc, parallel)
    st = parallel.snapshot()
    eps = [e for e in st.episodes if e.lifecycle != "superseded"]
    assert sum(e.tokens.total for e in eps) == st.tokens.total
    assert sum(e.tool_errors for e in eps) == st.counters.tool_errors


def test_the_demo_session_with_its_subagent(tmp_path: Path, derive_process: list[tuple[str, int]]) -> None:
    main, sub = write_demo(tmp_path)
    a, b = _fold([main], process=False), _fold([main], process=True)
    assert sorted(_sources(derive_process)) == [0, 1]  # the main transcript and the subagent file
    _same(a, b)


def test_the_appends_after_a_parallel_read_fold_in_process(tmp_path: Path, derive_process: list[tuple[str, int]]) -> None:
    path = _session(tmp_path, prompts=12)
    data = path.read_bytes()
    cut = data.rindex(b"\n", 0, len(data) // 2) + 1
    path.write_bytes(data[:cut])
    reader = SessionReader([path], derive_process=True)
    reader.poll()
    assert type(reader.fold.folds[0].derive) is dp.Deriver  # the child's, taken back
    reader.derive_process = False
    with open(path, "ab") as f:
        f.write(data[cut:])
    reader.poll()
    assert _sources(derive_process) == [0]
    _same(_fold([path], process=False), reader)


def test_a_snapshot_asked_for_during_the_read(tmp_path: Path) -> None:
    lines = _session(tmp_path, prompts=10).read_bytes().split(b"\n")[:-1]
    half = len(lines) // 2
    a, b = FileFold(), FileFold()
    offset = 0
    for n, line in enumerate(lines[:half], 1):
        a.feed_line(n, offset, line)
        offset += len(line) + 1
    proc = dp.DeriveProcess(b)
    offset = 0
    for n, line in enumerate(lines[:half], 1):
        b.feed_line(n, offset, line)
        offset += len(line) + 1
    assert b.snapshot() == a.snapshot()  # answered by the child at once, episodes and all
    for n, line in enumerate(lines[half:], half + 1):
        a.feed_line(n, offset, line)
        b.feed_line(n, offset, line)
        offset += len(line) + 1
    proc.finish(b)
    assert b.snapshot() == a.snapshot()
    assert b.history == a.history and b.derive == a.derive


def test_a_failed_child_costs_a_refold_not_a_figure(
    tmp_path: Path, derive_process: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _session(tmp_path, prompts=200)  # batches still go to the child after it failed
    expect = _fold([path], process=False).snapshot()
    parent = os.getpid()
    on_event = dp.Deriver.on_event

    def dies_in_the_child(self: Any, fold: Any, ev: Any) -> None:
        if os.getpid() != parent and ev.seq > 40:
            raise MemoryError("out of memory")
        on_event(self, fold, ev)

    monkeypatch.setattr(dp.Deriver, "on_event", dies_in_the_child)
    reader = SessionReader([path], derive_process=True)
    with pytest.raises(dp.DeriveProcessError, match="MemoryError: out of memory"):
        reader.poll()
    _, state = load_state([path], use_cache=False)  # refolds in process
    assert _sources(derive_process) == [0, 0]
    assert state == expect


def test_a_killed_child_is_an_error_not_a_hang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _session(tmp_path, prompts=6).read_bytes().split(b"\n")[:-1]
    fold = FileFold()
    proc = dp.DeriveProcess(fold)
    proc._proc.kill()
    proc._proc.join()
    with pytest.raises(dp.DeriveProcessError, match="derive process is gone"):
        offset = 0
        for n, line in enumerate(lines * 50, 1):  # enough batches for a send to meet the closed pipe
            fold.feed_line(n, offset, line)
            offset += len(line) + 1
        proc.finish(fold)
    proc.abort(fold)


def test_where_the_process_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fold = FileFold()
    monkeypatch.setattr(dp, "_single_threaded", lambda: True)
    monkeypatch.setattr(dp, "_spare_cpu", lambda: True)
    assert dp.usable(fold, dp.MIN_BYTES)
    assert not dp.usable(fold, dp.MIN_BYTES - 1)  # a short read: not worth a fork
    monkeypatch.setenv("TRACETUI_DERIVE_PROCESS", "0")
    assert not dp.usable(fold, dp.MIN_BYTES)
    monkeypatch.delenv("TRACETUI_DERIVE_PROCESS")
    fold.derive = None  # no hook (bench/fold.py's core run)
    assert not dp.usable(fold, dp.MIN_BYTES)
    stored = FileFold(history=_ListLike())  # a store's sink: its rows cannot be put in place later
    assert not dp.usable(stored, dp.MIN_BYTES)
    monkeypatch.setattr(dp, "_spare_cpu", lambda: False)  # the two processes would take turns
    assert not dp.usable(FileFold(), dp.MIN_BYTES)
    monkeypatch.setattr(dp, "_spare_cpu", lambda: True)
    monkeypatch.setattr(dp, "_single_threaded", lambda: False)  # a fork would miss the other threads
    assert not dp.usable(FileFold(), dp.MIN_BYTES)


@pytest.mark.parametrize(
    ("cpus", "runnable", "load", "spare"),
    [
        ((0,), 1, 0.0, False),  # one CPU: never
        ((0, 1), 1, 0.2, True),
        ((0, 1), 1, 1.9, True),  # idle now, though the last minute was busy (a test run just ended)
        ((0, 1), 2, 1.4, True),  # someone else runs now, the last minute left a CPU idle
        ((0, 1), 2, 1.5, False),
        ((0, 1), 3, 2.5, False),
        ((0, 1), None, 1.4, True),  # no /proc/loadavg: the load average alone
        ((0, 1), None, 1.6, False),
        ((0, 1, 2, 3), 3, 3.6, True),
        ((0, 1, 2, 3), 4, 3.2, True),
        ((0, 1, 2, 3), 4, 3.6, False),
    ],
)
def test_a_spare_cpu_is_one_idle_now_or_in_the_last_minute(
    monkeypatch: pytest.MonkeyPatch, cpus: tuple[int, ...], runnable: int | None, load: float, spare: bool
) -> None:
    monkeypatch.setattr(dp.os, "sched_getaffinity", lambda pid: set(cpus))
    monkeypatch.setattr(dp.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(dp, "_runnable_now", lambda: runnable)
    assert dp._spare_cpu() is spare


def test_runnable_now_counts_this_process() -> None:
    n = dp._runnable_now()  # this test runs on Linux (pytestmark): /proc/loadavg is there
    assert n is not None and n >= 1


def test_runnable_now_reads_the_fourth_field(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loadavg = tmp_path / "loadavg"
    loadavg.write_text("1.92 1.40 0.98 3/412 12345\n")
    real_open = open
    monkeypatch.setattr("builtins.open", lambda f, *a, **k: real_open(loadavg if f == "/proc/loadavg" else f, *a, **k))
    assert dp._runnable_now() == 3
    loadavg.write_text("garbage\n")
    assert dp._runnable_now() is None


def test_single_threaded_counts_this_process_threads() -> None:
    ev = threading.Event()
    t = threading.Thread(target=ev.wait)
    t.start()
    try:
        assert not dp._single_threaded()
    finally:
        ev.set()
        t.join()


class _ListLike:
    def __init__(self) -> None:
        self.rows: list[Any] = []

    def append(self, x: Any) -> None:
        self.rows.append(x)

    def __len__(self) -> int:
        return len(self.rows)


_ORPHAN = """
import os, signal
import tracetui.session.derive_proc as dp
from tracetui.model.fold import FileFold
p = dp.DeriveProcess(FileFold())
print(p._proc.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_the_child_ends_when_the_fold_is_killed() -> None:
    import subprocess
    import sys
    import time

    proc = subprocess.run([sys.executable, "-c", _ORPHAN], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -9
    child = int(proc.stdout.split()[0])
    deadline = time.monotonic() + 30  # a bound for a loaded machine, not a synchronisation
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the derive process outlived the fold that forked it"


def test_the_child_reads_the_secrets_of_the_excerpts_as_this_process_would(tmp_path: Path, derive_process: list[tuple[str, int]]) -> None:
    # `state` masks its output with the session's secrets (views/safe.state_secrets), read from
    # every ledger excerpt after the fold: on 100 MB 15 % of the command's time in the fold's
    # process. The derive process reads them as the events arrive; the set comes out the same,
    # value for value, kind for kind and in the same order.
    from trial_secrets import leaked, recurring_session, shapes_session

    from tracetui.views.safe import state_secrets
    from tracetui.views.state_json import state_summary

    for make in (shapes_session, recurring_session):
        path = make(tmp_path / make.__name__)
        inproc, parallel = _fold([path], process=False), _fold([path], process=True)
        seen = parallel.fold.secrets
        # read by the child before any output asked: the events folded before the fork (the
        # first record decides the agent), then as many as it read while it waited for the fold
        assert 1 <= seen.marks[("events", 0)] <= len(parallel.fold.folds[0].events)
        assert not inproc.fold.secrets
        a, b = state_secrets(inproc.snapshot()), state_secrets(parallel.snapshot())
        assert a is not None and b is not None and list(a.found.items()) == list(b.found.items())
        assert state_summary(inproc.snapshot()) == state_summary(parallel.snapshot())
        assert not leaked(state_summary(parallel.snapshot()))
    assert _sources(derive_process) == [0, 0]


def test_only_the_first_source_is_read_for_secrets_in_the_child(tmp_path: Path, derive_process: list[tuple[str, int]]) -> None:
    # a value's kind is the one it was first found as, and the sources are read in order: a
    # subagent's file read ahead of the main one could change a mask's kind
    main, _sub = write_demo(tmp_path)
    parallel = _fold([main], process=True)
    marks = parallel.fold.secrets.marks
    assert 1 <= marks[("events", 0)] <= len(parallel.fold.folds[0].events) and ("events", 1) not in marks
    inproc = _fold([main], process=False)
    a, b = state_secrets_of(inproc), state_secrets_of(parallel)
    assert a == b


def state_secrets_of(reader: SessionReader) -> list[object]:
    from tracetui.views.safe import state_secrets

    seen = state_secrets(reader.snapshot())
    return [] if seen is None else list(seen.found.items())


def test_the_child_reads_every_excerpt_when_the_fold_waits_for_it(
    tmp_path: Path, derive_process: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the fold made slow: the child, waiting, reads every excerpt; the set is still the same
    from trial_secrets import shapes_session

    path = shapes_session(tmp_path)
    feed = FileFold.feed_line

    def slow(self: FileFold, *a: Any) -> None:
        feed(self, *a)
        if self.derive is not None and type(self.derive) is dp.DeriveProcess:
            self.derive._flush()  # every line sent at once
            threading.Event().wait(0.01)  # and the child given the time to read it

    monkeypatch.setattr(FileFold, "feed_line", slow)
    parallel = _fold([path], process=True)
    assert parallel.fold.secrets.marks[("events", 0)] == len(parallel.fold.folds[0].events)
    monkeypatch.undo()
    assert state_secrets_of(_fold([path], process=False)) == state_secrets_of(parallel) != []
