"""The ledger and the history in SQLite: sinks the fold appends to, views snapshots read.

A :class:`Store` holds the connections to one session database (store/db.py). The fold appends
each event to a :class:`StoreLedger` and each per-prompt snapshot to a :class:`StoreHistory`;
they batch what they get and hand it to the :class:`~tracetui.session.store.writer.Writer`,
whose thread inserts it (``executemany`` of store/event_rows.py's rows), so the fold's thread keeps folding and memory holds a batch or two, not the
ledger. A snapshot holds their views (store/views.py): read-only sequences of the items
appended until then, which read the database when indexed.

Several processes may fold the same session at once; every write is its own short ``BEGIN
IMMEDIATE`` transaction. The fold is deterministic, so two processes folding the same bytes
write the same rows (``INSERT OR REPLACE``), and none deletes another's. A write that fails (the database locked too long,
a full disk) is kept in memory instead, and the store is marked ``broken``: what this process
reads stays right, and it saves no state the next run would resume from.
"""

from __future__ import annotations

import os
import sqlite3
import weakref
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

import tracetui.model.derive  # noqa: F401 - defines the types AgentState.derived refers to
from tracetui.model.state import AgentState, Event, ToolCall
from tracetui.session.store import history as hist_codec
from tracetui.session.store.calls import find_call
from tracetui.session.store.db import SRC_SHIFT
from tracetui.session.store.episodes import StoreEpisodes
from tracetui.session.store.event_rows import SELECT_EVENTS, event_row
from tracetui.session.store.event_rows import event_of as _event_of
from tracetui.session.store.pool import Link
from tracetui.session.store.writer import GROUP, QUEUE_BATCHES, SLOT_EVENTS, Writer
from tracetui.session.store.writer_proc import ProcessWriter
from tracetui.session.store.writer_proc import usable as process_usable

if TYPE_CHECKING:
    from tracetui.session.store.views import HistoryView, LedgerView

__all__ = ["Store", "StoreLedger", "StoreHistory", "Writer", "event_row", "BATCH", "GROUP", "QUEUE_BATCHES"]

#: events handed to the writer at once (one ``executemany``, one transaction)
BATCH = SLOT_EVENTS
#: bytes of a ledger's filter of tool_use ids (StoreLedger._ids): 262,144 bits, 3% false
#: hits at 8,000 calls, 14% at 40,000 (then the query answers)
ID_FILTER_BYTES = 1 << 15
#: bits set in a ledger's filter up to which it is kept as the set of their positions (a few
#: KiB) instead of its bytes: the same answers, and a session of 5,000 small subagent files
#: does not hold 5,000 filters of 32 KiB (160 MB, a fresh-user trial)
ID_FILTER_SPARSE = 256
#: history snapshots handed to the writer at once
HISTORY_BATCH = 64


class Store:
    """The connections to one session database and the sinks of its folds.

    ``w`` links the writer's connection (used by its thread only), ``r`` the readers' (any
    thread, under its lock); for a private temporary database they are one link. Each opens
    when first used and the pool closes it while idle past its bound of open connections
    (store/pool.py): a store that is not writing needs no writer connection, and a store no
    one reads or writes none. Two connections, not one, so that a read (a view indexed on a
    fold worker) never waits for the writer's transaction of a batch, which in WAL mode
    another connection does not see until it commits. ``before_write``
    runs in the writer's first transaction (a cold fold empties the tables there). ``mask``:
    episode versions are written with their secrets masked (a private database, deleted when
    closed, keeps them as the fold made them)."""

    def __init__(
        self,
        w: Link,
        r: Link,
        before_write: Callable[[sqlite3.Connection], None] | None = None,
        mask: bool = True,
    ) -> None:
        self._w = w
        self._r = r
        self.wlock = w.lock
        self.rlock = r.lock
        self._before = before_write
        self._writer: Writer | ProcessWriter | None = None
        #: history snapshots decoded lately: a scrub to the next one decodes one row
        self._hist_memo: dict[tuple[int, int], AgentState] = {}
        #: each source's transcript path (set by the reader): a closed call's brief is read
        #: back from it when its event's excerpt was cut (store/calls.py)
        self.paths: dict[int, str] = {}
        self.mask = mask
        #: the writer runs with ``synchronous=OFF`` (a build from the start) and nothing has
        #: synced the database file since (the save does, :meth:`synced`)
        self.unsynced = False

    @property
    def wconn(self) -> sqlite3.Connection:
        """The writer's connection, opened when closed (store/pool.py; hold :attr:`wlock`)."""
        return self._w.get()

    @property
    def rconn(self) -> sqlite3.Connection:
        """The readers' connection, opened when closed (store/pool.py; hold :attr:`rlock`)."""
        return self._r.get()

    def writer(self) -> Writer | ProcessWriter:
        w = self._writer
        if w is None:
            if self._before is not None:
                # a build from the start: no commit waits for the disk (synchronous=OFF) until
                # the save, which syncs what it saves (StoreReader.save_cache); before it, the
                # database holds no state to resume from, so what an OS crash could damage is
                # rebuilt from the transcript
                with self.wlock:
                    self._w.pragma("synchronous", "OFF")
                self.unsynced = True
            w = self._writer = self._new_writer()
            # the thread (or process) ends when nothing refers to this store any more (a
            # closed tab, a reader dropped): it holds only the writer
            weakref.finalize(self, w.stop)
            if self._before is not None:
                w.submit(self._before)
        return w

    def _to_read(self) -> int:
        """Bytes of the transcripts known (a build from the start reads them all)."""
        n = 0
        for p in self.paths.values():
            try:
                n += os.path.getsize(p)
            except OSError:
                pass
        return n

    def _new_writer(self) -> Writer | ProcessWriter:
        """A build from the start writes from a second process where that is usable
        (store/writer_proc.py: the first open's rows written beside the fold), else from a
        thread."""
        if self._before is not None:
            with self.wlock:
                conn = self.wconn
                self._w.pinned = True  # the writer process's connection for its callable jobs
                if process_usable(conn, self._to_read()):
                    try:
                        return ProcessWriter(conn, self.wlock, unsynced=True, mask=self.mask, first=self._before)
                    except OSError:
                        pass  # no child process: the thread writes
                self._w.pinned = self._w.path == ""
        w = Writer(self._w)
        w.mask = self.mask
        return w

    def synced(self, path: str) -> None:
        """Back to ``synchronous=NORMAL`` and the database file at ``path`` synced, when the
        build ran without syncs: what its checkpoints wrote reaches the disk before a saved
        state refers to it (call holding :attr:`wlock`, outside a transaction). Raises
        ``OSError``, ``sqlite3.Error``."""
        if self.unsynced:
            old = self._writer
            if isinstance(old, ProcessWriter):
                # the build is saved: its process ends, a thread writes what follows (with
                # syncs), numbering on and a snapshot's delta over the last one written
                old.stop()
                self._w.pinned = self._w.path == ""
                w = self._writer = Writer(self._w)
                w.mask, w._sent, w._done, w._last_hist = self.mask, old.done, old.done, old._last_hist
                weakref.finalize(self, w.stop)
            self._w.pragma("synchronous", "NORMAL")
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            self.unsynced = False

    @property
    def writes_apart(self) -> bool:
        """The writes run in a second process now (store/writer_proc.py): this process may
        compute while they finish."""
        return isinstance(self._writer, ProcessWriter)

    def resumed(self) -> None:
        """The folds were restored from this database: its rows are theirs (no rebuild)."""
        self._before = None

    def prepare(self) -> None:
        """Run ``before_write`` now if it has not run (before a save of a fold with no rows)."""
        if self._before is not None:
            self.writer()

    @property
    def broken(self) -> str | None:
        """Why a write failed (the state must not be saved), else ``None``."""
        return self._writer.failed if self._writer is not None else None

    def sync(self) -> None:
        if self._writer is not None:
            self._writer.sync()

    def sinks(self, src: int) -> tuple[StoreLedger, StoreHistory, StoreEpisodes]:
        """The sinks of a new fold of source ``src`` (a new file, or one started over): its
        ledger, history and episode versions. Its rows are written over as it goes; rows beyond
        what it covers are left (read only by a state of their own lineage, which no longer
        validates against the file; a save deletes the episode rows no book holds)."""
        return StoreLedger(self, src, 0), StoreHistory(self, src, 0), StoreEpisodes(self, src)

    def submit(self, job: Any) -> int:
        """Hand ``job`` to the writer; returns its number (:attr:`Writer.done`)."""
        return self.writer().submit(job)

    def close(self) -> None:
        """Wait for the writer, end its thread and close the connections."""
        self.sync()
        if self._writer is not None:
            self._writer.stop()
        for link in {id(self._w): self._w, id(self._r): self._r}.values():
            with link.lock:
                link.close()

    # -- reads -----------------------------------------------------------------------------
    def read_events(self, src: int, start: int, stop: int, ledger: StoreLedger | None = None) -> list[Event]:
        """Events at ledger positions ``start`` to ``stop`` (0-based, ``stop`` excluded) of
        source ``src`` (whose sink is ``ledger``: the read waits for the writer only when
        that ledger's rows up to ``stop`` are not written yet). A row missing from the
        database (another process started the source over meanwhile) is left out."""
        if stop <= start:
            return []
        if ledger is None or ledger.on_disk < stop:
            self.sync()
        base = src << SRC_SHIFT
        try:
            with self.rlock:
                rows = self.rconn.execute(SELECT_EVENTS, (base + start, base + stop)).fetchall()
        except (sqlite3.Error, OSError):  # OSError: the connection could not be opened again
            rows = []  # no tables (nothing could be written), or damaged: what memory holds
        out = [_event_of(src, r) for r in rows]
        w = self._writer
        if w is not None and w.mem_events.get(src):
            mem = w.mem_events[src]
            have = {e.seq for e in out}
            out.extend(mem[s] for s in range(start + 1, stop + 1) if s in mem and s not in have)
            out.sort(key=lambda e: e.seq)
        return out

    def find_call(self, src: int, n: int, tid: str) -> ToolCall | None:
        """The tool call ``tid`` among the first ``n`` events of source ``src`` that are
        written (store/calls.py), or ``None``."""
        w = self._writer
        return find_call(self._r, src, n, tid, self.paths.get(src), w.mem_calls.get(src) if w is not None else None)

    def read_history(self, src: int, idx: int) -> AgentState:
        """History snapshot ``idx`` (0-based) of source ``src``. Raises ``IndexError`` when the
        database does not hold it."""
        self.sync()
        w = self._writer
        known = {**(w.mem_history if w is not None else {}), **self._hist_memo}
        got = known.get((src, idx))
        if got is not None:
            return got
        start = idx - idx % hist_codec.KEYFRAME
        base = max((j for (s, j) in known if s == src and start <= j < idx), default=None)
        lo = start if base is None else base + 1
        try:
            with self.rlock:
                rows = self.rconn.execute(
                    "SELECT idx, state FROM history WHERE src = ? AND idx >= ? AND idx <= ? ORDER BY idx", (src, lo, idx)
                ).fetchall()
        except (sqlite3.Error, OSError):  # OSError: the connection could not be opened again
            rows = []
        if [r[0] for r in rows] != list(range(lo, idx + 1)):
            raise IndexError(f"history snapshot {idx} of source {src} is not in the store")
        try:
            got = hist_codec.decode([r[1] for r in rows], known[(src, base)] if base is not None else None)
        except (ValueError, msgspec.DecodeError, zlib.error) as exc:
            raise IndexError(f"history snapshot {idx} of source {src} is damaged: {exc}") from None
        if len(self._hist_memo) >= 8:
            self._hist_memo.pop(next(iter(self._hist_memo), (-1, -1)), None)  # read from two threads
        self._hist_memo[(src, idx)] = got
        return got


class StoreLedger:
    """The ledger sink of one source: ``append`` and ``len`` for the fold, :meth:`view` for a
    snapshot. ``n`` events exist already (a resumed fold)."""

    __slots__ = ("store", "src", "n", "_buf", "on_disk", "_ids", "_last")

    def __init__(self, store: Store, src: int, n: int = 0) -> None:
        self.store = store
        self.src = src
        self.n = n
        self._buf: list[Event] = []
        #: events written (committed, or kept in memory after a failed write), set by the writer
        self.on_disk = n
        #: a one-hash Bloom filter of the tool_use ids appended, when every event of this
        #: ledger was (a ledger folded from its start): a call whose bit is clear was never
        #: made, so :meth:`find_call` answers without a query (the fold asks at each new call,
        #: its event just appended, whether an earlier event made it). The last tool_use
        #: appended is ``_last`` (its sequence number and id), its bit set at the next one.
        #: The bits are the set of their positions while few (:data:`ID_FILTER_SPARSE`), then
        #: the filter's :data:`ID_FILTER_BYTES` bytes.
        self._ids: set[int] | bytearray | None = set() if n == 0 else None
        self._last: tuple[int, str] | None = None

    def append(self, ev: Event) -> None:
        buf = self._buf
        buf.append(ev)
        self.n += 1
        if ev.kind == "tool_use" and self._ids is not None and ev.tool_use_id is not None:
            last = self._last
            if last is not None:
                self._set_bit(hash(last[1]) % (ID_FILTER_BYTES * 8))
            self._last = (ev.seq, ev.tool_use_id)
        if len(buf) >= BATCH:
            self.flush()

    def _set_bit(self, h: int) -> None:
        ids = self._ids
        if isinstance(ids, set):
            ids.add(h)
            if len(ids) <= ID_FILTER_SPARSE:
                return
            self._ids = dense = bytearray(ID_FILTER_BYTES)
            for b in ids:
                dense[b >> 3] |= 1 << (b & 7)
        elif ids is not None:
            ids[h >> 3] |= 1 << (h & 7)

    def _has_bit(self, h: int) -> bool:
        ids = self._ids
        if isinstance(ids, set):
            return h in ids
        return ids is not None and bool(ids[h >> 3] & (1 << (h & 7)))

    def __len__(self) -> int:
        return self.n

    #: events of this ledger the writer may not have written yet, at most: the batch being
    #: filled, the one being written and those queued (the fold waits when the queue is full)
    find_lag = (QUEUE_BATCHES + 2) * BATCH

    def find_call(self, tid: str, before: int) -> ToolCall | None:
        """The closed tool call ``tid`` of this ledger's events with a sequence number below
        ``before``, found by its tool_use event (for ``FileFold._find_call``; the fold lets a
        call go only once its tool_use is :attr:`find_lag` events back, so it is written by
        then), or ``None``."""
        if self._ids is not None:
            last = self._last
            if not self._has_bit(hash(tid) % (ID_FILTER_BYTES * 8)) and not (last is not None and last[1] == tid and last[0] < before):
                return None  # no tool_use event of this ledger before ``before`` has that id
        if self.on_disk < self.n - self.find_lag:
            self.store.sync()  # cannot happen while the writer is at most find_lag behind
        return self.store.find_call(self.src, min(self.on_disk, before - 1), tid)

    def flush(self) -> None:
        """Hand the buffered events to the writer."""
        if self._buf:
            self.store.submit(("events", self.src, self._buf, self))
            self._buf = []

    def view(self) -> LedgerView:
        from tracetui.session.store.views import LedgerView

        self.flush()
        return LedgerView(self.store, self.src, self.n, self)


class StoreHistory:
    """The history sink of one source: snapshots are handed to the writer
    :data:`HISTORY_BATCH` at a time (and at :meth:`view`, :meth:`flush`)."""

    __slots__ = ("store", "src", "n", "_buf")

    def __init__(self, store: Store, src: int, n: int = 0) -> None:
        self.store = store
        self.src = src
        self.n = n
        self._buf: list[AgentState] = []

    def append(self, state: AgentState) -> None:
        buf = self._buf
        buf.append(state)
        self.n += 1
        if len(buf) >= HISTORY_BATCH:
            self.flush()

    def __len__(self) -> int:
        return self.n

    def flush(self) -> None:
        """Hand the buffered snapshots to the writer."""
        if self._buf:
            self.store.submit(("history", self.src, self.n - len(self._buf), self._buf))
            self._buf = []

    def view(self) -> HistoryView:
        from tracetui.session.store.views import HistoryView

        self.flush()
        return HistoryView(self.store, self.src, self.n)
