"""What feeds one session view: its sink in the app's follow, and the snapshots, progress and
notices the fold workers post to it."""

from __future__ import annotations

import gc

from rich.text import Text
from textual.widgets import ProgressBar, Static

from tracetui.model.state import RunState
from tracetui.tui.format import fmt_bytes, one_line
from tracetui.tui.messages import IngestNotice, IngestProgress, SnapshotReady
from tracetui.tui.widgets.header import SessionHeader

__all__ = ["SessionFeed", "FREEZE_EVENTS", "FREEZE_EPISODES", "FREEZE_SESSIONS"]

#: ledger events of a first snapshot above which the heap is frozen (``gc.freeze``)
FREEZE_EVENTS = 20_000
#: episodes (prompts) of a first snapshot above which the heap is frozen too (2,500 short
#: episodes: a full collection of 100 ms every twenty scrub steps)
FREEZE_EPISODES = 1_000
#: open sessions from which every first snapshot freezes the heap (200 sessions' states made a
#: full collection take 100-150 ms, an update of the fleet screen three times its budget)
FREEZE_SESSIONS = 20


def _read_ahead(state: RunState, anomalies: bool = True) -> tuple[int, RunState] | None:
    """Do on the fold worker's thread what the panes' draw of a new state would otherwise do on
    the UI thread:

    * read what they read of a stored ledger (the last API call's usage, for the context gauge:
      ``views.fleet_facts.context_usage``), so its blocks are kept in the snapshot's ledger view and
      the UI thread waits on no database read;
    * load the secrets' detectors (~0.1 s of imports; a session opened from the store masked
      nothing yet, so the panes' first masked text loaded them);
    * with ``anomalies`` (the view's panes are mounted: a tab not shown draws nothing, and its
      pane prices on a thread of its own once shown), the anomalies that ignore the clock
      (``views.anomaly_memo.timeless_of``: pricing every episode, ~0.5 s for 2,500), kept for
      the Anomalies pane's draw of this state;
    * for a history kept in the store, the state as of the last completed episode (what the
      first step back shows): returned as ``(k, state)``, else ``None``.

    A failure here is the pane's to say when it reads the same."""
    from tracetui.ingest.secret_detectors import load_rules, rules_loaded
    from tracetui.tui.view_model import state_as_of
    from tracetui.views.anomaly_memo import timeless_of
    from tracetui.views.fleet_facts import context_usage

    try:
        context_usage(state)
        if not rules_loaded():  # the detectors (~0.1 s of imports), before a pane masks a text
            load_rules()
        if anomalies:
            timeless_of(state, state.episodes or None)  # as the pane asks (view_model.anomaly_rows)
        k = len(state.history)
        if k and not isinstance(state.history, (tuple, list)):  # in memory: nothing to read
            got = state_as_of(state, k)
            context_usage(got)  # its ledger blocks, as for the live state
            return k, got
    except Exception:  # noqa: BLE001 - the pane reads it again and says what is wrong
        pass
    return None


class _ViewSink:
    """A :class:`~tracetui.session.follow.FollowSink` that posts to one view (thread-safe)."""

    def __init__(self, view: SessionFeed) -> None:  # a SessionView
        self.view = view
        self.key = view.spec.key
        #: the app's fleet (tracetui/tui/fleet_feed.py), which takes every snapshot too
        self.fleet = getattr(view.app, "fleet_feed", None)

    def snapshot(self, state: RunState, written: float | None) -> None:
        as_of = _read_ahead(state, anomalies=getattr(self.view, "built", True))
        self.view.post_message(SnapshotReady(self.key, state, written, as_of))
        if self.fleet is not None:  # queued: the fleet's thread computes its facts
            self.fleet.snapshot(self.key, state, written, "", getattr(self.view.spec, "agent", "claude"))

    def progress(self, done: int, total: int) -> None:
        self.view.post_message(IngestProgress(self.key, done, total))

    def notice(self, level: str, text: str) -> None:
        self.view.post_message(IngestNotice(self.key, level, text))


class SessionFeed:
    """A session view's ingest: it opens the session in the app's follow and takes what the
    fold workers post (:class:`SnapshotReady`, :class:`IngestProgress`, :class:`IngestNotice`);
    mixed into :class:`tracetui.tui.session_view.SessionView`, whose reactives it sets."""

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
        big = self.latest is None and (
            len(message.state.ledgers[0] if message.state.ledgers else ()) >= FREEZE_EVENTS
            or message.state.main.prompts >= FREEZE_EPISODES
            or len(getattr(self.app, "views", ())) >= FREEZE_SESSIONS
        )
        if big:
            # a big first fold leaves a large heap that lives as long as the app; moving it out
            # of the collector's reach keeps full collections (100+ ms pauses) off later updates
            gc.freeze()
        try:
            self._take(message)
        finally:
            if big:  # and what its first draw made: the episode rows, the episodes read back
                gc.freeze()

    def _take(self, message: SnapshotReady) -> None:
        self.latest = message.state
        self.written = message.written
        if message.as_of is not None:
            self.keep_as_of((message.as_of[0], message.state.generation), message.as_of[1])
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
