"""Estimated cost in USD from genai-prices: every API message priced at its own day and tier.

The price table is the ``genai-prices`` package's bundled data (no network, no clock). Two facts
of that table decide how tokens must be grouped before they are priced:

* prices change over time (``StartDateConstraint``, compared with the request's UTC date in
  ``genai_prices.types.StartDateConstraint.active``); e.g. ``claude-opus-4-6`` costs less from
  2026-03-13 on. So a message is priced at the UTC day of its first record with usage, never at
  the session's last record (which made a session's cost change when a record of another day
  was appended);
* prices are tiered per request (``TieredPrices``: when a request's input tokens exceed a tier's
  ``start``, *all* its tokens pay the tier's rate; ``calc_unit_price``). Summing a session's
  messages before pricing would put every token of a long session in the top tier. So a
  message's tier band (how many of :data:`TIER_BOUNDS` its input tokens exceed) is kept.

Cache writes come in two lifetimes at two prices: ``usage.cache_creation`` splits
``cache_creation_input_tokens`` into ``ephemeral_5m_input_tokens`` and
``ephemeral_1h_input_tokens``, and genai-prices prices the 1-hour part as
``cache_write_1h_tokens`` (``cache_write_1h_mtok``, e.g. 10 USD/MTok for claude-opus-4-6 against
6.25 for 5-minute writes) when it is given, and the rest of ``cache_write_tokens`` at
``cache_write_mtok`` (its Anthropic extractor in ``genai_prices.data``). No Anthropic model in the
table prices 5-minute writes apart from ``cache_write_mtok`` (tests/model/test_pricing_1h.py checks), so
the 1-hour part is the only split a bucket needs to keep (:attr:`UsageBucket.cache_write_1h`).

The fold therefore keeps tokens per bucket (model, UTC day, band) with the count of messages in
it (:class:`~tracetui.model.state.UsageBucket`), and :func:`estimate_cost` prices each bucket as
``messages × price(mean message of the bucket, at noon UTC of its day)``. Within one band and one
day the price is linear in the tokens, so this equals the sum of the per-message prices, at the
cost of one genai-prices call per bucket (memoised). A model genai-prices does not know makes the
whole estimate unknown (``None``), never zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import lru_cache
from sys import intern as _intern
from typing import Protocol

from tracetui.model.state import Tokens, UsageBucket

#: the note of an estimate with nothing more to say; anything after it qualifies the figure
PLAIN_COST_NOTE = "estimate (genai-prices)"
#: the model name a message's usage is filed under when its record names no model (a Claude
#: assistant message without ``model``, a Codex rollout with no ``turn_context`` model yet); the
#: cost note says "no model recorded" for it, never "no price known for unknown"
NO_MODEL = "unknown"

__all__ = [
    "is_timestamp",
    "PLAIN_COST_NOTE",
    "NO_MODEL",
    "cost_note_extra",
    "estimate_cost",
    "known_cost",
    "rejected_note",
    "model_price",
    "probe_rates",
    "set_rate_store",
    "RateStore",
    "NO_PRICE",
    "NOT_LINEAR",
    "provider_of",
    "price_band",
    "utc_day",
    "bucket_key",
    "buckets_of",
    "TIER_BOUNDS",
    "DEFAULT_DAY",
]

#: input-token thresholds of per-request tiered prices in genai-prices' table for provider
#: ``anthropic`` (``Tier(start=200000)``: the long-context price of e.g. sonnet-4-5 and
#: opus-4-6 before 2026-03-13; ``Tier(start=100000)``: claude-haiku-5-5) and ``openai``
#: (``Tier(start=272000)``: gpt-5.4 and gpt-5.5, the Codex CLI's); tests/model/test_pricing.py and
#: tests/codex/test_codex_fold.py fail when the bundled table uses a threshold missing here
TIER_BOUNDS = (100_000, 200_000, 272_000)
#: the day a bucket without a dated record is priced at when no fallback timestamp is known
DEFAULT_DAY = "2026-01-01"


def price_band(inp: int, cache_write: int, cache_read: int) -> int:
    """How many of :data:`TIER_BOUNDS` one message's input tokens exceed (Anthropic's
    ``input_tokens`` excludes cache tokens; the tier is decided by all three, as genai-prices
    counts them)."""
    t = inp + cache_write + cache_read
    n = 0
    for b in TIER_BOUNDS:
        if t > b:
            n += 1
    return n


def utc_day(ts: str | None) -> str:
    """The UTC day (``YYYY-MM-DD``) of an ISO-8601 record timestamp, ``""`` when missing or
    unparseable. A timestamp without an offset is taken as UTC (as genai-prices does)."""
    if not ts:
        return ""
    if _usual_form(ts):
        return _intern(ts[:10])
    try:
        dt = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ""
    if dt.tzinfo is not None:
        dt = dt.astimezone(UTC)
    return _intern(dt.date().isoformat())


def _usual_form(ts: str) -> bool:
    """The form Claude Code and Codex CLI write (``2026-02-12T15:36:09.570Z``), told by shape."""
    return len(ts) >= 20 and ts[-1] == "Z" and ts[10] == "T" and ts[4] == "-" and ts[7] == "-"


def is_timestamp(ts: str | None) -> bool:
    """Whether ``ts`` is a record timestamp that parses (:func:`utc_day` reads a day from it):
    the one rule for which timestamp fields count as times (first and last of a file)."""
    if not ts:
        return False
    return _usual_form(ts) or bool(utc_day(ts))


def _valid_day(day: str) -> bool:
    try:
        date.fromisoformat(day)
    except ValueError:
        return False
    return len(day) == 10


#: prices kept (``model_price``): a session's episodes are priced again at every new state (cost
#: spikes, per-episode costs), one entry an episode and model each; with 4,096 a session of 2,500
#: episodes on two models missed every time (a scan larger than an LRU cache), ~1 s a state.
#: An entry is ~0.2 KB: 32,768 at most ~7 MB
PRICE_CACHE = 32768


@lru_cache(maxsize=PRICE_CACHE)
def model_price(
    model: str, inp: int, out: int, cache_write: int, cache_read: int, day: str, messages: int = 1, cache_write_1h: int = 0
) -> float | None:
    """USD for ``messages`` API messages of ``model`` that together used these tokens, all on
    UTC ``day`` (``YYYY-MM-DD``) and all in one tier band; ``None`` when genai-prices has no
    price for the model. ``cache_write_1h`` is the part of ``cache_write`` written to the 1-hour
    cache (at most ``cache_write``; more is taken as ``cache_write``).

    Priced as ``messages`` times the price of their mean (exact within a band, see the module
    docstring), at noon UTC of ``day``. Anthropic's ``input_tokens`` excludes cache tokens;
    genai-prices' ``input_tokens`` includes them, so the three are added before pricing.
    With a rate store (:func:`set_rate_store`), the price is computed from the rates
    genai-prices gave for the model, day and band (:func:`probe_rates`), read from the store
    when an earlier call put them there: the same figure without importing genai-prices
    (~0.3 s). Raises ``ValueError`` for a malformed ``day``.
    """
    date.fromisoformat(day)  # a malformed day raises, rates kept or not
    n = max(messages, 1)
    h1 = min(cache_write_1h, cache_write) if cache_write_1h > 0 else 0
    total_in = inp + cache_write + cache_read
    store = _RATE_STORE
    if store is not None:
        band = sum(1 for b in TIER_BOUNDS if total_in > b * n)  # the mean message's band
        key = f"{provider_of(model)}|{model}|{day}|{band}"
        rates = store.get(key)
        if rates is None:
            rates = probe_rates(model, day, band)
            if rates is None:
                return None  # genai-prices missing: nothing to keep
            store.put(key, rates)
        if rates == NO_PRICE:
            return None
        if isinstance(rates, list) and len(rates) == 6:
            try:
                c, r_in, r_out, r_cw, r_cr, r_1h = (Decimal(x) for x in rates)
                return float(n * c + r_in * total_in + r_out * out + r_cw * cache_write + r_cr * cache_read + r_1h * h1)
            except (ArithmeticError, TypeError, ValueError):  # a store's value that is no number
                pass
        # NOT_LINEAR (or a value of another shape): genai-prices itself, as without a store
    usd = _calc(model, day, total_in, out, cache_write, cache_read, h1, n)
    return None if usd is None else float(usd * n)


def _calc(model: str, day: str, total_in: int, out: int, cw: int, cr: int, h1: int, n: int = 1) -> Decimal | None:
    """genai-prices' USD (``total_price``) of one message of the mean of ``n`` messages that
    used these tokens in all (``total_in``: input with the cache tokens, as genai-prices counts
    it), at noon UTC of ``day``; ``None`` when it has no price (or is not installed)."""
    try:
        from genai_prices import Usage, calc_price  # imported lazily: ~0.35 s (pydantic, httpx)
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    when = datetime.combine(date.fromisoformat(day), datetime.min.time().replace(hour=12), tzinfo=UTC)

    def mean(v: int) -> int | Decimal:
        return v if n == 1 else Decimal(v) / n

    fields = {
        "input_tokens": mean(total_in),
        "output_tokens": mean(out),
        "cache_write_tokens": mean(cw),
        "cache_read_tokens": mean(cr),
    }
    if h1 > 0:
        fields["cache_write_1h_tokens"] = mean(h1)
    try:
        res = calc_price(Usage(**fields), model_ref=model, provider_id=provider_of(model), genai_request_timestamp=when)
    except Exception:  # LookupError for unknown models; anything else is equally "no price"
        return None
    return Decimal(res.total_price)


#: what a rate store keeps for a model, day and band genai-prices has no price for
NO_PRICE = "none"
#: what it keeps where genai-prices' price is not the linear function of the tokens that
#: :func:`probe_rates` checks for (then every price of the key is asked of genai-prices)
NOT_LINEAR = "direct"


class RateStore(Protocol):
    """Where :func:`model_price` keeps the rates :func:`probe_rates` found, by key
    ``"provider|model|day|band"``: a list of six decimal strings, :data:`NO_PRICE` or
    :data:`NOT_LINEAR`. The session layer's keeps them in a file of the cache folder."""

    def get(self, key: str) -> list[str] | str | None: ...

    def put(self, key: str, value: list[str] | str) -> None: ...


_RATE_STORE: RateStore | None = None


def set_rate_store(store: RateStore | None) -> None:
    """Price from the rates kept in ``store`` (``None``: ask genai-prices every time); the
    commands set it, the functions here stay free of I/O. Clears :func:`model_price`'s memo."""
    global _RATE_STORE
    _RATE_STORE = store
    model_price.cache_clear()


def probe_rates(model: str, day: str, band: int) -> list[str] | str | None:
    """The rates of genai-prices' price of one message of ``model`` on ``day`` in tier ``band``
    (how many of :data:`TIER_BOUNDS` its input exceeds): ``[per message, per input token (cache
    tokens included, as genai-prices counts them), per output token, per cache-write token, per
    cache-read token, per 1-hour cache-write token]`` in USD, as decimal strings, found from
    genai-prices' prices of messages that differ by one token. Within a band genai-prices' price
    is such a sum (``calc_unit_price``: a rate times a count, per priced unit); the rates are
    checked against its price of a message of other counts, and :data:`NOT_LINEAR` is returned
    when they do not give it exactly. :data:`NO_PRICE` when it has no price for the model;
    ``None`` when genai-prices cannot be imported."""
    try:
        import genai_prices  # noqa: F401
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    i0 = TIER_BOUNDS[band - 1] + 1 if band > 0 else 1
    top = TIER_BOUNDS[band] if band < len(TIER_BOUNDS) else i0 + 10**7

    def price(i: int, o: int = 0, cw: int = 0, cr: int = 0, h1: int = 0) -> Decimal | None:
        return _calc(model, day, i, o, cw, cr, h1)

    p0 = price(i0)
    if p0 is None:
        return NO_PRICE
    probes = (price(i0 + 1), price(i0, o=1), price(i0, cw=1), price(i0, cr=1), price(i0, cw=1, h1=1))
    if any(p is None for p in probes):
        return NOT_LINEAR
    r_in, r_out, r_cw, r_cr, d_h1 = (p - p0 for p in probes if p is not None)
    r_1h = d_h1 - r_cw  # the 1-hour write's probe holds one cache write too
    c = p0 - r_in * i0
    rates = (c, r_in, r_out, r_cw, r_cr, r_1h)
    # a message of other counts, in the band: the rates must give genai-prices' own price
    ti, to, tcw, tcr, th1 = min(i0 + 7_919, top), 3_571, 1_213, 2_029, 607
    want = price(ti, to, tcw, tcr, th1)
    got = c + r_in * ti + r_out * to + r_cw * tcw + r_cr * tcr + r_1h * th1
    if want is None or want != got:
        return NOT_LINEAR
    return [str(r) for r in rates]


#: model name prefixes of OpenAI's models (the Codex CLI's); every other model is priced as Anthropic's
OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "codex-")


def provider_of(model: str) -> str:
    """The genai-prices provider id a model is priced under: ``openai`` for the models a Codex
    rollout names (:data:`OPENAI_PREFIXES`), ``anthropic`` otherwise."""
    return "openai" if model.startswith(OPENAI_PREFIXES) else "anthropic"


def cost_note_extra(note: str) -> str:
    """What a cost note says beyond :data:`PLAIN_COST_NOTE` (``"usage of 1 record rejected, not
    priced"``), ``""`` for a plain estimate; a note of another kind is returned whole."""
    return note[len(PLAIN_COST_NOTE) :].lstrip("; ") if note.startswith(PLAIN_COST_NOTE) else note


def estimate_cost(buckets: Iterable[UsageBucket], fallback_ts: str | None, rejected: int = 0) -> tuple[float | None, str]:
    """``(usd, note)``: the sum of :func:`model_price` over ``buckets``, each at its own day and
    band, or ``None`` with the unpriced models named. A bucket of undated messages (``day ==
    ""``) is priced at the UTC day of ``fallback_ts`` (callers pass the last record's
    timestamp of what they price), else at :data:`DEFAULT_DAY`. ``rejected``: how many records'
    usage was rejected (``Counters.usage_rejected``); the note then says they are not priced (the
    figure is a lower bound); when none is left to price (every record's usage rejected), the
    cost is ``None``, not zero: a cost that could not be computed reads unknown, with why.
    Pure: reads no clock."""
    total, priced, unknown = _price_buckets(buckets, fallback_ts)
    extra = "; " + rejected_note(rejected, True) if rejected else ""
    if unknown:
        named = ", ".join(sorted(unknown - {NO_MODEL}))
        if NO_MODEL not in unknown:
            why = f"no price known for {named}"
        elif named:
            why = f"no price known for {named}, and no model recorded for other messages"
        else:
            why = "no model recorded"
        return None, why + extra
    if rejected and not priced:
        return None, rejected_note(rejected, False)
    return round(total, 6), PLAIN_COST_NOTE + extra


def rejected_note(records: int, priced: bool) -> str:
    """What a cost note says of ``records`` usage records rejected (``Counters.usage_rejected``):
    ``"usage of 15 records rejected, none left to price"``, or ``"…, not priced"`` when other
    messages are priced (``priced``: the cost is then a lower bound). The words of
    :func:`estimate_cost` and of a report's groups (session/index/rejected.py)."""
    what = f"usage of {records} record{'' if records == 1 else 's'} rejected"
    return f"{what}, not priced" if priced else f"{what}, none left to price"


def _price_buckets(buckets: Iterable[UsageBucket], fallback_ts: str | None) -> tuple[float, bool, set[str]]:
    """``(USD of the buckets priced, whether any was, the models of no known price)``: each
    bucket at its own day (an undated one at ``fallback_ts``'s UTC day, else :data:`DEFAULT_DAY`)."""
    total = 0.0
    priced = False
    unknown: set[str] = set()
    fallback = utc_day(fallback_ts)
    if not _valid_day(fallback):
        fallback = DEFAULT_DAY
    for b in sorted(buckets, key=lambda b: (b.model, b.day, b.band)):
        t = b.tokens
        if t.total == 0:
            continue
        day = b.day if b.day and _valid_day(b.day) else fallback
        p = model_price(b.model, t.input, t.output, t.cache_creation, t.cache_read, day, b.messages, b.cache_write_1h)
        if p is None:
            unknown.add(b.model)
        else:
            total += p
            priced = True
    return total, priced, unknown


def known_cost(buckets: Iterable[UsageBucket], fallback_ts: str | None) -> float:
    """The known part of a cost :func:`estimate_cost` leaves unknown: the USD of the buckets
    that have a price, each priced as it prices them (``0.0`` when none has). What every figure
    of a session with a model of no known price shows before ``+ unknown``
    (:func:`tracetui.model.numbers.fmt_usd_part`). Pure: reads no clock."""
    return round(_price_buckets(buckets, fallback_ts)[0], 6)


def buckets_of(counts: dict[str, list[int]]) -> tuple[UsageBucket, ...]:
    """Frozen buckets from a fold's running counts: key ``"day|band|model"`` → ``[messages,
    input, output, cache_creation, cache_read, cache_write_1h]`` (tokens); empty buckets (no
    message left) are dropped. Ordered by (model, day, band)."""
    out = []
    for key, v in counts.items():
        if v[0] <= 0:
            continue
        day, band, model = key.split("|", 2)
        # interned: the buckets of every episode share their model and day strings (memory)
        out.append(UsageBucket(_intern(model), _intern(day), int(band), v[0], Tokens(v[1], v[2], v[3], v[4]), v[5]))
    out.sort(key=lambda b: (b.model, b.day, b.band))
    return tuple(out)


def buckets_by_key(counts: dict[tuple[str, str, int], list[int]]) -> tuple[UsageBucket, ...]:
    """:func:`buckets_of` for running counts keyed by ``(model, day, band)`` (an episode's:
    no key string to build per message and split again): the same buckets in the same order."""
    out = [
        UsageBucket(_intern(model), _intern(day), band, v[0], Tokens(v[1], v[2], v[3], v[4]), v[5])
        for (model, day, band), v in counts.items()
        if v[0] > 0
    ]
    out.sort(key=lambda b: (b.model, b.day, b.band))
    return tuple(out)


def bucket_key(model: str, day: str, u: tuple[int, ...]) -> str:
    """The running-count key of a message with usage ``u`` (input, output, cache creation,
    cache read, ... tokens): ``"day|band|model"`` (model last: it may hold ``|``)."""
    # interned: one string per bucket, not one per message that the books and episodes keep
    return _intern(f"{day}|{price_band(u[0], u[2], u[3])}|{model}")
