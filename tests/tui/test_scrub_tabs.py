"""Keys that scrub (``[``, ``]``, ``l``) step the tab they were typed on, even when a tab switch
(``ctrl+pagedown``, a priority key run as it arrives) comes in the same input read: a bubbling
key reaches the app's bindings after the switch ran (user trial: ``[ [ [ C-PageDown`` in one
read stepped the tab switched to)."""

from __future__ import annotations

from pathlib import Path

from textual import events
from tui_sessions import scrub_session
from tui_support import app_for, wait_until


def _paths(tmp_path: Path) -> list[Path]:
    paths = []
    for i in range(3):
        p = tmp_path / "projects" / f"-p{i}" / f"s{i}.jsonl"
        scrub_session(p, 8)
        paths.append(p)
    return paths


async def test_scrub_keys_before_a_tab_switch_step_the_tab_they_were_typed_on(tmp_path: Path) -> None:
    app = app_for(_paths(tmp_path), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: len(app.views) == 3 and all(v.state is not None for v in app.views.values()), 500, 0.02)
        app.action_next_tab()
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.built, 500, 0.02)
        second = app.current_view
        # settled on tab 2: drawn, and its focus taken (a TabPane.Focused still queued activates
        # its tab again when it is handled, after a switch made before it)
        await wait_until(pilot, lambda: second.shown is not None and app.focused is not None and second in app.focused.ancestors, 500, 0.02)
        await pilot.pause()
        # one input read: three [ then the tab switch, posted together as the driver posts them
        for key, char in [("left_square_bracket", "[")] * 3 + [("ctrl+pagedown", None)]:
            app.post_message(events.Key(key, char))
        scrubbed = lambda: [v for v in app.views.values() if v.episode is not None]  # noqa: E731
        await wait_until(pilot, lambda: app.current_view is not second and scrubbed(), 500, 0.02)
        await pilot.pause()
        third = app.current_view
        assert third is not second
        n = second.completed()
        assert second.episode == n - 2  # three steps back from live: n, n-1, n-2
        assert third.episode is None  # the tab switched to is still live
