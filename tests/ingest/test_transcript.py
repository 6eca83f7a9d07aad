"""The transcript builder (tracetui/demo/records.py, transcript.py): shapes, determinism, what the fold reads from it."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from tracetui.demo import records as r
from tracetui.demo.build import DATA_DIR, DEMO_AGENT_ID, DEMO_SESSION_ID, build_demo, write_demo
from tracetui.demo.transcript import TranscriptBuilder
from tracetui.ingest.session_files import subagent_files
from tracetui.model.session_fold import fold_bytes

TS = "2026-01-01T00:00:00.000Z"


def test_the_shipped_demo_files_are_what_the_demo_script_writes(tmp_path: Path) -> None:
    main, sub = write_demo(tmp_path)
    meta = sub.with_name(f"agent-{DEMO_AGENT_ID}.meta.json")
    for path in (main, sub, meta):
        assert path.read_bytes() == (DATA_DIR / path.relative_to(tmp_path)).read_bytes(), f"run python -m tracetui.demo.build ({path.name})"


def test_the_same_calls_give_the_same_bytes() -> None:
    (m1, a1), (m2, a2) = build_demo(), build_demo()
    assert m1.data() == m2.data() and a1.data() == a2.data()
    assert build_demo(start="2026-03-02T10:00:00.000Z")[0].data() != m1.data()


def test_records_take_every_id_and_time_from_the_caller() -> None:
    rec = r.assistant(
        [r.tool_use_block("toolu_9", "Bash", {"command": "ls"})],
        msg_id="msg_9",
        usage=r.usage(3, 4, 5, 6),
        request_id="req_9",
        uuid="u9",
        ts=TS,
        parent="u8",
        agent_id="a1",
        sidechain=True,
    )
    assert list(rec)[:11] == [
        "parentUuid",
        "isSidechain",
        "userType",
        "cwd",
        "sessionId",
        "version",
        "gitBranch",
        "agentId",
        "type",
        "uuid",
        "timestamp",
    ]
    assert (rec["uuid"], rec["parentUuid"], rec["timestamp"], rec["agentId"], rec["requestId"]) == ("u9", "u8", TS, "a1", "req_9")
    msg = rec["message"]
    assert msg["id"] == "msg_9" and msg["content"][0]["id"] == "toolu_9"
    assert msg["usage"] == {
        "input_tokens": 3,
        "output_tokens": 4,
        "cache_creation_input_tokens": 5,
        "cache_read_input_tokens": 6,
        "service_tier": "standard",
    }
    res = r.tool_result("toolu_9", "out", is_error=True, result="Error: out", uuid="u10", ts=TS, sourceToolAssistantUUID="u9")
    assert res["message"]["content"] == [{"tool_use_id": "toolu_9", "type": "tool_result", "content": "out", "is_error": True}]
    assert list(res)[-2:] == ["toolUseResult", "sourceToolAssistantUUID"]
    assert r.meta("ai-title", "s1", aiTitle="T") == {"type": "ai-title", "aiTitle": "T", "sessionId": "s1"}


def test_bytes_are_compact_json_and_a_lone_surrogate_survives() -> None:
    rec = r.user("caf\u00e9 \x1b[31m", uuid="u1", ts=TS)
    assert r.line(rec) == json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode()
    broken = r.line(r.user("\ud83d alone", uuid="u2", ts=TS))
    assert b'"\xed\xa0\xbd alone"' in broken  # what a broken writer leaves: invalid UTF-8
    assert r.jsonl([rec, b"{torn"], final_newline=False).endswith(b"\n{torn")
    assert r.jsonl([]) == b""


def test_one_api_message_spans_records_that_repeat_its_usage() -> None:
    b = TranscriptBuilder()
    b.prompt("go")
    with b.message():
        b.thinking(output=10)
        first = b.tool_use("Read", {"file_path": "/a"}, output=20)
        b.tool_result(first, "a")  # parallel calls: a result between the blocks of one message
        b.tool_use("Read", {"file_path": "/b"}, output=30)
    b.text("done", output=5)
    msgs = [rec["message"] for rec in b.records if rec["type"] == "assistant"]
    assert len({m["id"] for m in msgs[:3]}) == 1 and msgs[3]["id"] != msgs[0]["id"]
    assert len({rec["requestId"] for rec in b.records if rec["type"] == "assistant"}) == 2
    assert [m["usage"]["output_tokens"] for m in msgs] == [10, 30, 60, 5]  # partial counts, the total on the last
    assert len({(m["usage"]["input_tokens"], m["usage"]["cache_read_input_tokens"]) for m in msgs[:3]}) == 1
    # the next message sees the context grown by the whole first one, once
    first_usage = msgs[0]["usage"]
    assert msgs[3]["usage"]["cache_read_input_tokens"] == 18_000 + first_usage["cache_creation_input_tokens"] + 60
    st = fold_bytes(b.data())
    assert st.counters.api_messages == 2
    assert st.tokens.output == 65 and st.tokens.input == first_usage["input_tokens"] + msgs[3]["usage"]["input_tokens"]


def test_a_message_inside_a_message_is_refused() -> None:
    b = TranscriptBuilder()
    with b.message(), pytest.raises(RuntimeError):
        with b.message():
            pass


def test_a_subagent_is_written_in_either_layout_and_its_task_call_answered(tmp_path: Path) -> None:
    m = TranscriptBuilder(session_id=DEMO_SESSION_ID)
    m.prompt("explore")
    task = m.tool_use("Task", {"description": "look", "prompt": "look around", "subagent_type": "Explore"})
    a = m.subagent("a0123456789abcdef", task, agent_type="Explore", description="look")
    a.tick(1.0).prompt("look around")
    a.tick(2.5).tool("Grep", {"pattern": "x"}, "none")
    a.text("nothing there")
    m.sync(a).tick(0.5).task_result(a, "Nothing there.")
    assert a.records[0]["timestamp"] > m.records[1]["timestamp"] and m.records[-1]["timestamp"] > a.records[-1]["timestamp"]
    assert all(rec["isSidechain"] and rec["agentId"] == "a0123456789abcdef" and rec["sessionId"] == DEMO_SESSION_ID for rec in a.records)
    result = m.records[-1]["toolUseResult"]
    assert (result["agentId"], result["totalToolUseCount"], result["totalDurationMs"]) == ("a0123456789abcdef", 1, 4500)
    assert m.records[-1]["message"]["content"][0]["content"].startswith("Nothing there.\nagentId: a0123456789abcdef ")

    main = m.write_session(tmp_path / "new")
    [found] = subagent_files(main)
    assert (found.agent_id, found.tool_use_id) == ("a0123456789abcdef", task)
    assert orjson.loads(found.path.with_name("agent-a0123456789abcdef.meta.json").read_bytes())["agentType"] == "Explore"
    old = m.write_session(tmp_path / "old", nested=False)
    assert [f.path.name for f in subagent_files(old)] == ["agent-a0123456789abcdef.jsonl"]


def test_a_given_tool_use_id_is_kept() -> None:
    b = TranscriptBuilder()
    assert b.tool_use("Bash", {"command": "ls"}, tool_id="toolu_mine") == "toolu_mine"
    assert b.tool_use("Bash", {"command": "ls"}).startswith("toolu_01")
