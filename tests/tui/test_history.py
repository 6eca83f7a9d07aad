"""HISTORY: the state as of the end of an episode, as the panes show it.

Fixture sessions come from tui_sessions.py and tui_support.py (``TranscriptBuilder``); nothing is copied from
the corpus.
"""

from __future__ import annotations

from pathlib import Path

from tui_sessions import open_call_then_late_prompt
from tui_support import app_for, wait_for_state

from tracetui.tui.format import parse_ts
from tracetui.tui.widgets.now import NowPane
from tracetui.tui.widgets.pending_calls import PendingCalls


async def test_history_says_a_call_open_at_the_episode_end_had_no_result_by_then(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    open_call_then_late_prompt(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert view.episode == 1
        # ages are measured to the episode's last record (the unanswered call, 09:00:03.5),
        # not to the closing prompt 1h17m later
        assert view.shown.now == parse_ts(view.rows[0].end) == parse_ts("2026-03-02T09:00:03.500Z")
        now = str(view.query_one(NowPane).content)
        assert "running" not in now and "1h17m" not in now, now
        assert "called Bash(npm test): no result by the end of episode 1" in now, now
        pending = str(view.query_one(PendingCalls).content)
        assert "1h17m" not in pending and "0s Bash" in pending, pending
