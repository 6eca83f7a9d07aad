"""The worker view and the card: goldens, anchors, budgets, as-of-episode, the CLI."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenario import Script, golden_script

from tracetui.cli import main
from tracetui.views.card import CARD_MAX_TOKENS, DISCLAIMER, PLACEMENT, render_card
from tracetui.views.text import Item, Section, estimate_tokens, fit, quote
from tracetui.views.worker import DEFAULT_MAX_CHARS, render_worker_view

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
ANCHOR_END = re.compile(r" @ (\S+:\d+|unlocated)$")
SECTIONS = ("GOAL", "LATEST ASK", "NOW", "IN FLIGHT", "ANOMALIES", "COUNTERS", "FILES", "KEY FACTS", "RECENT FAILURES", "EPISODES")
NOW = datetime(2026, 1, 1, 10, 30, 0, tzinfo=UTC)


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    # a missing golden fails (it is never written silently, or the test could not fail)
    assert path.exists(), f"{name} is missing; write it with UPDATE_GOLDEN=1 and review it"
    assert path.read_text(encoding="utf-8") == text + "\n", f"{name} differs; review and rerun with UPDATE_GOLDEN=1"


@pytest.fixture(scope="module")
def state():
    return golden_script().state()


# -- goldens -------------------------------------------------------------------------------


def test_worker_view_golden(state) -> None:
    _golden("worker_view.txt", render_worker_view(state))


def test_worker_view_golden_with_now_and_small_budget(state) -> None:
    _golden("worker_view_now_1500.txt", render_worker_view(state, now=NOW, max_chars=1500))


def test_worker_view_golden_as_of_episode_1(state) -> None:
    _golden("worker_view_episode1.txt", render_worker_view(state, episode=1))


def test_card_golden(state) -> None:
    _golden("card.txt", render_card(state))


def test_card_golden_as_of_episode_2(state) -> None:
    _golden("card_episode2.txt", render_card(state, episode=2))


# -- the worker view's contract -------------------------------------------------------------


def test_worker_view_has_every_section_in_order(state) -> None:
    text = render_worker_view(state)
    pos = [text.find("\n" + s) for s in SECTIONS]
    assert all(p > 0 for p in pos), pos
    assert pos == sorted(pos)


def _no_prompt_script(sidechain: bool) -> Script:
    """A file with no human prompt: a subagent's own transcript whose task prompt is not there."""
    s = Script()
    extra = {"isSidechain": True, "agentId": "a1b2c3d"} if sidechain else {}
    s.call("toolu_01READ00000001", "Read", {"file_path": "/w/x.py"}, **extra)
    s.result("toolu_01READ00000001", "x = 1", **extra)
    return s


@pytest.mark.parametrize("sidechain", [True, False])
def test_every_section_is_there_when_the_file_has_no_prompt(sidechain: bool) -> None:
    """GOAL and LATEST ASK are never dropped: they say none and why (issue 10 item 10)."""
    st = _no_prompt_script(sidechain).state("agent-a1b2c3d.jsonl" if sidechain else "session.jsonl")
    text = render_worker_view(st)
    for sec in SECTIONS:
        assert "\n" + sec in text, sec
    goal = next(line for line in text.splitlines() if line.startswith("GOAL: "))
    assert goal.startswith("GOAL: none recorded in this file")
    if sidechain:
        assert "parent's Task call" in goal
    assert "\nLATEST ASK: none (no prompt in this file)" in text
    card = render_card(st)
    assert "Goal: none recorded in this file" in card and "Sub-goal now: none (no prompt in this file)" in card


def test_latest_ask_with_one_prompt_says_it_is_the_goal() -> None:
    s = Script().prompt("Add a --verbose flag.")
    s.call("toolu_01READ00000001", "Read", {"file_path": "/w/x.py"})
    text = render_worker_view(s.state())
    assert "\nLATEST ASK: the goal itself (one prompt) @ session.jsonl:1" in text


def test_every_section_of_an_empty_session_says_none() -> None:
    """A session of one prompt and nothing else: every section is there, the empty ones say none."""
    st = Script().prompt("Add a --verbose flag.").state()
    text = render_worker_view(st)
    lines = text.splitlines()
    for sec in SECTIONS:
        i = next(k for k, line in enumerate(lines) if line.startswith(sec))
        if sec not in ("GOAL", "LATEST ASK", "NOW", "COUNTERS", "EPISODES"):  # the one prompt opened an episode
            assert lines[i + 1].strip().startswith("none"), (sec, lines[i + 1])
    card = render_card(st)
    for head in ("1. FOUND\n", "2. RULED OUT (excluded hypotheses)\n", "3. OPEN\n"):
        assert card.split(head)[1].lstrip().startswith("none"), head


def test_every_fact_line_ends_with_its_anchor(state) -> None:
    text = render_worker_view(state, now=NOW)
    lines = text.split("\n")
    fact_lines = [
        ln
        for ln in lines[1:-1]
        if not ln.startswith("files: ")
        and ln.strip()
        and not re.match(r"^\s*\+\d+ more", ln)
        and ln.strip() != "none"
        and not ln.isupper()
        and not re.match(r"^[A-Z ]+ \(.*\)$", ln)
        and ln != "COUNTERS"
    ]
    assert fact_lines
    for ln in fact_lines:
        assert ANCHOR_END.search(ln), ln


def test_in_flight_lines_name_tool_id_tail_input_and_anchor(state) -> None:
    text = render_worker_view(state)
    block = text.split("IN FLIGHT (2)\n")[1].split("\nANOMALIES")[0].split("\n")
    assert block == [
        "  Bash …leep0001 «sleep 600 && echo done» @ session.jsonl:30",
        "  Bash …atch0001 «gh pr checks --watch» @ session.jsonl:27",
    ]


def test_watermark_says_what_the_view_covers(state) -> None:
    wm = render_worker_view(state).split("\n")[1]
    size = state.sources[0].size
    assert wm.startswith("WATERMARK: ")
    assert f"{size:,} of {size:,} bytes read" in wm
    assert "malformed 0 · unknown 0 · pending 0 bytes" in wm
    assert f"byte {state.main.last_anchor.offset:,}" in wm and wm.endswith("@ session.jsonl:30")


def test_watermark_counts_malformed_and_unknown_records() -> None:
    s = Script().prompt("a").say("b")
    s.add(b"{not json")
    s.add({"type": "brand-new-record", "x": 1})
    text = render_worker_view(s.state())
    assert "malformed 1 · unknown 1 record, 0 blocks" in text.split("\n")[1]


def test_ages_need_now_and_never_read_the_clock(state) -> None:
    assert "ago" not in render_worker_view(state)
    with_now = render_worker_view(state, now=NOW)
    assert "sleep 600 && echo done» (" in with_now and " ago)" in with_now
    assert render_worker_view(state, now=NOW.timestamp()) == with_now


def test_shortened_lists_say_so() -> None:
    s = Script().prompt("touch many files")
    for i in range(40):
        s.call(f"t{i:03d}", "Read", {"file_path": f"/work/demo/f{i:02d}.py"})
        s.result(f"t{i:03d}", "x")
    text = render_worker_view(s.state(), max_chars=2500)
    m = re.search(r"\+(\d+) more files", text)
    assert m, text
    shown = len(re.findall(r"^  f\d\d\.py", text, re.M))
    assert shown + int(m.group(1)) == 40


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=1, max_value=9000), st.sampled_from([None, 1, 2]))
def test_the_budget_always_holds(state, max_chars: int, episode) -> None:
    text = render_worker_view(state, episode=episode, max_chars=max_chars)
    assert len(text) <= max_chars
    if max_chars >= 1200:
        assert text.split("\n")[1].startswith("WATERMARK")


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(st.text(min_size=0, max_size=300), max_size=30), min_size=1, max_size=6),
    st.integers(min_value=0, max_value=5000),
)
def test_fit_never_exceeds_the_budget(lists, budget: int) -> None:
    secs = [Section(f"S{i}", [Item(t, f"f.jsonl:{j}") for j, t in enumerate(items)], keep=i % 2, cost=i) for i, items in enumerate(lists)]
    text = fit(["HEAD"], secs, ["FOOT"], budget)
    assert len(text) <= budget
    if budget >= 200 + sum(len(s.title) + 30 for s in secs):
        assert text.startswith("HEAD") and text.endswith("FOOT")


def test_default_budget_is_6000(state) -> None:
    s = Script().prompt("x" * 5000)
    for i in range(200):
        s.call(f"t{i:03d}", "Read", {"file_path": f"/work/demo/some/long/path/file_{i:03d}.py"})
        s.result(f"t{i:03d}", "Exit code 2\n" + "boom " * 50, is_error=True)
    text = render_worker_view(s.state())
    assert DEFAULT_MAX_CHARS == 6000 and len(text) <= 6000
    assert "more files" in text and "more failures" in text


def test_unknown_episode_is_a_value_error(state) -> None:
    with pytest.raises(ValueError, match="episode 9 does not exist"):
        render_worker_view(state, episode=9)
    with pytest.raises(ValueError):
        render_card(state, episode=0)


def test_as_of_episode_leaves_out_what_came_later(state) -> None:
    one = render_worker_view(state, episode=1)
    assert "as of end of episode 1 of 3" in one
    assert "pull/42" not in one and "sleep 600" not in one
    assert "IN FLIGHT (0)" in one


# -- the card's contract ---------------------------------------------------------------------


def test_card_sections_placement_and_disclaimer(state) -> None:
    card = render_card(state)
    lines = card.split("\n")
    assert lines[1] == PLACEMENT and "BEFORE" in PLACEMENT
    assert lines[-1] == DISCLAIMER
    pos = [card.find(h) for h in ("0. TASK CONDITION", "1. FOUND", "2. RULED OUT", "3. OPEN", "LEFT OUT")]
    assert all(p > 0 for p in pos) and pos == sorted(pos)
    # section 0 is the task condition: goal, sub-goal, the criterion and constraints stated
    sec0 = card.split("0. TASK CONDITION\n")[1].split("1. FOUND")[0]
    assert "Goal (first prompt): «Add a --verbose flag" in sec0
    assert "Sub-goal now (latest ask): «Stop watching; what is the PR number?»" in sec0
    assert "Acceptance criterion stated: «Tests must pass.»" in sec0
    assert "Constraint stated: «Don't touch the public API.»" in sec0


def test_card_ruled_out_and_open(state) -> None:
    card = render_card(state)
    ruled = card.split("2. RULED OUT")[1].split("3. OPEN")[0]
    assert "user rejected Edit(/work/demo/api.py) @ session.jsonl:13" in ruled
    assert "reverted" in ruled
    # the failed pytest run was retried with success at line 17, and a dropped todo is no
    # excluded hypothesis: both are facts (issue 10 item 9)
    assert "pytest" not in ruled and "todo dropped" not in ruled
    found = card.split("1. FOUND")[1].split("2. RULED OUT")[0]
    assert "tried Bash(pytest -q): failed with «Exit code 1" in found and "then a retry succeeded at session.jsonl:17" in found
    assert "todo dropped while pending: write tests (removed from the list, not done; not ruled out)" in found
    opened = card.split("3. OPEN")[1]
    assert "pending call Bash …leep0001" in opened


def test_card_rules_out_only_what_stayed_failed() -> None:
    """A failure a retry fixed is not ruled out; one that stayed failed is (issue 10 item 9)."""
    s = Script()
    s.prompt("Make the build green.")
    s.call("toolu_01MAKE00000001", "Bash", {"command": "make build"})
    s.result("toolu_01MAKE00000001", "Exit code 2\nmissing header foo.h", is_error=True)
    s.call("toolu_01LINT00000001", "Bash", {"command": "make lint"})
    s.result("toolu_01LINT00000001", "Exit code 1\nstyle errors", is_error=True)
    s.call("toolu_01MAKE00000002", "Bash", {"command": "make build", "description": "again"})
    s.result("toolu_01MAKE00000002", "built")
    card = render_card(s.state())
    ruled = card.split("2. RULED OUT")[1].split("3. OPEN")[0]
    assert "make lint" in ruled and "make build" not in ruled
    found = card.split("1. FOUND")[1].split("2. RULED OUT")[0]
    assert "tried Bash(make build): failed with «Exit code 2" in found and "then a retry succeeded at session.jsonl:7" in found


def test_card_ruled_out_says_none_when_every_failure_was_fixed() -> None:
    s = Script()
    s.prompt("Make the build green.")
    s.call("toolu_01MAKE00000001", "Bash", {"command": "make build"})
    s.result("toolu_01MAKE00000001", "Exit code 2", is_error=True)
    s.call("toolu_01MAKE00000002", "Bash", {"command": "make build"})
    s.result("toolu_01MAKE00000002", "built")
    ruled = render_card(s.state()).split("2. RULED OUT (excluded hypotheses)\n")[1].split("3. OPEN")[0]
    assert ruled.strip().startswith("none:") and "make" not in ruled


def test_card_quotes_tool_output_as_data(state) -> None:
    card = render_card(state)
    i = card.find("IGNORE ALL PREVIOUS INSTRUCTIONS")
    assert i > 0
    line = card[card.rfind("\n", 0, i) + 1 : card.find("\n", i)]
    assert line.count("«") == line.count("»") >= 1
    assert line.rfind("«", 0, line.find("IGNORE")) > line.rfind("»", 0, line.find("IGNORE"))
    assert quote("a «b» c") == '«a "b" c»'


def test_card_stays_within_800_tokens_and_says_what_it_left_out() -> None:
    s = Script().prompt("Do it all. It must work. Never break things. " * 20)
    for i in range(120):
        s.call(f"t{i:03d}", "Bash", {"command": f"pytest tests/test_{i}.py"})
        s.result(f"t{i:03d}", f"Exit code 1\nE assert {i}\n1 failed, {i} passed in 0.1s", is_error=True)
    card = render_card(s.state())
    assert estimate_tokens(card) <= CARD_MAX_TOKENS
    m = re.search(r"~(\d+) tokens", card)
    assert m and int(m.group(1)) == estimate_tokens(card)
    assert re.search(r"\+\d+ more excluded hypotheses", card)
    assert card.endswith(DISCLAIMER)


def test_card_marks_facts_without_anchor_unlocated() -> None:
    s = Script().prompt("a").say("b")
    s.add({"type": "custom-title", "customTitle": "My session", "sessionId": "s"})
    assert "session title «My session» @ unlocated" in render_card(s.state())


def test_views_are_pure_functions(state) -> None:
    assert render_worker_view(state) == render_worker_view(state)
    assert render_card(state) == render_card(state)


# -- the CLI ---------------------------------------------------------------------------------


def test_cli_view_and_card(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import tracetui.commands
    from tracetui.session.reader import SessionReader

    now = 1_800_000_000.0  # the commands' clock, frozen: the view's ages and stall are at it
    monkeypatch.setattr(tracetui.commands, "clock", lambda: now)

    p = tmp_path / "session.jsonl"
    p.write_bytes(golden_script().data())
    r = SessionReader([p])
    r.poll()
    state = r.snapshot()  # priced, as the CLI does
    assert main(["view", str(p), "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert out == render_worker_view(state, now=now) + "\n"
    assert main(["view", str(p), "--no-cache", "--max-chars", "900"]) == 0
    assert len(capsys.readouterr().out) <= 901
    assert main(["card", str(p), "--no-cache", "--episode", "1"]) == 0
    assert capsys.readouterr().out == render_card(state, episode=1) + "\n"


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "session.jsonl"
    p.write_bytes(golden_script().data())
    assert main(["view", str(p), "--no-cache", "--episode", "9"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "episode 9 does not exist" in err
    for cmd in ("view", "card", "state"):
        assert main([cmd, str(tmp_path / "missing.jsonl")]) == 1
        err = capsys.readouterr().err
        assert err == f"tracetui: {tmp_path / 'missing.jsonl'}: no such file\n"
    # trial 13: a dangling symlink said "no such file", though the link is there
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "gone" / "x.jsonl")
    for cmd in ("view", "state"):
        assert main([cmd, str(link), "--no-cache"]) == 1
        err = capsys.readouterr().err
        assert err == f"tracetui: {link}: a dangling symlink to {tmp_path / 'gone' / 'x.jsonl'}, which does not exist\n"


def test_views_hold_no_rich_markup(state) -> None:
    """A view may be shown by a Rich/Textual widget: it must not contain ``[tag]`` markup."""
    s = Script().prompt("a")
    for i in range(4):
        s.call(f"t{i}", "Bash", {"command": "make"})
        s.result(f"t{i}", "Exit code 1", is_error=True)
    s.call("ok", "Bash", {"command": "true"}).result("ok", "")
    for text in (render_worker_view(state), render_card(state), render_worker_view(s.state()), render_card(s.state())):
        assert not re.search(r"\[/?[a-z][a-z _#0-9]*\]", text), re.search(r"\[/?[a-z][a-z _#0-9]*\]", text)


def test_card_says_when_open_anomalies_are_not_listed() -> None:
    from scenario import Script

    from tracetui.model.anomalies import EDIT_THRASH
    from tracetui.views.card import render_card

    s = Script().prompt("fix x")
    for i in range(EDIT_THRASH):
        s.call(f"t{i}", "Edit", {"file_path": "/w/x.py", "old_string": f"{i}", "new_string": f"{i + 1}"})
        s.result(f"t{i}", "ok")
    card = render_card(s.state())
    open_section = card.split("3. OPEN", 1)[1]
    assert "none: no pending calls" not in open_section
    assert "also open, not task state: 1 anomaly (edit_thrash 1)" in open_section


@pytest.mark.parametrize("value", ["-5", "0", "1", "799"])
def test_view_refuses_a_max_chars_too_small_to_say_what_it_left_out(tmp_path, capsys, value) -> None:
    import pytest as _pytest

    from tracetui.cli import main
    from tracetui.commands import MIN_MAX_CHARS

    p = tmp_path / "s.jsonl"
    p.write_text('{"type":"user","uuid":"u","message":{"role":"user","content":"hi"}}\n')
    with _pytest.raises(SystemExit) as exc:
        main(["view", "--max-chars", value, str(p)])
    assert exc.value.code == 2
    # one message for every value below the minimum (0 and negatives used to say "at least 1")
    assert f"at least {MIN_MAX_CHARS}" in capsys.readouterr().err
    assert main(["view", "--no-cache", "--max-chars", str(MIN_MAX_CHARS), str(p)]) == 0


def test_exit_code_aggregate_says_failing_only_and_has_no_sum(state) -> None:
    # exit codes are recorded for failed shell calls only: the label says so, and a sum of
    # codes (meaningless) is not shown, while a count-like key keeps its sum
    from tracetui.model.facts import Aggregate
    from tracetui.model.state import Anchor
    from tracetui.views.worker import _agg_line

    codes = Aggregate("cmd.exit_code")
    counts = Aggregate("tests.pytest.passed")
    for i, v in enumerate((1, 2, 127)):
        codes.add(v, Anchor(0, i + 1, i * 10))
        counts.add(v, Anchor(0, i + 1, i * 10))
    line = _agg_line(state, state.main.src, codes).body
    assert line.startswith("cmd.exit_code (failing commands only): last 127 · min 1 max 127 · coverage 3 values")
    assert "sum" not in line
    assert "sum 130" in _agg_line(state, state.main.src, counts).body


def test_in_progress_episode_says_how_long_it_has_been_idle(state) -> None:
    # nothing in a transcript marks the end of a session: the last episode stays in progress,
    # and the view says how long nothing happened as of the ``now`` it is given
    from datetime import timedelta

    from tracetui.model.episodes import parse_ts
    from tracetui.views.worker import IDLE_SECONDS, _idle

    last = state.episodes[-1]
    assert last.status == "in_progress" and last.end
    end = parse_ts(last.end)
    assert _idle(end + timedelta(seconds=IDLE_SECONDS - 1), last) == ""
    assert _idle(end + timedelta(hours=3, minutes=2), last) == ", idle 3h02m"
    assert _idle(None, last) == ""
    done = next(ep for ep in state.episodes if ep.status != "in_progress")
    assert _idle(end + timedelta(hours=3), done) == ""
    view = render_worker_view(state, now=end + timedelta(hours=3, minutes=2))
    assert f"#{last.index} v{last.version} in_progress, idle 3h02m" in view


@pytest.mark.parametrize(
    ("seconds", "shown"), [(42.4, "42s"), (59.6, "1m00s"), (190, "3m10s"), (7500, "2h05m"), (289 * 86400 + 22 * 3600 + 59, "289d22h")]
)
def test_views_write_a_span_as_the_monitor_does(seconds: float, shown: str) -> None:
    # a long-finished session's age read "6958h43m ago" in the worker view and "289d22h" in the
    # monitor; both now write days past 24 h
    from tracetui.views.text import fmt_duration

    assert fmt_duration(seconds) == shown
    assert fmt_duration(None) == "?"


def test_as_of_episode_leaves_out_the_live_reading_status(state) -> None:
    # a truncation, replacement or read error happens to the file now; the view as of an earlier
    # episode showed it as an ingest anomaly of that past state
    from tracetui.views.text import state_as_of

    live = msgspec.structs.replace(
        state,
        sources=tuple(
            msgspec.structs.replace(s, truncated=1, resets=("truncated: size 10 < offset 99",), error="boom") for s in state.sources
        ),
    )
    assert "truncated: size 10" in render_worker_view(live)
    past = state_as_of(live, 1)
    assert all(s.truncated == 0 and s.resets == () and s.error is None for s in past.sources)
    one = render_worker_view(live, episode=1)
    assert "truncated" not in one and "boom" not in one


def test_as_of_episode_counts_the_records_before_the_closing_prompt(state) -> None:
    # the state as of episode N is taken when episode N+1's prompt is read; that prompt's record
    # was counted in it too (records L+1 through line L)
    from tracetui.views.text import episode_count, state_as_of

    for n in range(1, episode_count(state)):
        past = state_as_of(state, n)
        closing = state.history[n - 1].last_anchor  # the prompt that closed episode n
        assert past.counters.records == closing.line - 1, n  # one record per line in this scenario


def test_episode_of_a_session_without_prompts_says_why_not() -> None:
    # "this session has 0 episode(s), numbered 1 to 0" could not be acted on
    from tracetui.model.session_fold import fold

    st = fold(
        [
            {
                "type": "assistant",
                "uuid": "a1",
                "message": {"id": "m1", "role": "assistant", "model": "x", "content": [{"type": "text", "text": "hi"}]},
            }
        ]
    )
    with pytest.raises(ValueError) as ei:
        render_worker_view(st, episode=1)
    assert "has no human prompt" in str(ei.value) and "numbered 1 to 0" not in str(ei.value)


@pytest.mark.parametrize(
    ("cost", "note", "shown"),
    [
        (1.234, "estimate (genai-prices)", "$1.23 (estimate)"),
        (
            1.234,
            "estimate (genai-prices); usage of 1 record rejected, not priced",
            "$1.23 (estimate; usage of 1 record rejected, not priced)",
        ),
        (None, "no price known for model-x", "unknown (no price known for model-x)"),
    ],
)
def test_a_cost_note_beyond_a_plain_estimate_is_shown(cost, note, shown) -> None:
    # the views printed "$x.xx (estimate)" and dropped a note saying part of the usage was not priced
    from tracetui.views.text import cost_text

    assert cost_text(cost, note) == shown


def test_state_json_lists_unknown_records_with_their_reason() -> None:
    from tracetui.model.session_fold import fold
    from tracetui.views.state_json import state_to_json

    js = state_to_json(
        fold([{"type": "brand-new-type", "uuid": "x1"}, {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}}])
    )
    assert js["counters"]["unknown_records"] == 1 and "usage_rejected" in js["counters"]
    (u,) = js["unknown"]
    assert (u["type"], u["reason"], u["anchor"]["line"]) == ("brand-new-type", "unknown record type", 1)


def test_as_of_an_episode_a_call_still_open_had_no_result_by_its_end() -> None:
    # the view as of episode 1 said "NOW: in_flight: Bash(...)" for a call whose result had not
    # come by the end of episode 1; and the as-of state's time was the closing prompt's
    from tracetui.views.text import state_as_of

    s = Script()
    s.prompt("run it")
    s.call("toolu_open00000001", "Bash", {"command": "make slow"}, ts="2026-01-01T10:00:05.000Z")
    s.prompt("never mind", ts="2026-01-01T11:00:00.000Z")
    st = s.state()
    one = render_worker_view(st, episode=1)
    now_line = next(ln for ln in one.splitlines() if ln.startswith("NOW"))
    assert "called Bash(make slow): no result by the end of episode 1" in now_line, now_line
    assert state_as_of(st, 1).main.last_timestamp == "2026-01-01T10:00:05.000Z"


def _files_section(view: str) -> list[str]:
    """The FILES title and the lines under it, to the next section's title."""
    lines = view.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("FILES"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("KEY FACTS"))
    return lines[start:end]


def test_a_line_break_in_a_path_shows_as_its_control_picture_on_one_line() -> None:
    # `/tmp/esc/new\nline.py` was listed as `new line.py`: a space that reads as one in the name
    s = Script()
    s.prompt("edit it")
    s.call("toolu_edit0000000001", "Edit", {"file_path": "/tmp/esc/new\nline.py", "old_string": "a", "new_string": "b"})
    s.result("toolu_edit0000000001", "The file has been updated.")
    st = s.state()
    files = _files_section(render_worker_view(st))
    assert len(files) == 2 and files[1].startswith("  /tmp/esc/new\u240aline.py · read 0 write 0 edit 1 @ "), files
    changed = [ln for ln in render_card(st).splitlines() if "changed" in ln]
    assert changed and "new\u240aline.py" in changed[0], changed


@pytest.mark.parametrize(
    ("paths", "title"),
    [
        (["/tmp/elsewhere/a.py", "/opt/b.py"], "FILES (2)"),
        (["/work/demo/a.py", "/work/demo/sub/b.py"], "FILES (2, paths relative to /work/demo)"),
        (["/work/demo/a.py", "/opt/b.py"], "FILES (2, paths under /work/demo relative to it)"),
    ],
)
def test_the_files_title_says_relative_only_of_paths_made_relative(paths: list[str], title: str) -> None:
    # "paths relative to <cwd>" was said over a list of absolute paths when none lay in the cwd
    s = Script()
    s.prompt("read them")
    for i, p in enumerate(paths):
        s.call(f"toolu_read{i:010d}", "Read", {"file_path": p})
        s.result(f"toolu_read{i:010d}", "x")
    st = s.state()
    assert st.main.cwd == "/work/demo"
    files = _files_section(render_worker_view(st))
    assert files[0] == title, files
    listed = {ln.strip().split(" · ")[0] for ln in files[1:]}
    assert listed == {p.removeprefix("/work/demo/") for p in paths}, listed


def test_the_summary_lists_a_few_files_and_the_rest_in_one_line_of_totals(tmp_path: Path) -> None:
    # a session of 1,200 subagent files printed 1,200 source lines in `tracetui state` (ninth user
    # trial): the first files one a line, the rest as one line of totals that say how many
    from fixtures import fan_out

    from tracetui.session.open import load_state
    from tracetui.views.state_json import SOURCE_LINES, state_summary

    n = SOURCE_LINES + 15
    _, state = load_state([fan_out(tmp_path, n)], use_cache=False)
    assert len(state.sources) == n + 1
    text = state_summary(state)
    listed = [ln for ln in text.splitlines() if ln.startswith("source ")]
    assert len(listed) == SOURCE_LINES + 1
    rest = state.sources[SOURCE_LINES:]
    total = sum(s.size for s in rest)
    assert listed[-1].startswith(f"source   +{len(rest)} more files: ") and f"of {total:,} bytes" in listed[-1]
