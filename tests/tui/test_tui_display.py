"""The monitor never cuts a figure to its first digits, and says what is main-thread only
(issue 10 item 12)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widgets import Static
from tui_support import STALLED_NOW, app_for, demo_session, wait_for_state

from tracetui.tui.widgets.counters import CountersPane
from tracetui.tui.widgets.episodes import EpisodesList
from tracetui.tui.widgets.header import SessionHeader
from tracetui.tui.widgets.subagents import SubagentsTree

#: a figure cut short: digits (or a short unit) right before the ellipsis, at a word's end
_CUT_FIGURE = re.compile(r"\d[\d.,]*[kMGB%]?…(?=\s|$)")


def _lines(st: Static) -> list[str]:
    return [x.text.rstrip() for x in st.render_lines(Region(0, 0, st.outer_size.width, st.outer_size.height))]


@pytest.mark.parametrize("size", [(80, 24), (60, 24), (120, 40), (96, 30), (104, 30), (110, 30), (88, 24)])
@pytest.mark.parametrize("history", [False, True])
async def test_no_figure_is_cut_inside_in_the_counters_and_the_header(tmp_path: Path, size: tuple[int, int], history: bool) -> None:
    app = app_for([demo_session(tmp_path)], tmp_path, now=STALLED_NOW)
    async with app.run_test(size=size) as pilot:
        view = await wait_for_state(pilot)
        if history:
            await pilot.press("left_square_bracket")
        await pilot.pause()
        counters = view.query_one(CountersPane)
        header = view.query_one(SessionHeader)
        shown = _lines(counters) + _lines(header)
        assert any("tokens" in x for x in shown), shown
        for line in shown:
            assert not _CUT_FIGURE.search(line), (size, line)
        # the panes fit their figure lines themselves: the terminal's edge cuts none of them
        # (a cut there shows no "…": "cache w 37" for 37.6k)
        wanted = str(counters.content).splitlines() + str(header.content).splitlines()[1:]
        for line in wanted:
            assert any(line.strip() == x.strip(" │") for x in shown), (size, line, shown)
        assert not any(re.search(r"\d{4,} B pending", x) for x in shown), shown  # bytes in units
        tree = view.query_one(SubagentsTree)
        for y in range(min(len(tree._tree_lines), tree.scrollable_content_region.height)):
            line = tree.render_line(y).text.rstrip()
            assert not _CUT_FIGURE.search(line), (size, line)


async def test_episodes_say_main_thread_and_counters_say_they_include_subagents(tmp_path: Path) -> None:
    app = app_for([demo_session(tmp_path)], tmp_path, now=STALLED_NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        assert "main thread" in str(view.query_one(EpisodesList).border_title)
        assert view.state is not None and view.state.agents  # the demo has a subagent file
        assert "with subagents" in str(view.query_one(CountersPane).border_title)
