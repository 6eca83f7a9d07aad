"""The session databases' connections are bounded (store/pool.py): past the cap, the least
recently used idle ones close, and a store whose connections closed reads its views, folds and
saves as before, its connections opened again."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fixtures import append, database_fds, jsonl, prompt, tool_call, tool_result, write
from test_store import assert_same_state, fold_state

from tracetui.session.reader import SessionReader
from tracetui.session.store import open_cached, pool
from tracetui.session.store.db import connect

#: the cap the tests set, and the sessions they open past it
CAP = 3
SESSIONS = 8


@pytest.fixture(autouse=True)
def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(pool, "MAX_OPEN", CAP)


def _session(path: Path, n: int) -> Path:
    recs = [prompt(f"goal {n}")]
    for i in range(12):
        recs += [tool_call(f"t{n}-{i}", "Bash", {"command": f"echo {i}"}), tool_result(f"t{n}-{i}", f"out {i}")]
        if i % 4 == 3:
            recs.append(prompt(f"next {i}"))
    return write(path, recs)


def test_stores_past_the_cap_close_their_connections_and_still_read_fold_and_save(tmp_path: Path) -> None:
    paths = [_session(tmp_path / f"s{n}.jsonl", n) for n in range(SESSIONS)]
    before, links = database_fds(), pool.open_links()  # other tests' (a writer process's, the index's) aside
    readers = [open_cached([p], price=False) for p in paths]
    states = []
    for r in readers:
        states.append(fold_state(r))
        r.store.sync()
    assert pool.open_links() - links <= CAP
    if sys.platform.startswith("linux"):
        assert database_fds() - before <= CAP
    first = readers[0].store
    assert not (first._r.is_open or first._w.is_open)  # the least recently used: closed
    # the views read the database again, through connections opened for them
    for p, state in zip(paths, states):
        assert_same_state(state, fold_state(SessionReader([p], price=False)))
    # appended lines are folded and written, and the state saved, after the connections closed
    for p, r in zip(paths, readers):
        append(p, jsonl([prompt("one more")]))
        fold_state(r)
        assert r.save_cache()
    assert pool.open_links() - links <= CAP
    for p in paths:
        warm = open_cached([p], price=False)
        assert warm.cache_status == "warm"
        assert_same_state(fold_state(warm), fold_state(SessionReader([p], price=False)))


def test_a_connection_in_use_when_the_pool_asks_is_closed_when_let_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "MAX_OPEN", 1)
    a = pool.Link(str(tmp_path / "a.sqlite"), 100)
    b = pool.Link(str(tmp_path / "b.sqlite"), 100)
    with a:
        a.get().execute("CREATE TABLE t(x)")
        with b:
            b.get()  # past the cap: a is asked to close, and is in use
        assert a.is_open
        a.get().execute("INSERT INTO t VALUES (1)")
    assert not a.is_open  # closed when let go (its use past the cap closed b meanwhile)
    with a:
        assert a.get().execute("SELECT x FROM t").fetchall() == [(1,)]  # opened again
    assert not b.is_open


def test_a_private_database_is_never_closed_by_the_pool(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(pool, "MAX_OPEN", 0)
    private = pool.Link("", 0, connect(""))
    with private:
        private.get().execute("CREATE TABLE t(x)")
    other = pool.Link(str(tmp_path / "o.sqlite"), 100)
    with other:
        other.get()
    assert private.is_open and not private.evict()
    with private:
        assert private.get().execute("SELECT count(*) FROM t").fetchall() == [(0,)]  # its rows live with it


def test_an_idle_writer_thread_ends_and_the_next_write_starts_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.session.store import writer

    monkeypatch.setattr(writer, "IDLE_EXIT", 0.01)
    p = _session(tmp_path / "s.jsonl", 0)
    r = open_cached([p], price=False)
    fold_state(r)
    w = r.store._writer
    first = w._thread
    r.store.sync()
    first.join(30)  # no job comes: it ends
    assert not first.is_alive() and w._thread is None
    append(p, jsonl([prompt("one more")]))
    state = fold_state(r)
    r.store.sync()  # a new thread wrote the new rows
    assert w.failed is None and w._thread is not first
    assert r.save_cache()
    warm = open_cached([p], price=False)
    assert warm.cache_status == "warm"
    assert_same_state(fold_state(warm), fold_state(SessionReader([p], price=False)))
    assert_same_state(state, fold_state(SessionReader([p], price=False)))
