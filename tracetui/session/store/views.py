"""What a snapshot holds of a stored ledger or history: read-only sequences that read the
session database when indexed (store/ledger.py writes it), so ``RunState.ledgers`` and
``RunState.history`` work the same whether a fold kept them in lists or in the store. A view
holds its :class:`~tracetui.session.store.ledger.Store` (typed ``Any`` here: ledger.py makes the
views, so this module does not import it back)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from tracetui.model.state import AgentState, Event

__all__ = ["LedgerView", "HistoryView", "BLOCK"]

#: events a view reads around an indexed one (a scan backwards reads one block per BLOCK)
BLOCK = 256
#: blocks a view keeps, the least recently used dropped first (a pane's read on the UI thread
#: finds the block the fold worker read ahead for it, though the fleet's thread read others since)
BLOCKS_KEPT = 16
#: events an iteration over a view reads at once
CHUNK = 4096


class LedgerView(Sequence):
    """The first ``n`` events of a source's stored ledger, read from the database on demand
    (indexing reads a block of :data:`BLOCK` events around the index; :data:`BLOCKS_KEPT` are kept)."""

    def __init__(self, store: Any, src: int, n: int, ledger: Any = None) -> None:
        self.store = store
        self.src = src
        self.n = n
        self.ledger = ledger
        self._blocks: dict[int, list[Event]] = {}

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.indices(self.n)
            if step == 1:
                return self.store.read_events(self.src, start, stop, self.ledger)
            lo, hi = (start, stop) if step > 0 else (stop + 1, start + 1)
            evs = self.store.read_events(self.src, lo, hi, self.ledger)
            return evs[::step] if step > 0 else evs[::-1][::-step]
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("ledger index out of range")
        b, k = divmod(i, BLOCK)
        blks = self._blocks
        blk = blks.pop(b, None)
        if blk is None:
            if len(blks) >= BLOCKS_KEPT:
                blks.pop(next(iter(blks), -1), None)  # the least recently used (another thread may read it too)
            blk = self.store.read_events(self.src, b * BLOCK, min(self.n, b * BLOCK + BLOCK), self.ledger)
        blks[b] = blk  # the most recently used last
        if k >= len(blk) or blk[k].seq != i + 1:
            found = [e for e in blk if e.seq == i + 1]
            if not found:
                raise IndexError(f"event {i + 1} of source {self.src} is not in the store")
            return found[0]
        return blk[k]

    def __iter__(self) -> Iterator[Event]:
        for start in range(0, self.n, CHUNK):
            yield from self.store.read_events(self.src, start, min(self.n, start + CHUNK), self.ledger)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or len(other) != self.n:
            return False
        return list(self) == list(other)

    def __hash__(self) -> int:
        return hash((self.src, self.n))

    def __repr__(self) -> str:
        return f"<LedgerView src={self.src} n={self.n}>"


class HistoryView(Sequence):
    """The first ``n`` per-prompt snapshots of a source, each read from the database when
    indexed (a few are kept decoded). A prefix slice is a view too."""

    def __init__(self, store: Any, src: int, n: int, memo: dict[int, AgentState] | None = None) -> None:
        self.store = store
        self.src = src
        self.n = n
        self._memo: dict[int, AgentState] = {} if memo is None else memo

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.indices(self.n)
            if start == 0 and step == 1:
                return HistoryView(self.store, self.src, max(0, stop), self._memo)
            return [self[k] for k in range(start, stop, step)]
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("history index out of range")
        got = self._memo.get(i)
        if got is None:
            got = self.store.read_history(self.src, i)
            if len(self._memo) >= 16:
                self._memo.pop(next(iter(self._memo), -1), None)  # another thread may read it too
            self._memo[i] = got
        return got

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or len(other) != self.n:
            return False
        return all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash((self.src, self.n))

    def __repr__(self) -> str:
        return f"<HistoryView src={self.src} n={self.n}>"
