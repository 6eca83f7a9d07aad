"""The Textual app: bindings, layout, chrome, scrubbing, drill-down, help, switcher (copy, tabs, follow, palette: mixins)."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.filter import LineFilter
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Footer, Static, TabbedContent

from tracetui.tui.copy_actions import CopyActions, copy_note
from tracetui.tui.follow_wiring import FollowWiring
from tracetui.tui.footer import COMPACT_BELOW
from tracetui.tui.monitor_screen import MonitorFooter, MonitorScreen
from tracetui.tui.palette import PaletteCommands
from tracetui.tui.session_view import SessionView
from tracetui.tui.settings import SessionSpec, Settings
from tracetui.tui.tabs import FIRST_TABS, SessionTabs, TabActions
from tracetui.tui.terminal_safe import TerminalSafe
from tracetui.tui.toasts import NARROW_BELOW, NARROW_TIMEOUT, ToastHold
from tracetui.tui.view_model import EpisodeRow

__all__ = ["TraceApp", "make_app", "MIN_SIZE", "NARROW_BELOW", "NARROW_TIMEOUT", "copy_note"]

#: actions that act on the monitor's session view (hidden while a screen is over it)
_MONITOR_ACTIONS = frozenset(
    {
        "history_back",
        "history_forward",
        "live",
        "drill_down",
        "copy_card",
        "copy_worker",
        "toggle_pause",
        "sessions",
        "next_tab",
        "previous_tab",
        "fleet",
    }
)
#: the smallest terminal (columns, rows) the layout is made for
MIN_SIZE = (60, 16)


class TraceApp(ToastHold, CopyActions, TabActions, FollowWiring, PaletteCommands, App[int]):
    """The observer view of one or more sessions (Claude Code transcripts, Codex CLI rollouts)."""

    CSS_PATH = "tracetui.tcss"
    TITLE = "tracetui"
    #: every screen gets ``-narrow`` below :data:`NARROW_BELOW` columns (compact toasts)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-roomy")]
    #: the Episodes pane takes the keys first: up/down move, Enter opens the drill-down
    AUTO_FOCUS = "EpisodesList"
    BINDINGS = [
        Binding("f1", "help", "Help", id="help", key_display="F1", tooltip="Show keys and what the panes mean"),
        Binding("question_mark", "help", "Help", id="help-alt", show=False, key_display="?", tooltip="Show keys and what the panes mean"),
        Binding(
            "left_square_bracket",
            "history_back",
            "Prev",
            id="history-back",
            key_display="[",
            tooltip="Step one episode back: every pane shows the state as of its end (HISTORY)",
        ),
        Binding(
            "right_square_bracket",
            "history_forward",
            "Next",
            id="history-forward",
            key_display="]",
            tooltip="Step one episode forward; past the last completed one is live",
        ),
        Binding("l", "live", "Live", id="live", tooltip="Back to the live state"),
        Binding(
            "e",
            "drill_down",
            "Open",
            id="drill-down",
            tooltip="Open the scrubbed episode, else the live one or the row you moved the cursor to",
        ),
        Binding(
            "c", "copy_card", "Card", id="copy-card", tooltip="Copy the trace-as-state card of the state shown; also written to a file"
        ),
        Binding("w", "copy_worker", "View", id="copy-worker", tooltip="Copy the worker view of the state shown; also written to a file"),
        Binding("p", "toggle_pause", "Pause", id="pause", tooltip="Hold the screen; folding continues and resumes where it is"),
        Binding(
            "s", "sessions", "Sessions", id="sessions", tooltip="Pick another session (project, size, last activity); it opens in a tab"
        ),
        Binding(
            "f",
            "fleet",
            "Fleet",
            id="fleet",
            tooltip="Every session at a glance: which one needs you (waiting on you, failing, stalled, …), calls in flight, cost and burn rate",
        ),
        Binding(
            "ctrl+pagedown",
            "next_tab",
            "Next tab",
            id="next-tab",
            priority=True,
            tooltip="Show the next session's tab (in the footer when several sessions are open and it fits)",
        ),
        Binding(
            "ctrl+pageup",
            "previous_tab",
            "Prev tab",
            id="previous-tab",
            priority=True,
            show=False,
            tooltip="Show the previous session's tab",
        ),
        Binding("q", "quit", "Quit", id="quit", tooltip="Quit tracetui, from any screen (esc goes back)"),
        # in place of Textual's own ctrl+c, which only says "press ctrl+q to quit": a monitor is
        # quit by ctrl+c. Not a priority binding, so a focused input (the palette's search box)
        # and a screen with text selected with the mouse still take it to copy
        Binding(
            "ctrl+c",
            "quit",
            "Quit",
            id="quit-ctrl-c",
            show=False,
            tooltip="Quit tracetui, from any screen (text selected with the mouse: copy it)",
        ),
    ]

    def get_default_screen(self) -> Screen:
        return MonitorScreen(id="_default")

    #: applied last to every line drawn: no control character of a transcript or a file name
    #: reaches the terminal, whichever widget drew it (:mod:`tracetui.tui.terminal_safe`)
    _terminal_safe = TerminalSafe()

    def get_line_filters(self) -> list[LineFilter]:
        return [*super().get_line_filters(), self._terminal_safe]

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
        self.replay = None
        self.sessions_watch = None
        self._follow = None
        #: the mounted session views by key, in the order they were mounted (kept by
        #: SessionView itself: a DOM query for them walks every widget of every tab, and the
        #: footer's binding checks asked for it many times a second)
        self.views: dict[str, SessionView] = {}
        self._demo_done_said = False
        self._tab_n = 0
        #: the titles of the open tabs (tabs are never closed): a new tab's is none of them
        self._tab_titles: set[str] = set()
        #: keys on their way through the widgets, by id: (the key, the tab it was typed on)
        self._keys_typed_on: dict[int, tuple[object, SessionView | None]] = {}
        self._wire_fleet(settings)

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with SessionTabs(id="tabs"):
            for spec in self.settings.sessions[:FIRST_TABS]:
                yield self._pane(spec)
        yield Static(Text(""), id="empty")
        yield Static(Text(""), id="too-small")
        yield MonitorFooter()

    def on_mount(self) -> None:
        if self.settings.theme:
            if self.settings.theme in self.available_themes:
                self.theme = self.settings.theme
            else:
                self.notify(
                    f"No theme {self.settings.theme!r}; themes: {', '.join(sorted(self.available_themes))}",
                    severity="warning",
                    markup=False,
                )
        self.query_one("#too-small").display = False
        self._wire_toasts()
        self._update_chrome()
        self.set_interval(self.settings.tick_seconds, self._tick)
        if self.settings.demo_reason:
            self.notify(self.settings.demo_reason, title="Demo", timeout=6, markup=False)
        for line in self.settings.warnings:
            self.notify(line, title="Settings", severity="warning", timeout=15, markup=False)
        if self.settings.follow and not self.settings.demo:
            self.watch_sessions()
        if len(self.settings.sessions) > FIRST_TABS:
            self.call_after_refresh(self._add_tabs, FIRST_TABS)
        if self.settings.fleet_first:
            self.action_fleet()

    @property
    def monitor(self) -> Screen:
        """The monitor's screen (the bottom of the stack), whichever screen is over it."""
        return self.screen_stack[0] if self.screen_stack else self.screen

    def _update_chrome(self) -> None:
        views = list(self.views.values())
        tabs = self.monitor.query_one(TabbedContent)
        tabs.set_class(len(views) <= 1, "-single")
        empty = self.monitor.query_one("#empty", Static)
        empty.display = not views
        self._check_size()
        if not views:
            from tracetui.ingest.discover import where_sessions

            empty.update(
                Text(
                    f"No session to show: no sessions under {where_sessions(self.settings.agent)}.\nPress s to pick a session, or run `tracetui --demo`.",
                    justify="center",
                )
            )

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size)

    def _check_size(self, size: Size | None = None) -> None:
        """Say so when the terminal is smaller than :data:`MIN_SIZE`; more room, taller panes."""
        w, h = size or self.size
        small = w < MIN_SIZE[0] or h < MIN_SIZE[1]
        base = self.screen_stack[0] if self.screen_stack else self.screen
        base.set_class(small, "-too-small")
        base.set_class(h >= 40, "-tall")
        try:
            footer = self.query_one(Footer)
            footer.compact = w < COMPACT_BELOW
            # the keys that fit this width (MonitorScreen.active_bindings): redraw the footer
            self.refresh_bindings()
            box = self.monitor.query_one("#too-small", Static)
            tabs = self.monitor.query_one(TabbedContent)
        except Exception:
            return
        box.display = small
        shown = not small and bool(self.views)
        back = shown and not tabs.display
        tabs.display = shown
        view = self.current_view
        if back and view is not None and view.built:
            # hidden, the tabs lost the monitor's focus; left without one, Textual's auto focus
            # took the first tab's episode list when a screen over the monitor closed, and that
            # tab was shown (trial 11: Enter on the fleet after a tiny terminal opened tab 1)
            self._focus_in(view)
        if small:
            box.update(Text(f"Terminal too small: {w}×{h}.\nNeeds at least {MIN_SIZE[0]}×{MIN_SIZE[1]}.", justify="center"))

    def _tick(self) -> None:
        if self.replay is not None and self.replay.done.is_set() and not self._demo_done_said:
            self._demo_done_said = True
            if self.narrow:
                self.notify("Demo over: [ ] step episodes, q quits", markup=False)
            else:
                self.notify(
                    "The demo has played to its end (its last command stays in flight). [ and ] step through its episodes; q quits.",
                    title="Demo",
                    timeout=12,
                    markup=False,
                )
        if self.fleet_feed.screen is not None:
            # the fleet screen hides the monitor and ticks itself: the monitor's ages moving
            # beneath it repainted their regions of the fleet screen every second
            return
        view = self.current_view
        if view is not None:
            view.tick()
        self.fleet_feed.tick(self.settings.clock())

    # -- actions ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.screen is not self.screen_stack[0]:
            # over the monitor (drill-down, help, switcher) only help and quit apply
            return action not in _MONITOR_ACTIONS
        view = self.key_view
        has = view is not None and view.state is not None
        if action == "history_back":
            return has and view.completed() > 0 and (view.episode is None or view.episode > 1) or None
        if action in ("history_forward", "live"):
            # only meaningful while scrubbing: hidden from the footer when live, to save room
            return bool(has and view.episode is not None)
        if action in ("copy_card", "copy_worker", "drill_down", "toggle_pause"):
            return has or None
        if action in ("next_tab", "previous_tab"):
            # in the footer only when there is another tab to switch to
            return len(self.views) > 1
        return True

    def _refresh_bindings(self) -> None:
        self.refresh_bindings()

    def action_history_back(self) -> None:
        view = self.key_view
        if view is None or not view.history_back():
            self.bell()
        if view is None or not view.built:  # a built view refreshes the footer when its keys change
            self._refresh_bindings()

    def action_history_forward(self) -> None:
        view = self.key_view
        if view is None or not view.history_forward():
            self.bell()
        if view is None or not view.built:  # a built view refreshes the footer when its keys change
            self._refresh_bindings()

    def action_live(self) -> None:
        view = self.key_view
        if view is None or not view.go_live():
            self.bell()
        if view is None or not view.built:  # a built view refreshes the footer when its keys change
            self._refresh_bindings()

    def action_toggle_pause(self) -> None:
        view = self.key_view
        if view is None:
            return
        view.paused = not view.paused
        self.notify("Paused: updates are folded and held" if view.paused else "Live again", timeout=3)

    def action_drill_down(self, row: EpisodeRow | None = None) -> None:
        """Open ``row`` (Enter on a row), else the view's :meth:`SessionView.selected_episode`
        (``e``: the scrubbed episode, or the live one unless the user moved the list's cursor)."""
        view = self.key_view
        if view is None or view.state is None:
            self.bell()
            return
        row = row or view.selected_episode()
        if row is None:
            self.notify("No episode yet", severity="warning", timeout=3)
            return
        from tracetui.tui.screens.episode import EpisodeScreen

        self.push_screen(EpisodeScreen(view.state, row, source=view))

    def action_help(self) -> None:
        from tracetui.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_sessions(self) -> None:
        from tracetui.tui.screens.sessions import SessionSwitcher

        def chosen(spec: SessionSpec | None) -> None:
            if spec is not None:
                self.open_session(spec)

        s = self.settings
        self.push_screen(SessionSwitcher(s.projects_root, s.agent, s.demo_root), chosen)


def make_app(settings: Settings) -> TraceApp:
    """The app for ``settings``. With ``settings.demo``, starts the demo replay (files in a
    temporary folder, appended at a realistic pace) and puts its session first."""
    app = TraceApp(settings)
    if settings.demo and not any(s.demo for s in settings.sessions):
        from tracetui.demo.replay import DemoReplay

        replay = DemoReplay(speed=settings.demo_speed)
        main = replay.start()
        settings.sessions.insert(0, SessionSpec((main,), "demo", demo=True))
        settings.demo_root = replay.root / "projects"
        app.replay = replay
    return app
