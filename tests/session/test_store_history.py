"""How the store encodes a per-prompt history snapshot: deltas over the previous one."""

from __future__ import annotations

from pathlib import Path

import msgspec
from fixtures import prompt, write

from tracetui.model.state import Anchor
from tracetui.model.types import Derived, Note
from tracetui.session.reader import SessionReader
from tracetui.session.store import history


def _state(tmp_path: Path):
    r = SessionReader([write(tmp_path / "s.jsonl", [prompt("hello")])], price=False)
    r.poll()
    return r.snapshot().main


def _notes(start: int, stop: int) -> tuple[Note, ...]:
    return tuple(Note("error", f"call {i} failed", Anchor(0, i, i * 10), f"quote {i}") for i in range(start, stop))


def test_a_sliding_window_of_notes_is_stored_as_what_it_dropped_and_added(tmp_path: Path) -> None:
    base = _state(tmp_path)
    window = _notes(0, 40)
    prev = msgspec.structs.replace(base, derived=Derived(ruled_out=window, ruled_out_total=40))
    slid = window[2:] + _notes(40, 42)  # the oldest two dropped, two added: every index changed
    cur = msgspec.structs.replace(base, derived=Derived(ruled_out=slid, ruled_out_total=42))
    whole = history.encode(None, prev, 0)
    row = history.encode(prev, cur, 1)
    assert history.decode([whole, row]) == cur
    assert history._delta(prev.derived, cur.derived)[0][:3] == ["ruled_out", 3, 2]
    # the row holds the two notes added, not the forty of the window
    assert len(row) < len(history.encode(None, cur, 0)) / 4


def test_a_window_that_does_not_slide_is_stored_whole_or_by_index(tmp_path: Path) -> None:
    base = _state(tmp_path)
    prev = msgspec.structs.replace(base, derived=Derived(ruled_out=_notes(0, 10)))
    for new in (_notes(5, 7) + _notes(100, 108), _notes(3, 10) + _notes(0, 3), _notes(0, 10)[::-1], ()):
        cur = msgspec.structs.replace(base, derived=Derived(ruled_out=new))
        assert history.decode([history.encode(None, prev, 0), history.encode(prev, cur, 1)]) == cur, new
