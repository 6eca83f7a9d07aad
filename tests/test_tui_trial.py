"""Defects a fresh-user trial of the monitor found: each test failed before its fix.

Fixture sessions are built here (``TranscriptBuilder``); nothing is copied from the corpus.
"""

from __future__ import annotations

from pathlib import Path

from test_tui_support import app_for, wait_for_state
from tracetui.demo.build import TranscriptBuilder
from tracetui.ingest.session import SessionReader
from tracetui.tui.excerpts import MAX_LINE_BYTES, read_excerpt
from tracetui.tui.screens.episode import EpisodeScreen


def _state(path: Path):
    r = SessionReader(path)
    r.poll()
    return r.snapshot()


def _big_result_session(path: Path, size: int) -> TranscriptBuilder:
    """A Read whose result is one record of more than ``size`` bytes, then a short answer."""
    b = TranscriptBuilder()
    b.prompt("Read the log")
    b.tick(1).tool("Read", {"file_path": "/home/dev/shop-api/big.log"}, "BEGIN " + "x" * size + " END", took=0.5)
    b.tick(1).text("The log is long.")
    b.write(path)
    return b


async def _open_drill_down(pilot, app) -> EpisodeScreen:
    await pilot.press("e")
    screen = app.screen
    assert isinstance(screen, EpisodeScreen)
    for _ in range(200):
        if screen.loaded:
            break
        await pilot.pause(0.02)
    assert screen.loaded
    return screen


# -- 1. a record longer than the read-back bound is too large, not "changed" ----------------
def test_a_record_longer_than_the_bound_is_said_too_large_with_its_size(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    _big_result_session(path, 3000)
    st = _state(path)
    res = next(ev for ev in st.ledgers[0] if ev.kind == "tool_result")
    line = path.read_bytes().split(b"\n")[res.anchor.line - 1]
    said = read_excerpt(st, res.anchor, res.block, inline=res.excerpt, max_bytes=1024)
    assert "changed" not in said
    assert f"record too large to show here: {len(line) / 1024:.1f} KB at big.jsonl:{res.anchor.line}" in said
    assert "reads at most 1.0 KB of a line" in said
    # the ledger's own excerpt of the block is kept in front of the note
    assert said.startswith("BEGIN xxx")
    # within the bound the same block reads back whole (head and tail)
    whole = read_excerpt(st, res.anchor, res.block)
    assert whole.startswith("BEGIN") and whole.endswith("END")


def test_a_record_that_really_changed_is_still_said_changed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _big_result_session(path, 10)
    st = _state(path)
    res = next(ev for ev in st.ledgers[0] if ev.kind == "tool_result")
    raw = path.read_bytes()
    # rewritten in place: the record's bytes are no longer a JSON object there
    path.write_bytes(raw[: res.anchor.offset] + b"garbage that is not JSON at all\n")
    said = read_excerpt(st, res.anchor, res.block)
    assert "the file changed since it was folded" in said and "too large" not in said


async def test_drill_down_says_a_record_over_4_mib_is_too_large(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    _big_result_session(path, MAX_LINE_BYTES + 1000)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await _open_drill_down(pilot, app)
        steps = str(screen.query_one("#episode-steps").content)
        size = len(path.read_bytes().split(b"\n")[2])  # line 3: the result (its text twice: content and toolUseResult)
        assert size > MAX_LINE_BYTES
        assert "the file changed" not in steps
        assert f"record too large to show here: {size / 1024 / 1024:.1f} MB at big.jsonl:3" in steps
        assert "reads at most 4.0 MB of a line for an excerpt" in steps
