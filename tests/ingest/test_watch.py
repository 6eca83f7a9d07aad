"""The one watcher thread: which key a file event marks, coalescing, and polling periods.

Events are handed to ``Watcher.dispatch`` as watchdog would (no file system events needed), and
the thread's notifications are read from a queue with a timeout, never slept for.
"""

from __future__ import annotations

import queue
from pathlib import Path
from types import SimpleNamespace

from tracetui.ingest.watch import SLOW_POLL, Watcher


def _event(path: Path, kind: str = "modified", directory: bool = False) -> SimpleNamespace:
    return SimpleNamespace(event_type=kind, src_path=str(path), dest_path="", is_directory=directory)


def _drain(q: queue.Queue, want: set[str]) -> set[str]:
    """Union of notifications until ``want`` is covered (fails after 30 s)."""
    got: set[str] = set()
    while not want <= got:
        got |= q.get(timeout=30)
    return got


def test_an_event_marks_only_the_keys_it_concerns(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    main_a, main_b = proj / "a.jsonl", proj / "b.jsonl"
    q: queue.Queue = queue.Queue()
    w = Watcher(q.put, events=False, min_interval=0.0, safety_poll=1e6, fallback_poll=1e6)
    w.start()
    try:
        w.add("a", files=[main_a], trees=[proj / "a"], globs=[(proj, "agent-*.jsonl")])
        w.add("b", files=[main_b], trees=[proj / "b"])
        assert _drain(q, {"a", "b"}) == {"a", "b"}  # a new key is polled at once
        cases = [
            (_event(main_a), {"a"}),
            (_event(proj / "a" / "subagents" / "agent-1.jsonl", "created"), {"a"}),
            (_event(proj / "b", "created", directory=True), {"b"}),
            (_event(proj / "agent-2.jsonl", "created"), {"a"}),  # a 2.0.x subagent sibling
        ]
        for ev, want in cases:
            w.dispatch(ev)
            assert _drain(q, want) == want
        # what concerns nobody (another session's file, our own reads) wakes nobody
        w.dispatch(_event(proj / "c.jsonl"))
        w.dispatch(_event(main_a, "opened"))
        w.dispatch(_event(main_a, "closed_no_write"))
        w.wake("b")
        assert _drain(q, {"b"}) == {"b"}
    finally:
        w.stop()


def test_events_in_a_burst_are_one_notification(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    q: queue.Queue = queue.Queue()
    w = Watcher(q.put, events=False, min_interval=0.0, safety_poll=1e6, fallback_poll=1e6)
    w.add("s", files=[f])  # before the thread runs: the first notification holds it
    for _ in range(50):
        w.dispatch(_event(f))
    w.start()
    try:
        assert q.get(timeout=30) == {"s"}
    finally:
        w.stop()
    assert q.empty()


def test_without_events_the_preferred_key_is_polled_fastest() -> None:
    t = [0.0]
    w = Watcher(lambda keys: None, events=False, fallback_poll=0.25, clock=lambda: t[0])
    w.add("shown")
    w.add("other")
    w.prefer("shown")
    assert w._period("shown") == 0.25 and w._period("other") == SLOW_POLL


def test_a_key_says_what_its_events_named_and_anywhere_when_its_poll_was_due(tmp_path: Path) -> None:
    # a session of thousands of files: its reader reads the files the events named, not every
    # file at each event; a poll due, a wake or a new key is a look at everything (None)
    proj = tmp_path / "proj"
    main, sub = proj / "a.jsonl", proj / "a" / "subagents" / "agent-1.jsonl"
    t = [0.0]
    q: queue.Queue = queue.Queue()
    w = Watcher(q.put, events=False, min_interval=0.0, safety_poll=10.0, fallback_poll=10.0, clock=lambda: t[0])
    w.add("a", files=[main], trees=[proj / "a"])
    assert w.take("a") is None  # new: everything
    assert w.take("a") is None  # nothing recorded since: everything too (the caller polls anyway)
    w.dispatch(_event(sub))
    w.dispatch(_event(main))
    w.dispatch(_event(proj / "b.jsonl"))  # not its file
    assert w.take("a") == {str(sub), str(main)}
    w.dispatch(_event(Path(str(proj)) / "." / "a.jsonl"))  # named as the reader names it
    assert w.take("a") == {str(main)}
    w.dispatch(_event(sub))
    w.wake("a")
    assert w.take("a") is None
    w.dispatch(_event(sub))
    w.whole("a")
    assert w.take("a") is None
    w.dispatch(_event(sub))
    t[0] = 11.0  # its poll is due: the thread marks it, with everything
    w.start()
    try:
        assert _drain(q, {"a"}) == {"a"}
        assert w.take("a") is None
    finally:
        w.stop()
