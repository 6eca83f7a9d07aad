"""Integers out of range in a transcript: never a crash, never a number made up.

The second fresh-user trial found that ``"output_tokens": 1e23``-sized integers crashed the cache
save (msgpack holds 64 bits), ``state --json`` (orjson likewise) and printed a cost of $2.5e18,
and that ``-5`` tokens were summed as usage. Each number the fold takes from a transcript into
the state is checked here with a huge and a negative value, through every output: ``state
--json``, plain ``state`` (which saves the fold cache), the cache save and a warm reopen, ``view``
and ``card``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixtures import assistant, compact_boundary, prompt, text_block, tool_call, tool_result, usage, write
from hypothesis import given, settings
from hypothesis import strategies as hst

from tracetui.cli import main
from tracetui.ingest.decode import MAX_TOKENS, decode_message
from tracetui.model.facts import MAX_DIGITS, extract_exit_code, extract_test_runs
from tracetui.model.session_fold import fold as _fold
from tracetui.session.store import open_cached

HUGE = 10**23
NEGATIVE = -5
TS = "2026-02-10T10:00:00.000Z"


def _usage(v: int) -> list[dict[str, Any]]:
    u = {"input_tokens": 1, "output_tokens": v}
    return [prompt("go", ts=TS), assistant([text_block("hi")], model="claude-sonnet-4-5", u=u, ts=TS)]


def _usage_split(v: int) -> list[dict[str, Any]]:
    u = usage(1, 1, 10, 0)
    u["cache_creation"] = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": v}
    return [prompt("go", ts=TS), assistant([text_block("hi")], model="claude-sonnet-4-5", u=u, ts=TS)]


def _total_tokens(v: int) -> list[dict[str, Any]]:
    return [
        prompt("go", ts=TS),
        tool_call("t1", "Task", {"description": "look", "prompt": "look around", "subagent_type": "Explore"}, ts=TS),
        tool_result("t1", "done", result={"status": "completed", "agentId": "a1", "totalTokens": v}, ts=TS),
    ]


def _pre_tokens(v: int) -> list[dict[str, Any]]:
    return [prompt("go", ts=TS), compact_boundary(pre=v, ts=TS)]


def _exit_code(v: int) -> list[dict[str, Any]]:
    return [
        prompt("go", ts=TS),
        tool_call("t2", "Bash", {"command": "false"}, ts=TS),
        tool_result("t2", f"Exit code {v}", is_error=True, ts=TS),
    ]


def _test_counts(v: int) -> list[dict[str, Any]]:
    return [
        prompt("go", ts=TS),
        tool_call("t3", "Bash", {"command": "pytest"}, ts=TS),
        tool_result("t3", f"===== {v} passed, 2 failed in 0.10s =====", ts=TS),
    ]


def _todo_id(v: int) -> list[dict[str, Any]]:
    # the call's input is kept (and cached) until its result arrives: no result here
    return [prompt("go", ts=TS), tool_call("t4", "TodoWrite", {"todos": [{"id": v, "content": "x", "status": "pending"}]}, ts=TS)]


def fold(records: list[dict[str, Any]], price: bool = False):
    """The fold of ``records`` written by the json module (orjson refuses ints over 64 bits)."""
    return _fold([json.dumps(r) for r in records], price=price)


CASES: dict[str, Callable[[int], list[dict[str, Any]]]] = {
    "usage": _usage,
    "usage_1h": _usage_split,
    "totalTokens": _total_tokens,
    "preTokens": _pre_tokens,
    "exit_code": _exit_code,
    "test_counts": _test_counts,
    "todo_id": _todo_id,
}


@pytest.mark.parametrize("value", [HUGE, NEGATIVE], ids=["huge", "negative"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_output_works(case: str, value: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = write(tmp_path / f"{case}.jsonl", CASES[case](value))
    assert main(["state", str(p), "--json", "--no-cache"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["counters"]["records"] >= 2
    # the cost is a price or unknown with a reason, never an astronomic or negative figure
    assert out["cost_usd"] is None or 0 <= out["cost_usd"] < 1
    for t in out["tokens"].values():
        assert 0 <= t <= MAX_TOKENS
    assert main(["state", str(p)]) == 0  # with the cache: folds, prints and saves
    text = capsys.readouterr()
    assert "Traceback" not in text.err and "tracetui:" not in text.err
    r = open_cached([p])
    r.poll()
    assert r.save_cache() in (True, False)  # False: the CLI saved the same bytes already
    r2 = open_cached([p])
    assert r2.cache_status == "warm", r2.cache_status
    assert main(["view", str(p), "--no-cache"]) == 0
    assert main(["card", str(p), "--no-cache"]) == 0
    text = capsys.readouterr()
    assert "Traceback" not in text.err


@pytest.mark.parametrize("value", [HUGE, NEGATIVE, MAX_TOKENS + 1])
def test_a_token_count_out_of_range_is_not_usage_but_the_record_stays(value: int) -> None:
    st = fold(_usage(value), price=True)
    assert st.counters.records == 2
    # the usage is rejected, counted, with the reason; the text of the message is still read
    assert st.counters.unknown_records == 1 and st.counters.api_messages == 0
    (unk,) = st.main.unknown
    assert unk.type == "assistant" and unk.reason.startswith("usage rejected: Expected `int`")
    assert unk.anchor.line == 2
    assert [e.kind for e in st.events(0)] == ["prompt", "assistant_text"]
    assert st.tokens.total == 0 and not st.usage_buckets
    # nothing else to price: the cost is unknown, with why, never $0.00; the model is still known
    assert st.counters.usage_rejected == 1
    assert st.cost_usd is None and st.cost_note == "usage of 1 record rejected, none left to price"
    assert st.models == ("claude-sonnet-4-5",)


def test_a_rejected_usage_beside_a_priced_one_leaves_a_lower_bound() -> None:
    good = [
        assistant(
            [text_block("ok")],
            model="claude-sonnet-4-5",
            u={"input_tokens": 10, "output_tokens": 5},
            ts=TS,
            msg_id="msg_ok",
            request_id="req_ok",
        )
    ]
    st = fold(_usage(HUGE) + good, price=True)
    assert st.counters.usage_rejected == 1 and st.tokens.total == 15
    assert st.cost_usd is not None and st.cost_usd > 0
    assert st.cost_note == "estimate (genai-prices); usage of 1 record rejected, not priced"


def test_every_usage_of_another_type_reads_unknown_in_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "s.jsonl"
    recs = _usage(1)
    recs[1]["message"]["usage"] = {"input_tokens": "10", "output_tokens": "5"}  # strings, not counts
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert main(["state", str(p), "--no-cache"]) == 0
    out = capsys.readouterr().out
    (cost,) = [line for line in out.splitlines() if line.startswith("cost")]
    assert "$0.00" not in cost and "unknown (usage of 1 record rejected, none left to price)" in cost
    assert cost.endswith("models claude-sonnet-4-5")


def test_the_cached_reader_says_the_same_of_rejected_usage(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in _usage(HUGE) + _usage(NEGATIVE)))
    r = open_cached([p])
    r.poll()
    st = r.snapshot()
    assert st.counters.usage_rejected == 2 and st.cost_note == "usage of 2 records rejected, none left to price"
    assert r.save_cache() is True
    r2 = open_cached([p])
    assert r2.cache_status == "warm"
    assert r2.snapshot().cost_note == st.cost_note


def test_the_largest_count_allowed_is_usage() -> None:
    st = fold(_usage(MAX_TOKENS), price=False)
    assert st.counters.unknown_records == 0 and st.tokens.output == MAX_TOKENS


def test_a_1h_split_out_of_range_rejects_the_usage() -> None:
    st = fold(_usage_split(HUGE), price=False)
    assert st.counters.unknown_records == 1 and st.tokens.total == 0
    assert "ephemeral_1h_input_tokens" in st.main.unknown[0].reason


def test_decode_message_says_which_field() -> None:
    m = decode_message(json.dumps({"id": "m", "content": "x", "usage": {"input_tokens": 1, "cache_read_input_tokens": -1}}).encode())
    assert m is not None and m.usage is None and m.content == "x"
    assert m.usage_error == "Expected `int` >= 0 - at `$.cache_read_input_tokens`"
    # a message wrong elsewhere is still not a message
    assert decode_message(json.dumps({"content": 5, "usage": {"input_tokens": -1}}).encode()) is None


@pytest.mark.parametrize("value", [HUGE, NEGATIVE, True, "12", 1.5])
def test_a_subagent_total_that_is_not_a_count_is_left_out(value: Any) -> None:
    st = fold(_total_tokens(value))
    (link,) = st.main.subagents
    assert link.status == "completed" and link.agent_id == "a1"
    assert link.total_tokens is None


def test_a_subagent_total_in_range_is_kept() -> None:
    (link,) = fold(_total_tokens(14210)).main.subagents
    assert link.total_tokens == 14210


def test_exit_codes_and_test_counts_of_more_than_max_digits_are_no_facts() -> None:
    ok = "9" * MAX_DIGITS
    assert extract_exit_code(f"Exit code {ok}") == int(ok)
    assert extract_exit_code(f"Exit code {ok}9") is None
    assert extract_exit_code("Exit code -5") is None
    assert extract_test_runs(f"== {ok} passed in 1s ==")[0][1]["passed"] == int(ok)
    big = ok + "9"
    for text in (
        f"== {big} passed, 2 failed in 0.1s ==",
        f"== 2 passed, {big} failed in 0.1s ==",
        f"Tests:       {big} failed, 3 passed, 4 total",
        f" Tests  {big} failed | 3 passed (5)",
        f"test result: ok. {big} passed; 0 failed; 0 ignored",
        f"{big} tests, 0 failures",
    ):
        assert extract_test_runs(text) == [], text
    assert extract_test_runs("Tests:       -5 failed, 3 passed, 4 total") == []


@pytest.mark.parametrize("value", [HUGE, NEGATIVE])
def test_no_fact_of_an_out_of_range_number_reaches_the_state(value: int) -> None:
    for case in ("exit_code", "test_counts"):
        st = fold(CASES[case](value))
        facts = st.main.derived.facts
        assert all(f.key != "cmd.exit_code" or f.value != value for f in facts)
        assert not [f for f in facts if f.key.startswith("tests.") and isinstance(f.value, int) and not 0 <= f.value < 10**MAX_DIGITS]


def test_a_kept_todo_input_keeps_the_digits() -> None:
    recs = _todo_id(HUGE) + [tool_result("t4", "ok", ts=TS)]
    st = fold(recs)
    (todo,) = st.todos
    assert todo.id == str(HUGE)


@settings(max_examples=80, deadline=None)
@given(hst.integers(min_value=-(10**30), max_value=10**30) | hst.sampled_from([0, MAX_TOKENS, MAX_TOKENS + 1, -1]))
def test_any_int_is_a_token_count_exactly_when_in_range(value: int) -> None:
    s = fold(_usage(value))
    ok = 0 <= value <= MAX_TOKENS
    assert s.counters.usage_rejected == (0 if ok else 1)
    assert s.tokens.output == (value if ok else 0)
    assert s.counters.records == 2 and len(s.events(0)) == 2  # the record stays, either way


@settings(max_examples=80, deadline=None)
@given(hst.integers(min_value=0, max_value=10**25))
def test_an_exit_code_is_read_exactly_when_it_has_at_most_max_digits(value: int) -> None:
    got = extract_exit_code(f"Exit code {value}\nboom")
    assert got == (value if len(str(value)) <= MAX_DIGITS else None)


def test_a_rejected_usage_on_a_line_that_needs_repair_is_rejected_the_same_way() -> None:
    # invalid UTF-8 sends the line down the slow path (repair, re-encode): same rejection there
    from tracetui.model.session_fold import fold_bytes

    rec = _usage(HUGE)[1]
    rec["message"]["content"][0]["text"] = "bad BYTE here"
    raw = json.dumps(rec).encode().replace(b"BYTE", b"\xff")
    s = fold_bytes(raw + b"\n")
    assert s.counters.records == 1 and s.counters.usage_rejected == 1 and s.counters.malformed == 0
    assert [e.excerpt for e in s.events(0)] == ["bad \ufffd here"]
    assert s.main.unknown[0].reason == "usage rejected: Expected `int` <= 1000000000000 - at `$.output_tokens`"
