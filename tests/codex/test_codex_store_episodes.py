"""A Codex rollout opened through the store keeps its episode versions in the database, as a
Claude Code transcript does (the fold chosen at the first record takes over the store's sink)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.model.session_fold import fold_bytes
from tracetui.session.store import open_cached
from tracetui.session.store.episodes import FLUSH, EpisodeSeq, StoreEpisodes


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))


def test_rollout_episodes_live_in_the_store(tmp_path: Path) -> None:
    b = RolloutBuilder()
    for i in range(3 * FLUSH):
        b.turn(f"task {i}")
        b.exec(f"echo {i}", str(i))
        b.tokens(1000 + i, 800, 50)
        b.done()
    path = b.write(tmp_path / "rollout-2026-03-02T09-00-00-x.jsonl")
    r = open_cached([path], price=False)
    r.poll()
    book = r.fold.folds[0].derive.book.versions
    assert isinstance(book, StoreEpisodes)
    r.store.sync()
    book._settle()
    assert len(book._dirty) + len(book._inflight) <= 2 * FLUSH < len(book)
    st = r.snapshot()
    assert st.agent == "codex" and isinstance(st.episodes, EpisodeSeq)
    ref = fold_bytes(path.read_bytes(), price=False).episodes
    assert len(st.episodes) == len(ref) == 3 * FLUSH
    assert list(st.episodes) == list(ref)
