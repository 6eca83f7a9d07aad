"""Episodes: one per human prompt, their fields, statuses, versions and lifecycles."""

from __future__ import annotations

import msgspec
from fixtures import envelope
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario import Script, golden_script

from tracetui.model.derive import Deriver
from tracetui.model.episodes import duration_between
from tracetui.model.fold import FileFold
from tracetui.model.session_fold import fold_bytes
from tracetui.views.text import state_as_of
from tracetui.views.worker import current_episodes


def _eps(state):
    return {(e.index, e.version): e for e in state.episodes}


def test_one_episode_per_prompt_with_its_fields() -> None:
    s = Script()
    s.prompt("first ask")
    s.call("t1", "Read", {"file_path": "/a.py"}, u=(100, 1, 0, 0))
    s.result("t1", "content")
    s.call("t2", "Edit", {"file_path": "/a.py", "old_string": "a", "new_string": "b"}, u=(100, 1, 0, 0))
    s.result("t2", "done")
    s.say("All done.", u=(100, 7, 50, 25))
    s.prompt("second ask")
    s.say("ok")
    st = s.state()
    eps = current_episodes(st)
    assert [e.index for e in eps] == [1, 2]
    e1 = eps[0]
    assert e1.ask == "first ask" and e1.ask_anchor.line == 1
    assert e1.status == "ok" and e1.lifecycle == "current"
    assert e1.tools == {"Edit": 1, "Read": 1} and e1.tool_calls == 2
    assert [(f.path, f.reads, f.edits) for f in e1.files] == [("/a.py", 1, 1)]
    # three API messages: 100+100+100 input, 1+1+7 output, cache 50 written, 25 read
    assert (e1.tokens.input, e1.tokens.output, e1.tokens.cache_creation, e1.tokens.cache_read) == (300, 9, 50, 25)
    assert e1.conclusion == "All done." and e1.conclusion_anchor.line == 6
    assert e1.first.line == 1 and e1.last.line == 6
    # timestamps step 7 s per record: records 1..6 are the first episode (prompt included)
    assert e1.start == "2026-01-01T10:00:07.000Z" and e1.end == "2026-01-01T10:00:42.000Z"
    assert e1.duration_s == 35.0
    assert eps[1].status == "in_progress" and eps[1].ask == "second ask"


def test_the_ask_is_the_whole_prompt_not_the_excerpt() -> None:
    long = "please " + "x" * 300
    st = Script().prompt(long).say("ok").prompt("next").state()
    assert current_episodes(st)[0].ask == long


def test_statuses_errors_unresolved_interrupted() -> None:
    s = Script()
    s.prompt("a")  # ends on success after an error → errors
    s.call("t1", "Bash", {"command": "false"})
    s.result("t1", "Exit code 1", is_error=True)
    s.call("t2", "Bash", {"command": "true"})
    s.result("t2", "")
    s.say("fixed")
    s.prompt("b")  # ends on an error → unresolved
    s.call("t3", "Bash", {"command": "false"})
    s.result("t3", "Exit code 1", is_error=True)
    s.prompt("c")  # the user interrupts → interrupted
    s.call("t4", "Bash", {"command": "sleep 9"})
    s.result("t4", "[Request interrupted by user for tool use]", is_error=True)
    s.interrupt()
    s.prompt("d")  # clean → ok
    s.say("hello")
    s.prompt("e")
    st = s.state()
    assert [e.status for e in current_episodes(st)] == ["errors", "unresolved", "interrupted", "ok", "in_progress"]


def test_next_prompt_with_calls_open_makes_an_interrupted_version() -> None:
    s = Script()
    s.prompt("watch it")
    s.call("toolu_watch0001", "Bash", {"command": "watch"})
    s.prompt("stop")
    st = s.state()
    eps = _eps(st)
    v1, v2 = eps[(1, 1)], eps[(1, 2)]
    assert v1.lifecycle == "superseded" and v1.superseded_by == 2 and v1.status == "in_progress"
    assert v2.lifecycle == "current" and v2.status == "interrupted"
    assert [c.id for c in v2.dangling] == ["toolu_watch0001"]
    assert "1 call open" in v2.reason and v2.reason_anchor.line == 3
    # the old version is kept, not overwritten
    assert v1.dangling == v2.dangling and v1.ask == v2.ask


def test_a_late_result_supersedes_the_earlier_episode() -> None:
    s = Script()
    s.prompt("start")
    s.call("toolu_bg000001", "Bash", {"command": "long"})
    s.prompt("meanwhile")
    s.result("toolu_bg000001", "finished late")
    s.say("noted")
    st = s.state()
    versions = [e for e in st.episodes if e.index == 1]
    assert [(e.version, e.lifecycle, e.status) for e in versions] == [
        (1, "superseded", "in_progress"),
        (2, "superseded", "interrupted"),
        (3, "current", "interrupted"),
    ]
    v3 = versions[-1]
    assert v3.dangling == () and v3.reason.startswith("late tool_result for …") and v3.reason_anchor.line == 4
    assert versions[1].superseded_by == 3
    # the late result is not counted in the episode it arrived in
    assert current_episodes(st)[1].tool_calls == 0


def test_a_late_result_is_not_in_the_state_as_of_its_episode() -> None:
    s = Script()
    s.prompt("start")
    s.call("toolu_bg000001", "Bash", {"command": "long"})
    s.prompt("meanwhile")
    s.result("toolu_bg000001", "Exit code 137", is_error=True)
    s.prompt("third")
    st = s.state()
    assert max(e.version for e in st.episodes if e.index == 1) == 3
    v3 = next(e for e in st.episodes if e.index == 1 and e.version == 3)
    # made where the late result is in the ledger, not at its place in the version list
    assert v3.made_at > v3.ledger_end
    past = state_as_of(st, 1)
    then = [e for e in past.episodes if e.index == 1]
    assert max(e.version for e in then) == 2
    assert all(err.anchor.line < 4 for e in then for err in e.errors)


def test_progress_of_a_dangling_call_marks_its_episode_suspected_stale() -> None:
    s = Script()
    s.prompt("start")
    s.call("toolu_bg000002", "Bash", {"command": "long"})
    s.prompt("meanwhile")
    s.add(
        envelope(
            "progress",
            uuid="p-1",
            ts="2026-01-01T10:05:00.000Z",
            data={"type": "bash_progress", "output": "..."},
            parentToolUseID="toolu_bg000002",
            toolUseID="x",
        )
    )
    st = s.state()
    lifecycles = {(e.index, e.version): e.lifecycle for e in st.episodes}
    assert lifecycles[(1, 2)] == "suspected-stale"
    # negative: progress of a call of the open episode does not
    s2 = Script().prompt("start").call("toolu_x", "Bash", {"command": "x"})
    s2.add(envelope("progress", uuid="p-2", data={"type": "bash_progress"}, parentToolUseID="toolu_x", toolUseID="y"))
    assert all(e.lifecycle == "current" for e in s2.state().episodes)


def test_duration_is_none_when_timestamps_go_backwards() -> None:
    assert duration_between("2026-01-01T10:00:10.000Z", "2026-01-01T10:00:05.000Z") is None
    assert duration_between("2026-01-01T10:00:05.000Z", "2026-01-01T10:00:10.000Z") == 5.0
    assert duration_between(None, "2026-01-01T10:00:10.000Z") is None
    s = Script()
    s.prompt("a", ts="2026-01-01T10:30:00.000Z")
    s.say("one", ts="2026-01-01T11:00:00.000Z")
    s.say("two", ts="2026-01-01T10:00:00.000Z")  # earlier by the clock, later in the file
    ep = current_episodes(s.state())[0]
    assert ep.start == "2026-01-01T10:30:00.000Z" and ep.end == "2026-01-01T10:00:00.000Z"
    assert ep.duration_s is None


def test_subagents_and_dangling_calls_are_listed() -> None:
    s = Script().prompt("fan out")
    s.call("toolu_task0001", "Task", {"description": "look around", "prompt": "go", "subagent_type": "Explore"})
    st = s.state()
    ep = current_episodes(st)[0]
    assert [(a.tool_use_id, a.description) for a in ep.subagents] == [("toolu_task0001", "look around")]
    assert [c.id for c in ep.dangling] == ["toolu_task0001"]


def test_history_gives_each_episode_as_of_its_end() -> None:
    st = golden_script().state()
    assert len(st.history) == 2
    one = state_as_of(st, 1)
    assert one.main.prompts == 1 and one.latest_ask.text.startswith("Add a --verbose")
    assert [(e.index, e.status) for e in current_episodes(one)] == [(1, "errors")]
    two = state_as_of(st, 2)
    # as of the end of episode 2 the interruption is recognised (the closing prompt made v2)
    assert [(e.index, e.version, e.status) for e in current_episodes(two)] == [(1, 1, "errors"), (2, 2, "interrupted")]
    assert state_as_of(st, 3) is st and state_as_of(st, None) is st


def test_the_deriver_round_trips_through_msgpack() -> None:
    data = golden_script().data()
    f = FileFold(0)
    off = 0
    for n, raw in enumerate(data.split(b"\n")[:-1], 1):
        f.feed_line(n, off, raw)
        off += len(raw) + 1
    enc = msgspec.msgpack.encode(f.derive)
    back = msgspec.msgpack.decode(enc, type=Deriver)
    assert back == f.derive
    assert back.snapshot(f) == f.derive.snapshot(f)


def test_reading_the_same_bytes_twice_gives_the_same_episodes() -> None:
    data = golden_script().data()
    assert fold_bytes(data).episodes == fold_bytes(data).episodes


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=20_000), max_size=6))
def test_any_chunking_gives_the_same_derived_state(cuts) -> None:
    import tempfile
    from pathlib import Path

    from tracetui.session.reader import SessionReader

    data = golden_script().data()
    bounds = [0, *sorted({c % len(data) for c in cuts}), len(data)]
    with tempfile.TemporaryDirectory() as d:
        whole_p, chunk_p = Path(d) / "w" / "s.jsonl", Path(d) / "c" / "s.jsonl"
        for p in (whole_p, chunk_p):
            p.parent.mkdir()
        whole_p.write_bytes(data)
        w = SessionReader(whole_p, subagents=False, price=False)
        w.poll()
        chunk_p.write_bytes(b"")
        c = SessionReader(chunk_p, subagents=False, price=False)
        for a, b in zip(bounds, bounds[1:]):
            with open(chunk_p, "ab") as f:
                f.write(data[a:b])
            c.poll(final=False)
        c.poll(final=True)
        assert c.snapshot().main.derived == w.snapshot().main.derived
        assert [h.derived for h in c.snapshot().history] == [h.derived for h in w.snapshot().history]


def test_an_open_episode_ended_by_an_interrupt_is_interrupted() -> None:
    # the last episode stayed "in_progress" after the user's interrupt, while the same episode
    # was "interrupted" once a next prompt closed it
    s = Script()
    s.prompt("run the tests")
    s.call("toolu_int000000001", "Bash", {"command": "pytest"})
    s.result("toolu_int000000001", "1 passed")
    s.interrupt()
    last = s.state().episodes[-1]
    assert (last.index, last.status, last.interrupts) == (1, "interrupted", 1)
    s.prompt("try again")
    eps = s.state().episodes
    assert [(e.index, e.status) for e in eps if e.lifecycle == "current"] == [(1, "interrupted"), (2, "in_progress")]


def test_the_packed_newest_positions_are_those_of_the_versions() -> None:
    from fixtures import prompt, tool_call, tool_result

    from tracetui.model.session_fold import SessionFold

    recs = []
    for i in range(300):  # late results and retries: episodes get versions long after they closed
        recs += [prompt(f"p{i}"), tool_call(f"t{i}", "Bash", {"command": f"make t{i % 4}"})]
        if i % 3:
            recs.append(tool_result(f"t{i}", "boom" if i % 5 == 0 else "ok", is_error=i % 5 == 0))
        if i >= 2 and (i - 2) % 3 == 0:
            recs.append(tool_result(f"t{i - 2}", "late"))
    import orjson

    sf = SessionFold(price=False)
    sf.add_source("a", "a")
    for no, r in enumerate(recs, 1):
        sf.feed_line(0, no, 0, orjson.dumps(r))
    book = sf.folds[0].derive.book
    versions = list(book.versions)
    assert len(versions) > 300
    newest: dict[int, int] = {}
    for p, v in enumerate(versions):
        newest[v.index] = p
    assert {i: book.newest(i) for i in range(-1, 305) if book.newest(i) is not None} == newest
    assert book.newest(-1) is None and book.newest(10**6) is None
    assert book.last_position() == len(versions) - 1
    back = msgspec.msgpack.decode(msgspec.msgpack.encode(book), type=type(book))
    assert back.latest == book.latest and back.newest(299) == book.newest(299)
