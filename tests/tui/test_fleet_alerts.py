"""Fleet alerts: sessions that turned waiting on you at one refresh make one notification, and
the sessions already waiting when the fleet first sees them make none (fourth user trial: 71
notifications piled up over the first fleet screen)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tui_support import small_session

from tracetui.session.reader import SessionReader
from tracetui.tui.fleet_feed import FleetFeed, alert, alert_texts
from tracetui.tui.settings import Settings


def _feed(tmp_path: Path, n: int) -> tuple[FleetFeed, float, list[list[str]]]:
    """``n`` sessions with a Bash call in flight (working while written lately, then waiting on
    you), their facts computed as written at ``t``; what ``on_turn`` hears, as states."""
    feed = FleetFeed(Settings())
    told: list[list[str]] = []
    feed.on_turn = lambda rows: told.append([r.status.state for r in rows])
    t = 0.0
    for i in range(n):
        p = tmp_path / "projects" / f"-home-dev-p{i}" / f"5e55a0c1-0000-4000-8000-{i:012d}.jsonl"
        b = small_session(p)
        t = b.t.timestamp()
        r = SessionReader(p)
        r.poll()
        feed.compute(str(p), r.snapshot(), t)
    return feed, t, told


class _App:
    def __init__(self) -> None:
        self.settings = SimpleNamespace(bell=True)
        self.rang = 0
        self.said: list[str] = []

    def bell(self) -> None:
        self.rang += 1

    def notify(self, message: str, **_kw) -> None:
        self.said.append(message)


def test_sessions_already_waiting_at_start_are_not_told(tmp_path: Path) -> None:
    feed, t, told = _feed(tmp_path, 5)
    rows = feed.tick(t + 60)  # first seen waiting: the starting state
    assert {r.status.state for r in rows} == {"waiting on you"}
    feed.tick(t + 61)
    assert told == []


def test_sessions_turning_waiting_at_one_refresh_make_one_notification(tmp_path: Path) -> None:
    feed, t, told = _feed(tmp_path, 5)
    feed.tick(t + 1)  # just written: working
    rows = []
    feed.on_turn = rows.extend
    feed.tick(t + 60)  # quiet for a minute: waiting on you
    assert [r.status.state for r in rows] == ["waiting on you"] * 5
    app = _App()
    alert(app, rows)
    assert app.rang == 1 and len(app.said) == 1
    title = rows[0].facts.title
    assert app.said[0] == f"5 sessions waiting on you: {title}, {title}, {title}…"
    # all named: no ellipsis; one session: its project and title, as before
    assert alert_texts(rows[:3]) == [f"3 sessions waiting on you: {title}, {title}, {title}"]
    assert alert_texts(rows[:1]) == [f"{rows[0].facts.project}: {title}: waiting on you"]
