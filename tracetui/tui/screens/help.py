"""The help screen (F1, ?): every key with its description, and what the panes mean."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tracetui.tui.format import LIVE_WINDOW

__all__ = ["HelpScreen", "PANES", "status_legend", "fleet_legend"]

#: minutes without a write after which a session is idle (:data:`tracetui.tui.format.LIVE_WINDOW`)
_WINDOW_MIN = int(LIVE_WINDOW // 60)

PANES = (
    (
        "Header",
        f"LIVE (the session's files were written in the last {_WINDOW_MIN} minutes) or IDLE 3h (how long since the last write) / PAUSED / HISTORY, session, project (cwd), model; the watermark: through which file:line the state is folded, malformed and unknown counts, pending bytes. In HISTORY every value is the scrubbed state's (as of the end of that episode, main thread only); the live line and size follow 'live:'.",
    ),
    ("Timeline", "one cell per episode (a human prompt and what followed), coloured by status; the highlighted cell is the one shown."),
    ("Goal", "the first human prompt, and the latest ask."),
    (
        "Now",
        f"the call in flight, or the last thing the agent did, with its age; the text wraps to the pane's height. In an IDLE session (no write for {_WINDOW_MIN} minutes) a call in flight is not running: it says no result recorded, the transcript stops there. A last call that failed says failed, in red, with the start of its error. In HISTORY a call open at the episode's end had no result by then; ages run to the episode's last record.",
    ),
    (
        "Pending calls",
        "tool calls without a result yet, with ticking ages; in an IDLE session the title says so (session idle 3h) and the ages are not marked slow; in HISTORY, calls with no result by the end of the episode, aged to its last record.",
    ),
    (
        "Episodes",
        f"one row per human prompt: number, status mark, ask, then tool calls (16c), tool and API errors (4 err), tokens and duration (the open episode's says live, or idle once the session's files have not been written for {_WINDOW_MIN} minutes); Enter opens the drill-down; the open episode's drill-down follows the file as it grows and says as of which line (held while paused).",
    ),
    (
        "Counters",
        "turns, tool calls by name, errors, tokens, estimated cost (USD), and the context-window gauge (input + cache tokens of the last API call).",
    ),
    (
        "Anomalies",
        "badges coloured by severity: info, warning, error, critical; open ones first, then cleared ones (✓ cleared). Paths are relative to the session's folder.",
    ),
    (
        "Files",
        "files touched, most recent first, with how often each was read, written and edited: r1 w0 ed2 is 1 read, 0 writes, 2 edits.",
    ),
    (
        "Todos / Subagents",
        "the todo list; Task/Agent calls with their transcripts (in an IDLE session a call still running says no result recorded), then the transcripts no call links; the title counts both (Subagents (3, 1 unlinked)), and +N more those out of view.",
    ),
)


#: the fleet table's keys (tracetui/tui/widgets/fleet_rows.py)
FLEET_KEYS = (
    "Fleet keys: up/down move between rows, Enter opens the session's tab. A table wider than the"
    " terminal scrolls sideways, the state and project staying (in half the width at most: a longer"
    " project is cut, ending in …): left/right a column, Home/End to the"
    " left/right edge (there already: the first/last row), Ctrl+Home/Ctrl+End the first/last row."
)


def status_legend() -> str:
    """The episode status marks as the Episodes pane and timeline draw them
    (:data:`tracetui.tui.widgets.episodes.STATUS_STYLE`), each with its meaning."""
    from tracetui.tui.widgets.episodes import STATUS_STYLE

    meaning = {
        "in_progress": "in progress (the open episode)",
        "ok": "ok",
        "errors": "errors happened, the episode ended on a success (or a retry fixed the last one)",
        "interrupted": "interrupted (by the user, or the next prompt came with calls open)",
        "unresolved": "unresolved: ended on an error, or with no answer after its last tool result",
    }
    return "\n".join(f"{mark}  {meaning.get(status, status)}" for status, (mark, _style) in STATUS_STYLE.items())


def fleet_legend(settings: object = None) -> Table:
    """The fleet's state rules (:func:`tracetui.views.fleet.rules_help`) with the thresholds of
    ``settings.fleet_rules`` (the defaults without settings), one row a state."""
    from tracetui.views.fleet import FleetRules, rules_help

    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold", no_wrap=True)
    t.add_column()
    for state, rule in rules_help(getattr(settings, "fleet_rules", None) or FleetRules()):
        t.add_row(Text(state), Text(rule))
    return t


class HelpScreen(ModalScreen[None]):
    """Keys and panes; Escape, F1 or ? close it (q quits, as everywhere)."""

    #: notifications are held while it is open, and shown when it closes (tracetui/tui/toasts.py)
    holds_toasts = True

    AUTO_FOCUS = "#help-body"

    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="help-close"),
        Binding("f1", "dismiss", "Close", id="help-close-f1", show=False),
        Binding("q", "app.quit", "Quit", id="help-quit", tooltip="Quit tracetui (esc goes back)"),
        # ctrl+c as on every screen: text selected with the mouse is copied (Textual's own, which
        # passes the key on when nothing is selected), else tracetui quits (a modal screen ends
        # the key's way before the app's bindings)
        Binding("ctrl+c", "screen.copy_text", "Copy", id="help-copy", show=False, tooltip="Copy the text selected with the mouse"),
        Binding("ctrl+c", "app.quit", "Quit", id="help-quit-ctrl-c", show=False, tooltip="Quit tracetui (when no text is selected)"),
        Binding("question_mark", "dismiss", "Close", id="help-close-qm", show=False),
    ]

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold", no_wrap=True)
        keys.add_column()
        seen = set()
        for b in self.app.BINDINGS:
            if isinstance(b, Binding):
                keys.add_row(Text(b.key_display or b.key), Text(b.tooltip or b.description))
                seen.add(b.key)
        keys.add_row(Text("esc"), Text("Go back: close this help, the episode drill-down or the session switcher"))
        keys.add_row(Text("ctrl+p"), Text("Command palette: every action by name"))
        keys.add_row(Text("enter"), Text("Open the episode under the cursor (Episodes pane)"))
        keys.add_row(Text("tab"), Text("Move focus between panes"))
        panes = Table.grid(padding=(0, 2))
        panes.add_column(style="bold", no_wrap=True)
        panes.add_column()
        for name, what in PANES:
            panes.add_row(Text(name), Text(what))
        with VerticalScroll(id="help-body"):
            yield Static(Text("tracetui — keys", style="bold underline"))
            yield Static(keys)
            yield Static(Text("\nPanes", style="bold underline"))
            yield Static(panes)
            yield Static(Text("\nEpisode status marks", style="bold underline"))
            yield Static(Text(status_legend()))
            yield Static(
                Text(
                    "\nFleet states (f: every session, sorted in this order; a session is in the first whose rule holds, ended checked before all)",
                    style="bold underline",
                )
            )
            yield Static(fleet_legend(getattr(self.app, "settings", None)))
            yield Static(Text(FLEET_KEYS, style="dim"))
            yield Static(
                Text(
                    "\nScrubbing: [ and ] step through completed episodes; every pane then shows the state as of the end of that episode (HISTORY), while live folding continues. l returns to live. A step whose state is still being read from the session's store says 'reading ep N…' in the header, and the panes keep what they showed until it comes. The keys act on the tab they were typed on.\nCopy: c copies the trace-as-state card, w the worker view, of the state shown; each is also written to a file named in the notification.\nFooter: it shows the keys that fit the terminal's width (in a narrow one, Pause, Sessions, the tab key and the palette key may leave it); every key above works at any width.",
                    style="dim",
                )
            )
