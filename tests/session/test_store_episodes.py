"""A stored fold keeps its episode versions in the database (issue 9): in memory only those
not written yet and each one's index and version; a snapshot's episodes are read when asked
for, as they were when it was taken, and equal the pure fold's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fixtures import append, prompt, tool_call, tool_result, write

from tracetui.demo.records import jsonl
from tracetui.model.session_fold import fold as pure_fold
from tracetui.session.store import open_cached
from tracetui.session.store.episodes import FLUSH, EpisodeSeq, StoreEpisodes


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(d))
    return d


def session(n: int) -> list[dict[str, Any]]:
    """``n`` prompts with a call each; every third call is still open at the next prompt (its
    episode gets a second version) and answered late (a third)."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        out += [prompt(f"task {i}"), tool_call(f"toolu_{i:04d}", "Bash", {"command": f"echo {i}"})]
        if i % 3:
            out.append(tool_result(f"toolu_{i:04d}", "ok"))
        elif i:
            out.append(tool_result(f"toolu_{i - 3:04d}", "late"))
    return out


def test_versions_leave_memory_once_written_and_read_back_equal(tmp_path: Path) -> None:
    recs = session(5 * FLUSH)
    path = write(tmp_path / "s.jsonl", recs)
    r = open_cached([path], price=False)
    r.poll()
    book = r.fold.folds[0].derive.book.versions
    assert isinstance(book, StoreEpisodes)
    r.store.sync()
    book._settle()
    # in memory: at most a batch not handed over yet and the last one handed over
    assert len(book._dirty) + len(book._inflight) <= 2 * FLUSH < len(book)
    assert not book._read
    st = r.snapshot()
    assert isinstance(st.episodes, EpisodeSeq) and not book._read  # nothing read yet
    ref = pure_fold(recs).episodes
    assert st.episodes == ref and tuple(st.episodes) == ref and st.episodes[-1] == ref[-1]
    assert list(reversed(st.episodes)) == list(reversed(ref)) and st.episodes[2:5] == ref[2:5]


def test_a_snapshot_keeps_its_versions_as_they_were(tmp_path: Path) -> None:
    recs = [prompt("one"), tool_call("toolu_a", "Bash", {"command": "sleep 9"}), prompt("two")]
    path = write(tmp_path / "s.jsonl", recs)
    r = open_cached([path], price=False)
    r.poll()
    before = r.snapshot()
    was = tuple(before.episodes)
    assert [(e.index, e.version, e.lifecycle) for e in was if e.index == 1] == [(1, 1, "superseded"), (1, 2, "current")]
    append(path, jsonl([tool_result("toolu_a", "done")]))  # version 3 of episode 1, version 2 superseded
    r.poll()
    after = r.snapshot()
    assert [(e.index, e.version, e.lifecycle) for e in after.episodes if e.index == 1][-1] == (1, 3, "current")
    assert tuple(before.episodes) == was  # the earlier snapshot did not change
    assert after.episodes == pure_fold([*recs, tool_result("toolu_a", "done")]).episodes


def test_a_warm_reopen_reads_no_version_until_asked(tmp_path: Path) -> None:
    recs = session(3 * FLUSH)
    path = write(tmp_path / "s.jsonl", recs)
    r = open_cached([path], price=False)
    r.poll()
    cold = tuple(r.snapshot().episodes)
    assert r.save_cache()
    r.store.close()
    w = open_cached([path], price=False)
    assert w.cache_status == "warm"
    w.poll()
    st = w.snapshot()
    book = w.fold.folds[0].derive.book.versions
    assert isinstance(book, StoreEpisodes) and not book._read and not book._dirty
    assert tuple(st.episodes) == cold
    # folding on from the resumed state: new versions, and the late result changes an old one
    more = [prompt("again"), tool_result(f"toolu_{3 * FLUSH - 3:04d}", "late"), prompt("last")]
    append(path, jsonl(more))
    w.poll()
    assert w.snapshot().episodes == pure_fold([*recs, *more]).episodes


def test_the_views_pick_current_and_resolved_versions_as_the_pure_fold_gives_them(tmp_path: Path) -> None:
    from fixtures import assistant, text_block

    from tracetui.views.derived import current_episodes, retry_fixes

    recs: list[dict[str, Any]] = []
    for i in range(3 * FLUSH):
        recs += [prompt(f"task {i}"), tool_call(f"toolu_{i:04d}", "Bash", {"command": "make"})]
        recs.append(tool_result(f"toolu_{i:04d}", "boom", is_error=i % 4 == 0 or None))
        if i % 8 == 4:  # a retry of an earlier episode's failed call, in a later episode
            recs += [tool_call(f"toolu_r{i:04d}", "Bash", {"command": "make"}), tool_result(f"toolu_r{i:04d}", "ok")]
        recs.append(assistant([text_block(f"done {i}")], msg_id=f"msg_{i}"))
    recs += [prompt("open one"), tool_call("toolu_open", "Bash", {"command": "sleep 1"})]
    path = write(tmp_path / "s.jsonl", recs)
    r = open_cached([path], price=False)
    r.poll()
    st = r.snapshot()
    ref = pure_fold(recs)
    cur = current_episodes(st)
    assert tuple(cur) == tuple(current_episodes(ref)) and len(cur) == len(current_episodes(ref))
    assert list(reversed(cur))[:3] == list(reversed(current_episodes(ref)))[:3]
    assert cur[:-4:-1] == tuple(current_episodes(ref)[:-4:-1])
    fixes = retry_fixes(st)
    assert fixes == retry_fixes(ref) and fixes  # some retries fixed earlier failures


def test_a_version_the_database_lost_is_left_out_of_a_snapshot_not_raised(tmp_path: Path) -> None:
    import sqlite3

    from tracetui.session.store import cache_path

    recs = session(2 * FLUSH)
    path = write(tmp_path / "s.jsonl", recs)
    r = open_cached([path], price=False)
    r.poll()
    r.store.sync()
    r.fold.folds[0].derive.book.versions._settle()  # the versions written are read from the rows
    st = r.snapshot()
    n = len(st.episodes)
    with sqlite3.connect(cache_path([path])) as db:  # another process folded the file anew
        db.execute("DELETE FROM episodes WHERE idx = 3")
    eps = list(st.episodes)
    assert 0 < len(eps) < n and all(e.index != 3 for e in eps[:-1])
