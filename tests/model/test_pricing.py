"""Pricing: every API message at its own UTC day and per-request tier band (model/pricing.py).

The expected figures are computed here from genai-prices' own ``calc_price`` on one message at a
time (the definition of the right answer), never copied from our output.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest
from fixtures import assistant, prompt, text_block, usage
from hypothesis import given, settings
from hypothesis import strategies as st

from tracetui.model.pricing import TIER_BOUNDS, estimate_cost, model_price, price_band, utc_day
from tracetui.model.session_fold import SessionFold, fold
from tracetui.model.state import Tokens, UsageBucket
from tracetui.model.usage import UsageBook
from tracetui.views.worker import current_episodes, episode_cost

OPUS = "claude-opus-4-6"
SONNET = "claude-sonnet-4-5-20250929"


def one_message_usd(model: str, inp: int, out: int, cw: int, cr: int, when: str) -> float:
    """genai-prices' price of a single request, straight from its API."""
    from genai_prices import Usage, calc_price

    ts = datetime.fromisoformat(when.replace("Z", "+00:00"))
    res = calc_price(
        Usage(input_tokens=inp + cw + cr, output_tokens=out, cache_write_tokens=cw, cache_read_tokens=cr),
        model_ref=model,
        provider_id="anthropic",
        genai_request_timestamp=ts,
    )
    return float(res.total_price)


def test_the_table_prices_opus_4_6_long_context_differently_before_and_after_2026_03_13() -> None:
    # the premise of the date tests below: if genai-prices changes this, they must be redone
    a = one_message_usd(OPUS, 250_000, 1_000, 0, 0, "2026-02-10T10:00:00Z")
    b = one_message_usd(OPUS, 250_000, 1_000, 0, 0, "2026-04-10T10:00:00Z")
    assert a != b


def test_two_messages_on_two_dates_are_each_priced_at_their_own_date() -> None:
    recs = [
        prompt("go", ts="2026-02-10T10:00:00.000Z"),
        assistant([text_block("a")], msg_id="m1", model=OPUS, u=usage(250_000, 1_000), request_id="r1", ts="2026-02-10T10:00:05.000Z"),
        prompt("again", ts="2026-04-10T10:00:00.000Z"),
        assistant([text_block("b")], msg_id="m2", model=OPUS, u=usage(250_000, 1_000), request_id="r2", ts="2026-04-10T10:00:05.000Z"),
    ]
    st_ = fold(recs, price=True)
    feb = one_message_usd(OPUS, 250_000, 1_000, 0, 0, "2026-02-10T10:00:05Z")
    apr = one_message_usd(OPUS, 250_000, 1_000, 0, 0, "2026-04-10T10:00:05Z")
    assert st_.cost_usd == pytest.approx(feb + apr, abs=1e-6)
    # neither of the single-date prices of the whole (what the last-record rule gave)
    assert st_.cost_usd != pytest.approx(2 * apr) and st_.cost_usd != pytest.approx(2 * feb)


def test_appending_a_record_of_another_day_only_adds_that_message() -> None:
    # the trial's repro: a February session; one record dated later must not reprice February
    base = [prompt("go", ts="2026-02-10T10:00:00.000Z")]
    for i in range(3):
        base.append(
            assistant(
                [text_block(f"t{i}")],
                msg_id=f"m{i}",
                model=OPUS,
                u=usage(210_000, 2_000, 1_000, 5_000),
                request_id=f"r{i}",
                ts=f"2026-02-10T10:0{i + 1}:00.000Z",
            )
        )
    before = fold(base, price=True).cost_usd
    later = assistant([text_block("late")], msg_id="mz", model=OPUS, u=usage(10, 20), request_id="rz", ts="2026-11-29T12:00:00.000Z")
    after = fold([*base, later], price=True).cost_usd
    assert before is not None and after is not None
    assert after == pytest.approx(before + one_message_usd(OPUS, 10, 20, 0, 0, "2026-11-29T12:00:00Z"), abs=1e-6)
    assert after > before


def test_a_long_session_is_not_priced_at_the_long_context_tier() -> None:
    # 40 messages of 30k input each: each request is far below 200k, their sum is not
    recs = [prompt("go", ts="2026-03-02T09:00:00.000Z")]
    for i in range(40):
        recs.append(
            assistant(
                [text_block("x")],
                msg_id=f"m{i}",
                model=SONNET,
                u=usage(3, 50, 1_000, 29_000),
                request_id=f"r{i}",
                ts="2026-03-02T09:00:10.000Z",
            )
        )
    st_ = fold(recs, price=True)
    one = one_message_usd(SONNET, 3, 50, 1_000, 29_000, "2026-03-02T09:00:10Z")
    assert st_.cost_usd == pytest.approx(40 * one, abs=1e-6)
    whole = one_message_usd(SONNET, 40 * 3, 40 * 50, 40_000, 40 * 29_000, "2026-03-02T09:00:10Z")
    assert whole > st_.cost_usd  # the old aggregate put every token in the top tier


def test_messages_on_either_side_of_a_tier_bound_are_priced_by_their_own_size() -> None:
    small, big = (3, 10, 0, 150_000), (3, 10, 0, 250_000)
    recs = [prompt("go", ts="2026-03-02T09:00:00.000Z")]
    for i, u in enumerate([small, big, small]):
        recs.append(
            assistant([text_block("x")], msg_id=f"m{i}", model=SONNET, u=usage(*u), request_id=f"r{i}", ts="2026-03-02T09:00:10.000Z")
        )
    st_ = fold(recs, price=True)
    want = 2 * one_message_usd(SONNET, *small, "2026-03-02T09:00:10Z") + one_message_usd(SONNET, *big, "2026-03-02T09:00:10Z")
    assert st_.cost_usd == pytest.approx(want, abs=1e-6)
    assert sorted((b.band, b.messages) for b in st_.usage_buckets) == [(price_band(3, 0, 150_000), 2), (price_band(3, 0, 250_000), 1)]


def test_episode_costs_add_up_to_the_session_total_across_a_price_change() -> None:
    recs = [
        prompt("one", ts="2026-02-10T10:00:00.000Z"),
        assistant([text_block("a")], msg_id="m1", model=OPUS, u=usage(250_000, 1_000), request_id="r1", ts="2026-02-10T10:00:05.000Z"),
        prompt("two", ts="2026-04-10T10:00:00.000Z"),
        assistant([text_block("b")], msg_id="m2", model=OPUS, u=usage(250_000, 1_000), request_id="r2", ts="2026-04-10T10:00:05.000Z"),
        prompt("three", ts="2026-11-29T10:00:00.000Z"),
        assistant([text_block("c")], msg_id="m3", model=OPUS, u=usage(20, 10), request_id="r3", ts="2026-11-29T10:00:05.000Z"),
    ]
    st_ = fold(recs, price=True)
    eps = current_episodes(st_)
    costs = [episode_cost(st_, ep) for ep in eps]
    assert all(c is not None for c in costs)
    assert sum(costs) == pytest.approx(st_.cost_usd, abs=1e-6)  # main thread only: equal
    assert sum(costs) <= st_.cost_usd + 1e-9
    # each episode at its own date: the February one costs what February charged
    assert costs[0] == pytest.approx(one_message_usd(OPUS, 250_000, 1_000, 0, 0, "2026-02-10T10:00:05Z"), abs=1e-6)


def test_history_state_is_priced_per_message_too() -> None:
    from tracetui.views.text import state_as_of

    recs = [
        prompt("one", ts="2026-02-10T10:00:00.000Z"),
        assistant([text_block("a")], msg_id="m1", model=OPUS, u=usage(250_000, 1_000), request_id="r1", ts="2026-02-10T10:00:05.000Z"),
        prompt("two", ts="2026-11-29T10:00:00.000Z"),
        assistant([text_block("b")], msg_id="m2", model=OPUS, u=usage(5, 5), request_id="r2", ts="2026-11-29T10:00:05.000Z"),
    ]
    st_ = fold(recs, price=True)
    h = state_as_of(st_, 1)
    assert h.cost_usd == pytest.approx(one_message_usd(OPUS, 250_000, 1_000, 0, 0, "2026-02-10T10:00:05Z"), abs=1e-6)


def test_undated_messages_are_priced_at_the_fallback_and_unknown_models_make_none() -> None:
    b = UsageBucket(SONNET, "", 0, 1, Tokens(10, 10, 0, 0))
    cost, _ = estimate_cost((b,), "2026-03-02T09:00:00Z")
    assert cost == pytest.approx(one_message_usd(SONNET, 10, 10, 0, 0, "2026-03-02T12:00:00Z"), abs=1e-6)
    cost, note = estimate_cost((b, UsageBucket("claude-unheard-of-9", "2026-03-02", 0, 1, Tokens(1, 1, 0, 0))), None)
    assert cost is None and "claude-unheard-of-9" in note


def test_mean_pricing_equals_the_sum_of_single_messages() -> None:
    msgs = [(3, 40, 100, 20_000), (5, 400, 0, 90_000), (1, 7, 3_000, 50_000)]
    tot = [sum(m[i] for m in msgs) for i in range(4)]
    got = model_price(SONNET, *tot, "2026-03-02", len(msgs))
    want = sum(one_message_usd(SONNET, *m, "2026-03-02T12:00:00Z") for m in msgs)
    assert got == pytest.approx(want, abs=1e-6)


def test_utc_day() -> None:
    assert utc_day("2026-02-12T15:36:09.570Z") == "2026-02-12"
    assert utc_day("2026-02-12T23:30:00-02:00") == "2026-02-13"  # converted to UTC
    assert utc_day("2026-02-12T10:00:00") == "2026-02-12"  # no offset: taken as UTC
    assert utc_day("yesterday") == "" and utc_day(None) == "" and utc_day("") == ""


def test_tier_bounds_cover_every_anthropic_threshold_in_the_table() -> None:
    import genai_prices.data as data
    from genai_prices.types import TieredPrices

    starts: set[int] = set()

    def walk(mp) -> None:
        for v in vars(mp).values():
            if isinstance(v, TieredPrices):
                starts.update(t.start for t in v.tiers)

    prov = next(p for p in data.providers if p.id == "anthropic")
    for m in prov.models:
        prices = m.prices if isinstance(m.prices, list) else [m.prices]
        for p in prices:
            walk(getattr(p, "prices", p))
        for v in m.price_variants or ():
            walk(v.prices)
    assert starts and starts <= set(TIER_BOUNDS)


# -- the book: order independence ---------------------------------------------------------------

_DAYS = ["", "2026-02-10", "2026-03-13", "2026-04-01"]
_add = st.tuples(
    st.sampled_from(["a", "b", "c", "d"]),
    # input, output, cache creation, cache read, and the 1-hour part of cache creation
    st.tuples(*(st.integers(0, 300_000) for _ in range(5))).map(lambda t: (*t[:4], min(t[4], t[2]))),
    st.sampled_from(_DAYS),
)


def _book(adds) -> UsageBook:
    b = UsageBook()
    for key, u, day in adds:
        b.add(key, f"model-{key in ('a', 'b')}", u, day)
    return b


@settings(max_examples=150, deadline=None)
@given(st.lists(_add, max_size=12), st.randoms(use_true_random=False))
def test_session_book_buckets_do_not_depend_on_add_order(adds, rnd) -> None:
    shuffled = list(adds)
    rnd.shuffle(shuffled)
    b1, b2 = _book(adds), _book(shuffled)
    assert b1.usage_buckets() == b2.usage_buckets()
    assert b1.tokens() == b2.tokens()
    # the buckets hold exactly the totals and one entry per message
    bs = b1.usage_buckets()
    assert sum(x.messages for x in bs) == len(b1)
    tot = Tokens()
    for x in bs:
        tot = tot.add(x.tokens)
    assert tot == b1.tokens()
    assert sum(x.cache_write_1h for x in bs) == sum(u[4] for u in b1.by_id.values())
    # a message sits at its earliest known day
    for key in b1.by_id:
        days = [d for k, _, d in adds if k == key and d]
        assert b1.day_of(key) == (min(days) if days else "")


def test_a_message_in_two_files_is_dated_by_the_earlier_file_in_either_read_order() -> None:
    import orjson

    def line(rec) -> bytes:
        return orjson.dumps(rec)

    main = [
        prompt("go", ts="2026-04-10T10:00:00.000Z"),
        assistant([text_block("a")], msg_id="shared", model=OPUS, u=usage(250_000, 5), request_id="r", ts="2026-04-10T10:00:05.000Z"),
    ]
    side = [
        assistant(
            [text_block("a")],
            msg_id="shared",
            model=OPUS,
            u=usage(250_000, 5),
            request_id="r",
            ts="2026-02-10T10:00:05.000Z",
            sidechain=True,
        )
    ]
    results = []
    for order in itertools.permutations([(0, main), (1, side)]):
        sf = SessionFold(price=True)
        sf.add_source("main.jsonl", "main.jsonl")
        sf.add_source("agent.jsonl", "agent.jsonl", role="subagent")
        for src, recs in order:
            for n, r in enumerate(recs, 1):
                sf.feed_line(src, n, n * 1000, line(r))
        results.append(sf.snapshot())
    assert results[0].usage_buckets == results[1].usage_buckets
    assert [b.day for b in results[0].usage_buckets] == ["2026-02-10"]
    assert results[0].cost_usd == pytest.approx(one_message_usd(OPUS, 250_000, 5, 0, 0, "2026-02-10T12:00:00Z"), abs=1e-6)


def test_noon_utc_is_inside_the_day() -> None:
    # the price of a day is the price at noon UTC of it: the same as at any time that day
    a = model_price(OPUS, 250_000, 5, 0, 0, "2026-03-13")
    b = one_message_usd(OPUS, 250_000, 5, 0, 0, datetime(2026, 3, 13, 0, 0, 1, tzinfo=UTC).isoformat())
    assert a == pytest.approx(b, abs=1e-6)


def test_the_price_cache_holds_a_big_session_s_episodes() -> None:
    # found by the scrub work on a 2,583-episode session on two models: with 4,096 entries every
    # new state priced every episode again (a scan larger than the LRU cache misses every time)
    from tracetui.model.pricing import PRICE_CACHE, model_price

    keys = [("claude-sonnet-4-5-20250929" if i % 2 else "claude-opus-4-5", 1000 + i, 50, 0, 0, "2026-03-02") for i in range(6000)]
    assert PRICE_CACHE >= len(keys)
    for k in keys:
        model_price(*k)
    before = model_price.cache_info().hits
    for k in keys:
        model_price(*k)
    assert model_price.cache_info().hits - before == len(keys)
