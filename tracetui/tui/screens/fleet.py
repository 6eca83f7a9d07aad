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

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from tracetui.ingest.files import path_text
from tracetui.tui.fleet_feed import FleetChanged, FleetFeed
from tracetui.tui.format import file_label
from tracetui.tui.settings import SessionSpec
from tracetui.tui.widgets.fleet_rows import FleetRows
from tracetui.views.fleet_table import COLUMNS, ID_CHARS, FleetRow, flight_age, give_way, id_chars, row_cells, row_detail
from tracetui.views.fleet_totals import fleet_summary

__all__ = ["FleetScreen", "STATE_STYLE", "title_chars"]

#: seconds new facts wait for others before the rows are redrawn (200 sessions loading posted a
#: redraw each; at most five a second leaves the UI thread to the tabs being mounted)
REDRAW_AFTER = 0.2
#: how each state is drawn (its word is always there: colour is never the only sign)
STATE_STYLE = {
    "waiting on you": "bold reverse yellow",
    "failing": "bold red",
    "stalled": "bold magenta",
    "working": "green",
    "idle": "dim",
    "ended": "dim italic",
}


def title_chars(width: int) -> int:
    """Characters of the title column at a terminal ``width`` (the other columns keep theirs)."""
    return 24 if width < 100 else 36 if width < 150 else 60


def _style_of(col: str, text: str) -> str:
    """The style of a cell: the state's colour, errors among the anomalies in red."""
    if col == "state":
        return STATE_STYLE.get(text, "")
    if col == "anomalies" and "E" in text:
        return "bold red"
    return ""


#: columns drawn right-aligned
_RIGHT = frozenset({"tokens", "cost", "hour_tokens", "hour_cost", "context"})
#: leading columns (state, project) that stay in view while a wide table scrolls sideways
FROZEN = 2


class FleetScreen(Screen[None]):
    """The fleet. ``feed``: the app's :class:`FleetFeed`."""

    CSS_PATH = "fleet.tcss"
    AUTO_FOCUS = "#fleet-rows"
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
        self._summary = ""
        self._detail = ""
        self._pending = False
        self._memo: dict[tuple, tuple] = {}

    def compose(self) -> ComposeResult:
        yield Static("", id="fleet-summary")
        yield FleetRows(COLUMNS, _RIGHT, frozen=FROZEN, id="fleet-rows")
        yield Static("", id="fleet-empty")
        yield Static("", id="fleet-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.feed.screen = self
        self.refresh_rows()
        s = self.app.settings  # type: ignore[attr-defined]
        self.set_interval(s.tick_seconds, self.refresh_rows)
        self.discover(self.app.follow)  # type: ignore[attr-defined]  # made here, on the UI thread

    def on_unmount(self) -> None:
        if self.feed.screen is self:
            self.feed.screen = None

    @work(thread=True, exclusive=True, exit_on_error=False, group="fleet-discover")
    def discover(self, follow: object) -> None:
        """Follow the sessions active in the window that have no tab through ``follow`` (the
        app's; lists the projects folder, in a thread); their facts arrive like the tabs'. Every
        session id listed is kept (``FleetFeed.known_ids``) for the Session column's prefixes."""
        from tracetui.ingest.discover import is_session, list_sessions

        app = self.app
        s = app.settings  # type: ignore[attr-defined]
        cutoff = s.clock() - s.fleet_hours * 3600
        found = list_sessions(s.projects_root)
        self.feed.known_ids = tuple(i.session_id for i in found)  # the Session column's prefixes
        infos = [i for i in found if i.mtime >= cutoff and is_session(i)]
        # sessions with a tab, or one to come (``--all`` mounts them in batches), are followed already
        open_keys = set(app.views) | {sp.key for sp in s.sessions}  # type: ignore[attr-defined]
        self.feed.follow_window(follow, infos, open_keys, s.subagents, s.use_cache)

    def on_fleet_changed(self, message: FleetChanged) -> None:
        message.stop()
        if not self._pending:  # coalesced: one redraw for the snapshots of REDRAW_AFTER seconds
            self._pending = True
            self.set_timer(REDRAW_AFTER, self._changed)

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
        empty = self.query_one("#fleet-empty", Static)
        summary = fleet_summary(rows, now, self.feed.budgets)
        if summary != self._summary:
            self._summary = summary
            self.query_one("#fleet-summary", Static).update(Text(summary))
        if empty.display != (not rows):
            empty.display = not rows
            empty.update(Text("No session yet: they appear here as they are read (Escape: the monitor).", style="dim"))
        cols = [c for c, _ in COLUMNS]
        want: tuple[int, int | None] = (title_chars(self.app.size.width), None)
        memo: dict[tuple, tuple] = {}
        # twin rows told apart by their ids, each a prefix the command line takes for it (it
        # looks among every session on disk: an older one out of the window too, as `sessions`)
        ids = id_chars([r.facts.session_id for r in rows], self.feed.known_ids)
        keys, cells, styles = self._cells(rows, now, cols, want, memo, ids)
        fit = self._give_way(cells, cols, want)
        if fit != want:  # only the title and flight cells change: the others are as measured
            keys, cells, styles = self._cells(rows, now, cols, fit, memo, ids)
        self._memo = memo  # both passes' cells: the next refresh finds each
        self.query_one(FleetRows).set_rows(keys, cells, styles)
        self._show_detail()

    def _cells(
        self, rows: list, now: float, cols: list[str], chars: tuple[int, int | None], memo: dict, ids: dict[str, int] | None = None
    ) -> tuple[list, list, list]:
        """``(keys, cells, styles)`` of ``rows`` with the title and the call in flight cut to
        ``chars`` cells (``(title, flight)``; flight ``None``: the views' own limit) and the
        session ids to their ``ids`` characters (``id_chars``); the cells made go into ``memo`` by ``(session, chars)``."""
        keys, cells, styles = [], [], []
        for r in rows:
            # a row's cells change with its facts, state, rates, budget and the age of its call
            # (to the minute past the first): the same inputs, the same cells (no work per tick)
            n = (ids or {}).get(r.facts.session_id, ID_CHARS)
            mk = (r.facts, r.status.state, r.rates, r.budget, flight_age(r, now), n)
            at = (r.facts.key, chars)
            got = self._memo.get(at)
            if got is None or got[0] != mk:
                c = row_cells(r, now, *chars, measure=cell_len, session_chars=n)  # the widths are cells
                got = (mk, tuple(c[k] for k in cols), tuple(_style_of(k, c[k]) for k in cols))
            memo[at] = got
            keys.append(r.facts.key)
            cells.append(got[1])
            styles.append(got[2])
        return keys, cells, styles

    def _give_way(self, cells: list, cols: list[str], want: tuple[int, int | None]) -> tuple[int, int | None]:
        """``(title, flight)`` cells: ``want`` (:func:`title_chars` of the terminal's width,
        and the views' limit of the call in flight), narrower when the table measured from
        ``cells`` is wider than the terminal: those two columns give way first, to their minimum
        (:func:`~tracetui.views.fleet_table.give_way`); what still does not fit scrolls sideways."""
        from tracetui.tui.widgets.fleet_rows import MAX_WIDTH

        if not cells:
            return want
        ti, fi = cols.index("title"), cols.index("flight")
        widths = [min(MAX_WIDTH, max([cell_len(h)] + [cell_len(c[i]) for c in cells])) for i, (_, h) in enumerate(COLUMNS)]
        title, flight = widths[ti], widths[fi]
        table = 1 + sum(widths) + 2 * len(widths)  # a cell before the first column, two after each
        excess = table - (self.app.size.width - 1)  # the vertical scrollbar
        if excess <= 0:
            return want
        t, f = give_way(title, flight, excess)
        return (min(want[0], t), f if f < flight else want[1])

    def _show_detail(self) -> None:
        """The highlighted row's state and why, under the table."""
        i = self.query_one(FleetRows).cursor
        detail = self.query_one("#fleet-detail", Static)
        text = row_detail(self.rows[i]) if self.rows and 0 <= i < len(self.rows) else ""
        if text != self._detail:  # an update lays the screen out again: only when it changed
            self._detail = text
            detail.display = bool(text)
            detail.update(Text(text))

    def on_fleet_rows_highlighted(self, event: FleetRows.Highlighted) -> None:
        event.stop()
        self._show_detail()

    def on_resize(self) -> None:
        self.refresh_rows()  # the title's and the call in flight's widths follow the terminal's

    def on_fleet_rows_selected(self, event: FleetRows.Selected) -> None:
        """Enter: the session's tab (opened when it has none)."""
        event.stop()
        key = event.key
        row = next((r for r in self.rows if r.facts.key == key), None)
        label = f"{row.facts.project[-16:]}/{row.facts.session_id[:8]}" if row is not None else file_label(path_text(Path(key).stem))
        app = self.app
        self.dismiss()
        app.open_session(SessionSpec((Path(key),), label))  # type: ignore[attr-defined]

    def action_back(self) -> None:
        self.dismiss()
