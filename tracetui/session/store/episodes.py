"""The episodes of a saved fold state: every version of every episode, one row each in the
``episodes`` table (store/db.py), and not a second time in the fold state.

An :class:`~tracetui.model.episodes.EpisodeBook` keeps its versions in creation order
(``versions``; ``latest`` points into it), so a row holds its position there (``pos``); the
open episode, frozen as ``in_progress``, is saved too for queries (``pos`` NULL) but is not part
of the book. :func:`without_versions` leaves the versions out of the fold state while it is
encoded; :func:`restore_versions` puts them back from the rows.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec

from tracetui.model.episodes import Episode
from tracetui.session.store.masking import masked

__all__ = ["episode_rows", "without_versions", "restore_versions"]

_dec = msgspec.msgpack.Decoder(Episode)
_enc = msgspec.msgpack.Encoder()


def _book(fold: Any) -> Any:
    return getattr(getattr(fold, "derive", None), "book", None)


def episode_rows(folds: list[Any]) -> Iterator[tuple]:
    """The ``episodes`` rows of ``folds`` (file folds), one version at a time (a save holds
    one compressed version, not all of them): ``(src, idx, version, lifecycle, status,
    made_at, pos, episode)``."""
    for f in folds:
        book = _book(f)
        if book is None:
            continue
        versions = book.versions
        for pos, ep in enumerate(versions):
            yield (f.src, ep.index, ep.version, ep.lifecycle, ep.status, ep.made_at, pos, zlib.compress(masked(_enc.encode(ep)), 1))
        d = f.snapshot().derived
        eps = d.episodes if d is not None else ()
        for ep in eps[len(versions) :]:  # the open episode, frozen
            yield (f.src, ep.index, ep.version, ep.lifecycle, ep.status, ep.made_at, None, zlib.compress(masked(_enc.encode(ep)), 1))


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


def restore_versions(conn: sqlite3.Connection, folds: list[Any]) -> None:
    """Give each restored fold's episode book its versions back from the ``episodes`` rows.
    Raises ``ValueError`` when the rows do not match the books (``latest`` pointing past
    them, positions missing), ``msgspec.DecodeError`` or ``zlib.error`` when they are damaged."""
    by_src: dict[int, list[Episode]] = {}
    for src, pos, blob in conn.execute("SELECT src, pos, episode FROM episodes WHERE pos IS NOT NULL ORDER BY src, pos"):
        got = by_src.setdefault(src, [])
        if pos != len(got):
            raise ValueError(f"corrupt store: episode versions of source {src} missing")
        got.append(_dec.decode(zlib.decompress(blob)))
    for f in folds:
        book = _book(f)
        if book is None:
            continue
        versions = by_src.get(f.src, [])
        want = max(book.latest.values()) + 1 if book.latest else 0
        if len(versions) != want:
            raise ValueError(f"corrupt store: source {f.src} has {len(versions)} episode versions saved, {want} expected")
        book.versions = versions
