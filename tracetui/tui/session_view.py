"""One session's monitor: header, timeline, and panes, fed by the app's one follow (its fold
workers post this view's messages through :mod:`tracetui.tui.session_feed`; the view never reads a
file itself); its scrubbing is :mod:`tracetui.tui.scrubbing`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.widgets import OptionList, ProgressBar, Static

from tracetui.ingest.agents import file_agent
from tracetui.ingest.files import path_text
from tracetui.model.state import RunState
from tracetui.session.follow import Followed
from tracetui.tui.format import one_line
from tracetui.tui.layout import PaneStack
from tracetui.tui.scrubbing import Scrubbing
from tracetui.tui.session_feed import FREEZE_EVENTS, SessionFeed
from tracetui.tui.settings import SessionSpec, Settings
from tracetui.tui.view_model import episode_rows
from tracetui.tui.widgets.anomalies import AnomalyBadges
from tracetui.tui.widgets.counters import CountersPane
from tracetui.tui.widgets.episodes import EpisodesList
from tracetui.tui.widgets.files import FilesPane
from tracetui.tui.widgets.goal import GoalPane
from tracetui.tui.widgets.header import SessionHeader
from tracetui.tui.widgets.now import NowPane
from tracetui.tui.widgets.pane import Shown
from tracetui.tui.widgets.pending_calls import PendingCalls
from tracetui.tui.widgets.subagents import SubagentsTree
from tracetui.tui.widgets.timeline import Timeline
from tracetui.tui.widgets.todos import TodosPane

if TYPE_CHECKING:
    from tracetui.tui.view_model import EpisodeRow

__all__ = ["SessionView", "FREEZE_EVENTS"]


class SessionView(SessionFeed, Scrubbing, Vertical):
    """The panes of one session. Its ingest worker posts :class:`SnapshotReady` to it; one
    watcher fans the state out to the panes."""

    #: the newest folded state (``always_update``: comparing big Structs on every set is waste)
    state: var[RunState | None] = var(None, always_update=True)
    #: the scrubbed episode (1-based, a completed one), or ``None`` for live
    episode: var[int | None] = var(None)
    #: while paused, new snapshots are folded and held, not shown
    paused: var[bool] = var(False)

    def __init__(self, spec: SessionSpec, settings: Settings, *, id: str | None = None, eager: bool = True) -> None:
        super().__init__(id=id, classes="session")
        #: whether the panes are mounted: a tab not shown yet holds one line until :meth:`build`
        self.built = eager
        #: :meth:`build` is mounting the panes (``built`` turns true once they are all there)
        self._building = False
        self._notice: tuple[str, str] | None = None
        self.spec = spec
        self.settings = settings
        self.latest: RunState | None = None
        #: the newest modification time of the session's files (from the ingest worker)
        self.written: float | None = None
        #: this session's handle in the app's follow (``mode``, ``use_cache``), once mounted
        self.loop: Followed | None = None
        self.held = 0
        self.notice_text = ""
        self._as_of_cache: dict[tuple[int, int], RunState] = {}
        #: ``(episode, generation)`` whose state a worker is reading for a scrub step, if any
        self._as_of_reading: tuple[int, int] | None = None
        self.rows: tuple[EpisodeRow, ...] = ()
        self._rows_of: RunState | None = None
        self.shown: Shown | None = None
        self._bindings_key: object = None
        self._agent = "claude"
        #: a draw of the scrubbed episode is queued (:meth:`watch_episode`)
        self._scrub_queued = False

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        if not (self.built or self._building):
            yield Static(Text(f" reading {one_line(path_text(self.spec.paths[0]))}…", style="bold"), classes="placeholder")
            return
        header = SessionHeader(classes="session-header")
        header.demo = self.spec.demo
        yield header
        yield Timeline(classes="timeline")
        yield ProgressBar(total=100, show_eta=False, classes="fold-progress")
        yield Static("", classes="notice")
        # two bands of two columns each: the lower band's panes (Episodes | Files) start on the
        # same row at every size (as two independent columns they drifted a row apart)
        with Vertical(classes="body"):
            with Horizontal(classes="band band-upper"):
                with Vertical(classes="col col-left"):
                    yield GoalPane(classes="pane goal")
                    yield NowPane(classes="pane now")
                    yield PendingCalls(classes="pane pending")
                with Vertical(classes="col col-right"):
                    yield CountersPane(classes="pane counters")
                    yield AnomalyBadges(classes="pane anomalies")
            with Horizontal(classes="band band-lower"):
                with Vertical(classes="col col-left"):
                    yield EpisodesList(classes="pane episodes")
                # Files 2 : Todos 1 : Subagents 1, Todos at most 10 rows; every pane keeps its
                # title and a line in a short column (tracetui.tui.layout)
                with PaneStack((2, 1, 1), (None, 10, None), classes="col col-right"):
                    yield FilesPane(classes="pane files")
                    yield TodosPane(classes="pane todos")
                    yield SubagentsTree(classes="pane subagents")

    def on_mount(self) -> None:
        self.app.views[self.spec.key] = self  # type: ignore[attr-defined]
        if self.built:
            self._init_panes()
        self.ingest()

    def _init_panes(self) -> None:
        self.query_one(".fold-progress").display = False
        self.query_one(".notice").display = False
        self.query_one(SessionHeader).update(Text(f" reading {one_line(path_text(self.spec.paths[0]))}…", style="bold"))
        if self._notice is not None:
            self._show_notice(*self._notice)

    async def build(self) -> None:
        """Mount the panes (the first time the tab is shown) and draw the newest state."""
        if self.built or self._building:
            return
        # ``built`` stays false until every pane is mounted: a snapshot or a refresh arriving
        # while recompose runs (its awaits let other messages in) skips the panes
        self._building = True
        try:
            await self.recompose()
        finally:
            self._building = False
        if not self.query(".fold-progress"):
            # Textual's recompose does nothing while the widget is not attached (its tab pane is
            # still being mounted when a quick activation arrives): build again once it is
            if self.app.is_running:
                self.app.call_later(self._build_later)
            return
        self.built = True
        self._init_panes()
        if self.state is not None:
            self.refresh_panes()

    async def _build_later(self) -> None:
        if self.is_attached and not self.built:
            await self.build()

    def on_unmount(self) -> None:
        views = getattr(self.app, "views", {})
        if views.get(self.spec.key) is self:
            del views[self.spec.key]
        follow = getattr(self.app, "_follow", None)
        if follow is not None and self.loop is not None:
            follow.close(self.spec.key)

    # -- state → panes ----------------------------------------------------------------------
    def watch_state(self, _old: RunState | None, _new: RunState | None) -> None:
        self.refresh_panes()

    def watch_episode(self) -> None:
        # drawn once the keys already queued are handled: a burst of ``[`` moves the scrubbed
        # episode several steps and draws the panes once, for where it ends
        if not self._scrub_queued:
            self._scrub_queued = True
            self.call_later(self._draw_scrubbed)

    def _draw_scrubbed(self) -> None:
        self._scrub_queued = False
        self.refresh_panes()

    def watch_paused(self, paused: bool) -> None:
        if not paused and self.latest is not None and self.latest is not self.state:
            self.held = 0
            self.state = self.latest
        else:
            self.refresh_panes()

    @property
    def agent(self) -> str:
        """The agent that wrote the session's main file, ``"claude"`` | ``"codex"``, from its first
        record (:func:`~tracetui.ingest.agents.file_agent`; looked at again until it is a Codex
        ``session_meta``, since a new file may not hold its first line yet). Once the fold has
        read a record, the fold's agent: no file is read on the UI thread for it."""
        st = self.state
        if st is not None and st.counters.records:
            return st.agent
        if self._agent != "codex":
            self._agent = file_agent(self.spec.paths[0])
        return self._agent

    def refresh_panes(self) -> None:
        """Fan the state out to every pane (cheap panes skip when nothing they show changed)."""
        live = self.state
        if live is None or not self.built:
            return
        if self.episode is not None and self.episode > len(live.history):
            self.episode = None
            return
        shown_state = self.shown_state()
        header = self.query_one(SessionHeader)
        if shown_state is None:
            # being read on a worker thread (Scrubbing.on_as_of_read draws it): the panes keep
            # what they show and the header says which episode is coming
            header.reading = self.episode
            if self.shown is not None:
                header.show(self.shown)
            return
        header.reading = None
        if self._rows_of is not live:  # a pure function of the state: not again on every tick
            self.rows = tuple(episode_rows(live))  # before now_for, which reads the episode's end
            self._rows_of = live
        shown = Shown(
            live, shown_state, self.episode, self.now_for(shown_state), self.rows, self.paused, self.written, self.settings.clock()
        )
        self.shown = shown
        header.mode = self.loop.mode if self.loop else ""
        header.held = self.held if self.paused else 0
        header.agent = self.agent
        self.set_class(shown.history, "-history")
        # which keys can run depends on the state (check_action): refresh the footer when it may change
        # (what check_action reads: any episode to go back to, scrubbing, at the first, paused;
        # the footer made again on every scrub step was a third of a step's time)
        bkey = (self.completed() > 0, self.episode is None, self.episode == 1, self.paused)
        if bkey != self._bindings_key:
            self._bindings_key = bkey
            self.app.refresh_bindings()
        with self.app.batch_update():
            # each show is guarded: a pane that fails says so in itself, the others still draw
            for kind in (
                SessionHeader,
                Timeline,
                GoalPane,
                NowPane,
                PendingCalls,
                CountersPane,
                FilesPane,
                TodosPane,
                AnomalyBadges,
                SubagentsTree,
                EpisodesList,
            ):
                self.query_one(kind).show(shown)
            self.query_one(PaneStack).refresh_fold()  # the summaries of panes a short column folds
        self._follow_drill_downs()

    def _follow_drill_downs(self) -> None:
        """Pass the live state to a drill-down of the open episode opened from this view (third
        user trial: it was a snapshot that did not grow, and did not say so). While paused it is
        held with the panes."""
        from tracetui.tui.screens.episode import EpisodeScreen

        live = self.state
        if live is None:
            return
        for screen in self.app.screen_stack:
            if isinstance(screen, EpisodeScreen) and screen.follows and screen.source is self:
                row = next((r for r in self.rows if r.index == screen.row.index), None)
                if row is not None:
                    screen.follow(live, row, held=self.paused)

    def tick(self) -> None:
        """The app clock moved: re-render what shows ages."""
        if self.state is not None:
            self.refresh_panes()

    @on(OptionList.OptionSelected)
    def _open_row(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) on a row opens that row, whatever the mode."""
        event.stop()
        rows = self.query_one(EpisodesList).rows_data
        i = event.option_index
        self.app.action_drill_down(rows[i] if 0 <= i < len(rows) else None)
