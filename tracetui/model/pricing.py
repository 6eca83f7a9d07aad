"""Estimated cost in USD from genai-prices, per model, computed once per distinct input.

The price table is the ``genai-prices`` package's bundled data (no network, no clock: the
request time passed in is the session's last record timestamp). A model it does not know makes
the whole estimate unknown (``None``), never zero.
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache

from tracetui.model.episodes import parse_ts as _parse_ts
from tracetui.model.state import Tokens

__all__ = ["estimate_cost", "model_price"]


@lru_cache(maxsize=4096)
def model_price(model: str, inp: int, out: int, cache_write: int, cache_read: int, ts: str | None) -> float | None:
    """USD for one model's tokens, or ``None`` when genai-prices has no price for the model.

    Anthropic's ``input_tokens`` excludes cache tokens; genai-prices' ``input_tokens`` includes
    them, so the three are added before pricing.
    """
    try:
        from genai_prices import Usage, calc_price  # imported lazily: ~0.35 s (pydantic, httpx)
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    when = _parse_ts(ts) or datetime(2026, 1, 1, tzinfo=timezone.utc)
    try:
        res = calc_price(
            Usage(
                input_tokens=inp + cache_write + cache_read,
                output_tokens=out,
                cache_write_tokens=cache_write,
                cache_read_tokens=cache_read,
            ),
            model_ref=model,
            provider_id="anthropic",
            genai_request_timestamp=when,
        )
    except Exception:  # LookupError for unknown models; anything else is equally "no price"
        return None
    return float(res.total_price)


def estimate_cost(tokens_by_model: dict[str, Tokens], ts: str | None) -> tuple[float | None, str]:
    """``(usd, note)``: the summed estimate, or ``None`` with the unpriced models named."""
    total = 0.0
    unknown: list[str] = []
    for model, t in sorted(tokens_by_model.items()):
        if t.total == 0:
            continue
        p = model_price(model, t.input, t.output, t.cache_creation, t.cache_read, ts)
        if p is None:
            unknown.append(model)
        else:
            total += p
    if unknown:
        return None, "no price known for " + ", ".join(unknown)
    return round(total, 6), "estimate (genai-prices)"
