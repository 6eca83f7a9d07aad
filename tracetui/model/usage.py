"""Token usage per API message id (:class:`UsageBook`), deduplicated across records and files."""

from __future__ import annotations

from tracetui.model.pricing import bucket_key, buckets_of
from tracetui.model.state import Tokens, UsageBucket

__all__ = ["UsageBook"]


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
    """

    __slots__ = ("by_id", "model_of", "totals", "by_model", "buckets", "bucket_of")

    def __init__(self) -> None:
        self.by_id: dict[str, tuple[int, int, int, int, int]] = {}
        self.model_of: dict[str, str] = {}
        self.totals = [0, 0, 0, 0]
        self.by_model: dict[str, list[int]] = {}
        self.buckets: dict[str, list[int]] = {}
        #: message id -> its key in ``buckets`` (``"day|band|model"``: the message's day is its
        #: prefix; keys are interned, so a message costs its dict entries only)
        self.bucket_of: dict[str, str] = {}

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
        old = self.by_id.get(key)
        if old is None:
            new = d = u
            self.model_of[key] = model
            bk = self.bucket_of[key] = bucket_key(model, day, u)
            self._bucket(bk, u, 1, 1)
        else:
            k0 = k1 = self.bucket_of[key]
            if day:
                d0 = k0.partition("|")[0]
                earlier = not d0 or day < d0
            else:  # no day given (the fold's later records of a message): it cannot move earlier
                earlier = False
            if old == u and not earlier:
                return  # the usage repeated on the next record of the same message
            new = (max(old[0], u[0]), max(old[1], u[1]), max(old[2], u[2]), max(old[3], u[3]), max(old[4], u[4]))
            if new == old and not earlier:
                return
            model = self.model_of[key]
            d = (new[0] - old[0], new[1] - old[1], new[2] - old[2], new[3] - old[3], new[4] - old[4])
            if earlier:
                k1 = self.bucket_of[key] = bucket_key(model, day, new)
            elif new[0] != old[0] or new[2] != old[2] or new[3] != old[3]:  # input grew: the band may change
                k1 = self.bucket_of[key] = bucket_key(model, k0.partition("|")[0], new)
            if k0 == k1:
                self._bucket(k0, d, 1, 0)
            else:
                self._bucket(k0, old, -1, -1)
                self._bucket(k1, new, 1, 1)
            if new == old:
                return  # only the day moved
        self.by_id[key] = new
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
        return len(self.by_id)
