"""A tool_use or tool_result without its id, and unknown records and blocks: counted once, said one way everywhere."""

from __future__ import annotations

from pathlib import Path

from tracetui.model.session_fold import fold_bytes
from tracetui.views.state_json import state_to_json

PROMPT = b'{"type":"user","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}'


IDLESS_CALL = (
    b'{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant",'
    b'"content":[{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}'
)


def test_tool_use_without_id_is_a_call_and_a_shape_problem_never_pending() -> None:
    st = fold_bytes(PROMPT + b"\n" + IDLESS_CALL + b"\n")
    js = state_to_json(st)
    assert js["counters"]["tool_calls"] == 1
    assert js["tool_calls_by_name"] == {"Bash": 1}
    assert js["counters"]["shape_errors"] == 1 and js["counters"]["unknown_blocks"] == 0
    assert [(u["type"], u["reason"]) for u in js["unknown"]] == [("block:tool_use", "shape: tool_use without id")]
    assert js["pending_calls"] == []


def test_two_idless_calls_are_two_calls_with_their_file_touches() -> None:
    call = (
        b'{"type":"assistant","uuid":"a%d","message":{"id":"m%d","role":"assistant",'
        b'"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/x.py"}}]}}'
    )
    st = fold_bytes(b"\n".join([PROMPT, call % (1, 1), call % (2, 2)]) + b"\n")
    js = state_to_json(st)
    assert js["counters"]["tool_calls"] == 2 and js["counters"]["shape_errors"] == 2
    assert [(f["path"], f["reads"]) for f in js["files"]] == [("/x.py", 2)]


def test_tool_result_without_tool_use_id_is_a_shape_problem_each_error_counted() -> None:
    res = b'{"type":"user","uuid":"r%d","message":{"role":"user","content":[{"type":"tool_result","content":"boom","is_error":true}]}}'
    st = fold_bytes(b"\n".join([PROMPT, res % 1, res % 2]) + b"\n")
    js = state_to_json(st)
    assert js["counters"]["tool_errors"] == 2
    assert js["counters"]["shape_errors"] == 2
    assert {u["reason"] for u in js["unknown"]} == {"shape: tool_result without tool_use_id"}
    assert js["counters"]["tool_calls"] == 0 and js["pending_calls"] == []


def test_corpus_file_with_an_idless_call_counts_all_three(corpus) -> None:
    p: Path = corpus.root / "jazzyalex__agent-sessions" / "Resources__Fixtures__stage0__agents__claude__small.jsonl"
    if not p.exists():
        import pytest

        pytest.skip(f"file not in the corpus at {corpus.root} ($TRACETUI_CORPUS names another folder)")
    js = state_to_json(fold_bytes(p.read_bytes()))
    assert js["counters"]["tool_calls"] == p.read_bytes().count(b'"type":"tool_use"')


UNKNOWN_REC = b'{"type":"brand-new-thing","uuid":"x1"}'


UNKNOWN_BLOCKS = (
    b'{"type":"assistant","uuid":"a2","message":{"id":"m2","role":"assistant",'
    b'"content":[{"type":"server_tool_use","id":"s1","name":"web"},{"type":"future_block"}]}}'
)


def _unknown_state():
    return fold_bytes(b"\n".join([PROMPT, UNKNOWN_REC, UNKNOWN_BLOCKS]) + b"\n")


def test_unknown_is_records_and_blocks_counted_once_in_every_output() -> None:
    from tracetui.views.state_json import state_summary
    from tracetui.views.worker import watermark

    st = _unknown_state()
    assert (st.counters.unknown_records, st.counters.unknown_blocks) == (1, 2)
    src = state_to_json(st)["sources"][0]
    assert (src["unknown"], src["unknown_records"], src["unknown_blocks"]) == (3, 1, 2)
    assert "unknown 1 record, 2 blocks" in state_summary(st)
    assert "unknown 1 record, 2 blocks" in watermark(st).body


def test_monitor_header_says_unknown_as_the_headless_outputs() -> None:
    from tracetui.tui.widgets.header import watermark
    from tracetui.tui.widgets.pane import Shown

    st = _unknown_state()
    assert "unknown 1 record, 2 blocks" in watermark(Shown(st, st, None, 0.0, ())).plain


def test_a_timestamp_that_is_no_time_is_a_shape_problem_and_no_time_of_anything() -> None:
    """A record's ``timestamp`` text that does not parse is counted and left out: never the
    file's first or last time, nor an episode's start or end (trial 8: it was counted nowhere)."""
    reply = b'{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"%s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}'
    ok = b'{"type":"user","uuid":"u2","parentUuid":"a1","timestamp":"2026-01-01T00:05:00Z","message":{"role":"user","content":"next"}}'
    st = fold_bytes(b"\n".join([PROMPT, reply % b"not-a-timestamp", ok]) + b"\n")
    js = state_to_json(st)
    assert js["counters"]["shape_errors"] == 1 and js["counters"]["unknown_records"] == 0
    (entry,) = js["unknown"]
    assert entry["anchor"]["line"] == 2 and entry["reason"] == "shape: timestamp: not a time, left out"
    ep = st.episodes[0]
    assert (ep.start, ep.end) == ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")  # the bad time is not its end
    assert st.main.last_timestamp == "2026-01-01T00:05:00Z"
    # the same text as a time's field of a good record is read as it was
    good = fold_bytes(b"\n".join([PROMPT, reply % b"2026-01-01T00:01:00Z", ok]) + b"\n")
    assert state_to_json(good)["counters"]["shape_errors"] == 0 and good.episodes[0].end == "2026-01-01T00:01:00Z"


def test_a_message_id_or_model_of_another_type_is_left_out_and_its_calls_kept() -> None:
    """``message.id`` or ``message.model`` a number: a shape error naming the field, the message
    kept without it with its blocks (trial 8: the whole message, its calls too, was an unknown
    record), with a rejected usage as well (each said once)."""
    call = (
        b'{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant",'
        b'"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],%s}}'
    )
    for field, extra in ((b"id", b'"id":5'), (b"model", b'"id":"m1","model":7')):
        js = state_to_json(fold_bytes(b"\n".join([PROMPT, call % extra]) + b"\n"))
        c = js["counters"]
        assert (c["tool_calls"], c["unknown_records"], c["shape_errors"]) == (1, 0, 1), field
        assert [u["reason"] for u in js["unknown"]] == [
            f"shape: message.{field.decode()}: Expected `str | null`, got `int` (field ignored)"
        ]
        assert [p["name"] for p in js["pending_calls"]] == ["Bash"]
    js = state_to_json(fold_bytes(b"\n".join([PROMPT, call % b'"id":"m1","model":9,"usage":{"input_tokens":-5}']) + b"\n"))
    assert js["counters"]["tool_calls"] == 1 and js["counters"]["shape_errors"] == 1
    assert sorted(u["reason"].split(":")[0] for u in js["unknown"]) == ["shape", "usage rejected"]
