"""Two open sessions are told apart by their tabs' titles, whatever their ids share."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Tab
from tui_support import app_for, small_session, wait_for_state

from tracetui.tui.tabs import distinct_title


def test_a_title_that_no_tab_shows_is_the_label_as_it_was() -> None:
    assert distinct_title("web/1234abcd", "1234abcd-0000", {"other"}) == "web/1234abcd"
    assert distinct_title("", "1234abcd-0000-4000", set()) == "1234abcd"


def test_a_clashing_title_writes_the_id_out_whole() -> None:
    stem = "1234abcd-1111-4000-8000-000000000002"
    assert distinct_title("1234abcd", stem, {"1234abcd"}) == stem
    assert distinct_title("web/1234abcd", stem, {"web/1234abcd"}) == "web/" + stem


def test_the_same_session_twice_gets_a_number_and_stays_short() -> None:
    stem = "1234abcd-1111-4000-8000-000000000002"
    shown = {"1234abcd", stem}
    assert distinct_title("1234abcd", stem, shown) == "1234abcd (2)"
    assert distinct_title("1234abcd", stem, shown | {"1234abcd (2)"}) == "1234abcd (3)"
    long = distinct_title("x" * 60, "y", {"x" * 39 + "…"}, limit=40)
    assert len(long) <= 40 and long.endswith(" (2)")


async def test_two_sessions_whose_ids_share_eight_characters_have_different_tabs(tmp_path: Path) -> None:
    a = tmp_path / "projects" / "-p" / "1234abcd-0000-4000-8000-000000000001.jsonl"
    b = tmp_path / "projects" / "-p" / "1234abcd-1111-4000-8000-000000000002.jsonl"
    small_session(a)
    small_session(b)
    app = app_for([a, b], tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_state(pilot)
        await pilot.pause()
        titles = [t.label.plain for t in app.query(Tab)]
    assert titles == ["1234abcd", "1234abcd-1111-4000-8000-000000000002"]
