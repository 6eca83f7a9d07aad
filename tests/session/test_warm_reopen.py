"""What a warm reopen holds (issue 9: ≤ 80 MB at any size): the state it resumes from is
decoded once, and every figure after the reopen and later appends is the pure fold's."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fixtures import append, assistant, fan_out, jsonl, prompt, text_block, tool_call, tool_result, usage, write

from tracetui.model import usage as usage_mod
from tracetui.model.session_fold import fold as pure_fold
from tracetui.model.state import RunState
from tracetui.session.reader import SessionReader
from tracetui.session.store import cache_path, open_cached
from tracetui.views.as_of import state_as_of
from tracetui.views.state_json import state_to_json


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(d))
    return d


@pytest.fixture
def few_recent(monkeypatch: pytest.MonkeyPatch) -> int:
    """Books that pack all but their 50 to 58 newest message ids (model/usage_old.py)."""
    monkeypatch.setattr(usage_mod, "RECENT_IDS", 50)
    monkeypatch.setattr(usage_mod, "PACK_BATCH", 8)
    return 50


def figures(state: Any) -> dict[str, Any]:
    out = state_to_json(state)
    out.pop("sources")
    return out


def messages(ids: range, out: int = 5, day: str = "2026-01-02") -> list[dict[str, Any]]:
    """One prompt, then two records per API message id of ``ids`` (output growing)."""
    recs: list[dict[str, Any]] = [prompt("go")]
    for i in ids:
        ts = f"{day}T00:00:00.000Z"
        recs.append(assistant([text_block(f"a{i}")], msg_id=f"msg_{i:05d}", u=usage(3, 1, i % 4, 100 + i), ts=ts))
        recs.append(assistant([text_block(f"b{i}")], msg_id=f"msg_{i:05d}", u=usage(3, out + i % 9, i % 4, 100 + i), ts=ts))
    return recs


def test_a_single_file_session_saves_its_usage_book_once_and_shares_it_again(tmp_path: Path, few_recent: int) -> None:
    first = messages(range(4 * few_recent))
    path = write(tmp_path / "s.jsonl", first)
    r = open_cached([path], price=False)
    r.poll()
    assert r.fold.usage is r.fold.folds[0].usage
    assert r.save_cache()
    r.store.close()
    db = sqlite3.connect(cache_path([path]))
    names = db.execute("SELECT owner FROM fold WHERE name = 'usage'").fetchall()
    db.close()
    assert names == [(0,)]
    w = open_cached([path], price=False)
    assert w.cache_status == "warm"
    w.poll()
    assert w.fold.usage is w.fold.folds[0].usage and w.fold.folds[0].on_usage is None
    assert figures(w.snapshot()) == figures(pure_fold(first, name="s.jsonl"))
    # after the reopen: new ids, ids packed before the save (more tokens, or the same) and a
    # recent one read again; none is counted twice
    more = messages(range(4 * few_recent, 5 * few_recent)) + messages(range(0, 30), out=40) + messages(range(40, 45))
    more += messages(range(4 * few_recent - 3, 4 * few_recent), out=50)
    append(path, jsonl(more))
    w.poll()
    got = w.snapshot()
    ref = pure_fold(first + more, name="s.jsonl")
    assert figures(got) == figures(ref)
    assert got.counters.api_messages == 5 * few_recent


def test_a_session_of_several_files_keeps_a_book_of_its_own_across_a_reopen(tmp_path: Path, few_recent: int) -> None:
    main = write(tmp_path / "sess.jsonl", messages(range(3 * few_recent)))
    sub = tmp_path / "sess" / "subagents" / "agent-bbb.jsonl"
    sub_recs = [dict(r, isSidechain=True, agentId="bbb") for r in messages(range(2 * few_recent, 4 * few_recent))]
    write(sub, sub_recs)
    r = open_cached([main], price=False)
    r.poll()
    before = r.snapshot()
    assert r.fold.usage is not r.fold.folds[0].usage
    assert r.save_cache()
    r.store.close()
    w = open_cached([main], price=False)
    assert w.cache_status == "warm"
    w.poll()
    assert figures(w.snapshot()) == figures(before)
    assert all(f.on_usage is not None for f in w.fold.folds)
    append(main, jsonl(messages(range(0, 20), out=30) + messages(range(4 * few_recent, 4 * few_recent + 10))))
    append(sub, jsonl([dict(r, isSidechain=True, agentId="bbb") for r in messages(range(10, 25), out=60)]))
    w.poll()
    got = w.snapshot()
    ref = SessionReader([main], price=False)
    ref.poll()
    assert figures(got) == figures(ref.snapshot())
    assert got.counters.api_messages == 4 * few_recent + 10


def late_results(n: int, start: int = 0) -> list[dict[str, Any]]:
    """``n`` episodes of one call each, every third answered only two prompts later (a new
    version of an episode already closed: positions and (index, version) order differ), some
    failing and retried later (a version for the resolved error)."""
    recs: list[dict[str, Any]] = []
    for i in range(start, start + n):
        recs.append(prompt(f"task {i}"))
        recs.append(tool_call(f"toolu_{i:05d}", "Bash", {"command": f"make t{i % 5}"}))
        if i % 3:
            recs.append(tool_result(f"toolu_{i:05d}", "ok" if i % 7 else "boom", is_error=not i % 7))
        if i >= 2 and (i - 2) % 3 == 0:
            recs.append(tool_result(f"toolu_{i - 2:05d}", "late"))
    return recs


def test_episode_scrubbing_after_a_reopen_reads_every_version(tmp_path: Path) -> None:
    first = late_results(40)
    path = write(tmp_path / "s.jsonl", first)
    r = open_cached([path], price=False)
    r.poll()
    cold = r.snapshot()
    versions = r.fold.folds[0].derive.book.versions
    n = len(versions)
    order = list(versions.ordered())
    assert order != list(versions)  # later versions of earlier episodes: another order
    resolved = [e.resolved_errors for e in versions.ordered().resolved()]
    assert any(resolved)
    by_pos = [versions[p] for p in range(n)]
    scrubbed = [state_to_json(state_as_of(cold, k)) for k in range(1, cold.main.prompts + 1)]
    assert r.save_cache()
    r.store.close()
    db = sqlite3.connect(cache_path([path]))
    assert db.execute("SELECT src, n FROM episode_keys").fetchall() == [(0, n)]
    db.close()
    w = open_cached([path], price=False)
    assert w.cache_status == "warm"
    w.poll()
    warm = w.snapshot()
    wv = w.fold.folds[0].derive.book.versions
    assert [wv[p] for p in range(n)] == by_pos  # every version, by position
    assert list(wv.ordered()) == order and warm.episodes == cold.episodes
    assert [e.resolved_errors for e in wv.ordered().resolved()] == resolved
    # scrubbing back through every episode
    assert [state_to_json(state_as_of(warm, k)) for k in range(1, warm.main.prompts + 1)] == scrubbed
    # after the reopen: a late result for an episode closed before the save, then more episodes
    more = [tool_result("toolu_00037", "very late")] + late_results(10, start=40)
    append(path, jsonl(more))
    w.poll()
    got = w.snapshot()
    ref = pure_fold(first + more, name="s.jsonl")
    assert got.episodes == ref.episodes and figures(got) == figures(ref)
    assert w.save_cache()
    w.store.close()
    again = open_cached([path], price=False)
    assert again.cache_status == "warm"
    again.poll()
    assert again.snapshot().episodes == ref.episodes


def _first_open_saved(path: Path) -> RunState:
    """Fold ``path`` through a new store, save it, close it; the state it folded."""
    r = open_cached([path], price=False)
    r.poll()
    cold = r.snapshot()
    assert r.save_cache()
    r.store.close()
    return cold


@pytest.mark.parametrize(
    "damage",
    [
        "DELETE FROM episodes WHERE pos = 3",
        "UPDATE episodes SET pos = 1000 WHERE pos = 4",
        "DELETE FROM episode_keys",
        "UPDATE episode_keys SET n = n",  # the control: nothing changed
        "UPDATE episode_keys SET ord = CAST(substr(ord, 1, 8) || substr(ord, 1, 8) || substr(ord, 17) AS BLOB)",
        "UPDATE episode_keys SET ver = 'text'",
        "UPDATE episode_keys SET idx = substr(idx, 9)",
    ],
)
def test_damaged_episode_keys_are_folded_again(tmp_path: Path, damage: str) -> None:
    recs = late_results(12)
    path = write(tmp_path / "s.jsonl", recs)
    cold = _first_open_saved(path)
    db = sqlite3.connect(cache_path([path]))
    with db:
        db.execute(damage)
    db.close()
    again = open_cached([path], price=False)
    if damage.endswith("n = n"):
        assert again.cache_status == "warm"
    else:
        assert again.cache_status.startswith("invalid: ValueError")
    again.poll()
    assert again.snapshot().episodes == cold.episodes


def test_long_saved_values_are_read_in_pieces_and_give_the_same_state(
    tmp_path: Path, few_recent: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracetui.session.store import db as store_db

    recs = messages(range(6 * few_recent)) + late_results(20)
    path = write(tmp_path / "s.jsonl", recs)
    cold = _first_open_saved(path)
    monkeypatch.setattr(store_db, "BLOB_PIECES", 64)
    monkeypatch.setattr(store_db, "_PIECE", 100)  # several pieces, the last one short
    conn = sqlite3.connect(cache_path([path]))
    plain = conn.execute("SELECT owner, name, desc, raw FROM fold ORDER BY part").fetchall()
    pieces = list(store_db.saved_fold_rows(conn))
    conn.close()
    assert [(o, n, d, bytes(raw)) for o, n, d, raw in pieces] == plain
    assert sum(isinstance(raw, bytearray) for *_, raw in pieces) >= 2 and max(len(p[3]) for p in plain) > 300
    w = open_cached([path], price=False)
    assert w.cache_status == "warm"
    w.poll()
    assert figures(w.snapshot()) == figures(cold) and w.snapshot().episodes == cold.episodes


def test_two_rows_cannot_hold_one_episode_position(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", late_results(6))
    r = open_cached([path], price=False)
    r.poll()
    assert r.save_cache()
    r.store.close()
    db = sqlite3.connect(cache_path([path]))
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("UPDATE episodes SET pos = 2 WHERE pos = 4")
    db.close()


def test_many_small_subagent_folds_are_saved_one_row_each_and_resume_to_the_same_figures(tmp_path: Path) -> None:
    # a fresh-user trial: 5,000 subagent files, forty rows of their fold state each (200,000
    # rows written and read back, most of the save and the reopen)
    from tracetui.session.store.codec import PACKED

    main = fan_out(tmp_path / "proj", 25)
    r = open_cached([main], price=False)
    r.poll()
    cold = r.snapshot()
    assert r.save_cache()
    r.store.close()
    db = sqlite3.connect(cache_path([main]))
    rows = db.execute("SELECT owner, name FROM fold").fetchall()
    db.close()
    owners = sorted({o for o, _n in rows})
    assert owners == list(range(-1, 26))
    assert sorted(o for o, n in rows if n == PACKED) == list(range(1, 26))  # one row a subagent fold
    assert all(n != PACKED for o, n in rows if o <= 0) and len(rows) < 26 + 2 * 40  # the main's by attribute
    w = open_cached([main], price=False)
    assert w.cache_status == "warm"
    w.poll()
    warm = w.snapshot()
    assert figures(warm) == figures(cold) and warm.agents == cold.agents
    append(
        main.parent / main.stem / "subagents" / "agent-a0000000000000003.jsonl",
        jsonl([prompt("more", sidechain=True, agentId="a0000000000000003", session=main.stem)]),
    )
    w.poll()
    fresh = SessionReader([main], price=False)
    fresh.poll()
    assert figures(w.snapshot()) == figures(fresh.snapshot())
