"""One session's monitor: header, timeline, and panes, fed by the app's one follow (its fold
workers post this view's messages; the view never reads a file itself)."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.widgets import OptionList, ProgressBar, Static

from tracetui.ingest.agents import file_agent
from tracetui.model.state import RunState
from tracetui.session.follow import Followed
from tracetui.tui.format import fmt_bytes, one_line
from tracetui.tui.messages import IngestNotice, IngestProgress, SnapshotReady
from tracetui.tui.settings import SessionSpec, Settings
from tracetui.tui.view_model import episode_rows, state_as_of
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

#: ledger events of a first snapshot above which the heap is frozen (``gc.freeze``)
FREEZE_EVENTS = 20_000
#: open sessions from which every first snapshot freezes the heap (200 sessions' states made a
#: full collection take 100-150 ms, an update of the fleet screen three times its budget)
FREEZE_SESSIONS = 20


class _ViewSink:
    """A :class:`~tracetui.session.follow.FollowSink` that posts to one view (thread-safe)."""

    def __init__(self, view: SessionView) -> None:
        self.view = view
        self.key = view.spec.key
        #: the app's fleet (tracetui/tui/fleet_feed.py), which takes every snapshot too
        self.fleet = getattr(view.app, "fleet_feed", None)

    def snapshot(self, state: RunState, written: float | None) -> None:
        self.view.post_message(SnapshotReady(self.key, state, written))
        if self.fleet is not None:  # queued: the fleet's thread computes its facts
            self.fleet.snapshot(self.key, state, written, "", getattr(self.view.spec, "agent", "claude"))

    def progress(self, done: int, total: int) -> None:
        self.view.post_message(IngestProgress(self.key, done, total))

    def notice(self, level: str, text: str) -> None:
        self.view.post_message(IngestNotice(self.key, level, text))


class SessionView(Vertical):
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
        self.rows: tuple[EpisodeRow, ...] = ()
        self._rows_of: RunState | None = None
        self.shown: Shown | None = None
        self._bindings_key: object = None
        self._agent = "claude"

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        if not self.built:
            yield Static(Text(f" reading {one_line(str(self.spec.paths[0]))}…", style="bold"), classes="placeholder")
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
                with Vertical(classes="col col-right"):
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
        self.query_one(SessionHeader).update(Text(f" reading {one_line(str(self.spec.paths[0]))}…", style="bold"))
        if self._notice is not None:
            self._show_notice(*self._notice)

    async def build(self) -> None:
        """Mount the panes (the first time the tab is shown) and draw the newest state."""
        if self.built:
            return
        self.built = True
        await self.recompose()
        if not self.query(".fold-progress"):
            # Textual's recompose does nothing while the widget is not attached (its tab pane is
            # still being mounted when a quick activation arrives): build again once it is
            self.built = False
            if self.app.is_running:
                self.app.call_later(self._build_later)
            return
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

    # -- ingest -----------------------------------------------------------------------------
    def ingest(self) -> None:
        """Have the app's follow read and fold this session's files; its workers post
        :class:`SnapshotReady`, :class:`IngestProgress` and :class:`IngestNotice` here."""
        s = self.settings
        self.loop = self.app.follow.open(  # type: ignore[attr-defined]
            self.spec.key,
            list(self.spec.paths),
            _ViewSink(self),
            subagents=s.subagents,
            # the demo replays into a temporary file that is gone at quit: nothing worth caching
            use_cache=s.use_cache and not self.spec.demo,
        )
        if self.built:  # the tab on screen at the start: folded first, polled fastest
            self.app.follow.prefer(self.spec.key)  # type: ignore[attr-defined]

    def on_snapshot_ready(self, message: SnapshotReady) -> None:
        message.stop()
        if self.latest is None and (
            len(message.state.ledgers[0] if message.state.ledgers else ()) >= FREEZE_EVENTS
            or len(getattr(self.app, "views", ())) >= FREEZE_SESSIONS
        ):
            # a big first fold leaves a large heap that lives as long as the app; moving it out
            # of the collector's reach keeps full collections (100+ ms pauses) off later updates
            gc.freeze()
        self.latest = message.state
        self.written = message.written
        if not self.built:
            if not self.paused:
                self.state = message.state
            return
        self.query_one(".fold-progress").display = False
        if not self.notice_text:  # the progress line, not an error: the read is done
            self.query_one(".notice").display = False
        if self.paused:
            self.held += 1
            header = self.query_one(SessionHeader)
            header.held = self.held
            if self.shown is not None:
                header.show(self.shown)
            return
        self.state = message.state

    def on_ingest_progress(self, message: IngestProgress) -> None:
        message.stop()
        if not self.built:
            return
        bar = self.query_one(".fold-progress", ProgressBar)
        if message.total > 4 << 20:  # a bar only for reads long enough to notice
            bar.display = True
            bar.update(total=message.total, progress=message.done)
            self.query_one(".notice", Static).display = True
            self.query_one(".notice", Static).update(
                Text(f" folding {fmt_bytes(message.done)} of {fmt_bytes(message.total)}…", style="bold")
            )

    def on_ingest_notice(self, message: IngestNotice) -> None:
        message.stop()
        changed = False
        if message.level == "error":
            self.notice_text = message.text
            self._notice, changed = ("error", message.text), True
        elif message.level == "information" and self.notice_text:
            self.notice_text = ""
            self._notice, changed = ("clear", ""), True
        if self.built and changed and self._notice is not None:
            self._show_notice(*self._notice)
        self.app.notify(message.text, title=self.spec.label or "tracetui", severity=message.level, markup=False, timeout=6)

    def _show_notice(self, level: str, text: str) -> None:
        notice = self.query_one(".notice", Static)
        if level == "error":
            notice.update(Text(f" ✖ {one_line(text)}", style="bold"))
            notice.set_class(True, "-error")
            notice.display = True
        else:
            notice.display = False
            notice.set_class(False, "-error")

    # -- state → panes ----------------------------------------------------------------------
    def watch_state(self, _old: RunState | None, _new: RunState | None) -> None:
        self.refresh_panes()

    def watch_episode(self) -> None:
        self.refresh_panes()

    def watch_paused(self, paused: bool) -> None:
        if not paused and self.latest is not None and self.latest is not self.state:
            self.held = 0
            self.state = self.latest
        else:
            self.refresh_panes()

    def shown_state(self) -> RunState | None:
        """The state the panes show: live, or as of the end of the scrubbed episode."""
        live = self.state
        if live is None or self.episode is None:
            return live
        k = self.episode
        if not 1 <= k <= len(live.history):
            return live
        key = (k, live.generation)
        got = self._as_of_cache.get(key)
        if got is None:
            got = state_as_of(live, k)
            self._as_of_cache = {key: got}
        return got

    def now_for(self, shown_state: RunState) -> float:
        """The "now" (seconds since the epoch) ages are measured to: the app clock live; while
        scrubbing, the end of the episode, so ages are as they were then: the as-of state's
        ``last_timestamp``, the episode's last record's (``views.as_of.state_as_of``), not the
        closing prompt's, which may come hours later (third user trial: a call open at the end
        read "running X for 1h17m"); the clock when it has none. The panes get it in
        :class:`Shown` and the copy keys pass the same value (``self.shown.now``) to the views."""
        now = self.settings.clock()
        if self.episode is not None:
            from tracetui.tui.format import parse_ts

            ended = parse_ts(shown_state.main.last_timestamp)
            now = ended if ended is not None else now
        return now

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
        assert shown_state is not None
        if self._rows_of is not live:  # a pure function of the state: not again on every tick
            self.rows = tuple(episode_rows(live))  # before now_for, which reads the episode's end
            self._rows_of = live
        shown = Shown(
            live, shown_state, self.episode, self.now_for(shown_state), self.rows, self.paused, self.written, self.settings.clock()
        )
        self.shown = shown
        header = self.query_one(SessionHeader)
        header.mode = self.loop.mode if self.loop else ""
        header.held = self.held if self.paused else 0
        header.agent = self.agent
        self.set_class(shown.history, "-history")
        # which keys can run depends on the state (check_action): refresh the footer when it may change
        bkey = (self.completed(), self.episode, self.paused)
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

    # -- scrubbing --------------------------------------------------------------------------
    def completed(self) -> int:
        """Completed episodes of the live state (those that can be scrubbed to)."""
        return len(self.state.history) if self.state is not None else 0

    def history_back(self) -> bool:
        """One episode back (from live: the last completed one). False when there is none."""
        n = self.completed()
        if n == 0:
            return False
        self.episode = n if self.episode is None else max(1, self.episode - 1)
        return True

    def history_forward(self) -> bool:
        """One episode forward; past the last completed one is live. False when already live."""
        if self.episode is None:
            return False
        self.episode = None if self.episode + 1 > self.completed() else self.episode + 1
        return True

    def go_live(self) -> bool:
        if self.episode is None:
            return False
        self.episode = None
        return True

    def selected_episode(self) -> EpisodeRow | None:
        """The episode ``e`` opens: in HISTORY the scrubbed one; live, the one under the
        Episodes pane's cursor once the user moved it there, else the newest (the live one).
        ``None`` before the first episode."""
        table = self.query_one(EpisodesList)
        if self.episode is not None:
            idx = self.episode
        elif table.user_moved:
            idx = table.selected_index()
        else:
            idx = None
        for r in self.rows:
            if r.index == idx:
                return r
        return self.rows[-1] if self.rows else None

    @on(OptionList.OptionSelected)
    def _open_row(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) on a row opens that row, whatever the mode."""
        event.stop()
        rows = self.query_one(EpisodesList).rows_data
        i = event.option_index
        self.app.action_drill_down(rows[i] if 0 <= i < len(rows) else None)
