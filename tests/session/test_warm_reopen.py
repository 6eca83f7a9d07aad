"""What a warm reopen holds (issue 9: ≤ 80 MB at any size): the state it resumes from is
decoded once, and every figure after the reopen and later appends is the pure fold's."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fixtures import append, assistant, jsonl, prompt, text_block, usage, write

from tracetui.model import usage as usage_mod
from tracetui.model.session_fold import fold as pure_fold
from tracetui.session.reader import SessionReader
from tracetui.session.store import cache_path, open_cached
from tracetui.views.state_json import state_to_json


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(d))
    return d


@pytest.fixture
def few_recent(monkeypatch: pytest.MonkeyPatch) -> int:
    """Books that pack all but their 50 newest message ids (model/usage_old.py)."""
    monkeypatch.setattr(usage_mod, "RECENT_IDS", 50)
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
