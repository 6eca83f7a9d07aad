"""Cache writes with a 1-hour lifetime are priced at their own rate (model/pricing.py).

The right answer is genai-prices' own: ``extract_usage(message, provider_id="anthropic")`` (its
Anthropic extractor maps ``usage.cache_creation.ephemeral_1h_input_tokens`` to
``cache_write_1h_tokens``) then ``calc_price`` at the record's time, one message at a time. No
figure here is copied from tracetui's output.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from fixtures import assistant, prompt, text_block, usage

from tracetui.model.pricing import model_price
from tracetui.model.session_fold import fold, fold_bytes

OPUS = "claude-opus-4-6"
SONNET = "claude-sonnet-4-5-20250929"
#: the trial's repro (a file of the corpus, which is not part of the repository)
TOOL_HEAVY = "marot__spotter/test__fixtures__transcripts__tool_heavy.jsonl"


def split_usage(inp: int, out: int, cw: int, cr: int, h1: int, m5: int | None = None) -> dict:
    """A usage object as Claude Code writes it, with the cache-write split by lifetime."""
    u = usage(inp, out, cw, cr)
    u["cache_creation"] = {"ephemeral_5m_input_tokens": cw - h1 if m5 is None else m5, "ephemeral_1h_input_tokens": h1}
    return u


def genai_usd(message: dict, ts: str) -> float:
    """genai-prices' price of one API message (its own extractor, its own calc_price)."""
    from genai_prices import calc_price, extract_usage

    eu = extract_usage(message, provider_id="anthropic")
    when = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return float(calc_price(eu.usage, model_ref=message["model"], provider_id="anthropic", genai_request_timestamp=when).total_price)


def test_no_anthropic_model_prices_5_minute_writes_apart() -> None:
    # the premise of keeping only the 1-hour part per bucket (pricing.py): 5-minute writes cost
    # cache_write_mtok. If genai-prices adds a separate 5m price, the fold must keep that split too.
    from genai_prices.data import providers

    anthropic = next(p for p in providers if p.id == "anthropic")
    seen_1h = 0
    for m in anthropic.models:
        prices = m.prices if isinstance(m.prices, list) else [m.prices]
        for cp in prices:
            mp = getattr(cp, "prices", cp)
            assert getattr(mp, "cache_write_5m_mtok", None) is None, m.id
            seen_1h += getattr(mp, "cache_write_1h_mtok", None) is not None
        for v in m.price_variants or ():
            assert getattr(v.prices, "cache_write_5m_mtok", None) is None, m.id
    assert seen_1h > 0  # and 1-hour writes are priced apart (else this file tests nothing)


def test_the_table_prices_1_hour_writes_higher() -> None:
    msg5 = {"model": OPUS, "usage": split_usage(3, 27, 7883, 17915, 0)}
    msg1 = {"model": OPUS, "usage": split_usage(3, 27, 7883, 17915, 7883)}
    assert genai_usd(msg1, "2026-02-10T22:57:57Z") > genai_usd(msg5, "2026-02-10T22:57:57Z")


@pytest.mark.parametrize(
    "model,u",
    [
        (OPUS, (3, 27, 7883, 17915, 7883)),  # all 1h (the trial's first message)
        (OPUS, (47, 173, 1115, 26504, 500)),  # part 1h, part 5m
        (OPUS, (250_000, 10, 9000, 1000, 9000)),  # over the 200k tier bound
        (SONNET, (10, 10, 300_000, 0, 100_000)),  # long context on another model
        (SONNET, (5, 5, 0, 0, 0)),  # no cache writes at all
    ],
)
def test_one_message_with_a_1h_split_costs_what_genai_prices_says(model: str, u: tuple) -> None:
    ts = "2026-02-10T22:57:57.941Z"
    msg = {"model": model, "usage": split_usage(*u)}
    rec = assistant([text_block("x")], msg_id="m1", model=model, u=msg["usage"], ts=ts)
    st = fold([prompt("go", ts=ts), rec], price=True)
    assert st.cost_usd == pytest.approx(genai_usd(msg, ts), abs=1e-6)
    # what is displayed stays the whole cache write
    assert st.tokens.cache_creation == u[2]
    (b,) = st.usage_buckets
    assert b.cache_write_1h == u[4]


def test_a_bucket_of_several_split_messages_costs_their_sum() -> None:
    ts = "2026-02-10T10:00:00.000Z"
    us = [(3, 27, 7883, 17915, 7883), (1, 1, 208, 25798, 0), (3, 11, 8490, 18014, 4000)]
    recs = [prompt("go", ts=ts)]
    want = 0.0
    for i, u in enumerate(us):
        su = split_usage(*u)
        recs.append(assistant([text_block("x")], msg_id=f"m{i}", model=OPUS, u=su, request_id=f"r{i}", ts=ts))
        want += genai_usd({"model": OPUS, "usage": su}, ts)
    st = fold(recs, price=True)
    assert len(st.usage_buckets) == 1 and st.usage_buckets[0].messages == 3
    assert st.cost_usd == pytest.approx(want, abs=1e-6)
    # the mean-of-bucket path agrees with the per-message sum directly too
    b = st.usage_buckets[0]
    t = b.tokens
    assert model_price(OPUS, t.input, t.output, t.cache_creation, t.cache_read, "2026-02-10", 3, b.cache_write_1h) == pytest.approx(
        want, abs=1e-9
    )


def test_the_split_is_deduplicated_per_message_like_the_tokens() -> None:
    # Claude Code repeats the usage on each record of a message, output growing; a later record
    # may drop the split (seen in the corpus: the last record of msg_019BN...). Max per field.
    ts = "2026-02-10T10:00:00.000Z"
    first = split_usage(47, 25, 1115, 26504, 1115)
    last = usage(47, 173, 1115, 26504)  # no cache_creation object
    recs = [
        prompt("go", ts=ts),
        assistant([text_block("a")], msg_id="m", model=OPUS, u=first, ts=ts),
        assistant([text_block("b")], msg_id="m", model=OPUS, u=last, ts=ts),
        assistant([text_block("c")], msg_id="m", model=OPUS, u=first, ts=ts),
    ]
    st = fold(recs, price=True)
    assert st.counters.api_messages == 1
    assert st.usage_buckets[0].cache_write_1h == 1115
    final = split_usage(47, 173, 1115, 26504, 1115)
    assert st.cost_usd == pytest.approx(genai_usd({"model": OPUS, "usage": final}, ts), abs=1e-6)


def test_a_1h_part_larger_than_the_whole_write_is_taken_as_the_whole() -> None:
    # inconsistent input: priced as if every cache write were 1h, never 'no price known'
    ts = "2026-02-10T10:00:00.000Z"
    bad = split_usage(1, 1, 100, 0, 500, m5=0)
    st = fold([prompt("go", ts=ts), assistant([text_block("a")], model=OPUS, u=bad, ts=ts)], price=True)
    assert st.cost_usd == pytest.approx(genai_usd({"model": OPUS, "usage": split_usage(1, 1, 100, 0, 100)}, ts), abs=1e-6)
    assert st.tokens.cache_creation == 100


def test_the_trial_repro_file_costs_what_genai_prices_says_per_message(corpus) -> None:
    path = corpus.root / TOOL_HEAVY
    if not path.is_file():
        pytest.skip(f"{TOOL_HEAVY} is not in the corpus at {corpus.root}")
    data = path.read_bytes()
    # the reference: genai-prices per API message, at its first record's time, with the usage
    # of its last record (the records of one message repeat the usage, output growing)
    last: dict[str, tuple[dict, str]] = {}
    for ln in data.splitlines():
        rec = json.loads(ln)
        msg = rec.get("message") if rec.get("type") == "assistant" else None
        if isinstance(msg, dict) and msg.get("usage"):
            first_ts = last[msg["id"]][1] if msg["id"] in last else rec["timestamp"]
            last[msg["id"]] = (msg, first_ts)
    per_message = [genai_usd(m, ts) for m, ts in last.values()]
    # the figures the trial report quotes, from genai-prices (a check on the reference itself)
    assert per_message == pytest.approx([0.0884775, 0.015009, 0.094197, 0.028962], abs=1e-9)
    st = fold_bytes(data, name=path.name, price=True)
    assert st.cost_usd == pytest.approx(sum(per_message), abs=1e-6)


def test_an_episode_is_priced_with_its_1h_writes_too() -> None:
    from tracetui.views.worker import current_episodes, episode_cost

    ts = "2026-02-10T10:00:00.000Z"
    su = split_usage(3, 27, 7883, 17915, 7883)
    st = fold([prompt("go", ts=ts), assistant([text_block("a")], model=OPUS, u=su, ts=ts)], price=True)
    (ep,) = current_episodes(st)
    assert ep.usage_buckets[0].cache_write_1h == 7883
    assert episode_cost(st, ep) == pytest.approx(genai_usd({"model": OPUS, "usage": su}, ts), abs=1e-6)
