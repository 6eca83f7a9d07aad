"""Facts and aggregates: extractors, occurrence identity, eviction, idempotence, coverage."""

from __future__ import annotations

from fixtures import envelope
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario import Script

from tracetui.model.facts import (
    Aggregate,
    Fact,
    FactStore,
    extract_commits,
    extract_exit_code,
    extract_pr_urls,
    extract_test_runs,
)
from tracetui.model.state import Anchor

# -- extractors: a positive and a negative each ----------------------------------------------


def test_pytest_summary() -> None:
    out = "....F\n=========== 1 failed, 4 passed, 2 skipped, 1 warning in 0.52s ===========\n"
    assert extract_test_runs(out) == [
        ("pytest", {"failed": 1, "passed": 4, "skipped": 2, "warnings": 1}, "1 failed, 4 passed, 2 skipped, 1 warning in 0.52s")
    ]
    assert extract_test_runs("12 passed in 3.1s") == [("pytest", {"passed": 12, "failed": 0}, "12 passed in 3.1s")]
    assert extract_test_runs("I passed 3 files to the linter") == []


def test_jest_and_vitest_summaries() -> None:
    assert extract_test_runs("Tests:       2 failed, 8 passed, 10 total\nTime: 1s")[0][:2] == ("jest", {"failed": 2, "passed": 8})
    assert extract_test_runs("      Tests  1 failed | 5 passed (6)\n")[0][:2] == ("vitest", {"failed": 1, "passed": 5})
    assert extract_test_runs("Tests are great") == []


def test_go_and_cargo_summaries() -> None:
    go = "--- FAIL: TestX (0.00s)\nFAIL\tgithub.com/a/b\t0.01s\nok  \tgithub.com/a/c\t0.02s\n"
    assert extract_test_runs(go)[0][:2] == ("go", {"passed": 1, "failed": 1, "failed_tests": 1})
    cargo = "test result: ok. 5 passed; 0 failed; 0 ignored;\ntest result: FAILED. 1 passed; 2 failed; 0 ignored;"
    assert extract_test_runs(cargo)[0][:2] == ("cargo", {"passed": 6, "failed": 2})
    assert extract_test_runs("okay then\nFAILURE is not an option") == []


def test_only_the_tail_is_read() -> None:
    out = "3 passed in 0.1s\n" + "x" * 10_000
    assert extract_test_runs(out) == []


def test_commits_pr_urls_exit_codes() -> None:
    assert extract_commits("[main 1a2b3c4] Fix it\n 1 file changed") == [("1a2b3c4", "Fix it", "[main 1a2b3c4] Fix it")]
    assert extract_commits("[main (root-commit) abcdef0] Initial") == [("abcdef0", "Initial", "[main (root-commit) abcdef0] Initial")]
    assert extract_commits("[not a commit] nope") == []
    assert extract_pr_urls("Creating...\nhttps://github.com/a/b/pull/7\n") == ["https://github.com/a/b/pull/7"]
    assert extract_pr_urls("https://github.com/a/b/issues/7") == []
    assert extract_exit_code("Exit code 2\nboom") == 2
    assert extract_exit_code("all fine, Exit code 2 later") is None


# -- the store -------------------------------------------------------------------------------


def _fact(key: str, value, line: int, n: int = 0, src: int = 0) -> Fact:
    return Fact(key, value, Anchor(src, line, line * 100), f"u{line}:0", n)


def test_equal_values_from_two_places_are_two_facts() -> None:
    s = FactStore()
    assert s.add(_fact("tests.pytest.failed", 1, 10))
    assert s.add(_fact("tests.pytest.failed", 1, 20))
    assert s.add(_fact("tests.pytest.failed", 1, 20, src=1))  # same line, another file
    assert s.aggregates["tests.pytest.failed"].count == 3


def test_the_same_occurrence_twice_counts_once() -> None:
    s = FactStore()
    assert s.add(_fact("k", 5, 10))
    assert not s.add(_fact("k", 5, 10))
    assert s.add(_fact("k", 5, 10, n=1))  # a second occurrence in the same event
    a = s.aggregates["k"]
    assert (a.count, a.sum, a.min, a.max, a.last) == (2, 10, 5, 5, 5)


def test_coverage_states_count_and_anchor_range() -> None:
    s = FactStore()
    s.add(_fact("k", 1, 3))
    assert s.aggregates["k"].coverage(lambda a: f"f:{a.line}") == "1 value, at f:3"
    s.add(_fact("k", 2, 9))
    assert s.aggregates["k"].coverage(lambda a: f"f:{a.line}") == "2 values, f:3 through f:9"


def test_non_numeric_values_count_without_sums() -> None:
    a = Aggregate("git.commit")
    a.add("abc fix", Anchor(0, 1, 0))
    a.add("def more", Anchor(0, 2, 0))
    assert (a.count, a.numeric, a.sum, a.last) == (2, 0, None, "def more")


facts_strategy = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c"]),
        st.one_of(st.integers(-50, 50), st.floats(-10, 10, allow_nan=False), st.sampled_from(["x", "y"])),
        st.integers(0, 1),
        st.integers(1, 40),
        st.integers(0, 2),
    ),
    max_size=120,
)


def _agg_view(store: FactStore) -> dict:
    return {k: (a.count, a.numeric, a.sum, a.min, a.max, a.last, a.first, a.through) for k, a in store.aggregates.items()}


@settings(max_examples=200, deadline=None)
@given(facts_strategy, st.integers(min_value=1, max_value=60))
def test_aggregates_survive_any_eviction_bound(items, bound: int) -> None:
    full, small = FactStore(bound=10_000), FactStore(bound=bound)
    for key, value, src, line, n in items:
        f = Fact(key, value, Anchor(src, line, line), f"e{src}-{line}", n)
        full.add(f)
        small.add(f)
    assert _agg_view(small) == _agg_view(full)
    assert len(small.recent) <= bound
    assert small.evicted + len(small.recent) == len(full.recent) == full.added
    assert small.recent == full.recent[len(full.recent) - len(small.recent) :]


@settings(max_examples=200, deadline=None)
@given(facts_strategy, st.integers(min_value=1, max_value=20), st.data())
def test_re_reading_is_idempotent_across_eviction(items, bound: int, data) -> None:
    once, twice = FactStore(bound=bound), FactStore(bound=bound)
    facts = [Fact(k, v, Anchor(s, ln, ln), f"e{s}-{ln}", n) for k, v, s, ln, n in items]
    for f in facts:
        once.add(f)
        twice.add(f)
    again = data.draw(st.lists(st.sampled_from(facts), max_size=40)) if facts else []
    for f in again:
        assert not twice.add(f)
    assert _agg_view(twice) == _agg_view(once) and twice.recent == once.recent


# -- facts from a folded transcript ---------------------------------------------------------


def _facts_state(extra=None):
    s = Script().prompt("run the tests")
    s.call("toolu_t1", "Bash", {"command": "pytest -q"})
    s.result("toolu_t1", "Exit code 1\nF.\n1 failed, 1 passed in 0.1s", is_error=True)
    s.call("toolu_t2", "Bash", {"command": "cd repo && git commit -m 'x'"})
    s.result("toolu_t2", "[feature 0badc0d] x\n 1 file changed")
    s.call("toolu_t3", "Bash", {"command": "gh pr create --fill"})
    s.result("toolu_t3", "https://github.com/o/r/pull/3\n")
    s.record("pr-link", prNumber=3, prUrl="https://github.com/o/r/pull/3", prRepository="o/r")
    s.call("toolu_t4", "TodoWrite", {"todos": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "pending"}]})
    s.result("toolu_t4", "ok")
    s.call("toolu_t5", "TodoWrite", {"todos": [{"content": "a", "status": "completed"}]})
    s.result("toolu_t5", "ok")
    if extra:
        extra(s)
    return s


def test_facts_from_tool_results_and_records() -> None:
    st_ = _facts_state().state()
    d = st_.main.derived
    agg = d.aggregates
    assert (agg["tests.pytest.failed"].last, agg["tests.pytest.passed"].last) == (1, 1)
    assert agg["cmd.exit_code"].last == 1
    assert agg["git.commit"].last == "0badc0d x"
    # the gh output and the pr-link record are two places: two facts, one URL
    assert agg["pr.link"].count == 2 and agg["pr.link"].last == "https://github.com/o/r/pull/3"
    assert [f.value for f in d.facts if f.key == "todo.status"] == [
        "a: new → in_progress",
        "b: new → pending",
        "a: in_progress → completed",
    ]
    assert [n.text for n in d.ruled_out if n.kind == "dropped_todo"] == ["todo dropped while pending: b"]
    # every fact is anchored at the record it came from
    assert {f.anchor.line for f in d.facts if f.key.startswith("tests.")} == {3}


def test_a_record_read_twice_is_not_counted_twice() -> None:
    def dup(s: Script) -> None:
        s.add(dict(s.records[2]))  # the pytest result record again, same uuid (resumed session)

    once = _facts_state().state().main.derived
    twice = _facts_state(dup).state().main.derived
    assert twice.aggregates["tests.pytest.failed"].count == once.aggregates["tests.pytest.failed"].count == 1


def test_task_tools_give_todo_facts() -> None:
    s = Script().prompt("plan")
    s.call("toolu_c1", "TaskCreate", {"subject": "write docs", "description": "d"})
    s.result("toolu_c1", "Task #1 created", result={"task": {"id": "1", "subject": "write docs"}})
    s.call("toolu_u1", "TaskUpdate", {"taskId": "1", "status": "in_progress"})
    s.result("toolu_u1", "Updated", result={"success": True})
    s.call("toolu_u2", "TaskUpdate", {"taskId": "1", "status": "deleted"})
    s.result("toolu_u2", "Updated", result={"success": True})
    d = s.state().main.derived
    assert [f.value for f in d.facts if f.key == "todo.status"] == [
        "#1 write docs: new → pending",
        "#1 write docs: pending → in_progress",
        "#1 write docs: in_progress → deleted",
    ]
    assert [n.kind for n in d.ruled_out] == ["dropped_todo"]


def test_non_shell_output_is_not_scanned() -> None:
    s = Script().prompt("read")
    s.call("toolu_r", "Read", {"file_path": "/x"})
    s.result("toolu_r", "1 failed, 2 passed in 0.1s\n[main abcdef1] subject")
    assert s.state().main.derived.aggregates == {}


def test_pr_link_record_alone() -> None:
    s = Script().prompt("x")
    s.add(envelope("pr-link", uuid=None, prNumber=9, prUrl="https://github.com/o/r/pull/9"))
    agg = s.state().main.derived.aggregates
    assert agg["pr.link"].last == "https://github.com/o/r/pull/9" and agg["pr.link"].count == 1


def test_stated_criteria_and_constraints_rule() -> None:
    from tracetui.model.derive_rules import statements as _statements

    got = _statements("Keep going. Leave the tests alone. Do not push to main. It should compile. Thanks!")
    assert got == [("constraint", "Leave the tests alone."), ("constraint", "Do not push to main."), ("criterion", "It should compile.")]
    assert _statements("continue please") == []


def test_stated_sentences_are_not_split_at_dots_inside_urls_versions_and_file_names() -> None:
    """Issue 10 item 12: "https://x.org/v2.1/api.html" or "3.11.4" is no sentence end."""
    from tracetui.model.derive_rules import statements as _statements

    got = _statements(
        "Follow https://docs.example.com/v2.1/api.html exactly, do not use v1. "
        "Only touch src/app.py, e.g. the handler. Tests must pass on Python 3.11.4!"
    )
    assert got == [
        ("constraint", "Follow https://docs.example.com/v2.1/api.html exactly, do not use v1."),
        ("constraint", "Only touch src/app.py, e.g. the handler."),
        ("criterion", "Tests must pass on Python 3.11.4!"),
    ]


def test_excluded_hypotheses_reverted_edit_and_interrupted_tool_use() -> None:
    s = Script().prompt("edit")
    s.call("toolu_e1", "Edit", {"file_path": "/w/a.py", "old_string": "A", "new_string": "B"})
    s.result("toolu_e1", "ok")
    s.call("toolu_e2", "Edit", {"file_path": "/w/a.py", "old_string": "B", "new_string": "C"})  # not a revert
    s.result("toolu_e2", "ok")
    assert [n.kind for n in s.state().main.derived.ruled_out] == []
    s.call("toolu_e3", "Edit", {"file_path": "/w/a.py", "old_string": "C", "new_string": "B"})  # undoes e2
    s.result("toolu_e3", "ok")
    s.call("toolu_b1", "Bash", {"command": "sleep 5"})
    s.result("toolu_b1", "[Request interrupted by user for tool use]", is_error=True)
    notes = s.state().main.derived.ruled_out
    assert [(n.kind, n.anchor.line) for n in notes] == [("reverted", 6), ("interrupted", 9)]
    assert notes[0].text == "edit of /w/a.py reverted (edit at line 4 undone)"
