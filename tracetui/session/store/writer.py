"""The store's writer thread: runs the session database's writes in order, a group of jobs in
one ``BEGIN IMMEDIATE`` transaction, and keeps them in memory when a write fails."""

from __future__ import annotations

import queue
import sqlite3
import threading
from typing import Any

from tracetui.model.state import AgentState, Event
from tracetui.model.types import Episode
from tracetui.session.store import history as hist_codec
from tracetui.session.store.episodes import episode_row
from tracetui.session.store.event_rows import stored_secrets, write_events
from tracetui.session.store.masking import seen_in

__all__ = ["Writer", "GROUP", "QUEUE_BATCHES", "INSERT_HISTORY", "INSERT_EPISODE", "history_bodies", "keep"]

#: jobs the writer runs in one transaction at most (those queued when it takes one), unless
#: they hold fewer than :data:`SLOT_EVENTS` events together (the small batches of thousands of
#: small files, flushed at a snapshot: then as many as make that many)
GROUP = 16
#: batches queued for the writer at most: the fold waits when it is this far ahead (memory);
#: a batch of events counts as its share of :data:`SLOT_EVENTS`, any other job as one batch
QUEUE_BATCHES = 4
#: the events of a full batch (store/ledger.py ``BATCH``): a job's weight in the queue
SLOT_EVENTS = 4096
#: seconds a writer's thread waits for a job before it ends (the next job starts another): the
#: fleet's hundreds of stores, most of them idle, held a thread each
IDLE_EXIT = 5.0


#: the statements a writer's rows are written with (``executemany``; the events':
#: store/event_rows.py :data:`INSERT_EVENT`)
INSERT_HISTORY = "INSERT OR REPLACE INTO history VALUES (?,?,?)"
INSERT_EPISODE = "INSERT OR REPLACE INTO episodes VALUES (?,?,?,?,?,?,?,?,?)"


def history_bodies(last: dict[int, tuple[int, AgentState]], src: int, idx: int, states: list[AgentState]) -> list[tuple[int, bytes]]:
    """``(index, body)`` of snapshots ``states`` of source ``src``, the first at ``idx``
    (store/history.py :func:`~tracetui.session.store.history.body`: a delta over the one before
    when ``last[src]``, the last snapshot a writer was given, is it); ``last`` is updated."""
    got = last.get(src)
    prev = got[1] if got is not None and got[0] == idx - 1 else None
    out = []
    for i, state in enumerate(states, idx):
        out.append((i, hist_codec.body(prev, state, i)))
        prev = state
    last[src] = (idx + len(states) - 1, states[-1])
    return out


class Writer:
    """One thread that runs the store's writes in order, the jobs queued when it takes one
    (:data:`GROUP` at most) in one transaction.

    Jobs: ``("events", src, [Event, ...], ledger)``, ``("history", src, first idx, [AgentState, ...])``,
    ``("episodes", src, [(pos, Episode), ...])``, or a
    callable taking the connection (run inside the transaction). :meth:`sync` waits until every job sent is done.

    ``link``: the connection it writes through (store/pool.py :class:`~tracetui.session.store.pool.Link`,
    opened again when the pool closed it meanwhile), used holding the link."""

    def __init__(self, link: Any) -> None:
        self.link = link
        self.lock = link.lock
        self._q: queue.Queue[Any] = queue.Queue()  # bounded by weight: _queued
        #: the weight of the jobs in the queue (:func:`_weight`), under :attr:`_room`
        self._queued = 0
        self._room = threading.Condition()
        self._cond = threading.Condition()
        self._sent = 0
        self._done = 0
        self._thread: threading.Thread | None = None
        #: why a write failed (then every later job is kept in memory, see :class:`Store`)
        self.failed: str | None = None
        self.mem_events: dict[int, dict[int, Event]] = {}
        #: per source, the first tool_use event of each tool_use id among ``mem_events`` (what
        #: ``find_call`` looks up: a lookup, never a walk of a dict this thread may be growing)
        self.mem_calls: dict[int, dict[str, Event]] = {}
        self.mem_history: dict[tuple[int, int], AgentState] = {}
        self.mem_episodes: dict[int, dict[int, Episode]] = {}
        #: whether episode versions are written with their secrets masked (a shared store)
        self.mask = True
        #: per source, the last history snapshot written (index, state): the next is a delta
        self._last_hist: dict[int, tuple[int, AgentState]] = {}

    def submit(self, job: Any) -> int:
        """Queue ``job``; returns its number (jobs are done in order: see :attr:`done`). Waits
        while the queue holds :data:`QUEUE_BATCHES` batches' weight (:func:`_weight`)."""
        with self._cond:
            self._sent += 1
            n = self._sent
            if self._thread is None:  # none yet, or it ended idle (under the lock: see _idle_end)
                self._thread = threading.Thread(target=self._run, name="tracetui-store", daemon=True)
                self._thread.start()
        w = _weight(job)
        with self._room:
            while self._queued and self._queued + w > QUEUE_BATCHES * SLOT_EVENTS:
                self._room.wait()
            self._queued += w
        self._q.put(job)
        return n

    def _taken(self, job: Any) -> None:
        """``job`` left the queue: its room is free."""
        with self._room:
            self._queued -= _weight(job)
            self._room.notify_all()

    @property
    def done(self) -> int:
        """How many jobs are done (written, or kept in memory): those numbered up to it."""
        return self._done

    def stop(self) -> None:
        """End the thread once the jobs submitted so far are done."""
        if self._thread is not None:
            self._q.put(None)

    def sync(self) -> None:
        """Wait until every job submitted so far is written (or kept in memory)."""
        with self._cond:
            while self._done < self._sent:
                self._cond.wait()

    def _idle_end(self) -> bool:
        """Whether the thread ends now, no job having come for :data:`IDLE_EXIT` seconds: only
        when none is sent and not done (a job counted under the lock is on its way to the queue)."""
        with self._cond:
            if self._done < self._sent:
                return False
            self._thread = None
            return True

    def _run(self) -> None:
        while True:
            try:
                job = self._q.get(timeout=IDLE_EXIT)
            except queue.Empty:
                if self._idle_end():
                    return
                continue
            if job is None:
                return
            self._taken(job)
            jobs, last, nxt = [job], False, None
            weight = _weight(job)
            while len(jobs) < GROUP or weight < SLOT_EVENTS:
                try:
                    nxt = self._q.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    last = True
                    break
                self._taken(nxt)
                weight += _weight(nxt)
                jobs.append(nxt)
            try:
                if self.failed is None:
                    try:
                        with self.lock:
                            conn = self.link.get()
                            conn.execute("BEGIN IMMEDIATE")
                            try:
                                for job in jobs:
                                    self._write(conn, job)
                                conn.execute("COMMIT")
                            except BaseException:
                                conn.execute("ROLLBACK")
                                raise
                        for job in jobs:
                            if type(job) is tuple and job[0] == "events":
                                job[3].on_disk = job[2][-1].seq  # committed: readers need not wait
                    except (sqlite3.Error, OSError) as exc:  # OSError: the connection could not be opened again
                        self.failed = f"{type(exc).__name__}: {exc}"
                if self.failed is not None:
                    for job in jobs:
                        self._keep(job)
            except BaseException as exc:  # noqa: BLE001 - a bug here must not hang sync()
                self.failed = self.failed or f"{type(exc).__name__}: {exc}"
            finally:
                n = len(jobs)
                job = nxt = None  # they hold a sink, so its store: not kept while waiting for the next
                jobs.clear()
                with self._cond:
                    self._done += n
                    self._cond.notify_all()
            if last:
                return

    def _write(self, c: sqlite3.Connection, job: Any) -> None:
        if callable(job):
            job(c)
        elif job[0] == "events":
            src = job[1]
            write_events(c, src, job[2])
        elif job[0] == "history":
            src = job[1]
            with seen_in(stored_secrets(c)):  # the session's secrets found once: their copies too
                rows = [(src, i, hist_codec.seal(b)) for i, b in history_bodies(self._last_hist, src, job[2], job[3])]
            c.executemany(INSERT_HISTORY, rows)
        elif job[0] == "episodes":
            src, mask = job[1], self.mask
            with seen_in(stored_secrets(c) if mask else None):
                rows = [episode_row(src, pos, ep, mask) for pos, ep in job[2]]
            c.executemany(INSERT_EPISODE, rows)

    def _keep(self, job: Any) -> None:
        keep(self, job)


def _weight(job: Any) -> int:
    """A job's room in the writer's queue: a batch of events its events, any other job a
    whole batch's (:data:`SLOT_EVENTS`)."""
    if type(job) is tuple and job[0] == "events":
        return max(1, len(job[2]))
    return SLOT_EVENTS


def keep(w: Any, job: Any) -> None:
    """Keep ``job`` in writer ``w``'s memory (``mem_events``, ``mem_calls``, ``mem_history``,
    ``mem_episodes``), as it would have been written: after a failed write."""
    if callable(job):
        return
    if job[0] == "events":
        mem = w.mem_events.setdefault(job[1], {})
        calls = w.mem_calls.setdefault(job[1], {})
        for ev in job[2]:
            mem[ev.seq] = ev
            if ev.kind == "tool_use" and ev.tool_use_id:
                calls.setdefault(ev.tool_use_id, ev)
        job[3].on_disk = job[2][-1].seq
    elif job[0] == "history":
        for i, state in enumerate(job[3], job[2]):
            w.mem_history[(job[1], i)] = state
    elif job[0] == "episodes":
        w.mem_episodes.setdefault(job[1], {}).update(job[2])
