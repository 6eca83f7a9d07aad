"""The session switcher: Claude Code and Codex CLI sessions with agent, project, size, last activity."""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tracetui.tui.format import activity, fmt_age, fmt_bytes, one_line
from tracetui.tui.settings import SessionSpec

__all__ = ["SessionSwitcher"]


class SessionSwitcher(ModalScreen[SessionSpec | None]):
    """Lists sessions (newest first); Enter opens one in a tab, Escape closes."""

    AUTO_FOCUS = "#sessions-table"

    BINDINGS = [
        Binding("escape", "dismiss_none", "Close", id="sessions-close"),
        Binding("q", "app.quit", "Quit", id="sessions-quit", tooltip="Quit tracetui (esc goes back)"),
    ]

    def __init__(self, root: Path | None = None, agent: str | None = None) -> None:
        super().__init__()
        self.root = root
        #: ``--agent``: list only this agent's sessions (``None``: both)
        self.agent = agent
        self.sessions: list = []

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
        """List sessions in a thread (it stats every transcript)."""
        from tracetui.ingest.discover import list_sessions

        found = list_sessions(self.root, self.agent)
        self.app.call_from_thread(self._fill, found)

    def _fill(self, found: list) -> None:
        t = self.query_one(DataTable)
        t.loading = False
        self.sessions = found
        from tracetui.ingest.agents import agent_name

        now = self.app.settings.clock() if hasattr(self.app, "settings") else time.time()
        for s in found[:500]:
            # "live" only for a file written within format.LIVE_WINDOW; else how long ago
            live = activity(s.mtime, now) == "live"
            t.add_row(
                Text("live" if live else fmt_age(now - s.mtime) + " ago", style="bold" if live else ""),
                Text(fmt_bytes(s.size), justify="right"),
                Text(one_line(s.project)),
                Text(one_line(s.session_id)),
                Text(agent_name(s.agent)),
            )
        title = self.query_one("#sessions-title", Static)
        if not found:
            from tracetui.ingest.discover import where_sessions

            title.update(Text(f"No sessions under {one_line(str(where_sessions(self.agent, self.root)))}", style="bold"))
        else:
            more = f" (newest 500 of {len(found)})" if len(found) > 500 else ""
            title.update(Text(f"Sessions{more}: Enter opens one in a tab, Escape closes", style="bold"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        i = event.cursor_row
        if 0 <= i < len(self.sessions):
            s = self.sessions[i]
            self.dismiss(SessionSpec((s.path,), s.session_id[:8]))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
