"""The session database itself (issue 9 §1): where it is and who may read it, several processes
at once, and damage: a locked, corrupt, foreign or old database costs a refold, never a wrong
figure or a traceback."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import msgspec
import pytest
from fixtures import append, fan_out, jsonl, prompt, tool_call, tool_result, write
from test_store import assert_same_state, fold_state, write_locked

from tracetui.session.reader import SessionReader
from tracetui.session.store import SCHEMA, cache_path, open_cached


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(d))
    return d


def _session(tmp_path: Path) -> Path:
    recs = [prompt("goal")]
    for i in range(30):
        recs += [tool_call(f"t{i}", "Bash", {"command": f"echo {i}"}), tool_result(f"t{i}", f"out {i}")]
        if i % 10 == 9:
            recs.append(prompt(f"next {i}"))
    return write(tmp_path / "s.jsonl", recs)


def _fresh(p: Path):
    return fold_state(SessionReader([p], price=False))


def _saved(tmp_path: Path) -> Path:
    p = _session(tmp_path)
    r = open_cached([p], price=False)
    fold_state(r)
    assert r.save_cache()
    r.store.close()
    return p


def test_the_database_is_private_to_its_user(tmp_path: Path) -> None:
    p = _saved(tmp_path)
    db = cache_path([p])
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700


def test_folding_never_writes_the_transcript(tmp_path: Path) -> None:
    p = _session(tmp_path)
    before = (p.read_bytes(), p.stat().st_mtime_ns)
    r = open_cached([p], price=False)
    fold_state(r)
    r.save_cache()
    assert (p.read_bytes(), p.stat().st_mtime_ns) == before


@pytest.mark.parametrize("damage", ["garbage", "half", "empty", "other-tables"])
def test_a_corrupt_database_means_fold_from_start(tmp_path: Path, damage: str) -> None:
    p = _saved(tmp_path)
    db = cache_path([p])
    c = sqlite3.connect(db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    data = db.read_bytes()
    if damage == "garbage":
        db.write_bytes(b"\xc1\x00garbage" * 1000)
    elif damage == "half":
        db.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        db.write_bytes(b"")
    else:
        db.unlink()
        c = sqlite3.connect(db)
        c.execute("CREATE TABLE meta(a, b, c)")
        c.execute("INSERT INTO meta VALUES (1, 2, 3)")
        c.commit()
        c.close()
    r = open_cached([p], price=False)
    assert r.cache_status == "cold" if damage == "empty" else r.cache_status.startswith("invalid"), r.cache_status
    s = fold_state(r)
    assert_same_state(s, _fresh(p))
    # rebuilt: the next open resumes (a half file may still be damaged: then it refolds again)
    if r.save_cache() and damage != "half":
        again = open_cached([p], price=False)
        assert again.cache_status == "warm", again.cache_status
        assert_same_state(fold_state(again), _fresh(p))


def test_an_old_schema_is_rebuilt_not_misread(tmp_path: Path) -> None:
    p = _saved(tmp_path)
    c = sqlite3.connect(cache_path([p]))
    c.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (msgspec.msgpack.encode(0),))
    c.commit()
    c.close()
    r = open_cached([p], price=False)
    assert r.cache_status == f"invalid: store schema 0 != {SCHEMA}"
    assert_same_state(fold_state(r), _fresh(p))
    assert r.save_cache()
    again = open_cached([p], price=False)
    assert again.cache_status == "warm"
    assert_same_state(fold_state(again), _fresh(p))


@pytest.mark.parametrize("saved", [True, False])
def test_a_locked_database_costs_the_save_not_the_figures(tmp_path: Path, saved: bool) -> None:
    if saved:
        p = _saved(tmp_path)
        append(p, jsonl([tool_call("late", "Read", {"file_path": "/x"}), prompt("more")]))
    else:
        p = _session(tmp_path)
        open_cached([p], price=False).store.close()  # the database exists, nothing saved in it
    with write_locked(cache_path([p])):  # another process holds the write lock throughout
        r = open_cached([p], price=False)
        assert r.cache_status == ("warm" if saved else "cold")
        s = fold_state(r)
        assert_same_state(s, _fresh(p))  # the ledger and history too, kept in memory instead
        assert r.save_cache() is False
        assert r.store.broken
    r = open_cached([p], price=False)
    assert r.cache_status == ("warm" if saved else "cold")  # what was saved is untouched
    assert_same_state(fold_state(r), _fresh(p))


def test_two_readers_at_once_fold_and_read_the_same(tmp_path: Path) -> None:
    p = _session(tmp_path)
    a = open_cached([p], price=False)
    b = open_cached([p], price=False)
    sa, sb = fold_state(a), fold_state(b)
    ref = _fresh(p)
    assert_same_state(sa, ref)
    assert_same_state(sb, ref)
    assert a.save_cache()
    # both go on folding what is appended; each reads its ledger from the shared database
    append(p, jsonl([tool_call("n1", "Read", {"file_path": "/y"}), tool_result("n1", "yy"), prompt("again")]))
    assert b.poll() and a.poll()
    sb, sa = b.snapshot(), a.snapshot()
    ref = _fresh(p)
    assert_same_state(sa, ref)
    assert_same_state(sb, ref)
    assert b.save_cache() and a.save_cache()
    c = open_cached([p], price=False)
    assert c.cache_status == "warm"
    assert_same_state(fold_state(c), ref)


def test_a_state_further_on_is_not_saved_over(tmp_path: Path) -> None:
    p = _saved(tmp_path)
    behind = open_cached([p], price=False)
    fold_state(behind)
    append(p, jsonl([prompt("more")]))
    ahead = open_cached([p], price=False)
    fold_state(ahead)
    assert ahead.save_cache()
    append(p, jsonl([prompt("and more")]))
    behind.tailers[0].offset  # noqa: B018 - behind has read less than ahead saved
    assert behind.save_cache() is False or behind.tailers[0].offset >= ahead.tailers[0].offset
    r = open_cached([p], price=False)
    assert r.cache_status == "warm" and r.tailers[0].offset == ahead.tailers[0].offset


@pytest.mark.parametrize(
    "uuid",
    [
        "e2ab9812-8be7-4e9e-8194-d9b7b9d6da14",  # canonical: stored as 16 bytes
        "E2AB9812-8BE7-4E9E-8194-D9B7B9D6DA14",  # upper case: kept as text
        "00000000-0000-4000-8000-000000000149",
        "e2ab9812-8be7-4e9e-8194-d9b7b9d6da1g",
        "e2ab9812-8be7-4e9e-8194-d9b7b9d6-a14",
        "not a uuid",
        None,
    ],
)
def test_an_event_row_reads_back_as_the_event(uuid: str | None) -> None:
    from tracetui.model.state import Anchor, Event
    from tracetui.session.store.ledger import _event_of, event_row

    ev = Event(
        7,
        "tool_use",
        Anchor(2, 10, 1234),
        uuid,
        1,
        b"\x01" * 32,
        "Bash(ls)",
        "ok",
        "Bash",
        "toolu_1",
        "msg_1",
        uuid,
        "2026-01-01T00:00:00Z",
        True,
        True,
        (1, 2, 3, 4, 0),
    )
    back = _event_of(2, event_row(2, ev))
    assert back == ev and back.uuid == uuid and back.parent_uuid == uuid


def test_a_private_store_folds_the_same_and_saves_nothing(tmp_path: Path) -> None:
    from tracetui.session.store import open_private

    p = _session(tmp_path)
    r = open_private([p], price=False)
    assert r.cache_status == "off"
    assert_same_state(fold_state(r), _fresh(p))
    assert r.save_cache() is False
    assert not cache_path([p]).exists()


def test_the_store_folder_is_pruned_oldest_first(tmp_path: Path) -> None:
    import os

    from tracetui.session.store.db import prune

    folder = tmp_path / "store"
    folder.mkdir()
    for i, name in enumerate(["a", "b", "c"]):
        for suffix in (".sqlite", ".sqlite-wal"):
            f = folder / f"{name}{suffix}"
            f.write_bytes(b"x" * 100)
            os.utime(f, (1000 + i, 1000 + i))
    prune(folder, folder / "a.sqlite", 450)  # a is the oldest, but in use: b goes
    assert sorted(p.name for p in folder.iterdir()) == ["a.sqlite", "a.sqlite-wal", "c.sqlite", "c.sqlite-wal"]


def test_history_past_several_keyframes_reads_back_in_any_order(tmp_path: Path) -> None:
    from tracetui.session.store.history import KEYFRAME

    recs = []
    for i in range(2 * KEYFRAME + 7):  # deltas over whole snapshots, and tuples that grow
        recs += [prompt(f"ask {i}"), tool_call(f"r{i}", "Read", {"file_path": f"/src/f{i % 5}.py"}), tool_result(f"r{i}", "x")]
        recs.append(tool_call(f"e{i}", "Edit", {"file_path": f"/src/g{i}.py", "old_string": "a", "new_string": "b"}))
    p = write(tmp_path / "long.jsonl", recs)
    r = open_cached([p], price=False)
    s = fold_state(r)
    ref = _fresh(p)
    n = len(ref.history)
    assert len(s.history) == n > 2 * KEYFRAME
    order = [n - 1, 0, KEYFRAME, KEYFRAME - 1, 5, 6, 7, n - 2, *range(n)]
    assert [s.history[k] for k in order] == [ref.history[k] for k in order]
    assert r.save_cache()
    again = open_cached([p], price=False)
    s2 = fold_state(again)
    assert list(reversed(s2.history)) == list(reversed(ref.history))
    assert s2.history[: KEYFRAME + 1] == ref.history[: KEYFRAME + 1]


def test_a_ledger_view_indexes_and_slices_as_a_list(tmp_path: Path) -> None:
    p = _session(tmp_path)
    led = fold_state(open_cached([p], price=False)).ledgers[0]
    ref = list(_fresh(p).ledgers[0])
    n = len(ref)
    assert len(led) == n and list(led) == ref and led == ref
    for sl in (slice(None), slice(3, 9), slice(-5, None), slice(None, None, 3), slice(20, 2, -4), slice(n + 5, n + 9)):
        assert led[sl] == ref[sl], sl
    assert [led[i] for i in (0, -1, n // 2, -n)] == [ref[i] for i in (0, -1, n // 2, -n)]
    with pytest.raises(IndexError):
        led[n]


def test_a_dropped_reader_ends_its_writer_thread(tmp_path: Path) -> None:
    import gc

    p = _session(tmp_path)
    r = open_cached([p], price=False)
    fold_state(r)
    thread = r.store._writer._thread
    assert thread is not None and thread.is_alive()
    r.store.sync()
    del r
    gc.collect()
    thread.join(timeout=30)
    assert not thread.is_alive()


def test_the_small_batches_of_many_files_wait_for_no_writer_and_are_written_together(tmp_path: Path) -> None:
    # a snapshot hands every file's last events to the writer: 5,000 small batches (a
    # fresh-user trial) waited in turn for a queue of four jobs, a transaction every few
    import threading

    main = fan_out(tmp_path / "proj", 60)
    r = open_cached([main], price=False)
    r.poll()
    r.store.prepare()
    r.store.sync()  # the writer there, its first transaction (the database made ready) done
    begins: list[str] = []
    with r.store.wlock:
        r.store.wconn.set_trace_callback(lambda sql: begins.append(sql) if sql.startswith("BEGIN") else None)
        snap = threading.Thread(target=r.snapshot)
        snap.start()  # its 61 batches are queued while the writer waits for the connection
        snap.join(10)
        queued = not snap.is_alive()

    snap.join()
    r.store.sync()
    r.store.wconn.set_trace_callback(None)
    assert queued
    assert 1 <= len(begins) <= 2  # the one the writer had taken, then all the others at once
    assert_same_state(r.snapshot(), _fresh(main))


def test_a_build_writes_without_syncs_until_its_save_and_a_resumed_fold_with_them(tmp_path: Path) -> None:
    p = _session(tmp_path)
    r = open_cached([p], price=False)
    fold_state(r)
    r.store.sync()
    assert r.store.wconn.execute("PRAGMA synchronous").fetchone()[0] == 0  # OFF while building
    assert r.save_cache()
    assert r.store.wconn.execute("PRAGMA synchronous").fetchone()[0] == 1 and not r.store.unsynced
    append(p, jsonl([prompt("one more")]))
    w = open_cached([p], price=False)
    assert w.cache_status == "warm"
    fold_state(w)
    w.store.sync()
    assert w.store.wconn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL: a saved state is there
    assert w.save_cache()
    assert_same_state(fold_state(open_cached([p], price=False)), fold_state(SessionReader([p], price=False)))


def test_a_fold_that_lost_the_write_lock_finds_its_calls_while_they_are_kept(tmp_path: Path) -> None:
    # found by a tester: two `tracetui state` at once on a cold session; the one without the
    # write lock keeps its ledger in memory, and its fold looked calls up by walking the dict
    # the store's thread was adding to ("dictionary changed size during iteration")
    def calls(first: int, n: int) -> list:
        recs = []
        for i in range(first, first + n):
            recs += [tool_call(f"t{i}", "Bash", {"command": f"echo {i}"}), tool_result(f"t{i}", f"out {i}")]
            if i % 500 == 499:
                recs.append(prompt(f"next {i}"))
        return recs

    p = write(tmp_path / "many.jsonl", [prompt("goal"), *calls(0, 600)])
    open_cached([p], price=False).store.close()
    other = sqlite3.connect(cache_path([p]), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        r = open_cached([p], price=False)
        fold_state(r)
        w = r.store._writer
        assert w is not None
        w.sync()
        assert w.failed is not None  # the lock is held: every write is kept in memory instead
        for k in range(4):  # more calls, folded while the writer thread keeps the earlier ones
            # and the first calls' tool_use records again (read twice: each is looked up among
            # the events kept, as a call that left the fold's memory)
            again = [tool_call(f"t{i}", "Bash", {"command": f"echo {i}"}) for i in range(150 * k, 150 * (k + 1))] if k else []
            append(p, jsonl(calls(600 + 3000 * k, 3000) + again))
            r.poll()
        s = r.snapshot()
        w.sync()
        assert w.mem_calls[0]["t12599"].tool_use_id == "t12599"
        assert r.store.find_call(0, 10**9, "t17") is not None and r.store.find_call(0, 10**9, "nope") is None
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert_same_state(s, _fresh(p))


@pytest.mark.parametrize(
    ("why", "said"), [("OperationalError: database or disk is full", True), ("OperationalError: database is locked", False)]
)
def test_a_save_a_failed_write_stops_says_why_unless_another_process_holds_the_lock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], why: str, said: bool
) -> None:
    # found by the third tester: a full cache disk failed silently, a read-only one said so
    p = _session(tmp_path)
    r = open_cached([p], price=False)
    fold_state(r)
    w = r.store.writer()
    w.sync()
    w.failed = why  # what the writer thread records when a write fails
    assert r.save_cache() is False
    err = capsys.readouterr().err
    if said:
        assert err.count("fold cache not saved") == 1 and why in err and str(cache_path([p])) in err
        assert r.save_cache() is False and capsys.readouterr().err == ""  # said once per resume point
    else:
        assert err == ""


def test_a_process_prunes_the_store_folder_at_its_first_save_then_once_in_a_while(monkeypatch: pytest.MonkeyPatch) -> None:
    # a prune reads the size of every database: one per save made listing thousands of
    # sessions quadratic (sixth user trial)
    from tracetui.session.store import db

    monkeypatch.setattr(db, "_saves", 0)
    runs = [db.prune_now() for _ in range(3 * db.PRUNE_EVERY)]
    assert runs[0] and sum(runs) == 3 and [i for i, r in enumerate(runs) if r] == [0, db.PRUNE_EVERY, 2 * db.PRUNE_EVERY]
