"""Decode: bad bytes, non-objects, concatenated objects, unknown and mismatched types."""

from __future__ import annotations

import json

import msgspec
import pytest
from fixtures import assistant, jsonl, line, prompt, text_block, tool_call, tool_result, usage
from hypothesis import given, settings
from hypothesis import strategies as hst

from tracetui.ingest.content import decode_any, result_excerpt, result_text
from tracetui.ingest.decode import KNOWN_RECORD_TYPES, Quarantined, Record, decode_line, excerpt_of
from tracetui.model.session_fold import fold_bytes
from tracetui.views.state_json import state_to_json


def test_plain_record_decodes_to_one_item_at_offset_zero() -> None:
    raw = line(prompt("hello"))
    items = decode_line(raw)
    assert len(items) == 1
    rel, rec, payload = items[0]
    assert rel == 0 and isinstance(rec, Record)
    assert rec.type == "user" and rec.schema_error is None
    assert bytes(payload) == raw


def test_invalid_utf8_becomes_replacement_char() -> None:
    raw = line(prompt("PLACEHOLDER")).replace(b"PLACEHOLDER", b"caf\xe9 \xff ok")
    items = decode_line(raw)
    assert len(items) == 1 and isinstance(items[0][1], Record)
    st = fold_bytes(raw + b"\n")
    assert st.counters.records == 1 and st.counters.malformed == 0
    assert st.goal is not None
    assert st.goal.text == "caf\ufffd \ufffd ok"


def test_escaped_lone_surrogate_becomes_replacement_char() -> None:
    # json.dumps writes the lone surrogate as the escape \udcb2 (ASCII bytes)
    raw = json.dumps(prompt("x\udcb2y"), separators=(",", ":")).encode()
    assert b"\\udcb2" in raw
    st = fold_bytes(raw + b"\n")
    assert st.counters.records == 1 and st.counters.malformed == 0
    assert st.goal is not None and st.goal.text == "x\ufffdy"
    # the whole state encodes without error (no surrogate reaches an encoder)
    json.dumps(state_to_json(st), ensure_ascii=False).encode("utf-8")


def test_lone_surrogate_in_tool_result_does_not_crash() -> None:
    recs = [
        assistant([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls \udc80"}}], u=usage(1, 1)),
        tool_result("t1", "out \ud83d end"),
    ]
    data = b"\n".join(json.dumps(r).encode() for r in recs) + b"\n"
    st = fold_bytes(data)
    assert st.counters.tool_calls == 1 and st.counters.malformed == 0
    ev = [e for e in st.events(0) if e.kind == "tool_result"][0]
    assert "\ufffd" in ev.excerpt
    ev.excerpt.encode("utf-8")


def test_non_object_lines_are_quarantined_with_line_offset_reason_excerpt() -> None:
    good = line(prompt("first"))
    data = jsonl([good, b'"massive error"', b"42", b"[1]", b"{not json", line(prompt("last"))])
    st = fold_bytes(data)
    assert st.counters.records == 2
    assert st.counters.malformed == 4
    q = st.main.quarantine
    assert [e.anchor.line for e in q] == [2, 3, 4, 5]
    # offsets are byte offsets of each bad line in the file
    starts = [i + 1 for i, b in enumerate(data) if b == 0x0A][:4]
    assert [e.anchor.offset for e in q] == starts
    assert "not a JSON object" in q[0].reason and "str" in q[0].reason
    assert "not a JSON object" in q[1].reason and "int" in q[1].reason
    assert "not a JSON object" in q[2].reason and "list" in q[2].reason
    assert "invalid JSON" in q[3].reason
    assert q[0].excerpt == '"massive error"' and q[1].excerpt == "42" and q[3].excerpt == "{not json"
    assert st.sources[0].malformed == 4


def test_excerpt_of_long_bad_line_is_short() -> None:
    data = b"x" * 5000 + b"\n" + line(prompt("p")) + b"\n"
    st = fold_bytes(data)
    (q,) = st.main.quarantine
    assert len(q.excerpt) <= 80 and q.excerpt.startswith("xxx")


def test_two_objects_on_one_line_are_both_recovered_at_own_offsets() -> None:
    a = line(prompt("one"))
    b = b'{"type":"summary","summary":"A title","leafUuid":"abc"}'
    data = a + b + b"\n"
    items = decode_line(a + b)
    assert [rel for rel, _, _ in items] == [0, len(a)]
    assert all(isinstance(it, Record) for _, it, _ in items)
    st = fold_bytes(data)
    assert st.counters.records == 2 and st.counters.malformed == 0
    assert st.main.title == "A title"
    offs = [e.anchor.offset for e in st.events(0)]
    assert offs == [0, len(a)]
    assert {e.anchor.line for e in st.events(0)} == {1}


def test_object_followed_by_garbage_recovers_object_and_quarantines_rest() -> None:
    a = line(prompt("one"))
    st = fold_bytes(a + b"}}garbage\n")
    assert st.counters.records == 1 and st.counters.malformed == 1
    (q,) = st.main.quarantine
    assert q.anchor.offset == len(a)


def test_unknown_record_type_kept_and_counted() -> None:
    rec = {"type": "brand-new-thing", "uuid": "u-new", "payload": {"x": 1}}
    assert rec["type"] not in KNOWN_RECORD_TYPES
    st = fold_bytes(jsonl([prompt("hi"), rec, {"uuid": "no-type"}]))
    assert st.counters.records == 3
    assert st.counters.unknown_records == 2
    assert st.counters.malformed == 0
    kinds = [e.kind for e in st.events(0)]
    assert kinds == ["prompt", "unknown_record", "unknown_record"]
    ev = st.events(0)[1]
    assert ev.status == "unknown" and ev.name == "brand-new-thing" and ev.uuid == "u-new"
    assert [u.type for u in st.main.unknown] == ["brand-new-thing", "None"]
    assert st.sources[0].unknown == 2


def test_unknown_block_type_kept_and_counted() -> None:
    rec = assistant([{"type": "server_tool_use", "id": "s1", "name": "web"}], u=usage(5, 2))
    rec2 = assistant([text_block("hi"), {"type": "fallback", "from": "a", "to": "b"}], msg_id="msg_2", u=usage(1, 1))
    st = fold_bytes(jsonl([rec, rec2]))
    assert st.counters.records == 2 and st.counters.unknown_records == 0
    assert st.counters.unknown_blocks == 2
    evs = st.events(0)
    assert [e.kind for e in evs] == ["unknown_block", "assistant_text", "unknown_block"]
    assert [e.block for e in evs] == [0, 0, 1]
    assert evs[0].name == "server_tool_use" and evs[0].status == "unknown"
    # its usage still counts
    assert st.tokens.input == 6


def test_mistyped_field_is_ignored_and_the_record_kept() -> None:
    # a declared field of an unexpected type (isSidechain as a string, uuid as a number): the
    # record is kept without that field and counted as a shape problem (issue 10 item 11), not
    # dropped whole as unknown
    bad1 = {"type": "user", "uuid": 42, "message": {"role": "user", "content": "hi"}}
    bad2 = {"type": "assistant", "isSidechain": "yes", "message": {"id": "m", "content": []}}
    items = decode_line(line(bad1))
    ((rel, rec, _),) = items
    assert isinstance(rec, Record) and rec.type == "user" and rec.uuid is None and rec.schema_error is None
    assert rec.shape_error and "uuid" in rec.shape_error
    st = fold_bytes(jsonl([bad1, bad2, prompt("real")]))
    assert st.counters.records == 3
    assert st.counters.unknown_records == 0 and st.counters.shape_errors == 2
    assert st.counters.malformed == 0
    assert st.counters.user_prompts == 2 and st.goal.text == "hi" and st.latest_ask.text == "real"
    reasons = [u.reason for u in st.main.unknown]
    assert len(reasons) == 2 and "uuid" in reasons[0] and "isSidechain" in reasons[1]


@pytest.mark.parametrize("ts", [None, 1767225600, 1.5, ["2026-01-01"], {"t": 1}])
def test_record_with_a_mistyped_timestamp_keeps_its_tool_results(ts) -> None:
    # a timestamp that is null or a number: the result is still paired with its call (it used
    # to vanish with its record, and the call looked dangling)
    res = tool_result("toolu_1", "done", timestamp=ts)
    st = fold_bytes(jsonl([prompt("go"), tool_call("toolu_1", "Bash", {"command": "ls"}), res]))
    assert st.counters.tool_calls == 1 and not st.pending
    assert st.counters.unknown_records == 0
    assert st.counters.shape_errors == (0 if ts is None else 1)
    js = state_to_json(st)
    assert js["counters"]["shape_errors"] == (0 if ts is None else 1)
    if ts is not None:
        (u,) = js["unknown"]
        assert u["type"] == "user" and "timestamp" in u["reason"]


def test_several_mistyped_fields_and_a_mistyped_type() -> None:
    rec = {**tool_result("toolu_1", "done"), "timestamp": 5, "cwd": ["x"], "version": 2}
    ((_, r, _),) = decode_line(line(rec))
    assert r.schema_error is None and r.timestamp is None and r.cwd is None and r.version is None
    assert all(f in r.shape_error for f in ("timestamp", "cwd", "version"))
    assert r.message is not None  # the rest of the record is decoded as usual
    # a ``type`` of another type is still an unknown record: nothing says what it is
    ((_, r, _),) = decode_line(line({"type": 7, "uuid": "u"}))
    assert r.schema_error and r.type is None


def test_block_with_a_mistyped_flag_keeps_its_result() -> None:
    # a tool_result whose is_error is a string: the result still pairs, the flag is ignored
    res = tool_result("toolu_1", "done")
    res["message"]["content"][0]["is_error"] = "yes"
    st = fold_bytes(jsonl([prompt("go"), tool_call("toolu_1", "Bash", {"command": "ls"}), res]))
    assert not st.pending and st.counters.unknown_blocks == 0 and st.counters.shape_errors == 1
    assert st.counters.tool_errors == 0


def test_message_of_wrong_shape_is_unknown_not_error() -> None:
    bad = {"type": "assistant", "uuid": "a1", "message": "not an object"}
    st = fold_bytes(jsonl([bad]))
    assert st.counters.records == 1 and st.counters.unknown_records == 1


def test_block_of_wrong_shape_is_unknown_block() -> None:
    rec = assistant([{"type": "tool_use", "id": 5, "name": ["x"]}], u=usage(1, 1))
    st = fold_bytes(jsonl([rec]))
    assert st.counters.unknown_blocks == 1 and st.counters.tool_calls == 0


def test_decode_any_scrubs_surrogates() -> None:
    assert decode_any(b'"a\\udcb2b"') == "a\ufffdb"
    assert decode_any(b"") is None
    assert decode_any(b"{bad") is None


def test_quarantined_type_carries_reason() -> None:
    ((rel, q, _),) = decode_line(b"[1, 2]")
    assert isinstance(q, Quarantined) and rel == 0 and q.excerpt == "[1, 2]"


def _result_excerpt(content) -> str:
    from fixtures import tool_call

    st = fold_bytes(jsonl([tool_call("t1", "Bash", {"command": "x"}), tool_result("t1", content)]))
    (ev,) = [e for e in st.events(0) if e.kind == "tool_result"]
    assert st.pending == () and st.counters.unknown_blocks == 0
    return ev.excerpt


def test_tool_result_content_shapes_give_the_same_text() -> None:
    assert _result_excerpt("plain") == "plain"
    parts = [
        {"type": "text", "text": "one"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA" * 100}},
        {"type": "tool_reference", "tool_name": "Grep"},
        {"type": "tool_reference"},
        {"type": "unknown_part", "x": 1},
        {"type": "text", "text": "two"},
    ]
    assert _result_excerpt(parts) == "one [image] [tool Grep] [tool ?] two"
    # shapes the one-pass decoder does not take fall back to the general path, same rules
    assert _result_excerpt(["not an object", {"type": "text", "text": "kept"}]) == "kept"
    assert _result_excerpt([{"type": "text", "text": 5}, {"type": "text", "text": "ok"}]) == "ok"
    assert _result_excerpt({"weird": "dict"}) == "{'weird': 'dict'}"
    assert _result_excerpt(None) == ""
    assert _result_excerpt([]) == ""


def test_message_of_unusual_shape_keeps_the_envelope() -> None:
    # usage with a null field: the one-pass decode rejects it, the record keeps its envelope
    # and its content; the usage alone is rejected, counted unknown with the reason
    rec = assistant([text_block("hi")], u={"input_tokens": None, "output_tokens": 3})
    rec["uuid"] = "u-odd"
    st = fold_bytes(jsonl([rec]))
    assert st.counters.records == 1 and st.counters.unknown_records == 1
    (ev,) = st.events(0)
    assert ev.uuid == "u-odd" and ev.kind == "assistant_text" and ev.usage is None
    (unk,) = st.main.unknown
    assert unk.reason.startswith("usage rejected: Expected `int`, got `null`")


def test_whitespace_around_an_object_is_not_payload() -> None:
    import hashlib

    raw = line(prompt("p"))
    ((rel, rec, payload),) = decode_line(b"  " + raw + b" \t")
    assert rel == 2 and bytes(payload) == raw
    st = fold_bytes(b"  " + raw + b"  \n")
    (ev,) = st.events(0)
    assert ev.anchor.offset == 2 and ev.sha256 == hashlib.sha256(raw).digest()


@pytest.mark.parametrize(
    "deep",
    [
        b"[" * 3000 + b"]" * 3000,
        b'{"a":' * 3000 + b"1" + b"}" * 3000,
        b'{"type":"user","toolUseResult":' + b"[" * 3000 + b"]" * 3000 + b"}",
    ],
)
def test_json_nested_too_deeply_is_quarantined_not_a_recursion_error(deep: bytes) -> None:
    # the decoders stop at their recursion limit with RecursionError, which escaped as a traceback
    # (and stalled the monitor at that line); such a line is quarantined and counted
    from tracetui.model.session_fold import fold_bytes

    good = b'{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}\n'
    after = b'{"type":"user","uuid":"u2","message":{"role":"user","content":"still read"}}\n'
    st = fold_bytes(good + deep + b"\n" + after)
    assert st.counters.records == 2 and st.counters.malformed == 1
    assert st.latest_ask is not None and st.latest_ask.text == "still read"
    (q,) = st.main.quarantine
    assert q.anchor.line == 2 and "nested too deeply" in q.reason


_PIECES = hst.sampled_from(
    ["a", " ", "\n", "\t", "\r", "é", "€", "😀", "\\", '"', "\x00", "\u2028", "\xa0", "x" * 50, " " * 40, "\u00e9" * 30]
)


@settings(max_examples=300, deadline=None)
@given(parts=hst.lists(_PIECES, max_size=200), pad=hst.integers(0, 1100), tail=hst.sampled_from(["", " " * 70, "end", "\n" * 65 + "z"]))
def test_result_excerpt_is_the_excerpt_of_the_whole_text(parts, pad, tail) -> None:
    # a long string content's excerpt comes from a decoded prefix: the same characters as the
    # excerpt of its whole text, whatever escapes, multi-byte characters or whitespace sit at
    # the cut (ensure_ascii writes \uXXXX escapes and surrogate pairs, the other UTF-8 bytes)
    text = " " * pad + "".join(parts) + tail
    for ascii_only in (True, False):
        raw = msgspec.Raw(json.dumps(text, ensure_ascii=ascii_only).encode())
        for limit in (80, 100):
            assert result_excerpt(raw, limit) == excerpt_of(text, limit)
            assert result_text(raw) == text


def test_result_excerpt_of_list_content_and_bad_bytes() -> None:
    parts = msgspec.Raw(json.dumps([{"type": "text", "text": "x" * 3000}, {"type": "image"}]).encode())
    assert result_excerpt(parts, 80) == excerpt_of(result_text(parts), 80) == "x" * 79 + "…"
    bad = msgspec.Raw(b'"' + b"ab\xff" * 600 + b'"')  # invalid UTF-8: each bad byte one U+FFFD
    assert result_excerpt(bad, 10) == "ab\ufffdab\ufffdab\ufffd…"
