"""Anomaly detectors: a synthetic positive and a negative for each, and when each clears."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from fixtures import compact_boundary, system
from scenario import Script

from tracetui.model.anomalies import (
    API_ERROR_STREAK,
    CONTEXT_WINDOW_TOKENS,
    EDIT_THRASH,
    REREAD_LOOP,
    RUNAWAY_SUBAGENTS,
    STALL_SECONDS,
    TOOL_ERROR_STREAK,
    TOOL_LOOP_REPEATS,
    TOOL_LOOP_WINDOW,
    context_window,
    detect_anomalies,
)
from tracetui.views.worker import render_worker_view


def _kinds(state, now=None, open_only=True) -> list[str]:
    return [a.kind for a in detect_anomalies(state, now) if a.open or not open_only]


def _one(state, kind, now=None):
    found = [a for a in detect_anomalies(state, now) if a.kind == kind]
    assert len(found) == 1, found
    return found[0]


def test_every_anomaly_has_the_required_fields() -> None:
    s = Script().prompt("a")
    for i in range(TOOL_ERROR_STREAK):
        s.call(f"t{i}", "Bash", {"command": f"x{i}"})
        s.result(f"t{i}", "Exit code 1", is_error=True)
    a = _one(s.state(), "tool_error_streak")
    assert a.kind and a.severity in ("info", "warn", "error") and a.message and a.clears
    assert a.began is not None and a.began.line == 3 and len(a.evidence) == TOOL_ERROR_STREAK


def test_tool_loop() -> None:
    s = Script().prompt("a")
    for i in range(TOOL_LOOP_REPEATS):
        s.call(f"t{i}", "Bash", {"command": "make"})
        s.result(f"t{i}", "same")
    a = _one(s.state(), "tool_loop")
    assert a.open and a.began.line == 2 and a.evidence_count == TOOL_LOOP_REPEATS
    # the input is normalised: another description or spacing is the same call
    r = Script().prompt("a")
    for i in range(TOOL_LOOP_REPEATS):
        r.call(f"t{i}", "Bash", {"command": "make " + " " * i + "all", "description": f"try {i}"})
        r.result(f"t{i}", "same")
    assert "tool_loop" in _kinds(r.state())
    # negative: different inputs
    n = Script().prompt("a")
    for i in range(TOOL_LOOP_REPEATS + 2):
        n.call(f"t{i}", "Bash", {"command": f"make {i}"})
        n.result(f"t{i}", "ok")
    assert "tool_loop" not in _kinds(n.state())
    # clears after a window of other calls
    for i in range(TOOL_LOOP_WINDOW):
        s.call(f"u{i}", "Read", {"file_path": f"/f{i}"})
        s.result(f"u{i}", "x")
    a = _one(s.state(), "tool_loop")
    assert not a.open and "without a repeat" in a.cleared_reason


def test_tool_error_streak_and_its_clearing() -> None:
    s = Script().prompt("a")
    for i in range(TOOL_ERROR_STREAK - 1):
        s.call(f"t{i}", "Bash", {"command": f"x{i}"})
        s.result(f"t{i}", "Exit code 1", is_error=True)
    assert "tool_error_streak" not in _kinds(s.state())  # negative: one short
    s.call("tz", "Bash", {"command": "y"})
    s.result("tz", "Exit code 1", is_error=True)
    assert "tool_error_streak" in _kinds(s.state())
    s.call("ok", "Bash", {"command": "true"})
    s.result("ok", "")
    a = _one(s.state(), "tool_error_streak")
    assert not a.open and a.cleared.line == s.n  # cleared by the successful result, kept in history


def test_api_error_streak() -> None:
    s = Script().prompt("a")
    s.api_error()
    assert "api_error_streak" not in _kinds(s.state())  # negative: a single error
    for _ in range(API_ERROR_STREAK - 1):
        s.add(system("api_error", level="error", retryAttempt=1, maxRetries=10, uuid=f"r-{s.n}"))
    assert "api_error_streak" in _kinds(s.state())
    s.say("back")
    assert not _one(s.state(), "api_error_streak").open


def test_edit_thrash() -> None:
    def edits(n: int) -> Script:
        s = Script().prompt("a")
        for i in range(n):
            s.call(f"t{i}", "Edit", {"file_path": "/w/x.py", "old_string": f"{i}", "new_string": f"{i + 1}"})
            s.result(f"t{i}", "ok")
        return s

    assert "edit_thrash" not in _kinds(edits(EDIT_THRASH - 1).state())
    s = edits(EDIT_THRASH)
    a = _one(s.state(), "edit_thrash")
    assert a.open and "/w/x.py edited 5 times" in a.message
    s.prompt("next")
    assert not _one(s.state(), "edit_thrash").open


def test_reread_loop() -> None:
    s = Script().prompt("a")
    for i in range(REREAD_LOOP):
        s.call(f"t{i}", "Read", {"file_path": "/w/x.py"})
        s.result(f"t{i}", "x")
    assert _one(s.state(), "reread_loop").open
    s.call("e", "Edit", {"file_path": "/w/x.py", "old_string": "a", "new_string": "b"})
    s.result("e", "ok")
    assert not _one(s.state(), "reread_loop").open
    # negative: reads separated by edits
    n = Script().prompt("a")
    for i in range(REREAD_LOOP):
        n.call(f"r{i}", "Read", {"file_path": "/w/y.py"})
        n.result(f"r{i}", "x")
        n.call(f"e{i}", "Edit", {"file_path": "/w/y.py", "old_string": f"{i}", "new_string": f"{i}!"})
        n.result(f"e{i}", "ok")
    assert "reread_loop" not in _kinds(n.state(), open_only=False)


def test_stall_needs_now_and_a_pending_call() -> None:
    s = Script().prompt("a", ts="2026-01-01T09:59:59.000Z")
    s.call("toolu_slow0001", "Bash", {"command": "sleep 999"}, ts="2026-01-01T10:00:00.000Z")
    st = s.state()
    late = datetime(2026, 1, 1, 10, 0, 0, tzinfo=UTC).timestamp() + STALL_SECONDS
    a = _one(st, "stall", now=late)
    assert a.open and a.began.line == 2 and f"no new record for {STALL_SECONDS // 60}m{STALL_SECONDS % 60:02d}s" in a.message
    assert "stall" not in _kinds(st)  # no clock, no stall
    assert "stall" not in _kinds(st, now=late - 10)  # not long enough
    done = (
        Script()
        .prompt("a")
        .call("t", "Bash", {"command": "x"}, ts="2026-01-01T10:00:00.000Z")
        .result("t", "ok", ts="2026-01-01T10:00:01.000Z")
        .state()
    )
    assert "stall" not in _kinds(done, now=late)  # nothing pending


def test_a_record_with_an_older_timestamp_does_not_make_a_stall() -> None:
    """Fourth user trial: a queued prompt stamped 20 minutes before the record above it made a
    stall "no new record for 20m" while the session was seconds old. Quiet time runs from the
    newest timestamp, not the last record's."""
    s = Script().prompt("a", ts="2026-01-01T10:00:00.000Z")
    s.call("toolu_slow0001", "Bash", {"command": "sleep 999"}, ts="2026-01-01T10:00:01.000Z")
    s.prompt("queued", ts="2026-01-01T09:40:00.000Z")
    st = s.state()
    assert st.main.last_timestamp == "2026-01-01T09:40:00.000Z"
    assert st.main.newest_timestamp == "2026-01-01T10:00:01.000Z"
    now = datetime(2026, 1, 1, 10, 0, 30, tzinfo=UTC).timestamp()
    assert "stall" not in _kinds(st, now=now)
    assert "stall" in _kinds(st, now=now + STALL_SECONDS)


def test_a_stall_of_a_day_or_more_is_a_session_that_ended() -> None:
    # a 452-day-old session with a call never answered was a "warn" stall, as if stuck right now
    from tracetui.model.anomalies import ENDED_SECONDS

    s = Script().prompt("a", ts="2026-01-01T09:59:59.000Z")
    s.call("toolu_slow0001", "Bash", {"command": "sleep 999"}, ts="2026-01-01T10:00:00.000Z")
    t0 = datetime(2026, 1, 1, 10, 0, 0, tzinfo=UTC).timestamp()
    fresh = _one(s.state(), "stall", now=t0 + ENDED_SECONDS - 1)
    assert fresh.severity == "warn" and "looks ended" not in fresh.message
    old = _one(s.state(), "stall", now=t0 + 452 * 86400)
    assert old.severity == "info" and old.message.startswith("no new record for 452d00h with 1 call pending")
    assert old.message.endswith("; the session looks ended with them unanswered")


def test_context_pressure() -> None:
    high = int(CONTEXT_WINDOW_TOKENS * 0.9)
    s = Script().prompt("a").say("big", u=(10, 5, 1000, high))
    assert _one(s.state(), "context_pressure").open
    s.say("small", u=(10, 5, 0, 1000))
    assert not _one(s.state(), "context_pressure").open
    assert "context_pressure" not in _kinds(Script().prompt("a").say("ok", u=(10, 5, 0, 100_000)).state(), open_only=False)
    assert context_window("claude-sonnet-4-5[1m]") == 1_000_000 and context_window("claude-opus-4-1") == CONTEXT_WINDOW_TOKENS


def test_only_the_1m_suffix_gives_the_long_window() -> None:
    # trial 11: a name merely containing "1m" got the 1M window (ctx 10/1.0M)
    for name in ("claude-x\u001b[31m", "claude-x\u001b[1m", "gpt-4.1mini", "claude-1m-test", "claude-opus-4-8[1m]-x"):
        assert context_window(name) == CONTEXT_WINDOW_TOKENS, name
    assert context_window("claude-opus-4-8[1m]") == context_window("Claude-Opus-4-8[1M]") == 1_000_000


def test_compaction() -> None:
    s = Script().prompt("a").add(compact_boundary(pre=150_000, uuid="cb-1"))
    a = _one(s.state(), "compaction")
    assert a.severity == "info" and "150000 tokens before" in a.message
    assert "compaction" not in _kinds(Script().prompt("a").say("b").state(), open_only=False)


def test_interrupted_with_calls_dangling() -> None:
    s = Script().prompt("a").call("toolu_hang0001", "Bash", {"command": "hang"}).interrupt()
    a = _one(s.state(), "interrupted_dangling")
    assert a.open and "…hang0001" in a.message and a.evidence[0].line == 2
    # negative: an interrupt with nothing pending
    n = Script().prompt("a").call("t", "Bash", {"command": "x"}).result("t", "ok").interrupt()
    assert "interrupted_dangling" not in _kinds(n.state(), open_only=False)
    # clears when the dangling call gets its result
    s.result("toolu_hang0001", "finally")
    assert not _one(s.state(), "interrupted_dangling").open


def test_runaway_subagents() -> None:
    def fan(n: int) -> Script:
        s = Script().prompt("a")
        for i in range(n):
            s.call(f"toolu_agent{i:04d}", "Task", {"description": f"job {i}", "prompt": "go"})
        return s

    assert "runaway_subagents" not in _kinds(fan(RUNAWAY_SUBAGENTS - 1).state())
    assert _one(fan(RUNAWAY_SUBAGENTS).state(), "runaway_subagents").open
    # trial 13: the evidence began at the sixth subagent, so the view's list and "+N more" said
    # 144 of the 150 counted; it begins at the episode's first subagent now
    state = fan(150).state()
    a = _one(state, "runaway_subagents")
    assert a.message == "150 subagents started in this episode" and a.evidence_count == 150
    assert a.began == a.evidence[0] and a.began.line == 2  # the first Task call (line 1: the prompt)
    line = next(x for x in render_worker_view(state).splitlines() if "runaway_subagents" in x)
    shown = re.search(r"\(evidence ([^)]*?) \+(\d+) more\)", line)
    assert shown is not None, line
    assert 1 + len(shown.group(1).split(", ")) + int(shown.group(2)) == 150, line  # the anchor (@), the list, the rest


def test_cost_spike_per_episode() -> None:
    def session(big: int) -> Script:
        s = Script()
        for i in range(3):
            s.prompt(f"ask {i}").say("ok", u=(1000, 1000, 0, 0))
        s.prompt("expensive").say("done", u=(big, 50_000, 0, 0))
        return s.prompt("after")

    spike = [a for a in detect_anomalies(session(2_000_000).state()) if a.kind == "cost_spike"]
    assert len(spike) == 1 and "episode 4 cost $" in spike[0].message and spike[0].began.line == 7
    assert [a for a in detect_anomalies(session(1000).state()) if a.kind == "cost_spike"] == []


def test_ingest_honesty() -> None:
    s = Script().prompt("a").say("b")
    s.add(b"{broken")
    a = _one(s.state(), "ingest")
    assert "1 malformed line" in a.message and a.severity == "info"
    assert "ingest" not in _kinds(Script().prompt("a").say("b").state(), open_only=False)


def test_cleared_anomalies_stay_in_the_history() -> None:
    s = Script().prompt("a")
    for i in range(TOOL_ERROR_STREAK):
        s.call(f"t{i}", "Bash", {"command": f"x{i}"})
        s.result(f"t{i}", "Exit code 1", is_error=True)
    s.call("ok", "Bash", {"command": "y"}).result("ok", "")
    for i in range(TOOL_ERROR_STREAK):
        s.call(f"u{i}", "Bash", {"command": f"z{i}"})
        s.result(f"u{i}", "Exit code 1", is_error=True)
    streaks = [a for a in detect_anomalies(s.state()) if a.kind == "tool_error_streak"]
    assert [a.open for a in streaks] == [False, True]


def test_ingest_honesty_unknown_records_and_truncated_files(tmp_path) -> None:
    from tracetui.session.reader import SessionReader

    s = Script().prompt("a").say("b")
    s.add({"type": "brand-new-record-type", "sessionId": "x"})
    a = _one(s.state(), "ingest")
    assert "unknown 1 record, 0 blocks" in a.message
    p = tmp_path / "s.jsonl"
    p.write_bytes(s.data())
    r = SessionReader([p], subagents=False, price=False)
    r.poll()
    p.write_bytes(Script().prompt("again").data())  # shorter: truncated and rewritten
    r.poll()
    a = _one(r.snapshot(), "ingest")
    assert a.severity == "error" and ("truncat" in a.message or "replace" in a.message)


def test_context_pressure_under_a_declared_window_smaller_than_the_assumed_one() -> None:
    """A window the agent declared (``AnomalyTracker.window``) decides the pressure, also when it
    is smaller than the 200k assumed for a Claude model: 90k tokens of a 100k window press."""
    from tracetui.model.anomalies import AnomalyTracker
    from tracetui.model.state import Anchor, Event

    def ev(line: int, used: int) -> Event:
        return Event(line, "assistant_text", Anchor(0, line, line * 100), f"u{line}", 0, b"", "text", usage=(used, 10, 0, 0, 0))

    t = AnomalyTracker(window=100_000)
    t.on_usage(ev(1, 90_000), "gpt-5")
    assert "context_pressure" in t.open and "90 %" in t.open["context_pressure"].message
    t.on_usage(ev(2, 50_000), "gpt-5")
    assert "context_pressure" not in t.open and t.history[-1].kind == "context_pressure"
