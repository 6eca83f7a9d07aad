"""The session databases' connections, bounded: a :class:`Link` is one connection opened when
first used; past :data:`MAX_OPEN` links open in the process, the least recently used idle ones
are closed, and each opens again at its next use.

Each open connection to a session database holds two file descriptors (the database and its
WAL file; the shared-memory file is one more per database). The monitor's fleet follows every
session of its window, each with its own store: without a bound, about 250 sessions used up
the usual limit of 1,024 descriptors and the rest could not be read (eighth user trial).
Closing an idle connection loses nothing: the fold's state is in memory, the rows are in the
database, and a reopen costs a ``connect`` and its pragmas (well under a millisecond).

A link is used holding it (it is the store's ``wlock`` or ``rlock``): the pool closes a link's
connection only when no thread holds it (a link it finds held is closed when its holder lets
go), never inside a transaction, and never a pinned one (a writer process's, or a private
temporary database, whose rows live only as long as its connection).
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections import OrderedDict, deque

from tracetui.session.store.db import connect

__all__ = ["Link", "MAX_OPEN", "open_links"]

#: connections to session databases the process keeps open at most (the least recently used
#: idle ones are closed past it): about 2 descriptors each, plus one per database
MAX_OPEN = 48

_lock = threading.Lock()
#: the open links of session databases, the least recently used first
_open: OrderedDict[int, weakref.ref[Link]] = OrderedDict()


class Link:
    """One connection to the database at ``path`` (``""``: a private temporary one, never
    closed by the pool), opened with ``busy_ms`` (store/db.py :func:`connect`) when first used.
    The link is also the lock its users hold while they use the connection (``with link:``,
    :attr:`lock` is the link): the pool closes the connection of a link it finds held when
    its holder lets go.

    ``conn``: a connection already open (``connect(path, busy_ms)``)."""

    def __init__(self, path: str, busy_ms: int, conn: sqlite3.Connection | None = None) -> None:
        self.path = path
        self.busy_ms = busy_ms
        self._lock = threading.Lock()
        #: not closed by the pool (a temporary database, a writer process's connection)
        self.pinned = path == ""
        self._conn = conn
        #: the pool wants the connection closed (it found the link held): closed when let go,
        #: though used again meanwhile (the other links of its database are closed already)
        self._closing = False
        #: pragmas set since the open, set again at a reopen (``synchronous=OFF`` of a build)
        self._pragmas: dict[str, str] = {}
        if conn is not None:
            _touch(self)

    # -- the lock ----------------------------------------------------------------------------
    @property
    def lock(self) -> Link:
        return self

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        if self._closing:
            self._closing = False
            self._close_idle()
        self._lock.release()

    def __enter__(self) -> Link:
        self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def locked(self) -> bool:
        return self._lock.locked()

    # -- the connection ----------------------------------------------------------------------
    @property
    def is_open(self) -> bool:
        return self._conn is not None

    def get(self) -> sqlite3.Connection:
        """The connection, opened now when closed (call holding the link). Raises
        ``sqlite3.Error`` or ``OSError`` when it cannot be opened."""
        c = self._conn
        if c is None:
            c = connect(self.path, self.busy_ms)
            try:
                for name, value in self._pragmas.items():
                    c.execute(f"PRAGMA {name}={value}")
            except BaseException:
                c.close()
                raise
            self._conn = c
        _touch(self)
        return c

    def pragma(self, name: str, value: str) -> None:
        """Set ``PRAGMA name=value`` now and at every reopen (call holding the link).
        Raises ``sqlite3.Error``, ``OSError``."""
        self.get().execute(f"PRAGMA {name}={value}")
        self._pragmas[name] = value

    def evict(self) -> bool:
        """The pool's ask: close the connection now if no thread holds the link (``True``),
        else when its holder lets go (``False``). A pinned link stays open."""
        if self.pinned:
            return False
        if not self._lock.acquire(blocking=False):
            self._closing = True
            return False
        try:
            return self._close_idle()
        finally:
            self._lock.release()

    def _close_idle(self) -> bool:
        """Close the connection unless pinned or inside a transaction (call holding the link)."""
        c = self._conn
        if c is None:
            return True
        if self.pinned or c.in_transaction:
            return False
        self.close()
        return True

    def close(self) -> None:
        """Close the connection now (the store is done with it; a later :meth:`get` opens it
        again). Call holding the link or when no other thread uses it."""
        c, self._conn = self._conn, None
        _forget(self)
        if c is not None:
            try:
                c.close()
            except sqlite3.Error:
                pass


def open_links() -> int:
    """How many links of session databases are open in the process."""
    with _lock:
        return len(_open)


def _touch(link: Link) -> None:
    """``link`` was just used: the most recently used; past :data:`MAX_OPEN`, the least
    recently used links are asked to close (outside the pool's lock: a close takes a link)."""
    if link.pinned:
        return
    k = id(link)
    with _lock:
        _purge()
        ref = _open.get(k)
        if ref is not None and ref() is link:
            _open.move_to_end(k)
        else:
            _open[k] = weakref.ref(link, _dead.append)
        if len(_open) <= MAX_OPEN:
            return
        older = list(_open.values())
    over = len(older) - MAX_OPEN
    done: set[str] = {link.path}
    for r in older:
        other = r()
        if other is None or other.path in done:
            continue
        # every link of that database: SQLite keeps a closed connection's descriptor open while
        # another connection of the process to the same database is (its POSIX locks)
        done.add(other.path)
        for r2 in older:
            one = r2()
            if one is not None and one.path == other.path:
                one.evict()  # closed now, or when its holder lets go
                over -= 1
        if over <= 0:
            return


def _forget(link: Link) -> None:
    with _lock:
        _purge()
        ref = _open.get(id(link))
        if ref is not None and ref() is link:
            del _open[id(link)]


#: references of links collected since (a weakref callback may run inside the pool's lock, on
#: any thread: it only appends here, and the pool drops them at its next use)
_dead: deque[weakref.ref[Link]] = deque()


def _purge() -> None:
    """Drop the collected links (call holding the pool's lock)."""
    while _dead:
        ref = _dead.popleft()
        for k in [k for k, v in _open.items() if v is ref]:
            del _open[k]
