"""A snapshot's episodes read from the session store on demand: :class:`EpisodeSeq`, what
:meth:`StoreEpisodes.ordered <tracetui.session.store.episodes.StoreEpisodes.ordered>` gives
``EpisodeBook.snapshot`` (store/episodes.py keeps the versions)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

from tracetui.model.episodes import Episode

__all__ = ["EpisodeSeq"]


class EpisodeSeq(Sequence):
    """A snapshot's episodes: a read-only sequence of :class:`Episode` (every version in
    (index, version) order, then the open one), its versions read from the store when first
    asked for and as they were when the snapshot was taken. Equal to a tuple of the same
    episodes. :meth:`current` and :meth:`resolved` give the versions some views read, without
    reading the others."""

    __slots__ = ("_book", "_order", "_tail", "_pins", "_parent", "_gen", "_all", "_js", "__weakref__")

    def __init__(
        self,
        book: Any,
        order: Sequence[int],
        tail: tuple[Episode, ...],
        pins: dict[int, Episode],
        parent: Any = None,
        gen: int = -1,
        js: list[int] | None = None,
    ) -> None:
        self._book = book
        self._order = order
        self._tail = tail
        #: versions changed since the snapshot, as they were (shared with the sequences made from it)
        self._pins = pins
        self._parent = parent  # the snapshot's own sequence, which the book pins into
        self._gen = gen  # the book's changes when the snapshot was taken
        #: every version of ``_order``, once read in full
        self._all: tuple[Episode, ...] | None = None
        #: of a sequence made from the snapshot's own: where its versions are in that one's order
        self._js = js

    def _body(self) -> tuple[Episode, ...]:
        """Every version of this sequence but the tail, read once (and shared with the next
        snapshot while the book does not change)."""
        got = self._all
        if got is not None:
            return got
        if self._parent is not None:
            if self._js is not None:
                whole = self._parent._body()
                got = tuple(whole[j] for j in self._js)
            else:
                got = tuple(self._at(self._order))
        else:
            book = self._book
            if book._body is not None and book._body_gen == self._gen and not self._pins:
                got = book._body
            else:
                got = tuple(self._at(self._order))
                if book._gen == self._gen and not self._pins:
                    book._body, book._body_gen = got, self._gen
        self._all = got
        return got

    def _pin(self, pos: int, ep: Episode) -> None:
        if pos < len(self._order) and pos not in self._pins:
            self._pins[pos] = ep

    def _at(self, positions: Sequence[int]) -> list[Episode]:
        pins = self._pins  # only grows: one pinned while the others are read is taken from here
        got = self._book.read_found([p for p in positions if p not in pins])
        return [pins[p] if p in pins else got[p] for p in positions if p in pins or p in got]

    def __len__(self) -> int:
        return len(self._order) + len(self._tail)

    @overload
    def __getitem__(self, i: int) -> Episode: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Episode, ...]: ...
    def __getitem__(self, i: int | slice) -> Episode | tuple[Episode, ...]:
        n = len(self._order)
        if isinstance(i, slice):
            idx = range(len(self))[i]
            got = iter(self._at([self._order[j] for j in idx if j < n]))
            return tuple(next(got) if j < n else self._tail[j - n] for j in idx)
        if i < 0:
            i += len(self)
        if i >= n:
            return self._tail[i - n]
        if i < 0:
            raise IndexError("episode index out of range")
        if self._all is not None:
            return self._all[i]
        pos = self._order[i]
        pin = self._pins.get(pos)
        return pin if pin is not None else self._book.get(pos)

    def __iter__(self) -> Iterator[Episode]:
        yield from self._body()
        yield from self._tail

    def __reversed__(self) -> Iterator[Episode]:
        # one at a time from the end: a view reading the newest few reads only those
        yield from reversed(self._tail)
        pins, get = self._pins, self._book.get
        for p in reversed(self._order):
            pin = pins.get(p)
            yield pin if pin is not None else get(p)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, list, EpisodeSeq)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EpisodeSeq({len(self)} episodes)"

    def current(self) -> EpisodeSeq:
        """The newest version of each episode, oldest first (the last of each index in this
        order: a version is superseded only by a newer one), the open episode last; as
        ``views.derived.current_episodes`` picks them, read when asked for."""
        idx = self._book._idx
        order = self._order
        js = [j for j, p in enumerate(order) if j + 1 == len(order) or idx[order[j + 1]] != idx[p]]
        tail = self._tail
        if tail and js and idx[order[js[-1]]] == tail[0].index:  # of two of one index, the newer
            if tail[0].version > self._book._ver[order[js[-1]]]:
                js.pop()
            else:
                tail = ()
        keep = [order[j] for j in js]
        where: list[int] | None = js
        if self._parent is not None:  # made from a made one: where they are in the snapshot's order
            where = [self._js[j] for j in js] if self._js is not None else None
        return EpisodeSeq(self._book, keep, tail, self._pins, self._parent or self, self._gen, where)

    def resolved(self) -> tuple[Episode, ...]:
        """The versions that count errors a retry resolved (and the open episode when it does):
        the only ones whose error notes can say ``resolved_by``."""
        flags = self._book._resolved
        out = self._at([p for p in self._order if flags[p] or (p in self._pins and self._pins[p].resolved_errors)])
        return (*out, *(e for e in self._tail if e.resolved_errors))
