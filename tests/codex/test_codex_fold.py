"""The Codex fold's rules on rollouts the project builds itself (tracetui/demo/codex_records.py):
the replayed prefix of a forked child, repeated and restarted token totals, an interrupted
turn, a torn last line, tool errors, patches, plans, unknown types, pricing, the fold cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.model.codex_fold import CodexFold
from tracetui.model.session_fold import SessionFold, fold_bytes
from tracetui.session.reader import SessionReader, TranscriptError
from tracetui.session.store.codec import fold_of, fold_rows
from tracetui.views.state_json import state_to_json

CHILD = "0199c0de-0000-7000-8000-0000000000c1"


def _parent() -> RolloutBuilder:
    b = RolloutBuilder()
    b.turn("Review the parser and fix what you find")
    b.tokens(1000, 800, 100, 20)
    b.exec("pytest -q", "1 failed", exit_code=1)
    b.tokens(1500, 1200, 50)
    b.spawn(CHILD, "Review parser.py for bugs")
    return b


def _fold(*builders: RolloutBuilder) -> SessionFold:
    sf = SessionFold(price=False)
    for i, b in enumerate(builders):
        name = f"rollout-{i}.jsonl"
        src = sf.add_source(name, name, "main" if i == 0 else "subagent")
        data = b.data()
        for n, ln in enumerate(data.split(b"\n")[:-1], 1):
            sf.feed_line(src, n, 0, ln)
    return sf


def test_a_forked_childs_replayed_prefix_counts_in_records_only() -> None:
    parent = _parent()
    child = parent.child(CHILD)
    copied = len(parent.lines)  # the parent's session_meta and its whole history, re-stamped
    child.tick(2).turn("Review parser.py for bugs")
    child.tokens(300, 100, 40)
    child.exec("cat parser.py", "def parse(): ...")
    child.say("parse() fails on empty input.").done("parse() fails on empty input.")
    st = _fold(parent, child).snapshot()
    kid = st.agents[0]
    assert st.sources[1].replayed == copied
    assert kid.counters.records == len(child.lines)
    assert kid.counters.user_prompts == 1 and kid.goal is not None and kid.goal.text == "Review parser.py for bugs"
    assert kid.counters.tool_calls == 1 and kid.counters.tool_errors == 0
    assert kid.tools_by_name == {"exec_command": 1}
    # the child's tokens start from the copy's last cumulative total: only its own response
    assert (kid.tokens.input, kid.tokens.cache_read, kid.tokens.output) == (200, 100, 40)
    assert (st.main.tokens.input, st.main.tokens.cache_read, st.main.tokens.output) == (500, 2000, 150)
    assert st.tokens.input == 700 and st.counters.user_prompts == 1  # the session's prompts are the main thread's
    # the parent's spawn_agent call is linked to the child's file by the thread id
    (link,) = st.main.subagents
    assert link.agent_id == CHILD and link.source == 1 and link.tool == "spawn_agent"


def test_a_child_whose_second_record_is_not_the_parents_meta_replays_nothing() -> None:
    parent = _parent()
    child = parent.child(CHILD, replay=False)
    child.turn("Look at the tests")  # in the same second as its first record: its own work
    st = _fold(parent, child).snapshot()
    assert st.sources[1].replayed == 0
    assert st.agents[0].counters.user_prompts == 1


def test_a_repeated_total_adds_nothing_and_a_lower_total_starts_a_new_count() -> None:
    b = RolloutBuilder()
    b.turn("go")
    b.tokens(1000, 600, 100, repeat=True)
    b.tokens(500, 400, 50, repeat=True)
    st = fold_bytes(b.data())
    assert (st.tokens.input, st.tokens.cache_read, st.tokens.output, st.tokens.cache_creation) == (500, 1000, 150, 0)
    assert st.counters.api_messages == 2
    b.totals = dict.fromkeys(b.totals, 0)  # the thread's count starts over (a lower total)
    b.tokens(200, 100, 10)
    st = fold_bytes(b.data())
    assert (st.tokens.input, st.tokens.cache_read, st.tokens.output) == (600, 1100, 160)
    assert st.counters.api_messages == 3


def test_cache_writes_are_cache_creation_and_reasoning_is_not_added_again() -> None:
    b = RolloutBuilder()
    b.turn("go")
    b.tokens(1000, 600, 100, reasoning=70)
    b.lines[-1]["payload"]["info"]["total_token_usage"]["cache_write_input_tokens"] = 250  # type: ignore[index]
    st = fold_bytes(b.data())
    assert (st.tokens.input, st.tokens.output, st.tokens.cache_creation, st.tokens.cache_read) == (400, 100, 250, 600)


def test_an_interrupted_turn_is_an_interrupt_and_its_episode_is_interrupted() -> None:
    b = RolloutBuilder()
    b.turn("Run the whole suite")
    b.call("exec_command", {"cmd": "pytest"}, output=None)
    b.abort("interrupted")
    b.turn("Only the parser tests")
    b.say("Done.").done("Done.")
    st = fold_bytes(b.data())
    assert st.counters.interrupts == 1 and st.counters.user_prompts == 2
    assert st.goal is not None and st.goal.text == "Run the whole suite"
    assert st.latest_ask is not None and st.latest_ask.text == "Only the parser tests"
    current = [e for e in st.episodes if e.lifecycle == "current"]
    assert [e.index for e in current] == [1, 2]
    assert current[0].status == "interrupted" and current[0].interrupts == 1
    assert len(st.pending) == 1 and st.pending[0].name == "exec_command"
    assert len(st.history) == 1  # the state as of the end of the first episode


def test_a_torn_last_line_is_held_by_the_reader_and_quarantined_by_the_pure_fold(tmp_path: Path) -> None:
    b = RolloutBuilder()
    b.turn("go")
    whole = b.data()
    torn = b'{"timestamp":"2026-03-02T09:00:09.000Z","type":"event_msg","payload":{"type":"tok'
    st = fold_bytes(whole + torn)
    assert st.counters.malformed == 1 and st.main.quarantine[0].anchor.line == len(b.lines) + 1
    p = tmp_path / "rollout.jsonl"
    p.write_bytes(whole + torn)
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    s1 = r.snapshot()
    assert s1.agent == "codex" and s1.counters.malformed == 0 and s1.sources[0].pending_bytes == len(torn)
    with open(p, "ab") as f:
        f.write(b'en_count","info":null,"rate_limits":null}}\n')
    r.poll()
    s2 = r.snapshot()
    assert s2.counters.records == len(b.lines) + 1 and s2.counters.malformed == 0 and s2.sources[0].pending_bytes == 0


def test_tool_errors_patches_and_plans() -> None:
    b = RolloutBuilder()
    b.turn("Fix it")
    b.plan([("Read the code", "completed"), ("Fix the bug", "in_progress")])
    b.exec("pytest", "2 failed", exit_code=2)
    b.exec("make lint", "", exit_code=1, end_first=False)  # the end event after the output
    b.exec("ls", "a.py")
    b.patch(
        "*** Add File: docs/new.md\n+hi\n*** Update File: src/app.py\n@@\n-x\n+y\n*** Update File: src/old.py\n*** Move to: src/new.py\n*** Delete File: junk.txt\n"
    )
    b.patch("*** Update File: src/app.py\n@@\n-y\n+z\n", success=False)
    st = fold_bytes(b.data())
    c = st.counters
    assert c.tool_calls == 6 and c.tool_errors == 3 and not st.pending
    assert st.tools_by_name == {"exec_command": 3, "apply_patch": 2, "update_plan": 1}
    files = {f.path: (f.writes, f.edits) for f in st.files}
    assert files == {"docs/new.md": (1, 0), "src/app.py": (0, 2), "src/old.py": (0, 1), "src/new.py": (1, 0), "junk.txt": (1, 0)}
    assert [(t.content, t.status) for t in st.todos] == [("Read the code", "completed"), ("Fix the bug", "in_progress")]
    assert st.frontier is not None and st.frontier.kind == "tool_error"  # the last call failed
    # the failure read after its call's output counts in the episode as the others do
    assert [e.tool_errors for e in st.episodes] == [3]
    assert [n.text for n in st.main.derived.ruled_out] == [
        "exec_command(pytest) failed",
        "exec_command(make lint) failed",
        "apply_patch(src/app.py) failed",
    ]


def test_unknown_record_and_payload_types_are_kept_and_counted() -> None:
    b = RolloutBuilder()
    b.turn("go")
    b.add("new_kind", {"x": 1})
    b.event("brand_new_event", x=2)
    b.item("brand_new_item", x=3)
    b.add("event_msg", {"type": "user_message", "message": 42})  # a field of another type
    st = fold_bytes(b.data())
    assert st.counters.unknown_records == 3
    assert [u.type for u in st.main.unknown] == ["new_kind", "event_msg:brand_new_event", "response_item:brand_new_item"]
    assert st.counters.records == len(b.lines) and st.counters.user_prompts == 2  # a prompt whose text is not a string is its JSON
    assert st.latest_ask is not None and st.latest_ask.text == "42"


@pytest.mark.parametrize(
    ("message", "ask"),
    [
        ({"text": "fix it", "n": 2}, '{"text":"fix it","n":2}'),  # its JSON as the line writes it
        (["fix", 1], '["fix",1]'),
        ([{"type": "input_text", "text": "fix it"}], "fix it"),  # content parts: their texts
        ([{"type": "input_image", "image_url": "x"}], '[{"type":"input_image","image_url":"x"}]'),
        (7.5, "7.5"),
    ],
)
def test_a_user_message_that_is_not_a_string_keeps_its_text(message: object, ask: str) -> None:
    # trial 11: a list or an object became an empty prompt (an episode asking nothing)
    b = RolloutBuilder()
    b.turn("go")
    b.add("event_msg", {"type": "user_message", "message": message})
    st = fold_bytes(b.data())
    assert st.counters.user_prompts == 2
    assert st.latest_ask is not None and st.latest_ask.text == ask
    assert st.episodes[-1].ask == ask


def test_a_user_message_without_words_is_still_an_empty_prompt() -> None:
    for message in (None, "", [], {}):
        b = RolloutBuilder()
        b.turn("go")
        b.add("event_msg", {"type": "user_message", "message": message})
        st = fold_bytes(b.data())
        assert st.latest_ask is not None and st.latest_ask.text == "", message


def test_the_model_is_the_latest_turn_context_and_an_unknown_model_has_no_price() -> None:
    b = RolloutBuilder(model="gpt-5.4")
    b.turn("go").tokens(1000, 0, 100)
    st = fold_bytes(b.data(), price=True)
    assert st.models == ("gpt-5.4",) and st.cost_usd is not None and st.cost_usd > 0
    b.model = "gpt-nonesuch-1"
    b.turn("again").tokens(1000, 0, 100)
    st = fold_bytes(b.data(), price=True)
    assert set(st.tokens_by_model) == {"gpt-5.4", "gpt-nonesuch-1"}
    assert st.cost_usd is None and "gpt-nonesuch-1" in st.cost_note


def test_a_rollout_with_no_model_says_so_in_its_cost_note() -> None:
    # trial 11: "cost unknown (no price known for unknown; …)"
    b = RolloutBuilder(model=None)  # type: ignore[arg-type]
    b.turn("go").tokens(1000, 0, 100)
    st = fold_bytes(b.data(), price=True)
    assert st.cost_usd is None and st.cost_note == "no model recorded"
    b.model = "gpt-nonesuch-1"
    b.turn("again").tokens(1000, 0, 100)
    st = fold_bytes(b.data(), price=True)
    assert st.cost_note == "no price known for gpt-nonesuch-1, and no model recorded for other messages"


def test_rate_limit_windows_are_kept() -> None:
    b = RolloutBuilder()
    b.turn("go").tokens(10, 0, 1)
    st = fold_bytes(b.data())
    (w,) = st.main.rate_limits
    assert (w.name, w.used_percent, w.window_minutes, w.resets_at) == ("primary", 12.5, 300, 1772445600)


def test_token_counts_and_rate_limits_of_another_shape_are_read_as_far_as_they_go() -> None:
    b = RolloutBuilder()
    b.turn("go").tokens(1000, 200, 100)
    good = {"used_percent": 40.0, "window_minutes": 300, "resets_at": 1772445600}
    # a count below zero: no total read from it (no usage), its usage rejected as the Claude
    # fold rejects one (usage_rejected, an unknown entry with the reason)
    bad = {"total_token_usage": {"input_tokens": -5, "cached_input_tokens": 0, "output_tokens": 1}}
    b.event("token_count", info=bad, rate_limits={"primary": good, "secondary": "weekly"})
    b.event("token_count", info="n/a", rate_limits=7)  # neither of the expected shape
    b.tokens(1500, 300, 150)
    st = fold_bytes(b.data())
    assert st.counters.unknown_records == st.counters.usage_rejected == 2
    assert [u.reason.split(":")[0] for u in st.main.unknown] == ["usage rejected", "usage rejected"]
    assert (st.tokens.input, st.tokens.cache_read, st.tokens.output) == (2000, 500, 250)  # the two good responses
    assert st.counters.api_messages == 2
    # the good window of the odd rate_limits kept (the later token count's windows replace it)
    b2 = RolloutBuilder()
    b2.turn("go").event("token_count", info=None, rate_limits={"primary": good, "secondary": "weekly"})
    (w,) = fold_bytes(b2.data()).main.rate_limits
    assert (w.name, w.used_percent) == ("primary", 40.0)


def test_a_declared_field_of_another_type_makes_the_record_unknown() -> None:
    b = RolloutBuilder()
    b.turn("go").item("function_call", name="exec_command", arguments="{}", call_id=17)
    st = fold_bytes(b.data())
    assert st.counters.unknown_records == 1 and st.counters.tool_calls == 0
    assert "call_id" in st.main.unknown[0].reason


def test_state_json_names_the_agent_and_keeps_the_claude_keys() -> None:
    from tracetui.demo.transcript import TranscriptBuilder

    claude = TranscriptBuilder()
    claude.prompt("hi")
    js_claude = state_to_json(fold_bytes(claude.data()))
    js_codex = state_to_json(fold_bytes(_parent().data()))
    assert js_claude["agent"] == "claude" and js_codex["agent"] == "codex"
    assert set(js_claude) == set(js_codex)


def test_the_fold_cache_restores_a_codex_fold() -> None:
    parent = _parent()
    child = parent.child(CHILD)
    child.tick(2).turn("Review parser.py for bugs").tokens(300, 100, 40)
    sf = _fold(parent, child)
    before = state_to_json(sf.snapshot())
    back = fold_of(fold_rows(sf))
    assert [type(f) for f in back.folds] == [CodexFold, CodexFold]
    for f in back.folds:
        f.on_usage = back.usage.add
    assert state_to_json(back.snapshot()) == before
    # and it folds on from where it was: a repeated total adds nothing, a new one counts
    child.tokens(0, 0, 0)
    n = len(child.lines)
    back.feed_line(1, n, 0, json.dumps(child.lines[-1]).encode())
    assert back.snapshot().agents[0].tokens == sf.snapshot().agents[0].tokens


def test_named_child_rollouts_are_accepted_and_a_second_main_rollout_is_refused(tmp_path: Path) -> None:
    parent = _parent()
    child = parent.child(CHILD)
    child.tick(2).turn("Review parser.py for bugs")
    pp, cp = parent.write(tmp_path / "p.jsonl"), child.write(tmp_path / "c.jsonl")
    r = SessionReader([pp, cp], subagents=False, price=False)
    r.poll()
    r.check_transcript()
    assert r.snapshot().main.subagents[0].source == 1
    other = RolloutBuilder(thread_id="0199c0de-0000-7000-8000-0000000000ff")
    other.turn("x")
    op = other.write(tmp_path / "o.jsonl")
    r = SessionReader([pp, op], subagents=False, price=False)
    r.poll()
    with pytest.raises(TranscriptError, match="a main rollout, not a subagent rollout"):
        r.check_transcript()


def test_through_the_store_a_long_rollout_folds_as_in_memory_and_reopens_the_same(tmp_path: Path) -> None:
    from tracetui.session.open import load_state, save_store

    b = RolloutBuilder()
    for i in range(3):
        b.turn(f"round {i}")
        for j in range(450):  # past CALLS_TRIM calls: closed calls leave the fold, the ledger finds them
            b.exec(f"echo {i}.{j}", "x", exit_code=1 if j % 97 == 0 else 0, end_first=j % 2 == 0)
        b.tokens(100, 10, 5, repeat=True)
    p = b.write(tmp_path / "rollout.jsonl")
    _, mem = load_state([p], use_cache=False)
    reader, stored = load_state([p], use_cache=True)
    save_store(reader)
    _, again = load_state([p], use_cache=True)
    want = state_to_json(mem)
    assert state_to_json(stored) == want and state_to_json(again) == want
    assert again.agent == "codex" and mem.counters.tool_calls == 1350 and mem.counters.tool_errors == 15
    assert [e.tool_errors for e in again.episodes] == [e.tool_errors for e in mem.episodes]


def test_a_completed_turn_is_a_closed_episode() -> None:
    b = RolloutBuilder()
    b.turn("Explain the parser")
    b.exec("cat parser.py", "def parse(): ...")
    b.say("It splits on commas.").done("It splits on commas.")
    st = fold_bytes(b.data())
    assert [(e.index, e.version, e.status) for e in st.episodes] == [(1, 1, "ok")]
    b.turn("Now fix it")
    b.exec("pytest", "1 failed", exit_code=1)
    st = fold_bytes(b.data())
    assert [(e.index, e.status) for e in st.episodes] == [(1, "ok"), (2, "in_progress")]
    b.say("Fixed the comma case.").done()
    st = fold_bytes(b.data())
    assert [(e.index, e.status, e.tool_errors) for e in st.episodes] == [(1, "ok", 0), (2, "errors", 1)]


def test_a_spawn_without_a_thread_failed() -> None:
    b = RolloutBuilder()
    b.turn("Review everything")
    cid = b.call("spawn_agent", {"agent_type": "explorer", "message": "Review the docs"}, output=None)
    b.event("collab_agent_spawn_end", call_id=cid, new_thread_id=None, prompt="Review the docs", status="pending_init")
    b.item("function_call_output", call_id=cid, output="collab spawn failed: agent thread limit reached (max 6)")
    (link,) = fold_bytes(b.data()).main.subagents
    assert (link.status, link.agent_id) == ("error", None)


def test_polls_of_a_running_command_are_no_tool_loop_but_repeated_commands_are() -> None:
    b = RolloutBuilder()
    b.turn("Run the build")
    for _ in range(4):
        b.call("write_stdin", {"session_id": 7, "chars": "", "yield_time_ms": 1000}, "still running")
    assert [a.kind for a in fold_bytes(b.data()).main.derived.anomalies] == []
    for _ in range(3):
        b.call("write_stdin", {"session_id": 7, "chars": "y\n"}, "ok")
    assert [a.kind for a in fold_bytes(b.data()).main.derived.anomalies] == ["tool_loop"]


def test_shell_output_gives_facts_as_for_claude_code() -> None:
    b = RolloutBuilder()
    b.turn("Run the tests")
    b.exec("go test ./...", "ok  \tgithub.com/x/a\t0.12s\nFAIL\tgithub.com/x/b\t0.30s\nFAIL\n", exit_code=1)
    aggs = fold_bytes(b.data()).main.derived.aggregates
    assert (aggs["tests.go.passed"].last, aggs["tests.go.failed"].last) == (1, 1)


def test_tier_bounds_cover_every_openai_threshold_in_the_table() -> None:
    import genai_prices.data as data
    from genai_prices.types import TieredPrices

    from tracetui.model.pricing import TIER_BOUNDS

    starts: set[int] = set()
    prov = next(p for p in data.providers if p.id == "openai")
    for m in prov.models:
        for p in m.prices if isinstance(m.prices, list) else [m.prices]:
            for v in vars(getattr(p, "prices", p)).values():
                if isinstance(v, TieredPrices):
                    starts.update(t.start for t in v.tiers)
    assert starts and starts <= set(TIER_BOUNDS)


def test_a_long_context_response_is_priced_at_its_tier() -> None:
    from tracetui.model.pricing import model_price

    short, long_ = RolloutBuilder(), RolloutBuilder()
    short.turn("go").tokens(250_000, 0, 0).tokens(250_000, 0, 0)
    long_.turn("go").tokens(210_000, 0, 0).tokens(290_000, 0, 0)  # the same tokens, one response past 272k
    a, b = fold_bytes(short.data(), price=True).cost_usd, fold_bytes(long_.data(), price=True).cost_usd
    assert a is not None and b is not None and b > a
    day = "2026-03-02"
    assert b == pytest.approx(model_price("gpt-5.4", 210_000, 0, 0, 0, day) + model_price("gpt-5.4", 290_000, 0, 0, 0, day))


def _errors(b: RolloutBuilder) -> tuple[int, list[str], int]:
    """``(tool_errors, names of the calls marked failed, errors the episodes count)``."""
    sf = _fold(b)
    st = sf.snapshot()
    failed = [c.name for c in sf.folds[0].calls.values() if c.is_error]
    return st.main.counters.tool_errors, sorted(failed), sum(e.tool_errors for e in st.episodes if e.lifecycle != "superseded")


def test_a_command_whose_output_says_it_failed_is_a_failed_call_without_an_end_event() -> None:
    # Codex CLI 0.130 and later write no exec_command_end: the exit code is in the output's head
    b = RolloutBuilder()
    b.turn("Push the branch")
    b.exec_unified("git push", "fatal: no upstream configured", exit_code=128)
    b.exec_unified("git status", "On branch main", exit_code=0)
    b.call("exec_command", {"cmd": "echo"}, output="Process exited with code 1 (no head: not read)")
    assert _errors(b) == (1, ["exec_command"], 1)


@pytest.mark.parametrize("end", [False, True])
def test_a_failure_said_by_the_output_and_the_end_event_counts_once(end: bool) -> None:
    b = RolloutBuilder()
    b.turn("Run the tests")
    b.exec_unified("pytest -q", "1 failed", exit_code=1, end=end)
    assert _errors(b) == (1, ["exec_command"], 1)


def test_a_long_command_fails_on_the_poll_that_says_it_exited() -> None:
    b = RolloutBuilder()
    b.turn("Run the slow tests")
    b.exec_unified("go test ./...", "", exit_code=None, session=32068)
    b.poll(32068)  # still running
    b.poll(32068, "--- FAIL: TestRun", exit_code=1)
    b.exec_unified("go vet", "", exit_code=None, session=97324)
    b.poll(97324, "ok", exit_code=0)
    assert _errors(b) == (1, ["write_stdin"], 1)


def test_a_long_command_whose_end_event_came_first_fails_on_its_own_call_only() -> None:
    # Codex CLI 0.120: the command's exec_command_end (its own call id) comes before the poll's
    # output saying the same: one failure, the command's, as before the outputs were read
    b = RolloutBuilder()
    b.turn("Run the slow tests")
    cmd = b.exec_unified("go test ./...", "", exit_code=None, session=32068)
    b.poll(32068, "--- FAIL: TestRun", exit_code=1, end_of=cmd)
    assert _errors(b) == (1, ["exec_command"], 1)


def test_an_end_event_after_the_poll_that_said_the_failure_counts_it_no_more() -> None:
    b = RolloutBuilder()
    b.turn("Run the slow tests")
    cmd = b.exec_unified("go test ./...", "", exit_code=None, session=5)
    b.poll(5, "--- FAIL: TestRun", exit_code=1)
    b.tick(0.2).event("exec_command_end", call_id=cmd, process_id="5", exit_code=1, aggregated_output="--- FAIL")
    assert _errors(b)[0] == 1


def test_a_token_total_of_another_type_or_out_of_range_is_rejected_and_said() -> None:
    # as the Claude fold rejects such a usage: counted, listed with its reason, not priced
    b = RolloutBuilder()
    b.turn("Count the tokens")
    b.tokens(1000, 200, 100)
    for bad in (-5000, 10**15, "lots"):
        b.event(
            "token_count", info={"total_token_usage": {"input_tokens": bad, "cached_input_tokens": 0, "output_tokens": 1}}, rate_limits=None
        )
    b.event("token_count", info=None, rate_limits=None)  # rate limits only: nothing rejected
    st = _fold(b).snapshot()
    assert st.counters.usage_rejected == 3 and st.counters.unknown_records == 3
    reasons = [u.reason for u in st.main.unknown]
    assert len(reasons) == 3 and all(r.startswith("usage rejected: Expected `int`") for r in reasons)
    assert (st.tokens.input, st.tokens.cache_read, st.tokens.output) == (800, 200, 100)


def test_a_rollout_whose_every_token_total_is_rejected_costs_unknown_and_keeps_its_model() -> None:
    b = RolloutBuilder()
    b.turn("Count the tokens")
    b.event(
        "token_count", info={"total_token_usage": {"input_tokens": "lots", "cached_input_tokens": 0, "output_tokens": 1}}, rate_limits=None
    )
    st = fold_bytes(b.data(), price=True)
    assert st.counters.usage_rejected == 1 and st.tokens.total == 0
    assert st.cost_usd is None and st.cost_note == "usage of 1 record rejected, none left to price"
    assert st.models and st.models[0].startswith("gpt-")


def test_a_subagent_notification_ends_the_childs_link_as_it_says() -> None:
    # seventh user trial: subagents stayed async_launched after the parent was told they completed
    b = RolloutBuilder()
    b.turn("Review the repo with three agents")
    kids = ["0199c0de-0000-7000-8000-0000000000d1", "0199c0de-0000-7000-8000-0000000000d2", "0199c0de-0000-7000-8000-0000000000d3"]
    for k in kids:
        b.spawn(k, f"review part {k[-1]}")
    for k, status in zip(kids[:2], ({"completed": "Findings: …"}, {"errored": "boom"}), strict=True):
        note = "<subagent_notification>\n" + json.dumps({"agent_path": k, "status": status}) + "\n</subagent_notification>"
        b.tick(1).item("message", role="user", content=[{"type": "input_text", "text": note}])
    b.tick(1).item("message", role="user", content=[{"type": "input_text", "text": "<subagent_notification>\nnot json"}])
    st = _fold(b).snapshot()
    by = {s.agent_id: s.status for s in st.main.subagents}
    assert by == {kids[0]: "completed", kids[1]: "error", kids[2]: "async_launched"}


def test_a_rollout_timestamp_that_is_no_time_is_a_shape_problem_left_out() -> None:
    b = RolloutBuilder()
    b.turn("Fix the flaky test")
    b.exec("pytest -q", "1 passed")
    lines = b.data().split(b"\n")
    rec = json.loads(lines[-2])
    rec["timestamp"] = "[trimmed]"
    lines[-2] = json.dumps(rec).encode()
    st = fold_bytes(b"\n".join(lines), name="rollout.jsonl")
    assert st.main.counters.shape_errors == 1
    assert [u.reason for u in st.main.unknown] == ["shape: timestamp: not a time, left out"]
    assert st.main.last_timestamp == json.loads(lines[-3])["timestamp"]  # the record before it
