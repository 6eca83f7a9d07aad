"""A failed call that a later retry fixed is resolved, not "unresolved" (derive.retry_keys).

Scenarios follow the fresh-user trial: ``Bash(mix test)`` fails with ``Exit code 1 … 1 failure``,
then the same command succeeds. Transcripts are written by tests/scenario.py.
"""

from __future__ import annotations

from scenario import Script

from tracetui.model.derive import retry_keys
from tracetui.views.card import render_card
from tracetui.views.text import state_as_of
from tracetui.views.worker import current_episodes

FAIL = "Exit code 1\n...\n3 tests, 1 failure"
PASS = "...\n3 tests, 0 failures"


def _open_section(card: str) -> str:
    start = card.index("3. OPEN")
    rest = card[start:]
    nxt = rest.find("\n4. ")
    return rest if nxt < 0 else rest[:nxt]


def _repro(retry_input: dict, retry_ok: bool = True) -> Script:
    s = Script()
    s.prompt("make the tests pass")
    s.say("Running the tests.")
    s.call("toolu_fail00000001", "Bash", {"command": "mix test", "description": "Run tests"})
    s.result("toolu_fail00000001", FAIL, is_error=True)
    s.call("toolu_retry0000001", "Bash", retry_input)
    if retry_ok:
        s.result("toolu_retry0000001", PASS)
    else:
        s.result("toolu_retry0000001", FAIL, is_error=True)
    return s


def test_a_successful_retry_resolves_the_failure_and_the_card_does_not_list_it_open() -> None:
    # the same command, reworded description and an extra timeout: the same normalised input
    st = _repro({"command": "mix  test", "description": "Run the tests again", "timeout": 60000}).state()
    ep = current_episodes(st)[-1]
    assert ep.status == "in_progress" and ep.tool_errors == 1 and ep.resolved_errors == 1
    (err,) = ep.errors
    assert err.tool_use_id == "toolu_fail00000001"
    assert err.resolved_by is not None and err.resolved_by.line == 6  # the retry's result record
    card = render_card(st)
    assert "unresolved error in" not in _open_section(card)
    # a failure a retry fixed is no excluded hypothesis (issue 10 item 9): FOUND says it was fixed
    assert "mix test" not in card[card.index("2. RULED OUT") : card.index("3. OPEN")]
    assert "then a retry succeeded at session.jsonl:6" in card[card.index("1. FOUND") : card.index("2. RULED OUT")]


def test_a_retry_that_fails_again_stays_unresolved() -> None:
    st = _repro({"command": "mix test"}, retry_ok=False).state()
    ep = current_episodes(st)[-1]
    assert ep.resolved_errors == 0 and all(e.resolved_by is None for e in ep.errors)
    assert "unresolved error in episode 1 (in_progress): Bash" in _open_section(render_card(st))


def test_a_different_command_that_succeeds_does_not_resolve_it() -> None:
    st = _repro({"command": "mix compile"}).state()
    ep = current_episodes(st)[-1]
    assert ep.resolved_errors == 0 and ep.errors[0].resolved_by is None
    assert "unresolved error in episode 1 (in_progress): Bash" in _open_section(render_card(st))


def test_a_retry_in_the_next_episode_makes_a_new_version_of_the_failed_one() -> None:
    s = Script()
    s.prompt("run the tests")
    s.call("toolu_fail00000001", "Bash", {"command": "mix test"})
    s.result("toolu_fail00000001", FAIL, is_error=True)
    s.prompt("try again")  # episode 1 ended on the error: unresolved
    s.call("toolu_retry0000001", "Bash", {"command": "mix test"})
    s.result("toolu_retry0000001", PASS)
    s.say("All green.")
    st = s.state()
    v = [e for e in st.episodes if e.index == 1]
    assert [(e.version, e.lifecycle, e.status) for e in v] == [(1, "superseded", "unresolved"), (2, "current", "errors")]
    assert v[1].reason.startswith("failed call …") and v[1].reason_anchor.line == 6
    assert v[1].errors[0].resolved_by.line == 6 and v[1].resolved_errors == 1
    assert v[0].errors[0].resolved_by is None  # the old version is kept as it was
    # as of the end of episode 1 the retry had not happened: it was unresolved then
    assert [e.status for e in current_episodes(state_as_of(st, 1))] == ["unresolved"]
    assert "unresolved error in" not in _open_section(render_card(st))


def test_an_unresolved_episode_that_ended_on_another_error_stays_unresolved() -> None:
    s = Script()
    s.prompt("run the tests")
    s.call("toolu_fail00000001", "Bash", {"command": "mix test"})
    s.result("toolu_fail00000001", FAIL, is_error=True)
    s.call("toolu_fail00000002", "Bash", {"command": "mix format --check"})
    s.result("toolu_fail00000002", "Exit code 1", is_error=True)
    s.prompt("try again")
    s.call("toolu_retry0000001", "Bash", {"command": "mix test"})
    s.result("toolu_retry0000001", PASS)
    st = s.state()
    e1 = current_episodes(st)[0]
    assert e1.version == 2 and e1.status == "unresolved" and e1.ended_on_error == "toolu_fail00000002"
    assert [x.resolved_by is not None for x in e1.errors] == [True, False]


def test_file_tools_resolve_by_path_and_kind() -> None:
    s = Script()
    s.prompt("fix it")
    s.call("toolu_edit00000001", "Edit", {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2"})
    s.result("toolu_edit00000001", "String to replace not found in file.", is_error=True)
    s.call("toolu_read00000001", "Read", {"file_path": "/w/a.py"})
    s.result("toolu_read00000001", "x=1")
    st = s.state()
    assert current_episodes(st)[-1].errors[0].resolved_by is None  # a read does not fix an edit
    s.call("toolu_edit00000002", "Edit", {"file_path": "/w/a.py", "old_string": "x=1", "new_string": "x=2"})
    s.result("toolu_edit00000002", "The file has been updated.")
    st = s.state()
    assert current_episodes(st)[-1].errors[0].resolved_by.line == 7
    # an edit of another file resolves nothing
    s2 = Script()
    s2.prompt("fix it")
    s2.call("toolu_edit00000001", "Edit", {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2"})
    s2.result("toolu_edit00000001", "String to replace not found in file.", is_error=True)
    s2.call("toolu_edit00000002", "Edit", {"file_path": "/w/b.py", "old_string": "y", "new_string": "z"})
    s2.result("toolu_edit00000002", "The file has been updated.")
    assert current_episodes(s2.state())[-1].errors[0].resolved_by is None


def test_retry_keys_separate_threads_and_ignore_volatile_keys() -> None:
    a = retry_keys("Bash", {"command": "mix test", "description": "x"}, None, True)
    b = retry_keys("Bash", {"command": "mix   test", "timeout": 5}, None, True)
    c = retry_keys("Bash", {"command": "mix test"}, None, False)
    assert a == b and set(a).isdisjoint(c)
    assert len(retry_keys("Edit", {"file_path": "/a"}, ("/a", "edit"), True)) == 2


def test_resolution_is_the_same_in_any_chunking() -> None:
    from tracetui.model.session_fold import SessionFold

    data = _repro({"command": "mix test"}).data()
    ref = current_episodes(_repro({"command": "mix test"}).state())
    for size in (1, 7, 64):
        sf = SessionFold(price=False)
        sf.add_source("session.jsonl", "session.jsonl")
        buf, off, n = b"", 0, 0
        for i in range(0, len(data), size):
            buf += data[i : i + size]
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                n += 1
                sf.feed_line(0, n, off, line)
                off += len(line) + 1
        assert current_episodes(sf.snapshot()) == ref


def test_the_worker_view_says_where_a_retry_fixed_a_failure() -> None:
    from tracetui.views.worker import render_worker_view

    fixed = render_worker_view(_repro({"command": "mix test"}).state())
    failures = fixed[fixed.index("RECENT FAILURES") : fixed.index("EPISODES")]
    assert "a retry succeeded at session.jsonl:6" in failures, failures
    still = render_worker_view(_repro({"command": "mix test"}, retry_ok=False).state())
    assert "a retry succeeded" not in still
