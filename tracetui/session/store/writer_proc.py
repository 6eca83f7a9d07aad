"""The store's writer in a second process: the masking, compressing and inserting of the rows
runs in a child process, off the fold's GIL, so a first open costs the fold and the store's
writes side by side on two CPUs instead of one after the other. The child is a fresh
interpreter (``spawn``), not a fork: SQLite is not fork-safe (a forked child inherits its
bookkeeping of the parent's locks on the database file); the detectors it masks with are the
parent's, handed over as plain data.

:class:`ProcessWriter` has :class:`~tracetui.session.store.writer.Writer`'s interface. The fold's
process encodes each job as MessagePack (the events as they are; a history snapshot as its
row's body, store/history.py ``body``, the delta computed where the snapshots share their parts;
an episode version as its plain row, store/episodes.py ``plain_row``) and sends it down a pipe;
the child, holding its own connection to the same database file, finishes the rows
(``event_row``, ``history.seal``, ``sealed_row``: the same functions the thread writer runs, so
the same rows) and writes the jobs waiting, :data:`~tracetui.session.store.writer.GROUP` at most,
in one ``BEGIN IMMEDIATE`` transaction; after each commit it says how many jobs are done. One
writer at a time holds: while the child lives, this process writes only after :meth:`sync`
(a callable job, the save).

Failure: a write the child could not make (the database locked too long, a full disk), the
child's death or a broken pipe marks the writer ``failed``; every job not acknowledged as
committed is kept in memory (as the thread writer keeps its jobs after a failed write), so
what this process reads stays right and no state is saved: a refold, never a wrong figure.

Used where it is safe and pays (:func:`usable`): Linux, a process with one thread (a command
such as ``state``; the monitor's threads keep the thread writer), a database file (not a private temporary one), at least
:data:`MIN_BYTES` to read and a CPU to spare (session/derive_proc.py's rule;
``TRACETUI_STORE_PROCESS=always`` skips these two, for tests and benches), and not turned off
by ``TRACETUI_STORE_PROCESS=0``.
"""

from __future__ import annotations

import os
import queue
import re
import sqlite3
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager
from importlib import import_module
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import msgspec

from tracetui.ingest.secret_detectors import load_rules, use_rules
from tracetui.model.state import AgentState, Event
from tracetui.model.types import Episode
from tracetui.session.store import history as hist_codec
from tracetui.session.store.episodes import plain_row, sealed_row
from tracetui.session.store.event_rows import stored_secrets, write_events
from tracetui.session.store.masking import seen_in
from tracetui.session.store.writer import GROUP, INSERT_EPISODE, INSERT_HISTORY, history_bodies, keep

__all__ = ["ProcessWriter", "usable", "db_file", "main", "MIN_BYTES"]

_enc = msgspec.msgpack.Encoder()
_events_dec = msgspec.msgpack.Decoder(tuple[int, list[Event]])
_rows_dec = msgspec.msgpack.Decoder(tuple[int, list[tuple[Any, ...]]])
_ack_dec = msgspec.msgpack.Decoder(tuple[int, str | None])
#: frame kinds: events, history rows, episode rows, the callable given at the start, the end
_EVENTS, _HISTORY, _EPISODES, _FIRST, _STOP = b"E", b"H", b"P", b"C", b"S"
#: bytes to read below which the thread writes (the child's interpreter takes ~0.2 s of CPU to
#: start and import the store: worth it only for a long read)
MIN_BYTES = 32 << 20
#: frames waiting for the child at most (the fold then waits): enough for the fold to run on
#: while the child starts, few enough for memory (an events frame is ~1 MB)
SEND_FRAMES = 16
#: the pipe's buffer (``F_SETPIPE_SZ``): how far the fold may run ahead of the child
PIPE_BYTES = 1 << 20
_F_SETPIPE_SZ = 1031


def db_file(conn: sqlite3.Connection) -> str:
    """The file of ``conn``'s main database (``""`` for a temporary or in-memory one)."""
    try:
        row = conn.execute("PRAGMA database_list").fetchone()
    except sqlite3.Error:
        return ""
    return str(row[2] or "") if row is not None else ""


def usable(conn: sqlite3.Connection, to_read: int) -> bool:
    """Whether the writes to ``conn``'s database, of a fold that reads ``to_read`` bytes, may
    run in a child process (module docstring; at least :data:`MIN_BYTES`)."""
    how = os.environ.get("TRACETUI_STORE_PROCESS", "")
    if how == "0" or not sys.platform.startswith("linux"):
        return False
    from tracetui.session.derive_proc import _single_threaded, _spare_cpu

    if not (db_file(conn) and _single_threaded()):
        return False
    return how == "always" or (to_read >= MIN_BYTES and _spare_cpu())


def _name_of(fn: Callable[[sqlite3.Connection], None] | None) -> str | None:
    """``module:name`` of a module-level function (the child imports it), else ``None``."""
    if fn is None:
        return None
    mod, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not mod or "." in name or "<" in name or getattr(import_module(mod), name, None) is not fn:
        raise OSError(f"the store's first job {fn!r} is not a module-level function")
    return f"{mod}:{name}"


def main() -> None:
    """The child process: ``python -c ... main() DOWN_FD UP_FD``, its setup the first frame
    read (``(database, busy ms, unsynced, mask, "module:function" of the first job, detectors)``)."""
    down = Connection(int(sys.argv[1]), writable=False)
    up = Connection(int(sys.argv[2]), readable=False)
    try:
        path, busy, unsynced, mask, first_name, spec = msgspec.msgpack.decode(down.recv_bytes())
    except (EOFError, OSError, msgspec.DecodeError, ValueError):
        return
    first = None
    if first_name:
        mod, name = first_name.split(":")
        first = getattr(import_module(mod), name)
    _child(path, busy, unsynced, mask, first, spec, down, up)


def _child(
    path: str,
    busy_ms: int,
    unsynced: bool,
    mask: bool,
    first: Callable[[sqlite3.Connection], None] | None,
    spec: dict[str, object],
    down: Connection,
    up: Connection,
) -> None:
    """The child's loop: the frames read, written a group per transaction, each commit said
    (``(jobs done, None)``); a failure is said once (``(jobs done, why)``) and ends it."""
    from tracetui.session.store.db import connect

    try:
        use_rules(spec)  # the parent's detectors
    except (KeyError, TypeError, ValueError, AssertionError, re.error) as exc:
        up.send_bytes(_enc.encode((0, f"detectors: {type(exc).__name__}: {exc}")))
        return
    done = 0
    try:
        conn = connect(path, busy_ms)
        if unsynced:
            conn.execute("PRAGMA synchronous=OFF")
    except (sqlite3.Error, OSError) as exc:
        up.send_bytes(_enc.encode((0, f"{type(exc).__name__}: {exc}")))
        return
    while True:
        frames: list[bytes] = []
        stop = False
        try:
            frames.append(down.recv_bytes())
            while frames[-1][:1] != _STOP and len(frames) < GROUP and down.poll():
                frames.append(down.recv_bytes())
        except (EOFError, OSError):
            stop = True  # the parent closed its end: what came before it is written
        if frames and frames[-1][:1] == _STOP:
            frames.pop()
            stop = True
        try:
            if frames:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for f in frames:
                        _write(conn, f, mask, first)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                done += len(frames)
                up.send_bytes(_enc.encode((done, None)))
        except Exception as exc:  # noqa: BLE001 - said to the parent, which keeps the jobs
            try:
                up.send_bytes(_enc.encode((done, f"{type(exc).__name__}: {exc}")))
            except OSError:
                pass
            return
        if stop:
            conn.close()
            return


def _write(conn: sqlite3.Connection, frame: bytes, mask: bool, first: Callable[[sqlite3.Connection], None] | None) -> None:
    kind, body = frame[:1], memoryview(frame)[1:]
    if kind == _EVENTS:
        src, evs = _events_dec.decode(body)
        write_events(conn, src, evs)
    elif kind == _HISTORY:
        src, rows = _rows_dec.decode(body)
        with seen_in(stored_secrets(conn)):  # the session's secrets found once: their copies too
            sealed = [(src, i, hist_codec.seal(b)) for i, b in rows]
        conn.executemany(INSERT_HISTORY, sealed)
    elif kind == _EPISODES:
        _, rows = _rows_dec.decode(body)
        with seen_in(stored_secrets(conn) if mask else None):
            sealed = [sealed_row(r, mask) for r in rows]
        conn.executemany(INSERT_EPISODE, sealed)
    elif kind == _FIRST and first is not None:
        first(conn)
    else:
        raise ValueError(f"unknown frame {bytes(kind)!r}")


class ProcessWriter:
    """:class:`~tracetui.session.store.writer.Writer`'s interface, the writes made by a child
    process (module docstring). ``ProcessWriter(conn, lock, unsynced, mask, first)`` starts it
    (raises ``OSError`` when it cannot); ``first``, a callable job (a module-level function: it
    is pickled), is run by the child in its first transaction. ``conn`` (this process's connection) is used only for a later callable job,
    after :meth:`sync`."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        lock: AbstractContextManager[Any],
        unsynced: bool = False,
        mask: bool = True,
        first: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.mask = mask
        self.failed: str | None = None
        self.mem_events: dict[int, dict[int, Event]] = {}
        self.mem_calls: dict[int, dict[str, Event]] = {}
        self.mem_history: dict[tuple[int, int], AgentState] = {}
        self.mem_episodes: dict[int, dict[int, Episode]] = {}
        self._last_hist: dict[int, tuple[int, AgentState]] = {}
        self._cond = threading.Condition()
        self._sent = 0
        self._done = 0
        #: ``(frame number, job)`` of the jobs sent and not yet said committed, oldest first
        self._unacked: deque[tuple[int, Any]] = deque()
        #: frames sent to the child (its count of jobs done is of these)
        self._seq = 0
        self._first = first
        busy = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
        # both processes mask (the child the rows, this one the state it saves): the detectors
        # are read once, here, and handed to the child
        spec = load_rules()
        # a fresh interpreter, not a fork: a forked child would inherit SQLite's bookkeeping of
        # this process's locks on the database file (its connections' state), and SQLite is not
        # fork-safe; nor multiprocessing's spawn, which runs this process's main module again
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        try:
            import fcntl

            fcntl.fcntl(down_w, _F_SETPIPE_SZ, PIPE_BYTES)
        except (ImportError, OSError):
            pass
        setup = _enc.encode((db_file(conn), busy, unsynced, mask, _name_of(first), spec))
        root = str(Path(__file__).resolve().parents[3])  # where this tracetui is imported from
        code = f"import sys; sys.path.insert(0, {root!r}); from tracetui.session.store.writer_proc import main; main()"
        try:
            # its output goes nowhere (no traceback on the user's terminal): a failure is said
            # through the pipe, or by the pipe's end
            self._proc = subprocess.Popen(
                [sys.executable, "-c", code, str(down_r), str(up_w)],
                pass_fds=(down_r, up_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                close_fds=True,
            )
        finally:
            os.close(down_r)
            os.close(up_w)
        self._down, self._up = Connection(down_w, readable=False), Connection(up_r, writable=False)
        self._down.send_bytes(setup)  # small: the pipe holds it until the child reads it
        self._send_lock = threading.Lock()
        #: frames for the child, sent by a thread of this process (the child's interpreter takes
        #: a while to start: the fold goes on meanwhile), :data:`SEND_FRAMES` at most
        self._out: queue.Queue[bytes | None] = queue.Queue(maxsize=SEND_FRAMES)
        self._stopped = False
        self._sender = threading.Thread(target=self._send, name="tracetui-store-send", daemon=True)
        self._sender.start()
        self._reader = threading.Thread(target=self._acks, name="tracetui-store-acks", daemon=True)
        self._reader.start()

    def _send(self) -> None:
        """This process's thread writing the frames to the child's pipe (``None``: the end)."""
        broken = False
        while True:
            frame = self._out.get()
            if broken:
                if frame is None:
                    return
                continue  # the child ended: its end of file keeps the jobs (see _acks)
            try:
                if frame is None:
                    self._down.send_bytes(_STOP)
                    self._down.close()
                    return
                self._down.send_bytes(frame)
            except OSError:
                broken = True
                if frame is None:
                    return

    @property
    def done(self) -> int:
        """How many jobs are done (written, or kept in memory): those numbered up to it."""
        return self._done

    def submit(self, job: Any) -> int:
        """Send ``job``; returns its number (jobs are done in order: see :attr:`done`)."""
        if callable(job) and job is not self._first:
            return self._run_here(job)
        why = None
        try:
            frame = _FIRST if callable(job) else self._frame(job)
        except Exception as exc:  # noqa: BLE001 - a bug here must not lose the job
            frame, why = b"", f"{type(exc).__name__}: {exc}"
        if callable(job):
            self._first = None  # the child runs it, in order, in its first transaction
        with self._send_lock:  # numbered and sent in one order
            with self._cond:
                self._sent += 1
                n = self._sent
                if why is not None:
                    self.failed = self.failed or why
                if self.failed is not None:
                    self._keep(job)
                    self._done += 1
                    self._cond.notify_all()
                    return n
                self._seq += 1
                self._unacked.append((self._seq, job))
            self._out.put(frame)
        return n

    def _frame(self, job: Any) -> bytes:
        kind, src = job[0], job[1]
        if kind == "events":
            return _EVENTS + _enc.encode((src, job[2]))
        if kind == "history":
            return _HISTORY + _enc.encode((src, history_bodies(self._last_hist, src, job[2], job[3])))
        if kind == "episodes":
            return _EPISODES + _enc.encode((src, [plain_row(src, pos, ep) for pos, ep in job[2]]))
        raise ValueError(f"unknown job {kind!r}")

    def _run_here(self, job: Callable[[sqlite3.Connection], None]) -> int:
        self.sync()  # one writer at a time: the child is idle now
        with self._cond:
            self._sent += 1
            n = self._sent
        if self.failed is None:
            try:
                with self.lock:
                    self.conn.execute("BEGIN IMMEDIATE")
                    try:
                        job(self.conn)
                        self.conn.execute("COMMIT")
                    except BaseException:
                        self.conn.execute("ROLLBACK")
                        raise
            except sqlite3.Error as exc:
                self.failed = f"{type(exc).__name__}: {exc}"
        with self._cond:
            self._done += 1
            self._cond.notify_all()
        return n

    def _acks(self) -> None:
        """This process's thread reading the child's acknowledgements (until its end)."""
        why: str | None = None
        while True:
            try:
                done, why = _ack_dec.decode(self._up.recv_bytes())
            except (EOFError, OSError, msgspec.DecodeError):
                why = "the store's writer process ended"
                done = -1
            with self._cond:
                while self._unacked and self._unacked[0][0] <= done:
                    _n, job = self._unacked.popleft()
                    if type(job) is tuple and job[0] == "events":
                        job[3].on_disk = job[2][-1].seq  # committed: readers need not wait
                    self._done += 1
                if why is not None:
                    self.failed = self.failed or why
                    for _n, job in self._unacked:
                        self._keep(job)
                        self._done += 1
                    self._unacked.clear()
                self._cond.notify_all()
            if why is not None:
                break
        try:
            self._up.close()
        except OSError:
            pass
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def _keep(self, job: Any) -> None:
        keep(self, job)

    def sync(self) -> None:
        """Wait until every job submitted so far is written (or kept in memory)."""
        with self._cond:
            while self._done < self._sent:
                self._cond.wait()

    def stop(self) -> None:
        """End the child once the jobs sent so far are done."""
        with self._send_lock:
            if not self._stopped:
                self._stopped = True
                self._out.put(None)
