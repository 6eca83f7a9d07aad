"""Spans that change after they went: an episode made a new version by a late tool result or a
later successful retry, a session resumed after its span went, a call sent pending whose result
came later. A sent span is never sent again with the same id (OTLP spans are immutable; a
backend keeps one of two copies, or shows both); an episode with calls open waits, and what
changes after it went is a revision: a span of its own under the one it revises, linked to it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="the 'otlp' extra (opentelemetry-sdk) is not installed")

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from session_gen import SESSION, build  # noqa: E402

from tracetui.demo.transcript import TranscriptBuilder  # noqa: E402
from tracetui.export.otlp import resource, to_readable  # noqa: E402
from tracetui.export.plan import plan_spans  # noqa: E402
from tracetui.export.spans import ledger_keys, span_id  # noqa: E402
from tracetui.session.open import load_state  # noqa: E402


def _state(path: Path, data: bytes):
    path.write_bytes(data)
    return load_state([path], True, False)[1]


def _current(state, index: int):
    return next(e for e in state.episodes if e.index == index and e.lifecycle != "superseded")


def _late_result_session() -> tuple[TranscriptBuilder, bytes, bytes]:
    """A build left running when the next prompt comes; its result arrives during episode 2.
    Returns the builder, the bytes up to episode 2's answer, and the whole file."""
    b = TranscriptBuilder(session_id=SESSION)
    b.prompt("run the build")
    tid = b.tick(1).tool_use("Bash", {"command": "make build"})
    b.tick(5).prompt("meanwhile, what is 2+2?")
    b.tick(1).text("4.")
    before = b.data()
    b.tick(20).tool_result(tid, "build ok")
    b.tick(1).text("The build passed too.")
    b.tick(30).prompt("thanks")
    b.tick(1).text("You're welcome.")
    return b, before, b.data()


def test_an_episode_with_a_call_open_waits_for_its_late_result(tmp_path):
    _b, before, after = _late_result_session()
    path = tmp_path / f"{SESSION}.jsonl"
    live = plan_spans(_state(path, before), settle=1e9, now=0)
    # episode 1 is closed by the next prompt, but its build has no result yet: it waits
    assert "episode:1" not in {s.key for s in live.spans}
    sent = set(ledger_keys(live.spans))
    state = _state(path, after)
    later = plan_spans(state, settle=1e9, now=0, sent=sent)
    ep1 = [s for s in later.spans if s.key == "episode:1"]
    assert len(ep1) == 1
    cur = _current(state, 1)
    assert cur.version > 1 and ep1[0].attributes["tracetui.episode.version"] == cur.version
    assert ep1[0].attributes["tracetui.episode.status"] == cur.status


def test_an_episode_with_a_call_that_never_returns_waits_one_episode_only(tmp_path):
    b = TranscriptBuilder(session_id=SESSION)
    b.prompt("run the build")
    b.tick(1).tool_use("Bash", {"command": "make build"})
    b.tick(5).prompt("never mind, what is 2+2?")
    b.tick(1).text("4.")
    path = tmp_path / f"{SESSION}.jsonl"
    assert "episode:1" not in {s.key for s in plan_spans(_state(path, b.data()), settle=1e9, now=0).spans}
    b.tick(5).prompt("and 3+3?")  # the episode after it is closed: no late result came
    b.tick(1).text("6.")
    ep1 = [s for s in plan_spans(_state(path, b.data()), settle=1e9, now=0).spans if s.key == "episode:1"]
    assert len(ep1) == 1 and ep1[0].attributes["tracetui.episode.status"] == "interrupted"


def _retry_session() -> tuple[bytes, bytes]:
    """Episode 1 ends on a failing test run (unresolved); in episode 2 the same run passes,
    which resolves it (a new version of episode 1, status ``errors``)."""
    b = TranscriptBuilder(session_id=SESSION)
    b.prompt("run the tests")
    b.tick(1).tool("Bash", {"command": "pytest -q"}, "1 failed", is_error=True, took=2)
    b.tick(10).prompt("try again")
    before = b.data()
    b.tick(1).tool("Bash", {"command": "pytest -q"}, "1 passed", took=2)
    b.tick(1).text("It passes now.")
    b.tick(30).prompt("good")
    b.tick(1).text("Done.")
    return before, b.data()


def test_an_episode_changed_after_it_went_gets_a_linked_revision(tmp_path):
    before, after = _retry_session()
    path = tmp_path / f"{SESSION}.jsonl"
    first = plan_spans(_state(path, before), settle=1e9, now=0)
    base = next(s for s in first.spans if s.key == "episode:1")
    assert base.attributes["tracetui.episode.status"] == "unresolved"
    sent = set(ledger_keys(first.spans))
    state = _state(path, after)
    cur = _current(state, 1)
    assert cur.version > base.attributes["tracetui.episode.version"] and cur.status == "errors"
    later = plan_spans(state, settle=1e9, now=0, sent=sent)
    assert "episode:1" not in {s.key for s in later.spans}  # never the same id twice
    rev = [s for s in later.spans if s.attributes.get("tracetui.revision.of") == "episode:1"]
    assert len(rev) == 1
    r = rev[0]
    assert r.parent == "episode:1" and r.links == ("episode:1",) and r.name == "episode 1"
    assert r.attributes["tracetui.episode.version"] == cur.version and r.attributes["tracetui.episode.status"] == "errors"
    assert r.attributes["tracetui.revision.number"] == 1
    assert r.status == "unset"  # no longer an error: it was resolved
    # sent once: a third plan adds nothing
    sent |= set(ledger_keys(later.spans))
    assert not [s for s in plan_spans(state, settle=1e9, now=0, sent=sent).spans if s.key.startswith("rev:")]
    # the link and the parent reach the collector as span ids of the same trace
    mem = InMemorySpanExporter()
    mem.export(to_readable(SESSION, [r], resource()))
    got = mem.get_finished_spans()[0]
    assert [ln.context.span_id for ln in got.links] == [span_id(SESSION, "episode:1")] == [got.parent.span_id]


def test_a_resumed_session_sends_its_span_again_as_a_revision(tmp_path):
    # the first part settles (its session span goes), then the session resumes
    path, _ = build(tmp_path, second_prompt=False)
    first = plan_spans(load_state([path], True, False)[1], settle=0)
    root = next(s for s in first.spans if s.key == "session")
    sent = set(ledger_keys(first.spans))
    full, _ = build(tmp_path / "full")
    state = load_state([full], True, False)[1]
    later = plan_spans(state, settle=0, sent=sent)
    rev = [s for s in later.spans if s.attributes.get("tracetui.revision.of") == "session"]
    assert len(rev) == 1
    r = rev[0]
    assert r.parent == "session" and r.links == ("session",) and r.name == root.name
    assert r.start_ns == root.start_ns and r.end_ns > root.end_ns
    assert r.attributes["gen_ai.usage.output_tokens"] == state.tokens.output > root.attributes["gen_ai.usage.output_tokens"]
    assert r.attributes["tracetui.api_messages"] == state.counters.api_messages
    # a restart with nothing new sends nothing; a restart after more records sends one more
    sent |= set(ledger_keys(later.spans))
    assert plan_spans(state, settle=0, sent=sent).spans == []


def test_a_call_sent_pending_gets_a_revision_when_its_result_comes(tmp_path):
    b = TranscriptBuilder(session_id=SESSION)
    b.prompt("run the build")
    tid = b.tick(1).tool_use("Bash", {"command": "make build"})
    before = b.data()
    b.tick(600).tool_result(tid, "build failed", is_error=True)
    b.tick(1).text("The build failed.")
    path = tmp_path / f"{SESSION}.jsonl"
    first = plan_spans(_state(path, before), settle=0)  # settled: the pending call went as it stood
    call = next(s for s in first.spans if s.key == f"tool:{tid}")
    assert call.attributes["tracetui.tool.pending"] is True
    later = plan_spans(_state(path, after := b.data()), settle=0, sent=ledger_keys(first.spans))
    assert after
    rev = [s for s in later.spans if s.attributes.get("tracetui.revision.of") == f"tool:{tid}"]
    assert len(rev) == 1 and rev[0].status == "error" and "tracetui.tool.pending" not in rev[0].attributes
    assert rev[0].end_ns - rev[0].start_ns == 600 * 10**9


def test_a_ledger_without_revision_marks_sends_no_revision(tmp_path):
    # keys recorded before revisions existed name no version: nothing is re-sent on a guess
    before, after = _retry_session()
    path = tmp_path / f"{SESSION}.jsonl"
    first = plan_spans(_state(path, before), settle=1e9, now=0)
    old = {s.key for s in first.spans} | {e.key for s in first.spans for e in s.events}
    later = plan_spans(_state(path, after), settle=1e9, now=0, sent=old)
    assert not [s for s in later.spans if s.key.startswith("rev:")]


def test_a_message_sent_open_gets_a_revision_when_more_of_it_comes(tmp_path):
    b = TranscriptBuilder(session_id=SESSION)
    b.prompt("read both")
    with b.message():
        t1 = b.tool_use("Read", {"file_path": "a.py"})
        b.tick(0.1).tool_result(t1, "a")
        before = b.data()
        t2 = b.tool_use("Read", {"file_path": "b.py"})
    b.tick(0.1).tool_result(t2, "b")
    b.tick(1).text("Both read.")
    path = tmp_path / f"{SESSION}.jsonl"
    first = plan_spans(_state(path, before), settle=0)  # settled while the message was open
    chat = next(s for s in first.spans if s.key.startswith("chat:"))
    assert chat.attributes["gen_ai.usage.output_tokens"] == 80
    later = plan_spans(_state(path, b.data()), settle=0, sent=set(ledger_keys(first.spans)))
    rev = [s for s in later.spans if s.attributes.get("tracetui.revision.of") == chat.key]
    assert len(rev) == 1 and rev[0].attributes["gen_ai.usage.output_tokens"] == 160


def test_the_last_episode_sent_open_gets_a_revision_when_it_goes_on(tmp_path):
    # sixth user trial: sent open when the session settled, the last episode stayed "in
    # progress, 10 calls" at the collector while the session's revision said 30
    b = TranscriptBuilder(session_id=SESSION)
    b.prompt("read everything")
    for i in range(3):
        tid = b.tick(1).tool_use("Read", {"file_path": f"f{i}.py"})
        b.tick(0.1).tool_result(tid, "x")
    before = b.data()
    for i in range(3, 8):
        tid = b.tick(1).tool_use("Read", {"file_path": f"f{i}.py"})
        b.tick(0.1).tool_result(tid, "x")
    path = tmp_path / f"{SESSION}.jsonl"
    first = plan_spans(_state(path, before), settle=0)
    (ep,) = [s for s in first.spans if s.key == "episode:1"]
    assert ep.attributes["tracetui.episode.status"] == "in_progress" and ep.attributes["tracetui.episode.tool_calls"] == 3
    sent = set(ledger_keys(first.spans))
    later = plan_spans(_state(path, b.data()), settle=0, sent=sent)
    (rev,) = [s for s in later.spans if s.attributes.get("tracetui.revision.of") == "episode:1"]
    assert rev.attributes["tracetui.episode.tool_calls"] == 8 and rev.end_ns > ep.end_ns
    again = plan_spans(_state(path, b.data()), settle=0, sent=sent | set(ledger_keys(later.spans)))
    assert not [s for s in again.spans if s.attributes.get("tracetui.revision.of") == "episode:1"]  # nothing new: none again
