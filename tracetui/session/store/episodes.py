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
_POS = (1 << 32) - 1
_ONE = "SELECT idx, version, pos, episode FROM episodes WHERE src = ? AND idx = ? AND version = ?"
_RANGE = "SELECT idx, version, pos, episode FROM episodes WHERE src = ? AND idx >= ? AND idx <= ?"


def _key(idx: int, version: int, pos: int) -> int:
    return (idx << 64) | (version << 32) | pos


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
    and version by position (a restored book)."""

    def __init__(self, store: Any, src: int, idx: Sequence[int] = (), ver: Sequence[int] = (), resolved: Sequence[int] = ()) -> None:
        self.store = store
        self.src = src
        self._idx = array("q", idx)
        self._ver = array("q", ver)
        #: by position: whether the version counts errors a retry resolved (``retry_fixes``)
        self._resolved = array("b", (1 if r else 0 for r in resolved) if resolved else bytes(len(self._idx)))
        #: every position's (index, version, position) key, in (index, version) order
        self._keys = sorted(_key(i, v, p) for p, (i, v) in enumerate(zip(self._idx, self._ver)))
        self._order: list[int] | None = None
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
        k = _key(ep.index, ep.version, pos)
        if not self._keys or k > self._keys[-1]:
            self._keys.append(k)
        else:
            bisect.insort(self._keys, k)
        self._order = None
        self._gen += 1
        self._dirty[pos] = ep
        if len(self._dirty) >= FLUSH:
            self.flush()

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
            except sqlite3.Error:
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

    # -- snapshots ---------------------------------------------------------------------------
    def ordered(self, tail: tuple[Episode, ...] = ()) -> EpisodeSeq:
        """The versions in (index, version) order as they are now, then ``tail`` (the open
        episode), read when asked for (for ``EpisodeBook.snapshot``)."""
        if self._order is None:
            self._order = [k & _POS for k in self._keys]
        seq = EpisodeSeq(self, self._order, tail, {}, gen=self._gen)
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
    for src, book in books.items():
        versions = book.versions if book is not None else None
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
    the ``episodes`` rows (their index and version by position; the versions are read when
    asked for). Raises ``ValueError`` when the rows do not match the books (``latest``
    pointing past them, positions missing or twice)."""
    by_src: dict[int, dict[int, tuple[int, int, int]]] = {}
    for src, idx, ver, pos, res in conn.execute("SELECT src, idx, version, pos, resolved FROM episodes WHERE pos IS NOT NULL"):
        got = by_src.setdefault(src, {})
        if pos in got:
            raise ValueError(f"corrupt store: episode version {pos} of source {src} saved twice")
        got[pos] = (idx, ver, res)
    for f in folds:
        book = _book(f)
        if book is None:
            continue
        rows = by_src.get(f.src, {})
        want = max(book.latest.values()) + 1 if book.latest else 0
        if len(rows) != want or any(p not in rows for p in range(want)):
            raise ValueError(f"corrupt store: source {f.src} has {len(rows)} episode versions saved, {want} expected")
        keys = [rows[p] for p in range(want)]
        book.versions = StoreEpisodes(store, f.src, [k[0] for k in keys], [k[1] for k in keys], [k[2] or 0 for k in keys])
