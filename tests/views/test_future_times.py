"""A record time past the clock (a record of year 2099) is no time the session took: the
worker view and the monitor's Episodes pane give no duration built on it (trial 8: an episode
"took 26327d23h")."""

from __future__ import annotations

from datetime import UTC, datetime

from fixtures import future_reply_session

from tracetui.model.session_fold import fold_bytes
from tracetui.views.worker import render_worker_view

NOW = datetime(2026, 1, 2, tzinfo=UTC)


def _line(text: str, k: int) -> str:
    (line,) = [ln for ln in text.splitlines() if ln.lstrip().startswith(f"#{k} ")]
    return line


def test_the_worker_view_gives_no_duration_ending_past_the_clock() -> None:
    ahead = render_worker_view(fold_bytes(future_reply_session("2099-01-01T00:00:00Z")), now=NOW)
    assert " · duration ? (a record time past the clock) · " in _line(ahead, 1)
    # a record time within the clocks' skew of now, or any time without a clock, is read as it is
    near = render_worker_view(fold_bytes(future_reply_session("2026-01-01T00:01:05Z")), now=NOW)
    assert " · 1m05s · " in _line(near, 1)
    assert " · 26663d00h · " in _line(render_worker_view(fold_bytes(future_reply_session("2099-01-01T00:00:00Z"))), 1)


def test_the_episodes_pane_gives_no_duration_ending_past_the_clock() -> None:
    from tracetui.tui.view_model import episode_rows
    from tracetui.tui.widgets.episodes import episode_line

    row = next(r for r in episode_rows(fold_bytes(future_reply_session("2099-01-01T00:00:00Z"))) if r.index == 1)
    now = NOW.timestamp()
    assert str(episode_line(row, 80, now=now)).rstrip().endswith(" ?")
    assert str(episode_line(row, 80)).endswith(" 26663d00h")
