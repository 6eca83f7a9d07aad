"""Every state rule of tracetui/views/fleet.py, from generated sessions whose times the test sets."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from fleet_support import busy, failing, interrupted, last_time, permission, stalled, state_of, turn_ended, working, write

from tracetui.views.fleet import ATTENTION, RECORD_LAG, STATES, FleetRules, Status, attention_key, classify, rules_help
from tracetui.views.fleet_facts import session_facts


def facts_of(b, tmp_path: Path, project: str = "-home-dev-shop-api"):
    p = write(b, tmp_path, project, b.session_id)
    return session_facts(state_of(p), str(p), project), last_time(b)


def state(b, tmp_path: Path, after: float, written_after: float | None = 0.0, rules: FleetRules = FleetRules()) -> Status:
    """The state ``after`` seconds past the last record, the files written ``written_after`` past it."""
    facts, t = facts_of(b, tmp_path)
    written = None if written_after is None else t + written_after
    return classify(facts, written, t + after, rules)


def test_working_while_records_arrive(tmp_path: Path) -> None:
    assert state(working(), tmp_path, 2).state == "working"


def test_working_mid_turn_until_the_stall(tmp_path: Path) -> None:
    # thinking last: the model is composing its next block
    assert state(working(), tmp_path, 120).state == "working"


def test_permission_prompt_is_waiting_on_you(tmp_path: Path) -> None:
    st = state(permission(), tmp_path, 60)
    assert st.state == "waiting on you"
    assert "Bash" in st.reason and "permission" in st.reason


def test_permission_reason_gives_the_calls_age(tmp_path: Path) -> None:
    b = permission()
    b.tick(40).system("informational", content="a note written 40 s after the call")
    st = state(b, tmp_path, 20)
    assert st.state == "waiting on you"
    assert "no result for 1m00s, files quiet for 20s" in st.reason


def test_turn_ended_on_an_api_error_waits(tmp_path: Path) -> None:
    b = working()
    b.tick(1).api_error(529, "Overloaded")
    st = state(b, tmp_path, 30)
    assert st.state == "waiting on you" and "API error" in st.reason


def test_permission_needs_quiet_files(tmp_path: Path) -> None:
    # the call is old but the file was written 5 s ago (progress records): it runs
    b = permission()
    assert state(b, tmp_path, 60, written_after=55).state == "working"


def test_call_open_beyond_the_stall_threshold_is_stalled(tmp_path: Path) -> None:
    assert state(permission(), tmp_path, 600).state == "stalled"


def test_a_call_that_never_asks_is_not_a_prompt(tmp_path: Path) -> None:
    assert state(stalled(), tmp_path, 60).state == "working"
    st = state(stalled(), tmp_path, 301)
    assert st.state == "stalled"
    assert "1 call open" in st.reason


def test_turn_end_marker_waits_at_once(tmp_path: Path) -> None:
    st = state(turn_ended(), tmp_path, 1)
    assert st.state == "waiting on you"
    assert "turn ended" in st.reason


def test_text_without_marker_waits_once_quiet(tmp_path: Path) -> None:
    assert state(turn_ended(marker=False), tmp_path, 5).state == "working"
    assert state(turn_ended(marker=False), tmp_path, 20).state == "waiting on you"


def test_turn_over_long_ago_is_idle(tmp_path: Path) -> None:
    assert state(turn_ended(), tmp_path, 1801).state == "idle"


def test_a_prompt_after_the_answer_ends_the_wait(tmp_path: Path) -> None:
    b = turn_ended()
    b.tick(30).prompt("And the session store?")
    assert state(b, tmp_path, 2).state == "working"


def test_error_streak_is_failing(tmp_path: Path) -> None:
    st = state(failing(), tmp_path, 1)
    assert st.state == "failing"
    assert "3 tool results in a row failed" in st.reason


def test_tool_loop_is_failing(tmp_path: Path) -> None:
    b = working()
    for _ in range(3):
        b.tick(1).tool("Read", {"file_path": "/home/dev/shop-api/app.py"}, "app = Flask()", took=0.5)
    st = state(b, tmp_path, 1)
    assert st.state == "failing"
    assert "called 3 times" in st.reason


def test_failing_clears_at_a_success(tmp_path: Path) -> None:
    b = failing()
    b.tick(1).tool_result(b.records[-1]["message"]["content"][0]["id"], "def test_app(): ...")
    assert state(b, tmp_path, 1).state == "working"


def test_interrupted_call_is_not_in_flight(tmp_path: Path) -> None:
    facts, _ = facts_of(interrupted(), tmp_path)
    assert facts.in_flight == ()
    assert facts.tail == "interrupt"
    assert state(interrupted(), tmp_path, 60).state == "idle"


def test_ended_after_three_hours(tmp_path: Path) -> None:
    assert state(permission(), tmp_path, 3 * 3600).state == "ended"
    assert state(turn_ended(), tmp_path, 3 * 3600 - 1).state == "idle"


def test_file_time_counts_when_newer_than_the_records(tmp_path: Path) -> None:
    # the last record is 10 min old but the file was written a second ago (within RECORD_LAG)
    assert RECORD_LAG > 600
    assert state(working(), tmp_path, 600, written_after=599).state == "working"


def test_a_file_written_long_after_its_last_record_is_a_copy_quiet_since_that_record(tmp_path: Path) -> None:
    # a fresh-user trial: a transcript copied today (its file just written) whose records are 279
    # days old read as "waiting on you: Bash has no result for 279d13h … a permission prompt?"
    age = 279 * 86400 + 13 * 3600
    st = state(permission(), tmp_path, age, written_after=age - 20)
    assert st.state == "ended" and st.quiet == pytest.approx(age)
    assert "nothing written for 279d13h" in st.reason and "modified 20s ago: a copy?" in st.reason
    # the same with the file written within the lag of its last record: the file's time counts
    assert state(permission(), tmp_path, RECORD_LAG + 20, written_after=RECORD_LAG - 1).state == "waiting on you"


def test_no_file_time_uses_the_records(tmp_path: Path) -> None:
    assert state(permission(), tmp_path, 60, written_after=None).state == "waiting on you"


def test_thresholds_are_settings(tmp_path: Path) -> None:
    rules = FleetRules(quiet_after=120.0)
    assert state(permission(), tmp_path, 60, rules=rules).state == "working"
    assert state(permission(), tmp_path, 60, rules=FleetRules(ended_after=30.0)).state == "ended"


def test_empty_session_is_idle(tmp_path: Path) -> None:
    p = tmp_path / "projects" / "-p" / "e.jsonl"
    p.parent.mkdir(parents=True)
    p.write_bytes(b"")
    facts = session_facts(state_of(p), str(p))
    st = classify(facts, None, 1e9)
    assert st.state == "idle" and math.isinf(st.quiet)


def test_facts_name_the_call_in_flight_and_context(tmp_path: Path) -> None:
    facts, t = facts_of(permission(), tmp_path)
    assert [c.tool for c in facts.in_flight] == ["Bash"]
    assert facts.in_flight[0].brief.startswith("./deploy.sh")
    assert facts.in_flight[0].started == pytest.approx(t)
    assert facts.title == "Deploy the staging build"
    assert 0 < facts.context_used < facts.context_window
    assert facts.tokens > 0 and facts.cost_usd is not None and facts.cost_usd > 0


def test_open_anomalies_counted_by_severity(tmp_path: Path) -> None:
    facts, _ = facts_of(failing(), tmp_path)
    info, warn, error = facts.open_anomalies
    assert error >= 1  # the error streak


def test_attention_order(tmp_path: Path) -> None:
    assert STATES == ("waiting on you", "failing", "stalled", "working", "idle", "ended")
    rows = []
    for b, after in (
        (working(), 2),
        (permission(), 60),
        (failing(), 1),
        (stalled(), 400),
        (turn_ended(), 2000),
        (busy("77777777-0000-4000-8000-000000000007", 2), 4 * 3600),
    ):
        facts, t = facts_of(b, tmp_path)
        rows.append((classify(facts, t, t + after), facts))
    rows.sort(key=lambda r: attention_key(*r))
    assert [s.state for s, _ in rows] == ["waiting on you", "failing", "stalled", "working", "idle", "ended"]
    assert sorted(ATTENTION, key=ATTENTION.get) == list(STATES)


def test_rules_help_names_every_state_with_its_threshold() -> None:
    text = dict(rules_help(FleetRules(quiet_after=20.0)))
    assert list(text) == list(STATES)
    assert "20s" in text["waiting on you"] and "5m00s" in text["stalled"] and "3h00m" in text["ended"]


def test_a_record_stamped_far_after_its_files_were_written_is_no_quiet_time(tmp_path: Path) -> None:
    # a record of year 9999 (a clock gone wrong) kept its session "working, records arriving"
    # for ever; the files, written 5 hours ago, say when the session was last written
    facts, t = facts_of(turn_ended(), tmp_path)
    written = t - 5 * 3600.0  # the last record is stamped 5 hours after its file's last write
    st = classify(facts, written, t, FleetRules())
    assert st.state == "ended" and st.quiet == pytest.approx(5 * 3600.0)
    # a clock a little ahead is a clock apart: the record's time counts
    assert classify(facts, t - 60.0, t + 30.0, FleetRules()).quiet == pytest.approx(30.0)


def test_no_time_known_is_said_so_not_for_ever(tmp_path: Path) -> None:
    # a fresh-user trial: records without a time and a file stamped years ahead said "ended:
    # nothing written for ever"
    b = working()
    p = write(b, tmp_path, "-home-dev-shop-api", b.session_id)
    lines = [json.loads(line) for line in p.read_bytes().splitlines()]
    p.write_bytes(b"".join(json.dumps({k: v for k, v in r.items() if k != "timestamp"}).encode() + b"\n" for r in lines))
    facts = session_facts(state_of(p), str(p))
    assert facts.records and facts.last_record is None
    for written, why in ((2e9 + 10 * 365 * 86400, "its files modified in the future"), (None, "its files' time unknown")):
        st = classify(facts, written, 2e9)
        assert st.state == "ended" and "ever" not in st.reason and st.reason.endswith(why), st.reason


def test_a_call_stamped_after_the_clock_has_no_age(tmp_path: Path) -> None:
    # a fresh-user trial: a Codex call stamped in year 2999 showed in flight "0s" (and its
    # age_s was minus 30 billion seconds)
    from tracetui.views.fleet_table import FUTURE_AGE, fleet_rows, row_cells, row_json

    facts, t = facts_of(permission(), tmp_path)
    (started,) = [c.started for c in facts.in_flight]
    assert started is not None
    for now, age in ((started - 10 * 365 * 86400.0, FUTURE_AGE), (started + 90.0, "1m")):
        (row,) = fleet_rows([(facts, t)], now)
        assert row_cells(row, now)["flight"].endswith(f" {age}")
        (flight,) = row_json(row, now)["in_flight"]
        assert flight["age_s"] == (None if age == FUTURE_AGE else pytest.approx(90.0))


def test_files_written_in_the_future_give_no_quiet_time(tmp_path: Path) -> None:
    # a file's mtime set in the future (touch -d, a clock apart) kept its session "working"
    facts, t = facts_of(turn_ended(), tmp_path)
    now = t + 5 * 3600.0
    st = classify(facts, now + 86_400.0, now, FleetRules())
    assert st.state == "ended" and st.quiet == pytest.approx(5 * 3600.0)  # from its last record
