"""Token usage per API message id (:class:`UsageBook`), deduplicated across records and files."""

from __future__ import annotations

from itertools import islice

from tracetui.model.pricing import bucket_key, buckets_of
from tracetui.model.state import Tokens, UsageBucket
from tracetui.model.usage_old import Entry, OldUsage

__all__ = ["UsageBook", "RECENT_IDS"]

#: message ids a book keeps in its dicts (the most recently added); older ones are packed in
#: :class:`~tracetui.model.usage_old.OldUsage`, about 80 bytes an id. About 300 bytes an id in
#: the dicts, so at most ~2.5 MB a book; each id packed costs two BLAKE2b digests and a table
#: probe (about 3 µs), which at 1,024 was a fifth of the fold's CPU on 100 MB of the dense mix
RECENT_IDS = 8192
#: ids packed at once when the dicts hold :data:`RECENT_IDS` plus this many: one walk of a dict
#: from its start passes every entry deleted before it, so packing one id at a time walked
#: thousands of deleted entries for each (~7 µs an id on a long session)
PACK_BATCH = 1024


class UsageBook:
    """Token usage per API message id: the max of each field over the message's records, summed.

    Claude Code writes one record per content block and repeats the usage on each, with
    ``output_tokens`` growing (transcript-format.md §7). Max is commutative, so the totals do not
    depend on the order records arrive in, nor on which file they come from.

    A usage is ``(input, output, cache_creation, cache_read, cache_write_1h)`` tokens; the last
    is the part of ``cache_creation`` written to the 1-hour cache (``usage.cache_creation.
    ephemeral_1h_input_tokens``), priced higher than the rest. Displayed totals (``tokens``)
    hold the first four.

    For pricing (model/pricing.py) the book also keeps, per bucket (model, UTC day, tier band),
    the message count and tokens (``buckets``: ``"day|band|model"`` → ``[messages, input,
    output, cache_creation, cache_read, cache_write_1h]``). A message's day is the one given when its id is first
    added; a later add with an earlier day moves it there (``""``, no day, is later than any day),
    so a session's book, fed by several files in any interleaving, keeps the earliest of the
    files' days. A message whose tokens cross a tier bound moves to the new band.

    Memory: the :data:`RECENT_IDS` to :data:`RECENT_IDS` + :data:`PACK_BATCH` messages added last are kept in the dicts ``by_id``,
    ``model_of`` and ``bucket_of``; older ones move to ``old`` (packed arrays, exact: see
    model/usage_old.py). A message seen again later (a reused id, the copy of a message in
    another file) moves back with the max so far, so every total is what an unbounded book
    gives: the max and the earliest day are kept per message wherever it is held. Claude Code
    writes the records of one message together, so the move back is rare.
    """

    __slots__ = ("by_id", "model_of", "totals", "by_model", "buckets", "bucket_of", "old")

    def __init__(self) -> None:
        self.by_id: dict[str, tuple[int, int, int, int, int]] = {}
        self.model_of: dict[str, str] = {}
        self.totals = [0, 0, 0, 0]
        self.by_model: dict[str, list[int]] = {}
        self.buckets: dict[str, list[int]] = {}
        #: message id -> its key in ``buckets`` (``"day|band|model"``: the message's day is its
        #: prefix; keys are interned, so a message costs its dict entries only)
        self.bucket_of: dict[str, str] = {}
        #: the messages added longest ago, beyond the :data:`RECENT_IDS` in the dicts above
        self.old = OldUsage()

    def _bucket(self, key: str, u: tuple[int, int, int, int, int], sign: int, messages: int) -> None:
        b = self.buckets.get(key)
        if b is None:
            b = self.buckets[key] = [0, 0, 0, 0, 0, 0]
        b[0] += messages
        b[1] += sign * u[0]
        b[2] += sign * u[1]
        b[3] += sign * u[2]
        b[4] += sign * u[3]
        b[5] += sign * u[4]

    def add(self, key: str, model: str, u: tuple[int, int, int, int, int], day: str = "") -> None:
        """Fold one record's usage ``u`` (input, output, cache creation, cache read, 1-hour cache
        write tokens) of message ``key`` by ``model`` on UTC ``day`` (``YYYY-MM-DD``, ``""`` when
        unknown)."""
        by_id = self.by_id
        old = by_id.get(key)
        if old is not None:
            if (
                u[1] > old[1]
                and u[0] == old[0]
                and u[2] == old[2]
                and u[3] == old[3]
                and u[4] == old[4]
                and (not day or day >= self.bucket_of[key].partition("|")[0] != "")
            ):
                # the commonest add: the message's next record, only its output tokens grown (the
                # general path below does the same: the max is ``u``, the bucket and day stay)
                d1 = u[1] - old[1]
                by_id[key] = u
                self.buckets[self.bucket_of[key]][2] += d1
                self.totals[1] += d1
                self.by_model[self.model_of[key]][1] += d1
                return
            e: Entry | None = (old, self.model_of[key], self.bucket_of[key])
        else:
            e = self.old.pop(key) if len(self.old) else None
        new = self._merge(e, model, u, day)
        if new is e and old is not None:
            return
        by_id[key], self.model_of[key], self.bucket_of[key] = new
        if old is None and len(by_id) > RECENT_IDS + PACK_BATCH:
            self._pack_oldest()

    def add_new(self, key: str, model: str, u: tuple[int, int, int, int, int], day: str = "") -> None:
        """:meth:`add` of message ``key`` that the book has never held (the caller knows: the
        Codex fold makes one new id per change of its cumulative total), without looking the id
        up among the packed ones (a BLAKE2b digest and a probe each, once the book holds more
        than :data:`RECENT_IDS`). An id it holds in its dicts is added as :meth:`add` does."""
        by_id = self.by_id
        if key in by_id:
            self.add(key, model, u, day)
            return
        by_id[key], self.model_of[key], self.bucket_of[key] = self._merge(None, model, u, day)
        if len(by_id) > RECENT_IDS + PACK_BATCH:
            self._pack_oldest()

    def _pack_oldest(self) -> None:
        """Move the :data:`PACK_BATCH` ids added longest ago from the dicts to ``old`` (the book
        holds more than :data:`RECENT_IDS` plus those there)."""
        by_id, model_of, bucket_of, put = self.by_id, self.model_of, self.bucket_of, self.old.put
        for k in list(islice(by_id, PACK_BATCH)):
            put(k, (by_id.pop(k), model_of.pop(k), bucket_of.pop(k)))

    def _merge(self, e: Entry | None, model: str, u: tuple[int, int, int, int, int], day: str) -> Entry:
        """The entry of a message (``e``: its entry so far, or ``None``) after one more record's
        usage ``u``, the totals and buckets updated; ``e`` itself when nothing changed."""
        if e is None:
            new = d = u
            k1 = bucket_key(model, day, u)
            self._bucket(k1, u, 1, 1)
        else:
            old, model, k0 = e
            k1 = k0
            if day:
                d0 = k0.partition("|")[0]
                earlier = not d0 or day < d0
            else:  # no day given (the fold's later records of a message): it cannot move earlier
                earlier = False
            if old == u and not earlier:
                return e  # the usage repeated on the next record of the same message
            new = (max(old[0], u[0]), max(old[1], u[1]), max(old[2], u[2]), max(old[3], u[3]), max(old[4], u[4]))
            if new == old and not earlier:
                return e
            d = (new[0] - old[0], new[1] - old[1], new[2] - old[2], new[3] - old[3], new[4] - old[4])
            if earlier:
                k1 = bucket_key(model, day, new)
            elif new[0] != old[0] or new[2] != old[2] or new[3] != old[3]:  # input grew: the band may change
                k1 = bucket_key(model, k0.partition("|")[0], new)
            if k0 == k1:
                self._bucket(k0, d, 1, 0)
            else:
                self._bucket(k0, old, -1, -1)
                self._bucket(k1, new, 1, 1)
            if new == old:
                return (old, model, k1)  # only the day moved
        t = self.totals
        t[0] += d[0]
        t[1] += d[1]
        t[2] += d[2]
        t[3] += d[3]
        m = self.by_model.get(model)
        if m is None:
            m = self.by_model[model] = [0, 0, 0, 0]
        m[0] += d[0]
        m[1] += d[1]
        m[2] += d[2]
        m[3] += d[3]
        return (new, model, k1)

    def get(self, key: str) -> tuple[int, int, int, int, int] | None:
        """The tokens of message ``key`` so far (the max of each field), or ``None``."""
        u = self.by_id.get(key)
        if u is None and len(self.old):
            e = self.old.get(key)
            return e[0] if e is not None else None
        return u

    def model(self, key: str) -> str | None:
        """The model of message ``key`` (the first one its records named), or ``None``."""
        m = self.model_of.get(key)
        if m is None and len(self.old):
            e = self.old.get(key)
            return e[1] if e is not None else None
        return m

    def absorb_old(self, other: UsageBook) -> None:
        """Add the messages ``other`` keeps packed (:class:`OldUsage`) as if each were added
        with its tokens and day. Call it for every book to combine before adding their recent
        messages (``by_id``) with :meth:`add`, on a book that holds no recent message yet:
        the packed ones are known by digest only, and :meth:`add` finds them by the id's."""
        if self.by_id:
            raise ValueError("absorb_old on a book with recent messages")
        for (hi, lo), (u, model, bk) in list(other.old.items()):
            cur = self.old.pop_digest(hi, lo)
            self.old.put_digest(hi, lo, self._merge(cur, model, u, bk.partition("|")[0]))

    def message(self, key: str) -> tuple[tuple[int, int, int, int, int], str, str] | None:
        """``(usage, model, day)`` of message ``key`` wherever the book holds it (the max of
        each field, the first model named, the UTC day it is priced at, ``""`` when unknown),
        or ``None`` when the book has no such message."""
        u = self.by_id.get(key)
        if u is not None:
            return u, self.model_of[key], self.bucket_of[key].partition("|")[0]
        e = self.old.get(key) if len(self.old) else None
        return (e[0], e[1], e[2].partition("|")[0]) if e is not None else None

    def day_of(self, key: str) -> str:
        """The UTC day (``YYYY-MM-DD``, ``""`` when unknown) message ``key`` is priced at."""
        return self.bucket_of[key].partition("|")[0]

    def tokens(self) -> Tokens:
        return Tokens(*self.totals)

    def tokens_by_model(self) -> dict[str, Tokens]:
        return {k: Tokens(*v) for k, v in sorted(self.by_model.items())}

    def usage_buckets(self) -> tuple[UsageBucket, ...]:
        """The buckets priced by :func:`tracetui.model.pricing.estimate_cost`, ordered."""
        return buckets_of(self.buckets)

    def __len__(self) -> int:
        return len(self.by_id) + len(self.old)
