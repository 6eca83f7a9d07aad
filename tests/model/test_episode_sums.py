"""An episode leaves out what the session leaves out: a repeated tool result is not an error
again, a message counted already adds only its growth. So the current episodes' tool errors and
tokens add up to the session's, whatever ids the records repeat (trial 11: a copied record set
with new uuids made the episodes sum to 2 errors and 7.4k tokens, the session 1 and 3.7k)."""

from __future__ import annotations

import json
from typing import Any

from fixtures import assistant, text_block, tool_use_block, usage
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario import MODEL, Script

from tracetui.model.session_fold import fold_bytes
from tracetui.model.state import RunState, Tokens


def _sums(state: RunState) -> tuple[int, Tokens]:
    eps = [e for e in state.episodes if e.lifecycle != "superseded"]
    assert len({e.index for e in eps}) == len(eps)  # one current version an episode
    t = [e.tokens for e in eps]
    return sum(e.tool_errors for e in eps), Tokens(
        *(sum(getattr(x, f) for x in t) for f in ("input", "output", "cache_creation", "cache_read"))
    )


def _agrees(state: RunState) -> None:
    errors, tokens = _sums(state)
    assert errors == state.counters.tool_errors
    assert tokens == state.tokens


def _base(prompt: str) -> Script:
    """The trial's seven records: a prompt, a Read that succeeds, a Bash that fails, three API
    messages (msg_A on two records)."""
    s = Script()
    s.prompt(prompt)
    s.add(assistant([text_block("Looking.")], msg_id="msg_A", u=usage(100, 5), request_id="req_A", **s._kw()))
    s.add(
        assistant(
            [tool_use_block("toolu_1", "Read", {"file_path": "a.py"})], msg_id="msg_A", u=usage(100, 5), request_id="req_A", **s._kw()
        )
    )
    s.result("toolu_1", "ok output")
    s.add(
        assistant(
            [tool_use_block("toolu_2", "Bash", {"command": "pytest"})],
            msg_id="msg_B",
            u=usage(200, 30, 1000, 2000),
            request_id="req_B",
            **s._kw(),
        )
    )
    s.result("toolu_2", "FAILED 1", is_error=True)
    s.add(assistant([text_block("Done.")], msg_id="msg_C", u=usage(300, 40), request_id="req_C", **s._kw()))
    return s


def test_a_copied_record_set_adds_nothing_to_its_episode() -> None:
    first, second = _base("first"), _base("second")
    copy = [dict(r, uuid=r["uuid"] + "b") for r in second.records if isinstance(r, dict)]
    copy[0]["timestamp"] = "2026-01-01T11:00:00.000Z"
    first.records.extend(copy)
    state = fold_bytes(first.data())
    assert state.counters.tool_errors == 1 and state.tokens == Tokens(600, 75, 1000, 2000)
    eps = [e for e in state.episodes if e.lifecycle != "superseded"]
    assert [(e.index, e.tool_errors, e.tokens.total, e.tool_calls) for e in eps] == [(1, 1, 3675, 2), (2, 0, 0, 0)]
    assert eps[1].errors == ()
    _agrees(state)


def test_a_message_met_again_later_counts_its_growth_there() -> None:
    s = Script()
    s.prompt("one")
    s.add(assistant([text_block("a")], msg_id="msg_X", u=usage(100, 5), request_id="r", **s._kw()))
    s.prompt("two")
    # the same message again, with more output: the session keeps the max, 100/9
    s.add(assistant([text_block("a")], msg_id="msg_X", u=usage(100, 9), request_id="r", **s._kw()))
    state = fold_bytes(s.data())
    eps = [e for e in state.episodes if e.lifecycle != "superseded"]
    assert [e.tokens for e in eps] == [Tokens(100, 5, 0, 0), Tokens(0, 4, 0, 0)]
    _agrees(state)


# a step of a generated session: ("prompt",), ("say", msg, usage), ("call", tid, msg, usage),
# ("result", tid, is_error); ids from small pools so they repeat across episodes
_msg = st.sampled_from(["msg_1", "msg_2", "msg_3", "msg_4"])
_tid = st.sampled_from(["toolu_1", "toolu_2", "toolu_3"])
_usage = st.tuples(*(st.integers(0, 5000) for _ in range(4)))
_step = st.one_of(
    st.just(("prompt",)),
    st.tuples(st.just("say"), _msg, _usage),
    st.tuples(st.just("call"), _tid, _msg, _usage),
    st.tuples(st.just("result"), _tid, st.booleans()),
)


def _script(steps: list[tuple[Any, ...]]) -> Script:
    s = Script()
    s.prompt("start")
    for step in steps:
        kind = step[0]
        if kind == "prompt":
            s.prompt("next")
        elif kind == "say":
            _, mid, u = step
            s.add(assistant([text_block("words")], msg_id=mid, model=MODEL, u=usage(*u), request_id=mid, **s._kw()))
        elif kind == "call":
            _, tid, mid, u = step
            s.add(
                assistant(
                    [tool_use_block(tid, "Bash", {"command": "make"})], msg_id=mid, model=MODEL, u=usage(*u), request_id=mid, **s._kw()
                )
            )
        else:
            _, tid, err = step
            s.result(tid, "FAILED" if err else "ok", is_error=err or None)
    return s


@settings(max_examples=200, deadline=None)
@given(st.lists(_step, max_size=30))
def test_the_episodes_add_up_to_the_session_whatever_ids_repeat(steps: list[tuple[Any, ...]]) -> None:
    _agrees(fold_bytes(_script(steps).data()))


@settings(max_examples=25, deadline=None)
@given(st.lists(_step, max_size=20), st.integers(1, 6))
def test_a_copy_of_the_records_appended_keeps_the_sums(steps: list[tuple[Any, ...]], copies: int) -> None:
    s = _script(steps)
    recs = [r for r in s.records if isinstance(r, dict)]
    for k in range(copies % 3 + 1):
        s.records.extend(json.loads(json.dumps(dict(r, uuid=f"{r['uuid']}-{k}"))) for r in recs)
    _agrees(fold_bytes(s.data()))
