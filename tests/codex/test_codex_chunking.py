"""Property: any split of a Codex rollout's bytes into appended chunks gives the same state (and
the same ledger) as reading it whole, as for a Claude Code transcript (tests/model/test_chunking.py):
the file's first record decides the fold however the first line arrives."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracetui.session.reader import SessionReader
from tracetui.views.state_json import state_to_json

TS = ["2026-03-02T09:00:00.000Z", "2026-03-02T09:00:00.500Z", "2026-03-02T09:00:01.000Z", "2026-03-02T09:00:02.000Z"]
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
cids = st.sampled_from(["c1", "c2", "c3"])
PARENT = "0199c0de-0000-7000-8000-00000000000p"


def _line(draw, type_: str, payload: dict) -> bytes:
    return orjson.dumps({"timestamp": draw(st.sampled_from(TS)), "type": type_, "payload": payload})


@st.composite
def records(draw) -> bytes:
    """One line of a rollout: a record of a known or unknown kind, or a bad line."""
    k = draw(st.integers(0, 13))
    if k == 0:
        return _line(draw, "event_msg", {"type": "user_message", "message": draw(texts)})
    if k == 1:
        return _line(draw, "turn_context", {"turn_id": "t", "model": draw(st.sampled_from(["gpt-5.4", "gpt-5.5"]))})
    if k == 2:
        tot = dict(zip(("input_tokens", "cached_input_tokens", "output_tokens"), draw(st.tuples(*[st.integers(0, 90)] * 3))))
        return _line(draw, "event_msg", {"type": "token_count", "info": {"total_token_usage": tot}, "rate_limits": None})
    if k == 3:
        args = orjson.dumps(draw(st.sampled_from([{"cmd": "ls"}, {"plan": [{"step": "a", "status": "pending"}]}]))).decode()
        name = draw(st.sampled_from(["exec_command", "update_plan", "spawn_agent"]))
        return _line(draw, "response_item", {"type": "function_call", "name": name, "arguments": args, "call_id": draw(cids)})
    if k == 4:
        patch = "*** Begin Patch\n*** Update File: a.py\n*** Add File: b.py\n*** End Patch\n"
        return _line(draw, "response_item", {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": draw(cids)})
    if k == 5:
        return _line(
            draw,
            "response_item",
            {
                "type": draw(st.sampled_from(["function_call_output", "custom_tool_call_output"])),
                "call_id": draw(cids),
                "output": draw(texts),
            },
        )
    if k == 6:
        return _line(draw, "event_msg", {"type": "exec_command_end", "call_id": draw(cids), "exit_code": draw(st.integers(0, 2))})
    if k == 7:
        return _line(draw, "event_msg", {"type": "turn_aborted", "reason": draw(st.sampled_from(["interrupted", "other"]))})
    if k == 8:
        return _line(draw, draw(st.sampled_from(["compacted", "mystery"])), {"message": ""})
    if k == 9:
        return _line(draw, "session_meta", {"id": PARENT, "cwd": "/p"})
    if k == 10:
        return _line(
            draw, "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": draw(texts)}]}
        )
    if k == 11:  # a torn line that got its newline anyway
        whole = _line(draw, "event_msg", {"type": "agent_message", "message": "x"})
        return whole[: draw(st.integers(1, len(whole) - 1))]
    if k == 12:  # two objects on one line, or an object and garbage
        return _line(draw, "event_msg", {"type": "task_started"}) + draw(
            st.sampled_from([b" trailing", b'{"type":"compacted","payload":{}}'])
        )
    return draw(st.sampled_from([b"", b"  ", b"42"]))


@st.composite
def files_and_cuts(draw) -> tuple[bytes, list[int]]:
    meta = {"id": "0199c0de-0000-7000-8000-0000000000c1", "source": {"subagent": {"thread_spawn": {"parent_thread_id": PARENT}}}}
    first = orjson.dumps({"timestamp": TS[0], "type": "session_meta", "payload": meta if draw(st.booleans()) else {"id": "x"}})
    lines = [first, *draw(st.lists(records(), min_size=0, max_size=12))]
    data = b"\n".join(lines)
    if draw(st.booleans()):
        data += b"\n"
    n = len(data)
    closers = [i + 1 for i, b in enumerate(data) if b == 0x7D and i + 1 < n] or [1]
    cuts = draw(st.lists(st.integers(1, n - 1), max_size=8)) + draw(st.lists(st.sampled_from(closers), max_size=4))
    return data, sorted(set(cuts))


IO_FIELDS = ("bytes_consumed", "resume_offset", "pending_bytes", "path")


def _comparable(r: SessionReader) -> tuple[dict, list, tuple]:
    state = r.snapshot()
    js = state_to_json(state)
    for s in js["sources"]:
        for k in IO_FIELDS:
            s.pop(k)
    extra = (state.agent, [(s.agent, s.replayed) for s in state.sources], state.main.rate_limits, state.episodes)
    return js, [list(ev) for ev in state.ledgers], extra


def _read(path: Path, data: bytes, cuts: list[int], finals: list[bool]) -> tuple[dict, list, tuple]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    r = SessionReader(path, subagents=False, price=False)
    bounds = [0, *cuts, len(data)]
    for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
        with open(path, "ab") as f:
            f.write(data[a:b])
        r.poll(final=finals[i % len(finals)] if i < len(bounds) - 2 else True)
    return _comparable(r)


@settings(max_examples=int(os.environ.get("CHUNK_EXAMPLES", "200")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files_and_cuts(), st.lists(st.booleans(), min_size=1, max_size=4))
def test_any_chunking_of_a_rollout_gives_the_same_state(fc: tuple[bytes, list[int]], finals: list[bool]) -> None:
    data, cuts = fc
    with tempfile.TemporaryDirectory() as d:
        whole = _read(Path(d) / "w" / "r.jsonl", data, [], [True])
        chunked = _read(Path(d) / "c" / "r.jsonl", data, cuts, finals)
    assert whole[2][0] == "codex"
    assert chunked == whole
