"""Property: any split of a file's bytes into appended chunks gives the same state as reading it
whole (issue 2 §7). Each chunk is appended to the file and polled before the next one is written.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from fixtures import (
    assistant,
    bash_input,
    compact_boundary,
    line,
    progress,
    prompt,
    slash,
    system,
    text_block,
    tool_result,
    tool_use_block,
    usage,
    user,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracetui.session.reader import SessionReader
from tracetui.views.state_json import state_to_json

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)
ids = st.sampled_from(["t1", "t2", "t3", "t4"])
msg_ids = st.sampled_from(["m1", "m2", "m3", None])
tools = st.sampled_from(["Bash", "Read", "Edit", "Write", "TodoWrite", "TaskCreate", "TaskUpdate", "Task", "Agent", "Grep"])
side = st.booleans()


@st.composite
def records(draw) -> bytes:
    """One line's bytes (without newline): a record, or one of the anomalies seen in real files."""
    kind = draw(st.integers(0, 15))
    sc = draw(side)
    if kind == 0:
        rec = prompt(draw(texts), sidechain=sc)
    elif kind == 1:
        rec = slash("/" + draw(st.sampled_from(["review", "clear", "mcp"])), draw(texts))
    elif kind == 2:
        rec = bash_input(draw(texts))
    elif kind == 3:
        rec = user(
            draw(st.sampled_from(["[Request interrupted by user]", "<local-command-stdout>x</local-command-stdout>", "meta"])),
            isMeta=draw(st.booleans()),
        )
    elif kind == 4:
        name = draw(tools)
        inp = draw(
            st.sampled_from(
                [
                    {"file_path": "/a.py"},
                    {"command": "ls"},
                    {"todos": [{"content": "x", "status": "pending"}]},
                    {"subject": "s"},
                    {"taskId": "1", "status": "completed"},
                    {"description": "d", "prompt": "p"},
                ]
            )
        )
        rec = assistant(
            [tool_use_block(draw(ids), name, inp)], msg_id=draw(msg_ids), u=usage(*draw(st.tuples(*[st.integers(0, 50)] * 4))), sidechain=sc
        )
    elif kind == 5:
        res = draw(st.sampled_from([None, {"agentId": "a1", "status": "completed"}, {"task": {"id": "1", "subject": "s"}}, "Error: x"]))
        rec = tool_result(draw(ids), draw(texts), is_error=draw(st.sampled_from([None, True, False])), result=res, sidechain=sc)
    elif kind == 6:
        rec = assistant(
            [text_block(draw(texts))],
            msg_id=draw(msg_ids),
            u=usage(*draw(st.tuples(*[st.integers(0, 50)] * 4))),
            request_id=draw(st.sampled_from(["r1", None])),
        )
    elif kind == 7:
        rec = compact_boundary()
    elif kind == 8:
        rec = draw(
            st.sampled_from(
                [
                    system("turn_duration", durationMs=5),
                    progress({"type": "agent_progress", "agentId": "a1"}, parent_tool="t1"),
                    {"type": "summary", "summary": "T", "leafUuid": "x"},
                    {"type": "new-kind", "x": 1},
                ]
            )
        )
    elif kind == 9:  # a non-object JSON line
        return draw(st.sampled_from([b'"massive error"', b"42", b"[1]", b"null"]))
    elif kind == 10:  # invalid UTF-8 inside a string
        return line(dict(prompt("PLACEHOLDER"), uuid="u-b")).replace(
            b"PLACEHOLDER", draw(st.sampled_from([b"\xff", b"caf\xe9", b"\xc3", b"ok\xed\xa0\x80"]))
        )
    elif kind == 11:  # an escaped lone surrogate
        return json.dumps(dict(prompt("x\udcb2" + draw(texts)), uuid="u-s")).encode()
    elif kind == 12:  # two objects on one line
        return line(dict(prompt(draw(texts)), uuid="u-c")) + b'{"type":"summary","summary":"S","leafUuid":"l"}'
    elif kind == 13:  # a torn line that got its newline anyway (writer crashed mid-record)
        whole = line(dict(prompt(draw(texts)), uuid="u-t"))
        return whole[: draw(st.integers(1, max(1, len(whole) - 1)))]
    elif kind == 14:  # an object followed by garbage, or a blank line
        return draw(st.sampled_from([line(dict(prompt("a"), uuid="u-g")) + b" trailing", b"", b"   "]))
    else:
        rec = user([tool_result_block_dict(draw(ids)), text_block(draw(texts))])
    # the builders number records from a global counter: replace what it set, so the bytes
    # depend on the draws only (hypothesis replays examples)
    rec = dict(rec)
    if "uuid" in rec:
        rec["uuid"] = f"u-{draw(st.integers(0, 20))}"
    if "toolUseID" in rec:
        rec["toolUseID"] = "tp"
    return line(rec)


def tool_result_block_dict(tid: str) -> dict:
    return {"type": "tool_result", "tool_use_id": tid, "content": [{"type": "text", "text": "r"}]}


@st.composite
def files_and_cuts(draw) -> tuple[bytes, list[int]]:
    lines = draw(st.lists(records(), min_size=1, max_size=12))
    data = b"\n".join(lines)
    if draw(st.booleans()):
        data += b"\n"
    n = len(data)
    if n <= 1:
        return data, []
    # cut anywhere, and often right after a '}' (where a complete object may sit at end of file)
    closers = [i + 1 for i, b in enumerate(data) if b == 0x7D and i + 1 < n] or [1]
    anywhere = draw(st.lists(st.integers(1, n - 1), max_size=8))
    after_obj = draw(st.lists(st.sampled_from(closers), max_size=4))
    return data, sorted(set(anywhere + after_obj))


#: I/O-only fields: where the reader stopped inside a line with no newline may differ by the
#: whitespace between a record and a bad part after it; records, events and anchors may not
IO_FIELDS = ("bytes_consumed", "resume_offset", "pending_bytes")


def _comparable(reader: SessionReader) -> tuple[dict, list]:
    state = reader.snapshot()
    js = state_to_json(state)
    for s in js["sources"]:
        for k in IO_FIELDS:
            s.pop(k)
    return js, [list(ev) for ev in state.ledgers]


def _read_whole(path: Path, data: bytes) -> tuple[dict, list]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    r = SessionReader(path, subagents=False, price=False)
    r.poll()
    return _comparable(r)


def _read_chunked(path: Path, data: bytes, cuts: list[int], finals: list[bool]) -> tuple[dict, list]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    r = SessionReader(path, subagents=False, price=False)
    bounds = [0, *cuts, len(data)]
    for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
        with open(path, "ab") as f:
            f.write(data[a:b])
        r.poll(final=finals[i % len(finals)] if i < len(bounds) - 2 else True)
    return _comparable(r)


@settings(
    max_examples=int(__import__("os").environ.get("CHUNK_EXAMPLES", "300")), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(files_and_cuts(), st.lists(st.booleans(), min_size=1, max_size=4))
def test_any_chunking_gives_the_same_state(fc: tuple[bytes, list[int]], finals: list[bool]) -> None:
    data, cuts = fc
    with tempfile.TemporaryDirectory() as d:
        whole = _read_whole(Path(d) / "whole" / "s.jsonl", data)
        chunked = _read_chunked(Path(d) / "chunked" / "s.jsonl", data, cuts, finals)
    js_w, ev_w = whole
    js_c, ev_c = chunked
    for s in js_w["sources"] + js_c["sources"]:
        s.pop("path")  # the two files are in different folders; everything else must agree
    assert js_c == js_w
    assert ev_c == ev_w


def test_garbage_after_an_object_split_at_the_object_end(tmp_path: Path) -> None:
    first = line(prompt("x")) + b"\n"
    obj = line(prompt("a"))
    for tail in (b" trailing\n", b"}}garbage\n", b'{"type":"summary","summary":"S"}\n'):
        data = first + obj + tail
        whole = _read_whole(tmp_path / "w" / "s.jsonl", data)
        chunked = _read_chunked(tmp_path / "c" / "s.jsonl", data, [len(first) + len(obj)], [True])
        for js, _ in (whole, chunked):
            for s in js["sources"]:
                s.pop("path")
        assert chunked == whole


def test_byte_by_byte_matches_whole(tmp_path: Path) -> None:
    data = b"\n".join(
        [
            line(prompt("caf\u00e9 \u2603 goal")),
            line(assistant([tool_use_block("t1", "Read", {"file_path": "/x"})], u=usage(5, 6))),
            b"[1]",
            line(prompt("a")) + b'{"type":"summary","summary":"S","leafUuid":"l"}',
            line(tool_result("t1", "r\xe9sultat")).replace(b"sultat", b"sultat\xff"),
            line(prompt("last")),
        ]
    )
    whole = _read_whole(tmp_path / "a" / "s.jsonl", data)
    chunked = _read_chunked(tmp_path / "b" / "s.jsonl", data, list(range(1, len(data))), [True, False])
    for js, _ in (whole, chunked):
        for s in js["sources"]:
            s.pop("path")
    assert chunked == whole
    assert whole[0]["counters"]["records"] == 6 and whole[0]["counters"]["malformed"] == 1
