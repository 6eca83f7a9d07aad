"""The fleet screen: every session at a glance, which one needs you, and what they cost.

One row per session (open in a tab, or active in the window: ``--hours``, default 24), sorted
by attention (:mod:`tracetui.views.fleet`: waiting on you, failing, stalled, working, idle,
ended), with the fleet's burn rates, a sparkline of the last hour and the daily budget above.
Rows come from the app's :class:`~tracetui.tui.fleet_feed.FleetFeed`, whose facts the fold workers
compute; this screen only applies the rules at ``now`` and redraws the cells that changed (a
re-sort rebuilds the table). Enter opens the session's tab; Escape (or f) goes to the monitor.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from tracetui.tui.fleet_feed import FleetChanged, FleetFeed
from tracetui.tui.settings import SessionSpec
from tracetui.views.fleet_table import COLUMNS, FleetRow, fleet_summary, row_cells

__all__ = ["FleetScreen", "STATE_STYLE"]

#: how each state is drawn (its word is always there: colour is never the only sign)
STATE_STYLE = {
    "waiting on you": "bold reverse yellow",
    "failing": "bold red",
    "stalled": "bold magenta",
    "working": "green",
    "idle": "dim",
    "ended": "dim italic",
}
#: columns drawn right-aligned
_RIGHT = frozenset({"tokens", "cost", "hour_tokens", "hour_cost", "context"})


class FleetScreen(Screen[None]):
    """The fleet. ``feed``: the app's :class:`FleetFeed`."""

    CSS_PATH = "fleet.tcss"
    AUTO_FOCUS = "#fleet-table"
    BINDINGS = [
        Binding("escape", "back", "Monitor", id="fleet-back", tooltip="Back to the monitor (the session tabs)"),
        Binding("f", "back", "Monitor", id="fleet-monitor", show=False, tooltip="Back to the monitor (the session tabs)"),
        Binding("f1", "app.help", "Help", id="fleet-help", key_display="F1", tooltip="Show keys, panes and the fleet's state rules"),
        Binding("q", "app.quit", "Quit", id="fleet-quit", tooltip="Quit tracetui"),
    ]

    def __init__(self, feed: FleetFeed) -> None:
        super().__init__()
        self.feed = feed
        self.rows: list[FleetRow] = []
        self._order: list[str] = []
        self._cells: dict[str, dict[str, str]] = {}
        self._summary = ""
        self._pending = False

    def compose(self) -> ComposeResult:
        yield Static("", id="fleet-summary")
        yield DataTable(id="fleet-table", cursor_type="row", zebra_stripes=False)
        yield Static("", id="fleet-empty")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, heading in COLUMNS:
            table.add_column(Text(heading, justify="right" if key in _RIGHT else "left"), key=key)
        self.feed.screen = self
        self.refresh_rows()
        s = self.app.settings  # type: ignore[attr-defined]
        self.set_interval(s.tick_seconds, self.refresh_rows)
        self.discover()

    def on_unmount(self) -> None:
        if self.feed.screen is self:
            self.feed.screen = None

    @work(thread=True, exclusive=True, exit_on_error=False, group="fleet-discover")
    def discover(self) -> None:
        """Follow the sessions active in the window that have no tab (lists the projects folder,
        in a thread); their facts arrive like the tabs'."""
        from tracetui.ingest.discover import list_sessions

        app = self.app
        s = app.settings  # type: ignore[attr-defined]
        cutoff = s.clock() - s.fleet_hours * 3600
        infos = [i for i in list_sessions(s.projects_root) if i.mtime >= cutoff]
        open_keys = set(app.views)  # type: ignore[attr-defined]
        self.feed.follow_window(app.follow, infos, open_keys, s.subagents, s.use_cache)  # type: ignore[attr-defined]

    def on_fleet_changed(self, message: FleetChanged) -> None:
        message.stop()
        if not self._pending:  # coalesced: one redraw for a burst of snapshots
            self._pending = True
            self.call_after_refresh(self._changed)

    def _changed(self) -> None:
        self._pending = False
        self.refresh_rows()

    def refresh_rows(self) -> None:
        """Apply the rules at the app clock's now and redraw what changed."""
        if not self.is_attached:
            return
        now = self.app.settings.clock()  # type: ignore[attr-defined]
        rows = self.feed.tick(now)
        self.rows = rows
        table = self.query_one(DataTable)
        empty = self.query_one("#fleet-empty", Static)
        summary = fleet_summary(rows, now, self.feed.budgets)
        if summary != self._summary:
            self._summary = summary
            self.query_one("#fleet-summary", Static).update(Text(summary))
        empty.display = not rows
        if not rows:
            empty.update(Text("No session yet: they appear here as they are read (Escape: the monitor).", style="dim"))
        order = [r.facts.key for r in rows]
        cells = {r.facts.key: row_cells(r, now) for r in rows}
        with self.app.batch_update():
            if order != self._order:
                self._rebuild(table, rows, cells)
            else:
                for key in order:
                    old, new = self._cells.get(key, {}), cells[key]
                    for col, _ in COLUMNS:
                        if old.get(col) != new[col]:
                            table.update_cell(key, col, self._cell(col, new[col]))
        self._order = order
        self._cells = cells

    def _cell(self, col: str, text: str) -> Text:
        if col == "state":
            return Text(text, style=STATE_STYLE.get(text, ""))
        if col == "anomalies" and "E" in text:
            return Text(text, style="bold red")
        return Text(text, justify="right" if col in _RIGHT else "left")

    def _rebuild(self, table: DataTable, rows: list[FleetRow], cells: dict[str, dict[str, str]]) -> None:
        at = None
        if self._order and 0 <= table.cursor_row < len(self._order) and table.row_count:
            at = self._order[table.cursor_row]
        table.clear()
        for r in rows:
            key = r.facts.key
            table.add_row(*(self._cell(col, cells[key][col]) for col, _ in COLUMNS), key=key)
        if at is not None and at in cells:
            table.move_cursor(row=[r.facts.key for r in rows].index(at), animate=False)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter: the session's tab (opened when it has none)."""
        event.stop()
        key = event.row_key.value
        if key is None:
            return
        row = next((r for r in self.rows if r.facts.key == key), None)
        label = f"{row.facts.project[-16:]}/{row.facts.session_id[:8]}" if row is not None else Path(key).stem[:8]
        app = self.app
        self.dismiss()
        app.open_session(SessionSpec((Path(key),), label))  # type: ignore[attr-defined]

    def action_back(self) -> None:
        self.dismiss()
