"""Real transcripts of the corpus (``$TRACETUI_CORPUS``, else ../shared/corpus; see conftest.py)
open in the app, scrub, copy and drill down without a pane or an export failing.

A Pilot run takes ~2 s of mostly idle waiting, so by default the walk takes the largest file of
each corpus folder; ``TRACETUI_CORPUS_UI=all`` walks every file (all 44 passed when written)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from tui_support import app_for, wait_for_state, wait_until

from tracetui.tui.screens.episode import EpisodeScreen


def _sample(files: list[Path], root: Path) -> list[Path]:
    """All files with ``TRACETUI_CORPUS_UI=all``, else the largest of each top folder of ``root``."""
    if os.environ.get("TRACETUI_CORPUS_UI") == "all":
        return files
    largest: dict[str, Path] = {}
    for f in files:
        group = f.relative_to(root).parts[0]
        if group not in largest or f.stat().st_size > largest[group].stat().st_size:
            largest[group] = f
    return sorted(largest.values())


@pytest.mark.corpus_select(fn=_sample)
async def test_corpus_file_in_the_app(corpus_file: Path, tmp_path: Path) -> None:
    app = app_for([corpus_file], tmp_path, now=time.time())
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot, tries=2000)
        await pilot.press("left_square_bracket", "c", "w", "e")
        if isinstance(app.screen, EpisodeScreen):
            await wait_until(pilot, lambda: app.screen.loaded, 500, 0.01)
            assert app.screen.loaded
        await pilot.pause()
        problems = [str(n.message) for n in app._notifications if "failed" in str(n.message) or "Could not" in str(n.message)]
        assert problems == []
        assert view.state.counters.records + view.state.counters.malformed > 0
        assert app.clipboard  # the worker view of this state was compiled and copied
