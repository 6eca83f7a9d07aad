"""Two open sessions are told apart by their tabs' titles, whatever their ids share."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Tab
from tui_support import app_for, small_session, wait_for_state, wait_until

from tracetui.tui.format import FILE_LABEL_CHARS, file_label
from tracetui.tui.tabs import distinct_title
from tracetui.tui.widgets.header import SessionHeader


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


# -- trial 11: a session known by a file name was shown by its first 8 characters -------------
def test_a_file_name_is_shown_whole_an_id_by_its_first_eight_characters() -> None:
    assert file_label("mixed_claude_first") == "mixed_claude_first"
    assert file_label("1234abcd-1111-4000-8000-000000000002") == "1234abcd"
    long = file_label("a-very-long-transcript-name-" * 4)
    assert len(long) == FILE_LABEL_CHARS and long.endswith("…")
    assert distinct_title("", "mixed_claude_first", set()) == "mixed_claude_first"


def test_a_named_file_that_is_not_a_rollout_is_labelled_by_its_whole_name(tmp_path: Path) -> None:
    from tracetui.tui.main import build_settings

    named = tmp_path / "mixed_claude_first.jsonl"
    by_id = tmp_path / "1234abcd-1111-4000-8000-000000000002.jsonl"
    small_session(named)
    small_session(by_id)
    s = build_settings([str(named), str(by_id)])
    assert [sp.label for sp in s.sessions] == ["mixed_claude_first", "1234abcd"]


@pytest.mark.parametrize("kind", ["folder", "missing"])
async def test_the_header_names_an_unreadable_or_missing_file_whole(tmp_path: Path, kind: str) -> None:
    path = tmp_path / ("adir.jsonl" if kind == "folder" else "missing.jsonl")
    if kind == "folder":
        path.mkdir()
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.state is not None, 300, 0.02)
        header = app.current_view.query_one(SessionHeader)
        await wait_until(pilot, lambda: path.name in str(header.content), 300, 0.02)
        first = str(header.content).splitlines()[0]
        assert f"  {path.name}  " in first, first
