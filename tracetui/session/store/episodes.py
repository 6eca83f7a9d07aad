"""The episodes of a stored fold: every version of every episode, one row each in the
``episodes`` table (store/db.py), read back when asked for, not held in memory.

An :class:`~tracetui.model.episodes.EpisodeBook` keeps its versions in creation order
(``versions``; ``latest`` points into it), so a row holds its position there (``pos``). With the
store, ``versions`` is a :class:`StoreEpisodes`: it writes each version as it is made (through
the store's writer), keeps in memory the versions not written yet and per position only the
episode's index and version, and reads a version back when the fold changes it (a late result,
a retry, a stale mark) or a view reads it. A snapshot's episodes are an :class:`EpisodeSeq`: the
versions in (index, version) order as they were then, read on demand (the open episode, frozen
as ``in_progress``, is saved too for queries, ``pos`` NULL, but is not part of the book).

:func:`without_versions` leaves the versions out of the fold state while it is encoded;
:func:`restore_versions` gives a restored book its :class:`StoreEpisodes` from the rows.
"""

from __future__ import annotations

import bisect
import sqlite3
import weakref
import zlib
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import msgspec

from tracetui.model.episodes import Episode
from tracetui.session.store.episode_seq import EpisodeSeq
from tracetui.session.store.masking import masked

__all__ = [
    "StoreEpisodes",
    "EpisodeSeq",
    "episode_row",
    "plain_row",
    "sealed_row",
    "episode_rows",
    "save_episodes",
    "without_versions",
    "restore_versions",
    "FLUSH",
]

#: versions made or changed that are handed to the writer at once
FLUSH = 64

_dec = msgspec.msgpack.Decoder(Episode)
_enc = msgspec.msgpack.Encoder()
_ONE = "SELECT idx, version, pos, episode FROM episodes WHERE src = ? AND idx = ? AND version = ?"
#: positions are unique (store/db.py ``episodes_pos``): n rows from 0 to n - 1 are each position once
_COUNT = "SELECT count(*), min(pos), max(pos) FROM episodes WHERE src = ? AND pos IS NOT NULL"
_RANGE = "SELECT idx, version, pos, episode FROM episodes WHERE src = ? AND idx >= ? AND idx <= ?"


def episode_blob(ep: Episode, mask: bool = True) -> bytes:
    """The ``episode`` column of ``ep``: zlib-compressed msgpack, its secrets masked."""
    raw = _enc.encode(ep)
    return zlib.compress(masked(raw) if mask else raw, 1)


def episode_row(src: int, pos: int | None, ep: Episode, mask: bool = True) -> tuple:
    """The ``episodes`` row of version ``ep`` at position ``pos`` (``None``: the open one)."""
    return (src, ep.index, ep.version, ep.lifecycle, ep.status, ep.made_at, pos, episode_blob(ep, mask), ep.resolved_errors)


def plain_row(src: int, pos: int | None, ep: Episode) -> tuple:
    """:func:`episode_row` with the plain MessagePack of ``ep`` in place of its blob (what
    :func:`sealed_row` finishes: the store's writer process gets this)."""
    return (src, ep.index, ep.version, ep.lifecycle, ep.status, ep.made_at, pos, _enc.encode(ep), ep.resolved_errors)


def sealed_row(row: Sequence[Any], mask: bool = True) -> tuple:
    """The :func:`episode_row` a :func:`plain_row` stands for."""
    raw = row[7]
    return (*row[:7], zlib.compress(masked(raw) if mask else raw, 1), row[8])


class StoreEpisodes:
    """One file's episode versions (``EpisodeBook.versions``) kept in ``store`` (a
    :class:`~tracetui.session.store.ledger.Store`): a list of
    :class:`Episode` to the book (``append``, ``len``, ``[pos]``, ``[pos] = version``), whose
    versions live in the ``episodes`` rows of source ``src``. ``keys`` are the saved ones' index
    and version by position (a restored book), ``order`` the positions in (index, version)
    order (computed when not given)."""

    def __init__(
        self,
        store: Any,
        src: int,
        idx: Sequence[int] = (),
        ver: Sequence[int] = (),
        resolved: Sequence[int] = (),
        order: Sequence[int] | None = None,
    ) -> None:
        self.store = store
        self.src = src
        self._idx = array("q", idx)
        self._ver = array("q", ver)
        #: by position: whether the version counts errors a retry resolved (``retry_fixes``)
        if isinstance(resolved, array):
            self._resolved = array("b", resolved)
        else:
            self._resolved = array("b", (1 if r else 0 for r in resolved) if resolved else bytes(len(self._idx)))
        #: every position, in (index, version) order
        if order is None:
            order = sorted(range(len(self._idx)), key=self._sort_key)
        self._order = array("q", order)
        #: ``_order`` as of the last change, shared by the snapshots made since (they keep it)
        self._order_copy: array[int] | None = None
        #: versions made or changed, not handed to the writer yet
        self._dirty: dict[int, Episode] = {}
        #: versions handed to the writer: position -> (its job number, version), until written
        self._inflight: dict[int, tuple[int, Episode]] = {}
        #: versions read back from the database (what the views read stays: they read it again)
        self._read: dict[int, Episode] = {}
        #: the snapshots' sequences alive: a version changed is pinned in them as it was
        self._seqs: list[weakref.ref[EpisodeSeq]] = []
        #: changes so far (appends, versions changed), and every version in (index, version)
        #: order as of change ``_body_gen`` once a view read them all (the next snapshot of the
        #: same versions shares them: a view redrawn each second reads them once)
        self._gen = 0
        self._body: tuple[Episode, ...] | None = None
        self._body_gen = -1

    # -- the list the book sees --------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._idx)

    def append(self, ep: Episode) -> None:
        pos = len(self._idx)
        self._idx.append(ep.index)
        self._ver.append(ep.version)
        self._resolved.append(1 if ep.resolved_errors else 0)
        order = self._order
        if not order or self._sort_key(pos) > self._sort_key(order[-1]):
            order.append(pos)
        else:  # a later version of an earlier episode
            bisect.insort(order, pos, key=self._sort_key)
        self._order_copy = None
        self._gen += 1
        self._dirty[pos] = ep
        if len(self._dirty) >= FLUSH:
            self.flush()

    def _sort_key(self, pos: int) -> tuple[int, int]:
        return self._idx[pos], self._ver[pos]

    def _pos(self, i: int) -> int:
        n = len(self._idx)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("episode version index out of range")
        return i

    def __getitem__(self, i: int) -> Episode:
        return self.get(self._pos(i))

    def __setitem__(self, i: int, ep: Episode) -> None:
        pos = self._pos(i)
        if (ep.index, ep.version) != (self._idx[pos], self._ver[pos]):
            raise ValueError("an episode version keeps its index and version")
        if self._seqs:
            old = self.get(pos)
            for r in self._seqs:
                seq = r()
                if seq is not None:
                    seq._pin(pos, old)
        self._gen += 1
        self._dirty[pos] = ep
        self._read.pop(pos, None)
        self._resolved[pos] = 1 if ep.resolved_errors else 0
        if len(self._dirty) >= FLUSH:
            self.flush()

    def __iter__(self) -> Iterator[Episode]:
        for pos in range(len(self._idx)):
            yield self.get(pos)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, StoreEpisodes)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    # -- reads -------------------------------------------------------------------------------
    def get(self, pos: int) -> Episode:
        """Version ``pos`` (0-based, in range) as it is now. Raises ``IndexError`` when the
        database lost it (another process started the source over)."""
        ep = self._dirty.get(pos)
        if ep is not None:
            return ep
        got = self._inflight.get(pos)
        if got is not None:
            return got[1]
        ep = self._read.get(pos)
        if ep is not None:
            return ep
        ep = self._fetch([pos])[pos]
        self._read[pos] = ep
        return ep

    def _fetch(self, positions: list[int], strict: bool = True) -> dict[int, Episode]:
        """Versions ``positions`` from the database (or the writer's memory after a failed
        write). Raises ``IndexError`` when one is missing or damaged; without ``strict`` such
        a one is left out."""
        w = self.store._writer
        mem = w.mem_episodes.get(self.src, {}) if w is not None else {}
        out: dict[int, Episode] = {p: mem[p] for p in positions if p in mem}
        want = [p for p in positions if p not in out]
        if want:
            by_key = {(self._idx[p], self._ver[p]): p for p in want}
            try:
                with self.store.rlock:
                    if len(want) <= 8:
                        rows = []
                        for idx, ver in by_key:
                            rows += self.store.rconn.execute(_ONE, (self.src, idx, ver)).fetchall()
                    else:
                        lo, hi = min(self._idx[p] for p in want), max(self._idx[p] for p in want)
                        rows = self.store.rconn.execute(_RANGE, (self.src, lo, hi)).fetchall()
            except (sqlite3.Error, OSError):
                rows = []
            for idx, ver, pos, blob in rows:
                p = by_key.get((idx, ver))
                if p is not None and pos == p:
                    try:
                        out[p] = _dec.decode(zlib.decompress(blob))
                    except (msgspec.DecodeError, zlib.error) as exc:
                        if not strict:
                            continue
                        raise IndexError(f"episode version {p} of source {self.src} is damaged: {exc}") from None
        missing = [p for p in positions if p not in out]
        if missing and strict:
            raise IndexError(f"episode version {missing[0]} of source {self.src} is not in the store")
        return out

    def read_found(self, positions: Sequence[int]) -> dict[int, Episode]:
        """Versions ``positions`` as they are now, read with one query where not in memory; one
        the database lost (another process folded the file anew meanwhile) is left out, as the
        ledger's views leave out its missing events."""
        need = [p for p in positions if p not in self._dirty and p not in self._inflight and p not in self._read]
        if need:
            self._read.update(self._fetch(need, strict=False))
        out = {}
        for p in positions:
            ep = self._dirty.get(p) or self._read.get(p)
            if ep is None:
                got = self._inflight.get(p)
                ep = got[1] if got is not None else None
            if ep is not None:
                out[p] = ep
        return out

    # -- writes ------------------------------------------------------------------------------
    def _settle(self) -> None:
        """Forget the versions the writer has written (they are read back from the rows); on
        the fold's thread."""
        w = self.store._writer
        if self._inflight and w is not None:
            done = w.done
            for pos in [p for p, (job, _ep) in self._inflight.items() if job <= done]:
                del self._inflight[pos]

    def flush(self) -> None:
        """Hand the versions made or changed to the writer (on the fold's thread)."""
        self._settle()
        if not self._dirty:
            return
        items = sorted(self._dirty.items())
        job = self.store.submit(("episodes", self.src, items))
        for pos, ep in items:  # before they leave ``_dirty``: a reader finds them in one or the other
            self._inflight[pos] = (job, ep)
        self._dirty = {}

    def keys(self) -> list[tuple[int, int]]:
        """Every position's ``(index, version)``."""
        return list(zip(self._idx, self._ver))

    def key_row(self) -> tuple[int, bytes, bytes, bytes, bytes]:
        """``(n, idx, ver, resolved, ord)``: the ``episode_keys`` row of these versions (the
        arrays' machine bytes), read back by :func:`restore_versions`."""
        return len(self._idx), self._idx.tobytes(), self._ver.tobytes(), self._resolved.tobytes(), self._order.tobytes()

    # -- snapshots ---------------------------------------------------------------------------
    def ordered(self, tail: tuple[Episode, ...] = ()) -> EpisodeSeq:
        """The versions in (index, version) order as they are now, then ``tail`` (the open
        episode), read when asked for (for ``EpisodeBook.snapshot``)."""
        if self._order_copy is None:
            self._order_copy = array("q", self._order)
        seq = EpisodeSeq(self, self._order_copy, tail, {}, gen=self._gen)
        self._seqs = [r for r in self._seqs if r() is not None]
        self._seqs.append(weakref.ref(seq))
        return seq


def _book(fold: Any) -> Any:
    return getattr(getattr(fold, "derive", None), "book", None)


def episode_rows(folds: list[Any], mask: bool = True) -> Iterator[tuple]:
    """The ``episodes`` rows of ``folds`` (file folds) that a save writes itself: every version
    of a book kept in a list, and each open episode, frozen (``pos`` NULL), one at a time (a save
    holds one compressed version, not all of them): ``(src, idx, version, lifecycle, status,
    made_at, pos, episode, resolved)``. A :class:`StoreEpisodes` book's versions are written as they come."""
    for f in folds:
        book = _book(f)
        if book is None:
            continue
        versions = book.versions
        if not isinstance(versions, StoreEpisodes):
            for pos, ep in enumerate(versions):
                yield episode_row(f.src, pos, ep, mask)
        d = f.snapshot().derived
        eps = d.episodes if d is not None else ()
        # the open episode, frozen
        for ep in eps._tail if isinstance(eps, EpisodeSeq) else eps[len(versions) :]:
            yield episode_row(f.src, None, ep, mask)


def save_episodes(c: sqlite3.Connection, folds: list[Any]) -> None:
    """Make the ``episodes`` rows those of ``folds`` (inside the save's transaction): a stored
    book's rows are there (written as they came: the caller flushed and synced them), rows no
    book holds go (an earlier fold's, the open episodes'), the others are written."""
    books = {f.src: _book(f) for f in folds}
    c.execute("DELETE FROM episodes WHERE pos IS NULL")
    c.execute("DELETE FROM episodes WHERE src >= ?", (len(folds),))
    c.execute("DELETE FROM episode_keys")
    for src, book in books.items():
        versions = book.versions if book is not None else None
        if versions is not None:
            keys = versions if isinstance(versions, StoreEpisodes) else StoreEpisodes(None, src, *_keys_of(versions))
            c.execute("INSERT INTO episode_keys VALUES (?,?,?,?,?,?)", (src, *keys.key_row()))
        if not isinstance(versions, StoreEpisodes):
            c.execute("DELETE FROM episodes WHERE src = ?", (src,))
            continue
        have = versions.keys()
        stale = [
            (src, idx, ver)
            for idx, ver, pos in c.execute("SELECT idx, version, pos FROM episodes WHERE src = ?", (src,))
            if not (0 <= pos < len(have) and have[pos] == (idx, ver))
        ]
        c.executemany("DELETE FROM episodes WHERE src = ? AND idx = ? AND version = ?", stale)
    c.executemany("INSERT OR REPLACE INTO episodes VALUES (?,?,?,?,?,?,?,?,?)", episode_rows(folds))


def _keys_of(versions: Sequence[Episode]) -> tuple[list[int], list[int], list[int]]:
    """The index, version and count of resolved errors of each of ``versions``."""
    return [e.index for e in versions], [e.version for e in versions], [e.resolved_errors for e in versions]


@contextmanager
def without_versions(folds: list[Any]) -> Iterator[None]:
    """While inside, every fold's episode book holds no versions (they are saved as rows)."""
    kept = []
    for f in folds:
        book = _book(f)
        if book is not None:
            kept.append((book, book.versions))
            book.versions = []
    try:
        yield
    finally:
        for book, versions in kept:
            book.versions = versions


def restore_versions(conn: sqlite3.Connection, folds: list[Any], store: Any) -> None:
    """Give each restored fold's episode book its versions back: a :class:`StoreEpisodes` over
    the ``episodes`` rows, their index and version by position from the ``episode_keys`` row
    (the versions are read when asked for). Raises ``ValueError`` when the rows do not match
    the books (``latest`` pointing past them, positions missing or twice, arrays of another
    length)."""
    saved = {row[0]: row[1:] for row in conn.execute("SELECT src, n, idx, ver, resolved, ord FROM episode_keys")}
    for f in folds:
        book = _book(f)
        if book is None:
            continue
        want = book.last_position() + 1
        count, lo, hi = conn.execute(_COUNT, (f.src,)).fetchone()
        if not (count == want and (want == 0 or (lo, hi) == (0, want - 1))):
            raise ValueError(f"corrupt store: source {f.src} has {count} episode versions saved, {want} expected")
        if f.src not in saved:
            raise ValueError(f"corrupt store: no episode keys of source {f.src}")
        n, idx, ver, res, order = saved[f.src]
        arrays = [array("q"), array("q"), array("b"), array("q")]
        for a, raw in zip(arrays, (idx, ver, res, order)):
            if not isinstance(raw, bytes):
                raise ValueError(f"corrupt store: the episode keys of source {f.src} are not arrays")
            a.frombytes(raw)
        if (
            n != want
            or any(len(a) != want for a in arrays)
            or (want and (min(arrays[3]) < 0 or len(set(arrays[3])) != want or max(arrays[3]) >= want))
        ):
            raise ValueError(f"corrupt store: the episode keys of source {f.src} disagree with its {want} versions")
        book.versions = StoreEpisodes(store, f.src, *arrays)
