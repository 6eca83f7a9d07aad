"""The session switcher: Claude Code and Codex CLI sessions with agent, project, size, last activity."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tracetui.tui.format import activity, fmt_age, fmt_bytes, one_line, parse_ts
from tracetui.tui.settings import SessionSpec
from tracetui.views.fleet import copied

__all__ = ["SessionSwitcher"]

#: sessions listed at most (the newest)
MAX_ROWS = 500
#: characters of a session id shown when the whole id does not fit: a Codex thread id (UUIDv7)
#: starts with its creation time, so 8 characters are the same for threads a minute apart
SHORT_ID = 13
#: cells the project column keeps at least
MIN_PROJECT = 12


def _tail(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: its end, after ``…`` when its start is cut (a project
    folder or working folder says most at its end)."""
    if cell_len(text) <= width:
        return text
    out = text[-max(1, width - 1) :]
    while cell_len(out) > width - 1 and len(out) > 1:
        out = out[1:]
    return "…" + out


def by_time_shown(found: list, stamps: dict[Path, float | None]) -> list:
    """``found`` (newest file first) with the rows that have a stamp (the first :data:`MAX_ROWS`)
    ordered by the time their "last activity" is told from: a copy's (its files written long
    after its newest record: views/fleet.copied) by that record's time, the others by their
    files' time, newest first; the rest after them, as they were. Stable: equal times keep the
    listing's order (thirteenth user trial: the list read 169d, 169d, 238d, 234d, 236d, 168d)."""

    def shown(s: Any) -> float:
        last = stamps.get(s.path)
        return last if last is not None and copied(s.mtime, last) else s.mtime

    head = [s for s in found if s.path in stamps]
    return sorted(head, key=shown, reverse=True) + [s for s in found if s.path not in stamps]


class SessionSwitcher(ModalScreen[SessionSpec | None]):
    """Lists sessions (newest first); Enter opens one in a tab, Escape closes."""

    #: notifications are held while it is open, and shown when it closes (tracetui/tui/toasts.py)
    holds_toasts = True

    AUTO_FOCUS = "#sessions-table"

    BINDINGS = [
        Binding("escape", "dismiss_none", "Close", id="sessions-close"),
        Binding("q", "app.quit", "Quit", id="sessions-quit", tooltip="Quit tracetui (esc goes back)"),
        # ctrl+c as on every screen: text selected with the mouse is copied (Textual's own, which
        # passes the key on when nothing is selected), else tracetui quits (a modal screen ends
        # the key's way before the app's bindings)
        Binding("ctrl+c", "screen.copy_text", "Copy", id="sessions-copy", show=False, tooltip="Copy the text selected with the mouse"),
        Binding("ctrl+c", "app.quit", "Quit", id="sessions-quit-ctrl-c", show=False, tooltip="Quit tracetui (when no text is selected)"),
        # a list of sessions: Home and End go to the first and the last (the table's own keys
        # would scroll it sideways)
        Binding("home", "first_row", "First", id="sessions-first", show=False, priority=True, tooltip="The newest session"),
        Binding("end", "last_row", "Last", id="sessions-last", show=False, priority=True, tooltip="The oldest session"),
    ]

    def action_first_row(self) -> None:
        """Move the cursor to the first (newest) session."""
        t = self.query_one(DataTable)
        if t.row_count:
            t.move_cursor(row=0)

    def action_last_row(self) -> None:
        """Move the cursor to the last (oldest) session."""
        t = self.query_one(DataTable)
        if t.row_count:
            t.move_cursor(row=t.row_count - 1)

    def __init__(self, root: Path | None = None, agent: str | None = None, demo_root: Path | None = None) -> None:
        super().__init__()
        self.root = root
        #: the demo replay's projects folder (``--demo``), listed too
        self.demo_root = demo_root
        #: ``--agent``: list only this agent's sessions (``None``: both)
        self.agent = agent
        self.sessions: list = []
        #: the table width the rows were last fitted to
        self._drawn_for = -1
        #: each listed file's newest record time (epoch seconds, ``None``: none read)
        self._stamps: dict[Path, float | None] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-box"):
            yield Static(Text("Sessions", style="bold"), id="sessions-title")
            yield DataTable(id="sessions-table", cursor_type="row")

    def on_mount(self) -> None:
        t = self.query_one(DataTable)
        for c in ("last activity", "size", "project", "session", "agent"):
            t.add_column(c, key=c)
        t.loading = True
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self) -> None:
        """List sessions in a thread (it stats every transcript, reads the first line of each
        Claude Code one and the last 64 KiB of each listed one: ``ingest/last_stamp.py``)."""
        from tracetui.ingest.discover import transcript_sessions
        from tracetui.ingest.last_stamp import last_stamp

        found = transcript_sessions(self.root, self.agent)  # stray files are no sessions
        if self.demo_root is not None and self.agent != "codex":  # the demo's session (Claude Code's) beside them
            demo = transcript_sessions(self.demo_root, "claude")
            found = sorted(demo + found, key=lambda s: (s.mtime, str(s.path)), reverse=True)
        # the newest record's time of each row: a file written long after it is a copy or a
        # touch, not a write of the session (views/fleet.copied, as the fleet judges it)
        stamps = {s.path: parse_ts(last_stamp(s.path)) for s in found[:MAX_ROWS]}
        self.app.call_from_thread(self._fill, by_time_shown(found, stamps), stamps)

    def _fill(self, found: list, stamps: dict[Path, float | None] | None = None) -> None:
        t = self.query_one(DataTable)
        t.loading = False
        self.sessions = found
        self._stamps = stamps or {}
        self._draw()
        title = self.query_one("#sessions-title", Static)
        if not found:
            from tracetui.ingest.discover import where_sessions

            title.update(Text(f"No sessions under {one_line(str(where_sessions(self.agent, self.root)))}", style="bold"))
        else:
            more = f" (newest {MAX_ROWS} of {len(found)})" if len(found) > MAX_ROWS else ""
            title.update(Text(f"Sessions{more}: Enter opens one in a tab, Escape closes", style="bold"))

    def on_resize(self) -> None:
        if self.sessions and self._drawn_for != self.query_one(DataTable).size.width:
            self._draw()

    def _draw(self) -> None:
        """The rows, fitted to the table's width: every row shows its session id and agent (a
        short id when the whole one does not fit), and the project gives way, its start cut."""
        from tracetui.ingest.agents import agent_name

        t = self.query_one(DataTable)
        width = t.size.width or max(40, int(self.app.size.width * 0.9) - 2)
        self._drawn_for = t.size.width
        now = self.app.settings.clock() if hasattr(self.app, "settings") else time.time()
        rows = []
        for s in self.sessions[:MAX_ROWS]:
            # "live" only for a file written within format.LIVE_WINDOW; else how long ago, or
            # "in the future" for a file stamped after the clock (no age: never negative seconds)
            last = self._stamps.get(s.path)
            live = activity(s.mtime, now, last) == "live"
            if live:
                age = "live"
            elif s.mtime > now:
                age = "in the future"
            elif copied(s.mtime, last) and last is not None and last <= now:
                age = fmt_age(now - last) + " ago (a copy?)"  # aged from its newest record, as the fleet says it
            else:
                age = fmt_age(now - s.mtime) + " ago"
            who = (
                agent_name(s.agent) + (f" {one_line(s.role)}" if s.role else "") + (f" ({s.orphan})" if s.orphan else "")
            )  # "Codex CLI review": a run naming no parent
            rows.append((age, live, fmt_bytes(s.size), one_line(s.project), one_line(s.session_id), who))
        pad = 2 * t.cell_padding
        bar = 2 if len(rows) + 1 > t.size.height > 0 else 0  # the vertical scrollbar

        def col(i: int, head: str) -> int:
            return max([cell_len(head), *(cell_len(r[i]) for r in rows)]) + pad

        fixed = col(0, "last activity") + col(2, "size") + col(5, "agent") + bar
        whole = col(4, "session")
        room = width - fixed - pad
        short = room - whole < MIN_PROJECT
        sid_w = min(whole, SHORT_ID + pad) if short else whole
        proj_w = max(MIN_PROJECT, room - sid_w)
        t.clear()
        for age, live, size, project, sid, agent in rows:
            t.add_row(
                Text(age, style="bold" if live else ""),
                Text(size, justify="right"),
                Text(_tail(project, proj_w)),
                Text(sid[:SHORT_ID] if short else sid),
                Text(agent),
            )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        i = event.cursor_row
        if 0 <= i < len(self.sessions):
            s = self.sessions[i]
            self.dismiss(SessionSpec((s.path,), s.session_id[:8]))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
