"""The span plan of a generated session, through the SDK's in-memory exporter: names, parents,
GenAI attributes, times from the records, anomalies as events, content only when asked (masked),
ids derived from the session and the event ids, and nothing planned twice or before it is complete."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="the 'otlp' extra (opentelemetry-sdk) is not installed")

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import SpanKind, StatusCode  # noqa: E402
from session_gen import AGENT, SECRET, SESSION, build  # noqa: E402

from tracetui.export.otlp import resource, to_readable  # noqa: E402
from tracetui.export.plan import plan_spans, usage_attributes  # noqa: E402
from tracetui.export.spans import span_id, trace_id  # noqa: E402
from tracetui.session.open import load_state  # noqa: E402


def _ns(ts: str) -> int:
    return int(datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()) * 1_000_000_000


def _load(tmp_path: Path, **kw):
    path, b = build(tmp_path, **kw)
    _reader, state = load_state([path], True, False)
    return state, b


def _spans(state, **kw):
    plan = plan_spans(state, settle=0, **kw)
    mem = InMemorySpanExporter()
    mem.export(to_readable(SESSION, plan.spans, resource()))
    assert mem.force_flush()
    return {s.name + "|" + str(s.attributes.get("tracetui.anchor")): s for s in mem.get_finished_spans()}, plan


def test_tree_names_parents_and_attributes(tmp_path):
    state, b = _load(tmp_path)
    spans, plan = _spans(state)
    by_id = {s.context.span_id: s for s in spans.values()}
    assert len(by_id) == len(spans) == len(plan.spans)  # ids unique
    assert {s.context.trace_id for s in spans.values()} == {trace_id(SESSION)}

    root = next(s for s in spans.values() if s.parent is None)
    assert root.name == "invoke_agent Claude Code"
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["gen_ai.conversation.id"] == SESSION
    assert root.attributes["gen_ai.provider.name"] == "anthropic"
    assert root.context.span_id == span_id(SESSION, "session")
    assert root.start_time == _ns("2026-03-02T09:00:00.000Z")  # the first record's time, not the clock

    episodes = sorted((s for s in spans.values() if s.name.startswith("episode ")), key=lambda s: s.start_time)
    assert [e.name for e in episodes] == ["episode 1", "episode 2"]
    assert all(e.parent.span_id == root.context.span_id for e in episodes)
    assert episodes[0].attributes["tracetui.episode.status"] == "errors"
    assert episodes[0].attributes["tracetui.episode.version"] == 1

    # the Task call's span, and the subagent's invoke_agent under it
    task = next(s for s in spans.values() if s.name == "execute_tool Task")
    assert task.parent.span_id == episodes[0].context.span_id
    sub = next(s for s in spans.values() if s.name == "invoke_agent Explore")
    assert sub.parent.span_id == task.context.span_id
    assert sub.attributes["gen_ai.agent.id"] == AGENT
    read = next(s for s in spans.values() if s.name == "execute_tool Read")
    assert read.parent.span_id == sub.context.span_id
    assert read.attributes["tracetui.anchor"] == f"agent-{AGENT}.jsonl:2"

    # tool calls: id, error status on the failed ones
    bash = sorted((s for s in spans.values() if s.name == "execute_tool Bash"), key=lambda s: s.start_time)
    assert len(bash) == 5  # three failures, the passing run, the commit
    assert [s.status.status_code for s in bash[:3]] == [StatusCode.ERROR] * 3
    assert bash[3].status.status_code == StatusCode.UNSET
    assert all(s.attributes["gen_ai.tool.call.id"].startswith("toolu_") for s in bash)
    assert all(s.attributes["error.type"] == "tool_error" for s in bash[:3])
    assert bash[0].end_time - bash[0].start_time == 2_000_000_000  # tool_use to tool_result, as written

    # chat spans: the model in the name, the Anthropic input rule
    chats = [s for s in spans.values() if s.name.startswith("chat ")]
    assert chats and all(s.kind == SpanKind.CLIENT for s in chats)
    for c in chats:
        a = c.attributes
        assert c.name == f"chat {a['gen_ai.request.model']}"
        assert a["gen_ai.usage.input_tokens"] == (
            a["tracetui.usage.uncached_input_tokens"]
            + a["gen_ai.usage.cache_read.input_tokens"]
            + a["gen_ai.usage.cache_creation.input_tokens"]
        )
        assert a["gen_ai.usage.output_tokens"] > 0
    assert sum(c.attributes["gen_ai.usage.output_tokens"] for c in chats) == state.tokens.output

    # every span says where it comes from
    assert all(":" in str(s.attributes["tracetui.anchor"]) for s in spans.values())


def test_anomaly_is_an_event_of_its_episode(tmp_path):
    state, _ = _load(tmp_path)
    spans, _ = _spans(state)
    ep1 = next(s for s in spans.values() if s.name == "episode 1")
    kinds = {e.attributes["tracetui.anomaly.kind"]: e for e in ep1.events}
    streak = kinds["tool_error_streak"]
    assert streak.name == "tracetui.anomaly"
    assert streak.attributes["tracetui.anomaly.severity"] == "error"
    assert streak.attributes["tracetui.anchor"].endswith(".jsonl:6")
    assert "tracetui.anomaly.message" not in streak.attributes  # text only with --content


def test_content_is_off_by_default_and_masked_when_on(tmp_path):
    state, _ = _load(tmp_path)
    off, _ = _spans(state)
    for s in off.values():
        assert not any(k in s.attributes for k in ("gen_ai.input.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"))
        assert "pytest" not in (s.status.description or "")
    on, _ = _spans(state, content=True)
    ep1 = next(s for s in on.values() if s.name == "episode 1")
    assert "fix the failing test" in ep1.attributes["gen_ai.input.messages"]
    failed = next(s for s in on.values() if s.name == "execute_tool Bash" and s.status.status_code == StatusCode.ERROR)
    assert failed.attributes["gen_ai.tool.call.arguments"].startswith("pytest -q")
    for s in on.values():
        for v in [*s.attributes.values(), s.status.description or ""]:
            assert SECRET not in str(v)
    assert "redacted" in ep1.attributes["gen_ai.input.messages"]


def test_same_state_same_ids_and_sent_keys_left_out(tmp_path):
    state, _ = _load(tmp_path)
    a = plan_spans(state, settle=0)
    b = plan_spans(state, settle=0)
    assert [s.key for s in a.spans] == [s.key for s in b.spans]
    sent = {s.key for s in a.spans} | {e.key for s in a.spans for e in s.events}
    assert plan_spans(state, settle=0, sent=sent).spans == []


def test_open_spans_wait_until_complete_or_settled(tmp_path):
    # the session as it stands after the first episode's answer: no second prompt yet
    state, _ = _load(tmp_path, second_prompt=False)
    last = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC).timestamp() + 60
    live = plan_spans(state, settle=300, now=last)
    keys = {s.key for s in live.spans}
    assert "session" not in keys and "episode:1" not in keys  # still open
    assert any(k.startswith("tool:") for k in keys) and any(k.startswith("agent:") for k in keys)  # closed ones went
    assert live.held >= 2
    # the main thread's last message has no record after it yet: held too
    assert (
        len([k for k in keys if k.startswith("chat:")])
        == len([s for s in plan_spans(state, settle=0).spans if s.key.startswith("chat:")]) - 1
    )
    # an hour later the session has settled: the rest goes, nothing of the first plan again
    sent = keys | {e.key for s in live.spans for e in s.events}
    later = plan_spans(state, settle=300, now=last + 3600, sent=sent)
    assert {s.key for s in later.spans} & keys == set()
    assert "session" in {s.key for s in later.spans} and later.held == 0
    # the anomalies of the held episode travel with it
    ep1 = next(s for s in later.spans if s.key == "episode:1")
    assert any(e.attributes["tracetui.anomaly.kind"] == "tool_error_streak" for e in ep1.events)


def test_anomaly_seen_after_its_span_went_gets_a_span(tmp_path):
    state, _ = _load(tmp_path)
    full = plan_spans(state, settle=0)
    sent = {s.key for s in full.spans}  # the spans went, but not their events
    late = plan_spans(state, settle=0, sent=sent)
    assert late.spans and all(s.key.startswith("anomaly:") and s.parent == "episode:1" for s in late.spans)
    assert all(len(s.events) == 1 and s.events[0].key == s.key for s in late.spans)


def test_usage_attributes_follow_the_anthropic_rule():
    a = usage_attributes((3, 50, 200, 1000, 0))
    assert a["gen_ai.usage.input_tokens"] == 1203
    assert a["gen_ai.usage.cache_read.input_tokens"] == 1000
    assert a["gen_ai.usage.cache_creation.input_tokens"] == 200
    assert a["gen_ai.usage.output_tokens"] == 50
    # the fold keeps a Codex count's uncached input (input_tokens - cached_input_tokens):
    # OpenAI's input_tokens includes the cached part, so it is added back
    assert usage_attributes((3, 50, 0, 1000), provider="openai")["gen_ai.usage.input_tokens"] == 1003


def test_a_message_with_parallel_calls_waits_for_its_last_record(tmp_path):
    # one API message whose second tool_use comes after the first call's result (§7): the
    # result must not close the message, or its output tokens would go out short
    from tracetui.demo.transcript import TranscriptBuilder

    b = TranscriptBuilder(session_id=SESSION)
    b.prompt("read both")
    with b.message():
        t1 = b.tool_use("Read", {"file_path": "a.py"})
        b.tick(0.1).tool_result(t1, "a")
        partial = b.data()
        t2 = b.tool_use("Read", {"file_path": "b.py"})
    b.tick(0.1).tool_result(t2, "b")
    b.tick(1).text("Both read.")
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_bytes(partial)
    state = load_state([path], True, False)[1]
    assert not [s for s in plan_spans(state, settle=1e9, now=0).spans if s.key.startswith("chat:")]
    b.write(path)
    state = load_state([path], True, False)[1]
    chats = [s for s in plan_spans(state, settle=1e9, now=0).spans if s.key.startswith("chat:")]
    assert len(chats) == 1  # the two-call message; the answer is the last record, still open
    assert chats[0].attributes["gen_ai.usage.output_tokens"] == 160  # both blocks' 80 tokens
