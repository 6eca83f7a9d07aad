"""Memory grows with the state, not the bytes (issue 9): a fold backed by the session store
keeps the maps of closed calls and old message ids bounded, and its figures equal those of the
pure fold, which keeps everything in memory (the unbounded reference)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from fixtures import assistant, fan_out, prompt, text_block, tool_call, tool_result, usage, write

from tracetui.model.fold_tools import CALLS_TRIM
from tracetui.model.session_fold import fold as pure_fold
from tracetui.session.store import ledger as ledger_mod
from tracetui.session.store import open_cached, open_private
from tracetui.session.store.ledger import ID_FILTER_BYTES, StoreLedger
from tracetui.views.state_json import state_to_json

#: a tool name long enough that ``name(brief)`` is cut in the event's excerpt
LONG = "mcp__a_rather_long_server_name__and_an_even_longer_tool_name_for_the_excerpt_rule"


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(d))
    return d


def figures(state: Any) -> dict[str, Any]:
    """What ``state --json`` prints, but the sources (a reader names its files by their path)."""
    out = state_to_json(state)
    out.pop("sources")
    return out


def many_calls(n: int) -> list[dict[str, Any]]:
    """``n`` calls answered at once, a prompt every 50; then late and repeated results and
    repeated tool_uses of the first calls (long gone from memory by then), one of a long name."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        if i % 50 == 0:
            out.append(prompt(f"task {i}"))
        name = LONG if i == 3 else ("Bash" if i % 2 else "Read")
        inp = {"command": f"echo {i} " + "x" * 70} if name != "Read" else {"file_path": f"/src/f{i % 7}.py"}
        out.append(tool_call(f"toolu_{i:06d}", name, inp))
        if i not in (1, 3):  # calls 1 and 3 are answered at the very end
            out.append(tool_result(f"toolu_{i:06d}", f"out {i}", is_error=i % 97 == 0))
    out.append(prompt("late"))
    out.append(tool_result("toolu_000001", "late result", is_error=True))
    out.append(tool_result("toolu_000003", "late result of the long name", is_error=True))
    out.append(tool_result("toolu_000005", "a second result of an old call", is_error=True))
    out.append(tool_call("toolu_000007", "Bash", {"command": "a repeated tool_use"}))
    out.append(tool_result("toolu_000007", "again"))
    out.append(assistant([text_block("done")], msg_id="msg_end", u=usage(1, 2)))
    return out


@pytest.fixture
def small_lag(monkeypatch: pytest.MonkeyPatch) -> int:
    """A ledger that lets calls go after 1,000 events (it waits for its writer when it must)."""
    monkeypatch.setattr(StoreLedger, "find_lag", 1000)
    return 1000


def test_closed_calls_leave_memory_and_the_figures_stay_exact(tmp_path: Path, small_lag: int) -> None:
    n = 3 * small_lag  # every call takes two events: six lags of events
    recs = many_calls(n)
    path = write(tmp_path / "s.jsonl", recs)
    r = open_private([path], price=False)
    r.poll()
    got = r.snapshot()
    f = r.fold.folds[0]
    assert len(f.calls) <= small_lag // 2 + CALLS_TRIM + len(f.pending)
    assert len(f.calls) < n // 2
    ref = pure_fold(recs, name="s.jsonl")
    assert figures(got) == figures(ref)
    assert got.counters.tool_calls == n and got.counters.tool_errors == ref.counters.tool_errors
    assert got.main.derived == ref.main.derived
    assert [list(x) for x in got.ledgers] == [list(x) for x in ref.ledgers]
    # the late results were paired with their calls, names and all
    late = [e for e in got.ledgers[0] if e.kind == "tool_result" and e.excerpt.startswith("late")]
    assert [e.name for e in late] == ["Bash", LONG]
    assert any(note.text.startswith(f"{LONG}(echo 3 ") for note in got.main.derived.ruled_out)


def test_a_resumed_fold_finds_the_calls_its_first_run_let_go(tmp_path: Path, small_lag: int) -> None:
    n = 3 * small_lag
    recs = many_calls(n)
    path = write(tmp_path / "s.jsonl", recs[:-6])
    r = open_cached([path], price=False)
    r.poll()
    r.snapshot()
    assert r.save_cache()
    r.store.close()
    write(tmp_path / "s.jsonl", recs)  # the same bytes and then the tail (an append)
    w = open_cached([path], price=False)
    assert w.cache_status == "warm"
    w.poll()
    assert len(w.fold.folds[0].calls) < n // 2
    assert figures(w.snapshot()) == figures(pure_fold(recs, name="s.jsonl"))


def many_messages(n: int) -> list[dict[str, Any]]:
    """``n`` API messages of two records each (the usage repeated, output growing), some of
    them on another day; then every tenth id reused far later with more tokens, and a few
    reused with the same or fewer."""
    out: list[dict[str, Any]] = [prompt("go")]
    for i in range(n):
        ts = f"2026-01-0{1 + i % 3}T00:00:00.000Z"
        out.append(assistant([text_block(f"a{i}")], msg_id=f"msg_{i:06d}", u=usage(i % 7, 1, i % 5, 1000 + i), ts=ts))
        out.append(assistant([text_block(f"b{i}")], msg_id=f"msg_{i:06d}", u=usage(i % 7, 5 + i % 11, i % 5, 1000 + i), ts=ts))
    for i in range(0, n, 10):
        out.append(
            assistant([text_block(f"c{i}")], msg_id=f"msg_{i:06d}", u=usage(i % 7 + 1, 20, i % 5, 1000 + i), ts="2025-12-31T00:00:00.000Z")
        )
    for i in range(5, n, 97):
        out.append(assistant([text_block(f"d{i}")], msg_id=f"msg_{i:06d}", u=usage(0, 1, 0, 0)))
    return out


def test_old_message_ids_are_packed_and_the_tokens_stay_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.model import usage as usage_mod
    from tracetui.model.session_fold import SessionFold, fold_bytes

    n = 5 * usage_mod.RECENT_IDS
    recs = many_messages(n)
    got = pure_fold(recs, price=True)
    monkeypatch.setattr(usage_mod, "RECENT_IDS", 10**9)
    ref = pure_fold(recs, price=True)
    monkeypatch.undo()
    assert figures(got) == figures(ref)
    assert got.counters.api_messages == n
    assert (got.tokens, got.usage_buckets, got.cost_usd) == (ref.tokens, ref.usage_buckets, ref.cost_usd)
    # the books themselves stay bounded
    import orjson

    sf = SessionFold(price=False)
    sf.add_source("a", "a")
    data = b"\n".join(orjson.dumps(r) for r in recs) + b"\n"
    for no, line in enumerate(data.split(b"\n")[:-1], 1):
        sf.feed_line(0, no, 0, line)
    book = sf.folds[0].usage
    cap = usage_mod.RECENT_IDS + usage_mod.PACK_BATCH
    assert len(book.by_id) <= cap and len(sf.usage.by_id) <= cap
    assert len(book.old) >= n - cap and len(sf.usage.old) >= n - cap
    assert len(book) == len(sf.usage) == n
    assert fold_bytes(data).tokens == ref.tokens


def test_a_reset_source_recombines_packed_messages_across_files() -> None:
    from tracetui.model import usage as usage_mod
    from tracetui.model.usage import UsageBook

    a, b = UsageBook(), UsageBook()
    n = 3 * usage_mod.RECENT_IDS
    for i in range(n):
        a.add(f"m{i}", "opus", (1, i, 0, 5, 0), "2026-01-02")
        b.add(f"m{i + n // 2}", "opus", (1, i + 3, 0, 5, 0), "2026-01-01")
    ref: dict[str, tuple[int, ...]] = {}
    for i in range(n):
        ref[f"m{i}"] = (1, i, 0, 5, 0)
    for i in range(n):
        k = f"m{i + n // 2}"
        ref[k] = tuple(max(x, y) for x, y in zip(ref.get(k, (0, 0, 0, 0, 0)), (1, i + 3, 0, 5, 0)))
    s = UsageBook()
    s.absorb_old(a)
    s.absorb_old(b)
    for book in (a, b):
        for key, u in book.by_id.items():
            s.add(key, book.model_of[key], u, book.day_of(key))
    assert len(s) == len(ref)
    assert s.totals == [sum(u[j] for u in ref.values()) for j in range(4)]
    assert sum(x.messages for x in s.usage_buckets()) == len(ref)


def test_episode_versions_are_saved_once_as_rows_and_resumed_from_them(tmp_path: Path) -> None:
    import sqlite3

    from tracetui.session.store import cache_path
    from tracetui.session.store.codec import decode_value

    recs: list[dict[str, Any]] = []
    for i in range(30):
        recs.append(prompt(f"task {i}"))
        recs.append(tool_call(f"toolu_{i:04d}", "Bash", {"command": f"echo {i}"}))
        if i % 3:  # every third call is still open when the next prompt comes: a second version
            recs.append(tool_result(f"toolu_{i:04d}", "ok"))
    path = write(tmp_path / "s.jsonl", recs)
    r = open_cached([path], price=False)
    r.poll()
    cold = r.snapshot()
    versions = r.fold.folds[0].derive.book.versions
    assert len(versions) > 30 and any(v.lifecycle == "superseded" for v in versions)
    assert r.save_cache()
    r.store.close()
    db = sqlite3.connect(cache_path([path]))
    desc, raw = db.execute("SELECT desc, raw FROM fold WHERE owner = 0 AND name = 'derive'").fetchone()
    assert decode_value(desc, raw).book.versions == []  # not a second time in the fold state
    assert db.execute("SELECT count(*) FROM episodes WHERE pos IS NOT NULL").fetchone()[0] == len(versions)
    w = open_cached([path], price=False)
    assert w.cache_status == "warm"
    w.poll()
    warm = w.snapshot()
    assert warm.episodes == cold.episodes and figures(warm) == figures(cold)
    w.store.close()
    with db:
        db.execute("DELETE FROM episodes WHERE pos = 3")
    db.close()
    again = open_cached([path], price=False)
    assert again.cache_status.startswith("invalid: ValueError")  # a damaged store is folded again
    again.poll()
    assert again.snapshot().episodes == cold.episodes


def test_the_episodes_share_their_bucket_strings() -> None:
    recs = []
    for i in range(3):
        recs += [prompt(f"p{i}"), assistant([text_block("t")], msg_id=f"msg_{i}", u=usage(1, 2))]
    eps = pure_fold(recs).episodes
    assert len(eps) == 3
    a, b = eps[0].usage_buckets[0], eps[1].usage_buckets[0]
    assert a.model == b.model and a.model is b.model and a.day is b.day


def test_a_new_call_is_not_looked_for_in_the_store_and_a_late_result_is(tmp_path: Path, small_lag: int) -> None:
    n = 3 * small_lag
    recs = many_calls(n)
    path = write(tmp_path / "s.jsonl", recs)
    r = open_private([path], price=False)
    found: list[str] = []
    r.store.rconn.set_trace_callback(lambda sql: found.append(sql) if "tool_use_id = " in sql else None)
    r.poll()
    got = r.snapshot()
    # each new call asks whether it was read before: the ledger's filter of the ids it holds
    # answers most of them, so far fewer queries than calls (the late results and the
    # repeated tool_use are found in the store, and paired as a pure fold pairs them)
    assert 0 < len(found) < n // 10
    assert figures(got) == figures(pure_fold(recs, name="s.jsonl"))


def test_a_small_files_ledger_keeps_its_call_filter_in_a_few_bytes_with_the_same_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_lag: int
) -> None:
    # a fresh-user trial: 5,000 subagent files of a few records held a 32 KiB filter each (160 MB)
    main = fan_out(tmp_path / "proj", 40)
    r = open_private([main], price=False)
    r.poll()
    ledgers = [f.events for f in r.fold.folds]
    assert all(isinstance(led, StoreLedger) for led in ledgers) and len(ledgers) == 41
    assert sum(sys.getsizeof(led._ids) for led in ledgers) < ID_FILTER_BYTES  # all of them, less than one
    # past ID_FILTER_SPARSE calls, the filter's bytes; either way the answers of the bytes from the start
    path = write(tmp_path / "s.jsonl", many_calls(3 * small_lag))
    answers = []
    for sparse in (10**9, ledger_mod.ID_FILTER_SPARSE, 0):
        monkeypatch.setattr(ledger_mod, "ID_FILTER_SPARSE", sparse)
        w = open_private([path], price=False)
        w.poll()
        led = w.fold.folds[0].events
        assert isinstance(led, StoreLedger)
        ids = [f"toolu_{i:06d}" for i in range(0, 3 * small_lag + 200, 7)]  # made, and never made
        answers.append((type(led._ids), [led.find_call(t, led.n + 1) for t in ids]))
    assert [a[0] for a in answers] == [set, bytearray, bytearray]
    assert answers[0][1] == answers[1][1] == answers[2][1] and any(answers[0][1]) and None in answers[0][1]
