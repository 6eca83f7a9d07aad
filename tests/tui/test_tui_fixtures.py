"""The TUI tests' fixture sessions are what the tests assume."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from tui_support import FROZEN_NOW, demo_session


def test_fixtures_are_what_the_tests_assume(tmp_path: Path) -> None:
    from tracetui.session.reader import SessionReader

    r = SessionReader(demo_session(tmp_path))
    r.poll()
    st = r.snapshot()
    assert st.main.prompts == 5 and len(st.history) == 4
    assert len(st.pending) == 1 and len(st.agents) == 1
    last = max(a.last_timestamp for a in (st.main, *st.agents))
    assert datetime.fromisoformat(last.replace("Z", "+00:00")).timestamp() < FROZEN_NOW
