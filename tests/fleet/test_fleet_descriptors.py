"""The fleet follows every session of its window with a store of its own: the descriptors its
session databases hold stay bounded by the pool's cap (store/pool.py), however many sessions,
every session is still folded and counted, and a session whose connections were closed still
follows its file (eighth user trial: 4 descriptors a session, the rest lost past ~250)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from fixtures import database_fds

from tracetui.session.follow import Follow
from tracetui.session.store import pool
from tracetui.tui import fleet_feed
from tracetui.tui.fleet_feed import FleetFeed
from tracetui.tui.settings import Settings

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts /proc/self/fd")

#: sessions in the window, and the cap of open store connections the test sets
SESSIONS = 40
CAP = 6
#: seconds a wait gives up after (the caller asserts what it waited for)
WAIT = 120.0


def _records(sid: str, n: int, tokens: tuple[int, int]) -> list[dict]:
    """One prompt and its answer (``tokens``: input and output), numbered ``n``."""
    user = {"parentUuid": None, "isSidechain": False, "type": "user", "sessionId": sid, "uuid": f"{sid}-u{n}"}
    user |= {"timestamp": "2026-03-02T09:00:00.000Z", "cwd": "/p", "message": {"role": "user", "content": f"task {n}"}}
    usage = {"input_tokens": tokens[0], "output_tokens": tokens[1]}
    message = {"model": "claude-sonnet-4-5", "id": f"msg_{sid}_{n}", "role": "assistant", "content": [{"type": "text", "text": "done"}]}
    answer = {"parentUuid": f"{sid}-u{n}", "isSidechain": False, "type": "assistant", "sessionId": sid, "uuid": f"{sid}-a{n}"}
    answer |= {"timestamp": "2026-03-02T09:00:01.000Z", "message": message | {"usage": usage}}
    return [user, answer]


def _append(path: Path, records: list[dict]) -> None:
    with path.open("a") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))


class _Info:
    """What the fleet's listing gives :meth:`FleetFeed.follow_window` of a session."""

    def __init__(self, path: Path) -> None:
        self.path, self.project, self.agent = path, path.parent.name, "claude"


def _wait(cond) -> None:
    end = time.monotonic() + WAIT
    while not cond() and time.monotonic() < end:
        time.sleep(0.02)


def _tokens(feed: FleetFeed) -> dict[str, int]:
    return {facts.key: facts.tokens for facts, _w in feed.pairs()}


def test_the_fleet_keeps_few_databases_open_and_counts_every_session(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(pool, "MAX_OPEN", CAP)
    monkeypatch.setattr(fleet_feed, "DELAY", 0.0)
    paths = []
    for i in range(SESSIONS):
        sid = f"00000000-0000-4000-8000-{i:012d}"
        p = tmp_path / "projects" / f"-p{i % 5}" / f"{sid}.jsonl"
        p.parent.mkdir(parents=True, exist_ok=True)
        _append(p, _records(sid, 0, (100, 10)))
        paths.append(p)
    before = database_fds()
    feed = FleetFeed(Settings())
    follow = Follow(follow=True, events=False)  # woken by the test, not by file events
    try:
        feed.follow_window(follow, [_Info(p) for p in paths], set())

        def settled() -> bool:
            return follow.idle() and all(s.loaded.is_set() for s in follow.sessions()) and len(feed.pairs()) == SESSIONS

        _wait(settled)
        assert settled()
        assert _tokens(feed) == {str(p): 110 for p in paths}  # every session folded and counted
        assert database_fds() - before <= CAP

        # a session whose connections the pool closed folds its appended lines and writes them
        closed = [s for s in follow.sessions() if not (s.reader.store._r.is_open or s.reader.store._w.is_open)]
        assert closed
        s = closed[0]
        sid = s.paths[0].stem
        _append(s.paths[0], _records(sid, 1, (200, 20)))
        s.wake()
        _wait(lambda: _tokens(feed).get(s.key) == 330 and follow.idle())
        assert _tokens(feed)[s.key] == 330
        assert set(_tokens(feed).values()) == {110, 330}
        ledger = s.reader.snapshot().ledgers[0]
        events = list(ledger)  # read back from the database
        assert len(events) == len(ledger) and events[-1].kind == "assistant_text"
        assert database_fds() - before <= CAP
    finally:
        follow.stop()
        feed.stop()
