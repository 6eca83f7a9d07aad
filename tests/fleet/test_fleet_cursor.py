"""The fleet's cursor: on the first row (the session that needs attention most) while rows
arrive and re-sort, until the user moves it; from then on it stays on its session's row."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tracetui.tui.widgets.fleet_rows import FleetRows


class _Rows(App[None]):
    def compose(self) -> ComposeResult:
        yield FleetRows([("state", "State"), ("title", "Title")], id="rows")


def _set(rows: FleetRows, keys: list[str]) -> None:
    rows.set_rows(keys, [(k, k) for k in keys], [("", "") for _ in keys])


async def test_cursor_stays_on_top_until_moved_then_follows_its_session() -> None:
    app = _Rows()
    async with app.run_test(size=(60, 10)) as pilot:
        rows = app.query_one(FleetRows)
        rows.focus()
        _set(rows, ["b"])
        _set(rows, ["a", "b"])  # a session that needs more attention arrives later
        assert rows.cursor_key == "a"
        _set(rows, ["b", "a"])  # and b turns more urgent
        assert rows.cursor_key == "b"
        await pilot.press("down")
        assert rows.cursor_key == "a"
        _set(rows, ["a", "c", "b"])
        assert rows.cursor_key == "a"
        _set(rows, ["c", "b", "a"])
        assert rows.cursor_key == "a" and rows.cursor == 2
