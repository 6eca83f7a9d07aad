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

        def on_tab(name: str) -> bool:
            # the tab's view is the active one, drawn and focused (the active pane follows a switch
            # a moment later, and a TabPane.Focused still queued activates its tab again)
            view = app.current_view
            return (
                len(app.views) == 3
                and view is not None
                and view.spec.paths[0].parent.name == name
                and view.built
                and view.shown is not None
                and app.focused in view.query("*")
            )

        await wait_until(pilot, lambda: on_tab("-p0"), 500, 0.02)
        app.action_next_tab()
        await wait_until(pilot, lambda: on_tab("-p1"), 500, 0.02)
        # the focus messages climb one widget per pause (each pause lets every widget handle what
        # it had queued): past the tab pane, whose TabPane.Focused would activate tab 2 again
        for _ in range(12):
            await pilot.pause()
        second = app.current_view
        assert second.spec.paths[0].parent.name == "-p1"  # tab 2
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
