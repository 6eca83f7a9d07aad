"""The footer beside Textual's Keys panel (the command palette's "Keys"): whole keys that fit
the footer's own width, ``q Quit`` kept, and ``Esc`` closes the panel (trial 6 §9: with the panel
open the footer drew ``f Flee`` and lost ``q Quit``, and Esc left the panel open)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_tui_app import ESSENTIAL_LIVE, footer_keys, screen_rows
from textual.widgets import Footer, HelpPanel
from tui_support import app_for, demo_session, wait_for_state, wait_until


def _drawn(app) -> tuple[str, str, list[str]]:
    """``(the footer's keys as drawn, the keys it holds written whole, their binding ids)``; the
    Keys panel's cells of the last row left out."""
    footer = app.screen.query_one(Footer)
    keys = footer_keys(app)
    left = screen_rows(app)[-1][: footer.region.width].partition("▏")[0]
    return " ".join(left.split()), " ".join(f"{k} {d}" for _, k, d in keys), [i for i, _, _ in keys]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_beside_the_keys_panel_the_footer_keeps_whole_keys_and_quit(tmp_path: Path, size: tuple[int, int]) -> None:
    w = size[0]
    app = app_for([demo_session(tmp_path)], tmp_path)
    async with app.run_test(size=size) as pilot:
        await wait_for_state(pilot)
        footer = app.screen.query_one(Footer)
        app.action_show_help_panel()

        def settled() -> bool:
            row, whole, ids = _drawn(app)
            return footer.region.width < w and row == whole and "quit" in ids

        await wait_until(pilot, settled, 100, 0.02)
        assert footer.region.width == w - app.screen.query_one(HelpPanel).region.width
        row, whole, ids = _drawn(app)
        assert row == whole, row
        assert [i for i in ids if i in ESSENTIAL_LIVE] == ESSENTIAL_LIVE, ids
        # Esc, the back key, closes the panel; the footer has its whole width again
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.screen.query(HelpPanel) and footer.region.width == w, 100, 0.02)
        assert not app.screen.query(HelpPanel)
        assert footer.region.width == w
