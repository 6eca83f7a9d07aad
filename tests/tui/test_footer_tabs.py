"""The footer holds the same keys with one tab and with several, the tab key aside (fourth user
trial: at 80 columns one tab showed Pause and the palette key and two tabs did not; at 120
columns ``f Fleet`` showed with two tabs only)."""

from __future__ import annotations

from pathlib import Path

from test_tui_app import footer_keys
from tui_support import app_for, demo_session, small_session, wait_for_state

WIDTHS = (60, 65, 70, 75, 80, 85, 90, 95, 100, 110, 119, 120, 130)


async def _keys_at_every_width(paths: list[Path], tmp_path: Path) -> dict[tuple[bool, int], list[str]]:
    app = app_for(paths, tmp_path)
    out = {}
    async with app.run_test(size=(130, 24)) as pilot:
        await wait_for_state(pilot)
        for history in (False, True):
            if history:
                await pilot.press("left_square_bracket")
                assert app.current_view.episode is not None
            for w in WIDTHS:
                await pilot.resize_terminal(w, 24)
                await pilot.pause()
                out[history, w] = [i for i, _, _ in footer_keys(app)]
    return out


async def test_the_footer_keys_do_not_depend_on_the_number_of_tabs(tmp_path: Path) -> None:
    main = demo_session(tmp_path)
    other = tmp_path / "other.jsonl"
    small_session(other)
    one = await _keys_at_every_width([main], tmp_path)
    two = await _keys_at_every_width([main, other], tmp_path)
    for at, keys in two.items():
        assert "next-tab" not in one[at]
        assert [k for k in keys if k != "next-tab"] == one[at], at
        # the most wanted optional key: live, it fits from 60 columns
        assert at[0] or keys[0] == "next-tab", at
    # from 97 columns every key of the live monitor is there, the fleet key included (README)
    for w in WIDTHS:
        if w >= 97:
            assert {"pause", "sessions", "fleet", "palette"} <= set(one[False, w]), (w, one[False, w])
    # what the README says of 80 columns
    assert one[False, 80] == ["help", "history-back", "drill-down", "copy-card", "copy-worker", "sessions", "fleet", "quit"]
