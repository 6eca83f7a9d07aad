"""The Textual app: one tab per session, bindings, command palette, export, help, switcher."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import ActiveBinding, Binding
from textual.content import Content
from textual.css.query import NoMatches
from textual.filter import LineFilter
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Footer, Static, TabbedContent, TabPane

from tracetui.tui.export import cap_text, export_dir, osc52, tmux_wrap, write_export
from tracetui.tui.footer import COMPACT_BELOW, PALETTE, FooterItem, key_cells, left_out, palette_cells
from tracetui.tui.format import one_line
from tracetui.tui.messages import SessionsFound
from tracetui.tui.session_view import SessionView
from tracetui.tui.settings import SessionSpec, Settings
from tracetui.tui.terminal_safe import TerminalSafe
from tracetui.tui.view_model import EpisodeRow
from tracetui.views.safe import safe_text

__all__ = ["TraceApp", "make_app", "MIN_SIZE", "NARROW_BELOW", "NARROW_TIMEOUT", "copy_note", "render_export"]

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
#: tabs mounted with the first screen; the others follow it, :data:`TAB_BATCH` per refresh
#: (``--all`` with 200 sessions: the first screen waited for every tab)
FIRST_TABS = 12
TAB_BATCH = 24
#: the smallest terminal (columns, rows) the layout is made for
MIN_SIZE = (60, 16)
#: below this many columns notifications are compact (``Screen.-narrow Toast`` in the tcss,
#: shorter texts, :data:`NARROW_TIMEOUT`): at 60 columns a full one covered a third of the screen
NARROW_BELOW = 100
#: seconds a notification stays at most in a narrow terminal (errors: twice this), so it does
#: not hide the panes beneath it for long
NARROW_TIMEOUT = 4.0


def copy_note(label: str, scope: str, chars: int, path: Path | None, cut: int | None, tmux: bool, narrow: bool) -> str:
    """What the copy keys say. The app cannot know whether the terminal took the OSC 52
    sequence (tmux with its default ``set-clipboard external`` drops it; some terminals refuse
    it), so it says it *sent* the text, and where the file is. ``narrow``: one short line,
    the file named without its folder (``d3m0c0de…-card-live.txt``)."""
    if narrow:
        name = path.name if path is not None else ""
        m = re.fullmatch(r"(.{8}).{5,}?(-(?:card|worker)-\w+\.txt)", name)
        if m:  # <session>-<kind>-<scope>.txt (export.write_export): the session id shortened
            name = f"{m[1]}…{m[2]}"
        return f"{label.capitalize()} sent by OSC 52" + (f"; file {name}" if path else "; no file")
    where = f" and wrote it to {path}" if path is not None else ""
    hint = "the terminal may refuse it; under tmux it needs set-clipboard on" if tmux else "if the terminal accepts it"
    note = f", cut to {cut} bytes" if cut else ""
    return f"Sent the {label} ({scope}, {chars} chars{note}) to the clipboard by OSC 52 ({hint}){where}"


def render_export(kind: str, view: SessionView) -> str:
    """The text of ``kind`` (``card`` or ``worker``) for the state ``view`` shows (live or
    scrubbed), compiled by the headless views; a plain state summary when this build lacks them.
    Ages are measured to the same "now" the panes on screen were drawn with (``view.shown.now``),
    so the copy says what the screen says."""
    live = view.state
    assert live is not None
    k = view.episode
    shown = view.shown
    if shown is None or shown.live is not live or shown.episode != k:
        view.refresh_panes()
        shown = view.shown
    now = shown.now if shown is not None else view.now_for(view.shown_state() or live)
    try:
        if kind == "card":
            from tracetui.views.card import render_card as render
        else:
            from tracetui.views.worker import render_worker_view as render
    except ImportError:
        render = None
    if render is not None:
        from tracetui.views.safe import export_text

        return export_text(render(live, episode=k, now=now))
    from tracetui.views.state_json import state_summary

    shown = view.shown_state() or live
    scope = "live" if k is None else f"as of the end of episode {k}"
    return (
        f"tracetui {kind} ({scope}); the {kind} view is not in this build, state summary instead:\n\n{state_summary(shown)}\n"  # redacted
    )


class MonitorScreen(Screen):
    """The monitor's screen (the app's default screen). Its :attr:`active_bindings`, which the
    footer draws, leave out the optional keys that do not fit the terminal's width
    (:func:`tracetui.tui.footer.left_out`); key handling does not read them, so every key works."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        bindings = super().active_bindings
        app = self.app
        compact = app.size.width < COMPACT_BELOW
        items = []
        # the fleet key is in the footer with several sessions (it works with one too)
        single = len(getattr(app, "views", ())) <= 1
        for key, active in bindings.items():
            b = active.binding
            if single and b.id == "fleet":
                continue
            if key == app.COMMAND_PALETTE_BINDING:
                items.append(FooterItem(PALETTE, palette_cells(app.get_key_display(b), b.description, compact)))
            elif b.show:
                items.append(FooterItem(b.id or b.action, key_cells(app.get_key_display(b), b.description, compact)))
        drop = left_out(items, app.size.width)
        if single:
            drop.add("fleet")
        if not drop:
            return bindings
        return {
            k: a
            for k, a in bindings.items()
            if (PALETTE if k == app.COMMAND_PALETTE_BINDING else (a.binding.id or a.binding.action)) not in drop
        }


class TraceApp(App[int]):
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
        from tracetui.tui.fleet_feed import FleetFeed, alert

        #: every session's fleet facts, from the fold workers (tracetui/tui/fleet_feed.py)
        self.fleet_feed = FleetFeed(settings)
        self.fleet_feed.on_turn = lambda rows: alert(self, rows)

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with TabbedContent(id="tabs"):
            for spec in self.settings.sessions[:FIRST_TABS]:
                yield self._pane(spec)
        yield Static(Text(""), id="empty")
        yield Static(Text(""), id="too-small")
        yield Footer()

    def _pane(self, spec: SessionSpec) -> TabPane:
        self._tab_n += 1
        title = Content(one_line(spec.label or Path(spec.paths[0]).stem[:8], 40))
        # only the first tab draws its panes at once; the others when first shown (mounting
        # the panes of 200 tabs took 12 s before the first screen)
        return TabPane(title, SessionView(spec, self.settings, eager=self._tab_n == 1), id=f"tab-{self._tab_n}")

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
        self._update_chrome()
        self.set_interval(self.settings.tick_seconds, self._tick)
        if self.settings.demo_reason:
            self.notify(self.settings.demo_reason, title="Demo", timeout=10, markup=False)
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

    async def _add_tabs(self, start: int) -> None:
        """Mount the tabs of ``settings.sessions[start:]`` after the first screen, a batch of
        :data:`TAB_BATCH` per refresh, so the screen answers while they come."""
        if not self.is_running or not self.screen_stack:
            return
        tabs = self.monitor.query_one(TabbedContent)
        batch = self.settings.sessions[start : start + TAB_BATCH]
        for spec in batch:
            if spec.key not in self.views:
                await tabs.add_pane(self._pane(spec))
        try:
            self._update_chrome()
        except NoMatches:  # the screen is being torn down
            return
        if start + TAB_BATCH < len(self.settings.sessions):
            self.call_after_refresh(self._add_tabs, start + TAB_BATCH)

    @property
    def follow(self):  # -> tracetui.session.follow.Follow
        """The one follow of every session (one watcher thread, a few fold workers), made at
        first use."""
        if self._follow is None:
            from tracetui.session.follow import Follow

            s = self.settings
            self._follow = Follow(follow=s.follow, events=s.watch)
            if self._follow.problem:
                self.notify(self._follow.problem, severity="warning", markup=False)
        return self._follow

    def on_unmount(self) -> None:
        self.fleet_feed.stop()
        if self.replay is not None:
            self.replay.stop()
        if self._follow is not None:
            # ends the watcher and the workers, then saves every opened session's store
            self._follow.stop()

    def watch_sessions(self) -> None:
        """Notice sessions that start while the app runs (the follow's watcher and workers)."""
        from tracetui.tui.sessions_watch import SessionsWatch

        s = self.settings
        self.sessions_watch = SessionsWatch(
            self.post_message, {sp.key for sp in s.sessions}, s.projects_root, s.all_hours, s.clock, s.agent
        )
        self.sessions_watch.attach(self.follow)

    def on_sessions_found(self, message: SessionsFound) -> None:
        """``--all``: open a tab per new session; otherwise say that one started."""
        from tracetui.ingest.agents import agent_name

        if self.settings.all_hours is None and self.fleet_feed.discovered:  # the fleet follows its window
            self.fleet_feed.follow_window(self.follow, message.sessions, set(self.views), self.settings.subagents, self.settings.use_cache)
        for info in message.sessions:
            what = f"New {agent_name(info.agent)} session {info.session_id[:8]} in {info.project}"
            if self.settings.all_hours is not None:
                self.open_session(SessionSpec((info.path,), f"{info.project[-16:]}/{info.session_id[:8]}"), activate=False)
                self.notify(f"{what}: opened in a tab", title="Sessions", markup=False)
            else:
                self.notify(f"{what}: press s to open it", title="Sessions", markup=False)

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
        tabs.display = not small and bool(self.views)
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
        view = self.current_view
        if view is not None:
            view.tick()
        if self.fleet_feed.screen is None:  # the fleet screen ticks itself
            self.fleet_feed.tick(self.settings.clock())

    def action_fleet(self) -> None:
        """Show the fleet screen (every session's state), over the monitor."""
        from tracetui.tui.screens.fleet import FleetScreen

        if not isinstance(self.screen, FleetScreen):
            self.push_screen(FleetScreen(self.fleet_feed))

    @property
    def current_view(self) -> SessionView | None:
        """The session view of the active tab."""
        try:
            tabs = self.query_one(TabbedContent)
        except Exception:
            return None
        pane = tabs.active_pane
        if pane is None:
            return None
        try:
            return pane.query_one(SessionView)
        except Exception:
            return None

    def open_session(self, spec: SessionSpec, activate: bool = True) -> None:
        """Show ``spec`` in its tab (a new tab when it is not open; ``activate``: switch to it)."""
        tabs = self.monitor.query_one(TabbedContent)
        view = self.views.get(spec.key)
        if view is not None:
            pane = view.parent
            while pane is not None and not isinstance(pane, TabPane):
                pane = pane.parent
            if pane is not None and pane.id:
                tabs.active = pane.id
            return
        pane = self._pane(spec)
        added = tabs.add_pane(pane)

        async def mounted() -> None:
            # activated once mounted: set before, the tab bar could not find the new tab yet
            # and the first tab was shown (third user trial: s Down Down Enter with 2 tabs)
            await added
            if not pane.is_attached or not self.is_running:
                return  # the app is closing
            if activate and pane.id:
                tabs.active = pane.id
            try:
                self._update_chrome()
            except NoMatches:  # the screen is being torn down
                pass

        self.call_later(mounted)

    # -- actions ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.screen is not self.screen_stack[0]:
            # over the monitor (drill-down, help, switcher) only help and quit apply
            return action not in _MONITOR_ACTIONS
        view = self.current_view
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
        view = self.current_view
        if view is None or not view.history_back():
            self.bell()
        self._refresh_bindings()

    def action_history_forward(self) -> None:
        view = self.current_view
        if view is None or not view.history_forward():
            self.bell()
        self._refresh_bindings()

    def action_live(self) -> None:
        view = self.current_view
        if view is None or not view.go_live():
            self.bell()
        self._refresh_bindings()

    def action_toggle_pause(self) -> None:
        view = self.current_view
        if view is None:
            return
        view.paused = not view.paused
        self.notify("Paused: updates are folded and held" if view.paused else "Live again", timeout=3)

    def action_drill_down(self, row: EpisodeRow | None = None) -> None:
        """Open ``row`` (Enter on a row), else the view's :meth:`SessionView.selected_episode`
        (``e``: the scrubbed episode, or the live one unless the user moved the list's cursor)."""
        view = self.current_view
        if view is None or view.state is None:
            self.bell()
            return
        row = row or view.selected_episode()
        if row is None:
            self.notify("No episode yet", severity="warning", timeout=3)
            return
        from tracetui.tui.screens.episode import EpisodeScreen

        self.push_screen(EpisodeScreen(view.state, row, source=view))

    def action_copy_card(self) -> None:
        self._copy("card")

    def action_copy_worker(self) -> None:
        self._copy("worker")

    def _copy(self, kind: str) -> None:
        view = self.current_view
        if view is None or view.state is None:
            self.bell()
            return
        label = "card" if kind == "card" else "worker view"
        try:
            text = render_export(kind, view)
        except Exception as exc:  # a view bug must not end the monitor
            self.notify(f"Could not compile the {label}: {type(exc).__name__}: {exc}", severity="error", markup=False)
            return
        session = view.state.main.session_id or Path(view.spec.paths[0]).stem
        path: Path | None = None
        try:
            path = write_export(text, kind, session, view.episode, export_dir(self.settings.export_dir))
        except OSError as exc:
            self.notify(f"Could not write the {label} file: {exc}", severity="error", markup=False)
        clip, cut = cap_text(text, self.settings.clipboard_cap, path)
        self.copy_to_clipboard(clip)
        scope = "live" if view.episode is None else f"as of episode {view.episode}"
        narrow = self.narrow
        note = copy_note(label, scope, len(text), path, self.settings.clipboard_cap if cut else None, bool(os.environ.get("TMUX")), narrow)
        self.notify(note, title="" if narrow else "Copy", markup=False, timeout=8)

    @property
    def narrow(self) -> bool:
        """The terminal is narrower than :data:`NARROW_BELOW` columns (compact notifications)."""
        return self.size.width < NARROW_BELOW

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None, markup: bool = True) -> None:
        """Textual's notification; in a narrow terminal it stays at most :data:`NARROW_TIMEOUT`
        seconds (errors twice that). A message names files and sessions: its control characters
        are shown by their stand-ins (Textual would drop BEL and keep ESC)."""
        message, title = safe_text(message), safe_text(title)
        if self.narrow:
            cap = NARROW_TIMEOUT * (2 if severity == "error" else 1)
            timeout = min(cap, self.NOTIFICATION_TIMEOUT if timeout is None else timeout)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def copy_to_clipboard(self, text: str) -> None:
        """OSC 52 as Textual writes it, plus the same sequence wrapped for tmux's passthrough
        when ``TMUX`` is set (tmux ≥ 3.3 drops unwrapped OSC 52 unless set-clipboard is on)."""
        super().copy_to_clipboard(text)
        driver = getattr(self, "_driver", None)
        if os.environ.get("TMUX") and driver is not None:
            driver.write(tmux_wrap(osc52(text)))

    def _cycle_tab(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        ids = [p.id for p in tabs.query(TabPane) if p.id]
        if len(ids) < 2:
            self.bell()
            return
        i = ids.index(tabs.active) if tabs.active in ids else 0
        tabs.active = ids[(i + step) % len(ids)]

    def action_next_tab(self) -> None:
        self._cycle_tab(1)

    def action_previous_tab(self) -> None:
        self._cycle_tab(-1)

    def action_help(self) -> None:
        from tracetui.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_sessions(self) -> None:
        from tracetui.tui.screens.sessions import SessionSwitcher

        def chosen(spec: SessionSpec | None) -> None:
            if spec is not None:
                self.open_session(spec)

        self.push_screen(SessionSwitcher(self.settings.projects_root, self.settings.agent), chosen)

    async def on_tabbed_content_tab_activated(self) -> None:
        if not self.screen_stack:
            return  # a late activation while the app is torn down
        self._refresh_bindings()
        view = self.current_view
        if view is not None:
            if self._follow is not None:
                self._follow.prefer(view.spec.key)  # the tab on screen is folded first
            if not view.built:
                await view.build()
            view.refresh_panes()

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None, time_format: str | None = None) -> str | None:
        """Save an SVG of the screen (the palette's Screenshot) into ``path``, by default the
        folder copies are written to, made when missing (Textual's default, ~/Downloads, need
        not exist); a folder that cannot be made is said in one notification (``None``)."""
        folder = Path(path).expanduser() if path else export_dir(self.settings.export_dir)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.notify(f"Screenshot not saved: cannot make {folder}: {exc.strerror or exc}", severity="error")
            return None
        return super().deliver_screenshot(filename, str(folder), time_format)

    # -- command palette --------------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Copy card", "Copy the trace-as-state card of the state shown (also written to a file)", self.action_copy_card)
        yield SystemCommand("Copy worker view", "Copy the worker view of the state shown (also written to a file)", self.action_copy_worker)
        yield SystemCommand("Episode back", "Scrub one episode back (panes show the state as of its end)", self.action_history_back)
        yield SystemCommand("Episode forward", "Scrub one episode forward", self.action_history_forward)
        yield SystemCommand("Back to live", "Leave history mode and show the live state", self.action_live)
        yield SystemCommand("Open episode", "Drill down into the selected episode", self.action_drill_down)
        yield SystemCommand("Pause / resume", "Hold updates on screen (folding continues)", self.action_toggle_pause)
        yield SystemCommand("Sessions", "Switch to another session", self.action_sessions)
        yield SystemCommand("Fleet", "Every session at a glance: which one needs you, and what they cost", self.action_fleet)
        yield SystemCommand("Next tab", "Show the next session's tab", self.action_next_tab)
        yield SystemCommand("Previous tab", "Show the previous session's tab", self.action_previous_tab)
        yield SystemCommand("Help", "Show keys and what the panes mean", self.action_help)


def make_app(settings: Settings) -> TraceApp:
    """The app for ``settings``. With ``settings.demo``, starts the demo replay (files in a
    temporary folder, appended at a realistic pace) and puts its session first."""
    app = TraceApp(settings)
    if settings.demo and not any(s.demo for s in settings.sessions):
        from tracetui.demo.replay import DemoReplay

        replay = DemoReplay(speed=settings.demo_speed)
        main = replay.start()
        settings.sessions.insert(0, SessionSpec((main,), "demo", demo=True))
        settings.projects_root = settings.projects_root or replay.root / "projects"
        app.replay = replay
    return app
