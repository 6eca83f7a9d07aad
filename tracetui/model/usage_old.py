"""The usage of the message ids a :class:`~tracetui.model.usage.UsageBook` no longer keeps in
its dicts, packed in flat arrays (:class:`OldUsage`): about 50 bytes an id instead of some 300.

An id is known by its 128-bit BLAKE2b digest (two 64-bit halves), in an open-addressing hash
table of 32-bit entry numbers; each entry holds the message's tokens (five counts, the max so
far: 32-bit while every count fits, all 64-bit from the first that does not), and its model and
pricing bucket key as indices into a table of the (few) distinct strings (16-bit while there
are at most 65,536 of them, then 32-bit). Exact: a lookup compares the whole digest, so two ids are mixed up only if they share
128 bits of BLAKE2b, which for the 2^32 ids of the largest session imaginable has a chance below
2^-64 (the ledger's SHA-256 identity of payloads rests on the same property of hashes).

Most lookups are of an id never packed (each new message of a fold is looked up before it is
added). A filter of one bit per value of Python's ``hash`` of the id, modulo :data:`FILTER_BITS`
(1 MiB; the hash is cached in the ``str``), answers most of them without computing the digest:
a clear bit means the id was never put. The filter is exact only for ids put by key in this
process (``hash`` of a ``str`` differs between processes); a table read back from the cache or
given digests only (:meth:`OldUsage.put_digest`) looks every id up by its digest. What a lookup
answers never depends on the filter, only how fast it answers.
"""

from __future__ import annotations

import hashlib
from array import array
from functools import lru_cache
from typing import Any

__all__ = ["OldUsage", "digest_of"]

_EMPTY = -1
_GONE = -2
#: the largest count a 32-bit token array holds, and string index a 16-bit one
_U32 = (1 << 32) - 1
_U16 = (1 << 16) - 1
Entry = tuple[tuple[int, int, int, int, int], str, str]
#: the bits of the filter of ids put (one per value of ``hash(id)`` modulo this); about 3 % of
#: new ids pass it with 250,000 ids packed (a 2 GB session of the dense mix), 11 % with 10^6
FILTER_BITS = 1 << 23
_FILTER_MASK = FILTER_BITS - 1


@lru_cache(maxsize=4)
def digest_of(key: str) -> tuple[int, int]:
    """The two 64-bit halves of the BLAKE2b-128 digest of message id ``key`` (the last few
    kept: a new message is looked up, then added, by the same id)."""
    d = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    return int.from_bytes(d[:8], "little"), int.from_bytes(d[8:], "little")


class OldUsage:
    """Message id → ``(tokens, model, bucket key)``, packed (see the module's docstring).

    :meth:`put` an entry, :meth:`get` it (``None`` when absent), :meth:`pop` it back out;
    :meth:`items` yields ``((hi, lo), entry)``; ``len`` counts the entries."""

    __slots__ = ("_hi", "_lo", "_u", "_s", "_slot", "_mask", "_used", "_live", "_names", "_ix", "_filter", "_exact")

    def __init__(self) -> None:
        self._hi = array("Q")
        self._lo = array("Q")
        self._u = array("I")  # five token counts an entry ("q" once one needs more than 32 bits)
        self._s = array("H")  # model index, bucket key index ("I" beyond 65,536 strings)
        self._slot = array("i", [_EMPTY]) * 8
        self._mask = 7
        self._used = 0  # slots not empty (live or gone)
        self._live = 0
        self._names: list[str] = []
        self._ix: dict[str, int] = {}
        #: a bit set for ``hash(id) & _FILTER_MASK`` of every id put by key (allocated at the
        #: first), while ``_exact``: every entry was put by key in this process, so a clear bit
        #: is an id never put; once not, no filter is kept
        self._filter: bytearray | None = None
        self._exact = True

    def _may_hold(self, key: str) -> bool:
        """False only when ``key`` was never put (the filter's bit for it is clear)."""
        f = self._filter
        if f is None:
            return True
        h = hash(key) & _FILTER_MASK
        return bool(f[h >> 3] & (1 << (h & 7)))

    def __len__(self) -> int:
        return self._live

    def _find(self, hi: int, lo: int) -> tuple[int, int]:
        """``(slot position, entry)`` of the digest, entry -1 when absent (position: where the
        probe ended, an empty slot)."""
        slot, h, low = self._slot, self._hi, self._lo
        mask = self._mask
        pos = hi & mask
        while True:
            e = slot[pos]
            if e == _EMPTY:
                return pos, -1
            if e >= 0 and h[e] == hi and low[e] == lo:
                return pos, e
            pos = (pos + 1) & mask

    def _name(self, s: str) -> int:
        i = self._ix.get(s)
        if i is None:
            i = self._ix[s] = len(self._names)
            self._names.append(s)
            if i > _U16 and self._s.typecode == "H":
                self._s = array("I", self._s)
        return i

    def get(self, key: str) -> Entry | None:
        """The entry of message id ``key``, or ``None``."""
        if not self._live or not self._may_hold(key):
            return None
        _, e = self._find(*digest_of(key))
        return None if e < 0 else self._entry(e)

    def _entry(self, e: int) -> Entry:
        u = self._u[5 * e : 5 * e + 5]
        names = self._names
        return (u[0], u[1], u[2], u[3], u[4]), names[self._s[2 * e]], names[self._s[2 * e + 1]]

    def pop(self, key: str) -> Entry | None:
        """Remove and return the entry of ``key`` (``None`` when absent)."""
        return self.pop_digest(*digest_of(key)) if self._live and self._may_hold(key) else None

    def pop_digest(self, hi: int, lo: int) -> Entry | None:
        pos, e = self._find(hi, lo)
        if e < 0:
            return None
        self._slot[pos] = _GONE
        self._live -= 1
        return self._entry(e)  # the entry's arrays keep it until the next resize

    def put(self, key: str, entry: Entry) -> None:
        """Keep ``entry`` for ``key`` (which must not be here already)."""
        if self._exact:
            f = self._filter
            if f is None:
                f = self._filter = bytearray(FILTER_BITS >> 3)
            h = hash(key) & _FILTER_MASK
            f[h >> 3] |= 1 << (h & 7)
        self._put(*digest_of(key), entry)

    def put_digest(self, hi: int, lo: int, entry: Entry) -> None:
        """Keep ``entry`` for the id of digest ``(hi, lo)`` (:func:`digest_of`; not here
        already). Raises ``KeyError`` when it is."""
        self._exact = False  # an id the filter cannot know: every lookup reads the digests
        self._filter = None
        self._put(hi, lo, entry)

    def _put(self, hi: int, lo: int, entry: Entry) -> None:
        if (self._used + 1) * 3 > (self._mask + 1) * 2:
            self._resize()
        pos, e = self._find(hi, lo)
        if e >= 0:
            raise KeyError("message id kept twice")
        u, model, bk = entry
        n = len(self._hi)
        if self._u.typecode == "I" and (max(u) > _U32 or min(u) < 0):
            self._u = array("q", self._u)
        names = self._name(model), self._name(bk)  # (may widen ``_s``: before it is extended)
        self._hi.append(hi)
        self._lo.append(lo)
        self._u.extend(u)
        self._s.extend(names)
        self._slot[pos] = n
        self._used += 1
        self._live += 1

    def _resize(self) -> None:
        """Rebuild the table at most half full (and the entry arrays without the removed
        entries, when there are any)."""
        if self._live != len(self._hi):  # entries popped: keep the live ones, in order
            live = sorted(e for e in self._slot if e >= 0)
            hi, lo = array("Q", [self._hi[e] for e in live]), array("Q", [self._lo[e] for e in live])
            u, s = array(self._u.typecode), array(self._s.typecode)
            for e in live:
                u.extend(self._u[5 * e : 5 * e + 5])
                s.extend(self._s[2 * e : 2 * e + 2])
            self._hi, self._lo, self._u, self._s = hi, lo, u, s
        n = len(self._hi)
        size = 8
        while size < 2 * n + 2:
            size *= 2
        slot = array("i", [_EMPTY]) * size
        mask = size - 1
        for e, hi_e in enumerate(self._hi):  # every digest is distinct: find an empty slot
            pos = hi_e & mask
            while slot[pos] != _EMPTY:
                pos = (pos + 1) & mask
            slot[pos] = e
        self._slot, self._mask = slot, mask
        self._used = self._live = n

    def items(self) -> Any:
        """``((hi, lo), entry)`` of every entry, in the order they were put."""
        for e in sorted(e for e in self._slot if e >= 0):
            yield (self._hi[e], self._lo[e]), self._entry(e)

    # -- the fold cache (store/codec.py: an object with to_cache/from_cache) --------------------
    def to_cache(self) -> list[Any]:
        return [
            self._hi.tobytes(),
            self._lo.tobytes(),
            self._u.tobytes(),
            self._s.tobytes(),
            self._slot.tobytes(),
            self._used,
            self._live,
            self._names,
            self._u.typecode + self._s.typecode,
        ]

    @classmethod
    def from_cache(cls, v: list[Any]) -> OldUsage:
        """The table :meth:`to_cache` saved (its arrays as they were: no rehashing; the bytes
        may be views of the saved row, they are copied). Raises ``ValueError`` when the parts
        disagree."""
        hi, lo, u, s, slot, used, live, names, codes = v
        if codes not in ("IH", "II", "qH", "qI"):
            raise ValueError("corrupt cache: old usage of unknown array types")
        o = cls()
        o._u, o._s = array(codes[0]), array(codes[1])
        o._hi.frombytes(hi)
        o._lo.frombytes(lo)
        o._u.frombytes(u)
        o._s.frombytes(s)
        o._slot = array("i")
        o._slot.frombytes(slot)
        n, size = len(o._hi), len(o._slot)
        if (
            len(o._lo) != n
            or len(o._u) != 5 * n
            or len(o._s) != 2 * n
            or size < 8
            or size & (size - 1)
            or max(o._s, default=0) >= max(len(names), 1)
            or max(o._slot) >= n
            or not 0 <= live <= used < size
        ):
            raise ValueError("corrupt cache: old usage arrays disagree")
        o._mask = size - 1
        o._used, o._live = used, live
        o._names = list(names)
        o._ix = {x: i for i, x in enumerate(o._names)}
        o._exact = False  # ids put in another process: the filter knows none of them
        return o
