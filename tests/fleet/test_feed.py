"""The app's fleet feed: facts computed on its own thread from the newest state of each session,
turns to waiting on you or failing told once."""

from __future__ import annotations

import threading
import types
from pathlib import Path

import fleet_support as fs

from tracetui.tui import fleet_feed
from tracetui.tui.fleet_feed import FleetFeed
from tracetui.tui.settings import Settings


def test_the_newest_state_of_a_session_is_computed_once(tmp_path: Path, monkeypatch) -> None:
    gate = threading.Event()
    monkeypatch.setattr(fleet_feed, "time", types.SimpleNamespace(sleep=lambda s: gate.wait(30)))
    feed = FleetFeed(Settings())
    seen: list[object] = []
    done = threading.Event()
    real = feed.compute

    def compute(key, state, *a) -> None:
        seen.append(state)
        real(key, state, *a)
        done.set()

    feed.compute = compute  # type: ignore[method-assign]
    p = fs.write(fs.permission(), tmp_path, "-p", "22222222-0000-4000-8000-000000000002")
    old, new = fs.state_of(p), fs.state_of(p)
    feed.snapshot(str(p), old, 1.0)
    feed.snapshot(str(p), new, 2.0)  # replaces the queued one while the thread waits
    gate.set()
    assert done.wait(30)
    assert seen == [new]
    ((facts, written),) = feed.pairs()
    assert facts.key == str(p) and written == 2.0 and facts.in_flight[0].tool == "Bash"
    feed.stop()
    feed._thread.join(30)
    assert not feed._thread.is_alive()


def test_turns_are_told_once(tmp_path: Path) -> None:
    feed = FleetFeed(Settings())
    told: list[list[str]] = []
    feed.on_turn = lambda rows: told.append([r.status.state for r in rows])
    b = fs.permission()
    p = fs.write(b, tmp_path, "-p", b.session_id)
    t = fs.last_time(b)
    feed.compute(str(p), fs.state_of(p), t)
    feed.tick(t + 1)  # working: first seen, nothing told
    feed.tick(t + 60)  # a permission prompt: told
    feed.tick(t + 61)  # still waiting: not told again
    assert told == [["waiting on you"]]


def test_a_copy_is_known_by_the_id_of_its_file_name(tmp_path: Path) -> None:
    """The fleet's session column names a copied file as ``tracetui sessions`` does: by the id
    the command line finds it by (its file's name), not its records' sessionId."""
    feed = FleetFeed(Settings())
    b = fs.permission()
    p = fs.write(b, tmp_path, "-p", b.session_id)
    copy = p.with_name("dddd0000-0000-4000-8000-00000000000d.jsonl")
    copy.write_bytes(p.read_bytes())
    t = fs.last_time(b)
    for f in (p, copy):
        feed.compute(str(f), fs.state_of(f), t)
    assert {facts.session_id for facts, _ in feed._facts.values()} == {b.session_id, copy.stem}
