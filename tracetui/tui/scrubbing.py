"""A session view's history: the state as of an episode's end, the "now" its ages are measured
to, the steps back and forward, and the episode ``e`` opens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracetui.model.state import RunState
from tracetui.tui.messages import AsOfRead
from tracetui.tui.view_model import context_usage, state_as_of
from tracetui.tui.widgets.episodes import EpisodesList

if TYPE_CHECKING:
    from tracetui.tui.view_model import EpisodeRow

__all__ = ["Scrubbing", "AS_OF_KEPT"]

#: states as of past episodes a view keeps
AS_OF_KEPT = 4


class Scrubbing:
    """The scrubbing of one session view (``[``, ``]``, ``l``, ``e``); mixed into
    :class:`tracetui.tui.session_view.SessionView`, whose ``state``, ``episode``, ``rows`` and
    ``settings`` it reads."""

    def shown_state(self, wait: bool = False) -> RunState | None:
        """The state the panes show: live, or as of the end of the scrubbed episode.

        A state as of an episode of a history kept in the store that was not read ahead (a step
        faster than the read-ahead: a held ``[``) is read on a worker thread (:meth:`_read_as_of`)
        and ``None`` is returned until :class:`AsOfRead` brings it; with ``wait`` (the copies,
        whose views read the store anyway) it is read here. A history in memory is computed
        here: no I/O."""
        live = self.state
        if live is None or self.episode is None:
            return live
        k = self.episode
        if not 1 <= k <= len(live.history):
            return live
        key = (k, live.generation)
        stored = not isinstance(live.history, (tuple, list))
        got = self._as_of_cache.get(key)
        if got is None:
            if stored and not wait:
                self._read_as_of(live, k)
                return None
            got = state_as_of(live, k)
            self.keep_as_of(key, got)
        if k > 1 and stored and (k - 1, live.generation) not in self._as_of_cache:
            self._read_ahead_as_of(live, k - 1)
        return got

    def _read_as_of(self, live: RunState, k: int) -> None:
        """Read the state as of episode ``k`` from the store on a worker thread, which posts
        :class:`AsOfRead`. One read at a time: a step made while one runs is read when it ends
        (:meth:`on_as_of_read` draws again), so a held key reads where it stops, not every step."""
        if self._as_of_reading is not None:
            return
        self._as_of_reading = (k, live.generation)

        def work() -> None:
            try:
                got = state_as_of(live, k)
                context_usage(got)  # the context gauge's read of the ledger, kept by its view
            except Exception as exc:  # noqa: BLE001 - said in one line by on_as_of_read
                self.post_message(AsOfRead(k, live.generation, None, f"{type(exc).__name__}: {exc}"))
                return
            self.post_message(AsOfRead(k, live.generation, got))

        self.run_worker(work, thread=True, group="as-of-step", exit_on_error=False)

    def on_as_of_read(self, message: AsOfRead) -> None:
        """Keep the state a worker read and draw the scrubbed episode (again: it may have moved
        while the read ran, then its own read starts). A read that failed is said in one line
        and the view goes live, which needs no read."""
        message.stop()
        self._as_of_reading = None
        live = self.state
        if live is None:
            return
        if message.state is not None:
            if message.generation == live.generation:
                self.keep_as_of((message.k, message.generation), message.state)
        elif self.episode == message.k:
            self.app.notify(
                f"Could not read the state as of episode {message.k}: {message.error}", severity="error", markup=False, timeout=6
            )
            self.episode = None
            return
        if self.episode is not None:
            self.refresh_panes()

    def keep_as_of(self, key: tuple[int, int], got: RunState) -> None:
        """Keep ``got``, the state as of episode ``key[0]`` of live generation ``key[1]``: the
        last few of the live state are kept, so stepping back and forth finds the same state,
        whose anomalies are kept by it (views/anomaly_memo.py)."""
        kept = {kk: v for kk, v in self._as_of_cache.items() if kk[1] == key[1] and kk != key}
        self._as_of_cache = dict(list(kept.items())[-(AS_OF_KEPT - 1) :]) if AS_OF_KEPT > 1 else {}
        self._as_of_cache[key] = got

    def _read_ahead_as_of(self, live: RunState, k: int) -> None:
        """Read the state as of episode ``k`` (the next step back) from the store on a worker
        thread, so that step finds it kept instead of reading the database on the UI thread."""

        def work() -> None:
            try:
                got = state_as_of(live, k)
                context_usage(got)  # the context gauge's read of the ledger, kept by its view
            except Exception:  # noqa: BLE001 - the step reads it again and says what is wrong
                return
            try:
                self.app.call_from_thread(self.keep_as_of, (k, live.generation), got)
            except RuntimeError:  # the app is closing
                pass

        self.run_worker(work, thread=True, exclusive=True, group="as-of", exit_on_error=False)

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
