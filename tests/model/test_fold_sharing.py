"""Snapshots share what did not change, and never change afterwards (the fold's memory rule).

The per-prompt history keeps one :class:`AgentState` per episode; it stays small because an
unchanged container is the previous snapshot's object and leaves are replaced, never mutated.
These tests check both halves: sharing happens, and a snapshot taken earlier still encodes to
the same bytes after everything that followed (so nothing it shares was mutated).
"""

from __future__ import annotations

from pathlib import Path

import msgspec
from fixtures import fan_out, prompt
from fixtures import line as record_line
from scenario import Script, golden_script

from tracetui.model.fold import FileFold
from tracetui.model.session_fold import SessionFold, fold_bytes
from tracetui.views.text import episodes_as_of, state_as_of


def _busy_script() -> Script:
    """Anomalies that gain evidence and change message (error streak, re-reads, edit thrash),
    facts whose aggregates change (two test runs), and three prompts."""
    s = golden_script()
    s.prompt("Keep going until the tests pass.")
    for i in range(4):
        s.call(f"toolu_04READ{i:08d}", "Read", {"file_path": "/work/demo/cli.py"})
        s.result(f"toolu_04READ{i:08d}", "def main(): ...")
    for i in range(4):
        s.call(f"toolu_04BASH{i:08d}", "Bash", {"command": f"pytest -q -k t{i}"})
        s.result(f"toolu_04BASH{i:08d}", f"Exit code 1\n{i + 1} failed, 2 passed in 0.1s", is_error=True)
    for i in range(6):
        s.call(f"toolu_04EDIT{i:08d}", "Edit", {"file_path": "/work/demo/cli.py", "old_string": f"a{i}", "new_string": f"b{i}"})
        s.result(f"toolu_04EDIT{i:08d}", "The file has been updated.")
    s.call("toolu_04BASHok000001", "Bash", {"command": "pytest -q"})
    s.result("toolu_04BASHok000001", "5 passed in 0.2s")
    s.say("Green now.")
    s.prompt("Thanks.")
    return s


def _fold_line_by_line(data: bytes) -> tuple[FileFold, list]:
    f = FileFold(0)
    snaps = []
    off = 0
    for n, raw in enumerate(data.split(b"\n")[:-1], 1):
        f.feed_line(n, off, raw)
        off += len(raw) + 1
        snaps.append(f.snapshot())
    return f, snaps


def test_a_snapshot_never_changes_after_more_records() -> None:
    f, snaps = _fold_line_by_line(_busy_script().data())
    enc = msgspec.msgpack.encode
    # encode each snapshot as it was when taken, by refolding up to that point
    data = _busy_script().data().split(b"\n")[:-1]
    for k in (5, len(data) // 2, len(data) - 3):
        g = FileFold(0)
        off = 0
        for n, raw in enumerate(data[:k], 1):
            g.feed_line(n, off, raw)
            off += len(raw) + 1
        fresh = g.snapshot()
        assert enc(snaps[k - 1]) == enc(fresh), f"snapshot after line {k} changed later"
        assert [enc(h) for h in g.history] == [enc(h) for h in f.history[: len(g.history)]]
    d = snaps[-1].derived
    assert any(a.evidence_count > 3 for a in d.anomalies)  # the script does exercise mutation
    assert any(a.count > 1 for a in d.aggregates.values())


def test_unchanged_containers_are_the_previous_snapshots() -> None:
    f, snaps = _fold_line_by_line(_busy_script().data())
    a = f.snapshot()
    assert f.snapshot() is a  # nothing folded since: the same snapshot, not a copy
    b = f.snapshot(history=True)  # made anew (a history snapshot is never the last one again)
    assert b is not a
    for name in ("facts", "aggregates", "anomalies", "ruled_out", "stated", "changed"):
        assert getattr(a.derived, name) is getattr(b.derived, name), name
    assert a.tools_by_name is b.tools_by_name and a.tokens_by_model is b.tokens_by_model
    assert f.snapshot() is not b and f.snapshot() == a  # after it, a whole one again, the same figures
    # across the history, anomalies that did not change are shared objects, not copies
    ids = {}
    shared = 0
    for h in f.history:
        for an in h.derived.anomalies:
            shared += ids.setdefault(an.key, an) is an and an is not None
    assert shared >= 1


def test_history_states_leave_episodes_to_the_live_tuple() -> None:
    st = fold_bytes(_busy_script().data())
    assert len(st.history) == 4  # five prompts: the golden three and two more
    assert all(h.derived.episodes == () for h in st.history)
    for k in range(1, len(st.history) + 1):
        h = st.history[k - 1]
        past = state_as_of(st, k)
        assert past.episodes == episodes_as_of(st.episodes, h.ledger_len)
        assert past.main.derived.episodes == past.episodes
        assert past.main.derived.anomalies == h.derived.anomalies
        assert [e.index for e in past.episodes if e.lifecycle == "current"] == list(range(1, k + 1))


def test_the_session_token_book_of_one_file_is_that_files_and_a_second_file_combines() -> None:
    """One file: the session's book is the file's own (each record's usage added once). A file
    added after records were folded gets a combined book: the same figures as when both files
    were registered before any record (messages repeated across files counted once)."""
    import orjson
    from fixtures import assistant, text_block, usage

    from tracetui.model.session_fold import SessionFold

    main = [assistant([text_block(f"part {i}")], msg_id=f"msg_{i % 3}", u=usage(10, 5 * i, 100, 1000)) for i in range(6)]
    side = [assistant([text_block("again")], msg_id="msg_1", u=usage(10, 99, 100, 1000), isSidechain=True, agentId="a1")]
    side.append(assistant([text_block("own")], msg_id="msg_side", u=usage(1, 2, 3, 4), isSidechain=True, agentId="a1"))

    def feed(sf: SessionFold, src: int, recs: list) -> None:
        for n, rec in enumerate(recs, 1):
            sf.feed_line(src, n, n * 1000, orjson.dumps(rec))

    late = SessionFold(price=False)
    late.add_source("main.jsonl", "main")
    feed(late, 0, main)
    assert late.usage is late.folds[0].usage
    one = late.snapshot()
    late.add_source("agent-a1.jsonl", "agent-a1", role="subagent", agent_id="a1")
    assert late.usage is not late.folds[0].usage
    feed(late, 1, side)
    early = SessionFold(price=False)
    early.add_source("main.jsonl", "main")
    early.add_source("agent-a1.jsonl", "agent-a1", role="subagent", agent_id="a1")
    feed(early, 0, main)
    feed(early, 1, side)
    got, want = late.snapshot(), early.snapshot()
    assert (got.tokens, got.tokens_by_model, got.usage_buckets, got.counters.api_messages) == (
        want.tokens,
        want.tokens_by_model,
        want.usage_buckets,
        want.counters.api_messages,
    )
    assert want.counters.api_messages == 4 and one.counters.api_messages == 3
    assert want.tokens.output == 15 + 99 + 25 + 2  # msg_0: max(0, 15), msg_1: max(5, 20, 99), msg_2, msg_side


def test_a_codex_file_decided_on_its_first_record_gives_the_session_its_tokens() -> None:
    """The fold a file's first record chooses (SessionFold._decide) brings its own token book:
    with one file, that book is the session's, so the session's tokens are the rollout's."""
    from tracetui.demo.codex_records import RolloutBuilder
    from tracetui.model.codex_fold import CodexFold
    from tracetui.model.session_fold import SessionFold

    b = RolloutBuilder()
    b.turn("fix the build")
    b.tokens(1_000, 200, 30)
    sf = SessionFold(price=False)
    sf.add_source("rollout.jsonl", "rollout.jsonl")
    offset = 0
    for n, line in enumerate(b.data().split(b"\n")[:-1], 1):
        sf.feed_line(0, n, offset, line)
        offset += len(line) + 1
    f = sf.folds[0]
    assert isinstance(f, CodexFold) and sf.usage is f.usage
    st = sf.snapshot()
    assert st.tokens == f.usage.tokens() and st.tokens.input == 800 and st.counters.api_messages == 1


def _session_fold(files: list[Path]) -> SessionFold:
    """The files folded, the first as the main transcript, each line by line."""
    sf = SessionFold(price=False)
    for i, f in enumerate(files):
        src = sf.add_source(f.name, f.name, "main" if i == 0 else "subagent")
        off = 0
        for n, raw in enumerate(f.read_bytes().splitlines(), 1):
            sf.feed_line(src, n, off, raw)
            off += len(raw) + 1
    return sf


def test_a_session_snapshot_makes_again_only_the_states_of_the_files_that_moved(tmp_path: Path) -> None:
    # a fresh-user trial: 5,000 subagent files done long ago, each snapshotted anew at every
    # change of the main file (a second an update, and a copy of each state)
    main = fan_out(tmp_path / "proj", 12)
    files = [main, *sorted((main.parent / main.stem / "subagents").glob("*.jsonl"))]
    sf = _session_fold(files)
    a = sf.snapshot()
    assert all(x is y for x, y in zip(sf.snapshot().agents, a.agents))
    more = record_line(prompt("one more", sidechain=True, agentId="a0000000000000005", session=main.stem))
    sf.feed_line(6, 5, files[6].stat().st_size, more)
    b = sf.snapshot()
    same = [x is y for x, y in zip(a.agents, b.agents)]
    assert same.count(False) == 1 and b.agents[same.index(False)].agent_id == "a0000000000000005"
    with open(files[6], "ab") as f:
        f.write(more + b"\n")
    again = _session_fold(files).snapshot()
    assert b.agents == again.agents and b.counters == again.counters
