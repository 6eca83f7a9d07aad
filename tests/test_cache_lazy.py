"""The lazy open's deferred attributes (``cache.LAZY_ATTRS``): left encoded until first read,
then the same state as a full fold, whatever reads them first."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures import append, jsonl, prompt, tool_call, tool_result, write
from test_cache import assert_same_folds, assert_same_state, fold_state

import tracetui.session.cache as cache
from tracetui.model.fold import FileFold
from tracetui.session.cache import LAZY_ATTRS, open_cached
from tracetui.session.reader import SessionReader


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(d))
    return d


def _saved(tmp_path: Path) -> Path:
    p = write(
        tmp_path / "s.jsonl",
        [
            prompt("goal"),
            tool_call("t1", "Bash", {"command": "ls"}),
            tool_result("t1", "x"),
            tool_call("t2", "Read", {"file_path": "/a"}),
            tool_call("t3", "TodoWrite", {"todos": [{"content": "a", "status": "pending"}]}),
        ],
    )
    r = open_cached([p], price=False)
    fold_state(r)
    assert r.save_cache()
    return p


def _full(p: Path) -> SessionReader:
    r = SessionReader([p], price=False)
    r.poll()
    r.snapshot()
    return r


def test_a_lazy_open_leaves_the_calls_encoded_and_snapshots_without_them(tmp_path: Path) -> None:
    p = _saved(tmp_path)
    lz = open_cached([p], price=False, lazy=True)
    f = lz.fold.folds[0]
    assert isinstance(f, FileFold) and type(f) is not FileFold
    assert not (LAZY_ATTRS & set(vars(f)))  # not decoded
    s = fold_state(lz)  # nothing new: the snapshot needs none of them
    assert not (LAZY_ATTRS & set(vars(f)))
    assert [c.id for c in s.pending] == ["t2", "t3"]
    assert lz.save_cache() is False  # nothing read since: no save, nothing decoded
    assert not (LAZY_ATTRS & set(vars(f)))
    # the first read decodes one; when none is left the fold is a FileFold again
    assert set(f.calls) == {"t1", "t2", "t3"}
    f._call_inputs  # noqa: B018 - the read is the point
    assert type(f) is FileFold and "__deferred" not in vars(f)
    lz.materialise()
    assert_same_state(lz.snapshot(), fold_state(SessionReader([p], price=False)))
    assert_same_folds(lz, _full(p))


@pytest.mark.parametrize("mapped", [False, True])
def test_a_result_for_a_deferred_call_pairs_as_in_a_full_fold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mapped: bool) -> None:
    if mapped:
        monkeypatch.setattr(cache, "MMAP_BYTES", 0)
    p = _saved(tmp_path)
    append(p, jsonl([tool_result("t2", "contents"), tool_result("t3", "ok"), prompt("next")]))
    lz = open_cached([p], price=False, lazy=True)
    s = fold_state(lz)
    assert [c.id for c in s.pending] == []
    lz.materialise()
    assert_same_state(lz.snapshot(), fold_state(SessionReader([p], price=False)))
    assert_same_folds(lz, _full(p))
    # saved after a lazy open, reopened in full: the same fold again
    assert lz.save_cache()
    again = open_cached([p], price=False)
    assert again.cache_status == "warm"
    assert_same_folds(again, _full(p))


def test_a_save_after_a_lazy_open_decodes_what_was_left(tmp_path: Path) -> None:
    p = _saved(tmp_path)
    append(p, jsonl([prompt("more")]))  # new bytes that never touch a call
    lz = open_cached([p], price=False, lazy=True)
    fold_state(lz)
    assert not (LAZY_ATTRS & set(vars(lz.fold.folds[0])))
    assert lz.save_cache()
    again = open_cached([p], price=False)
    assert_same_folds(again, _full(p))
    assert set(again.fold.folds[0].calls) == {"t1", "t2", "t3"}
