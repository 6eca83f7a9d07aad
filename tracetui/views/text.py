"""Shortening helpers shared by the worker view and the card: counts, durations, costs, token
estimates, anchored items and short source names; the one-line and quoting helpers
(:mod:`tracetui.views.lines`), the sections that fit a budget (:mod:`tracetui.views.fit`) and
the as-of-episode state (:mod:`tracetui.views.as_of`) are re-exported here.
"""

from __future__ import annotations

import math

import msgspec

from tracetui.model.pricing import cost_note_extra, known_cost
from tracetui.model.state import Anchor, RunState, one_line_name
from tracetui.model.timestamps import as_datetime, fmt_span
from tracetui.views.as_of import episode_count, episodes_as_of, state_as_of
from tracetui.views.fit import CHARS, Additive, LazyItems, Section, fit
from tracetui.views.format import fmt_short, fmt_usd, fmt_usd_part
from tracetui.views.lines import Item, one_line, open_quote, quote

__all__ = [
    "one_line",
    "quote",
    "fmt_n",
    "fmt_duration",
    "estimate_tokens",
    "Item",
    "Section",
    "fit",
    "Additive",
    "CHARS",
    "LazyItems",
    "anchored",
    "state_as_of",
    "episode_count",
    "as_datetime",
    "TOKEN_BYTES",
    "episodes_as_of",
    "short_names",
    "open_quote",
    "cost_text",
    "known_part",
    "session_cost_text",
]

#: bytes of UTF-8 per token in :func:`estimate_tokens`. Claude's tokenizer averages about 3.5–4
#: characters per token on English prose and fewer on code and paths; no tokenizer is available
#: offline, so we take the conservative 3.5 bytes per token (non-ASCII text counts its bytes).
TOKEN_BYTES = 3.5


def fmt_n(n: int | float) -> str:
    """A count in short form (``987``, ``12.3k``, ``4.56M``): :func:`tracetui.views.format.fmt_short`."""
    return fmt_short(n)


def fmt_duration(seconds: float | None) -> str:
    """``42s``, ``3m10s``, ``2h05m``, ``277d10h`` (rounded to the second); ``?`` for unknown.
    The model's :func:`~tracetui.model.timestamps.fmt_span` does the formatting, so the views,
    the anomaly messages and the monitor write a span the same way."""
    if seconds is None:
        return "?"
    return fmt_span(round(seconds))


def cost_text(cost_usd: float | None, note: str, known: float = 0.0) -> str:
    """``$1.23 (estimate)``; ``$1.23 (estimate; usage of 1 record rejected, not priced)`` when the
    note says more than a plain estimate; without a cost, the ``known`` part (USD) and why the
    rest is unknown (:func:`~tracetui.model.numbers.fmt_usd_part`): ``$0.01 + unknown (no price
    known for claude-imaginary-9)``, ``unknown (<note>)`` when no part is known."""
    if cost_usd is None:
        return fmt_usd_part(known, note)
    extra = cost_note_extra(note)
    return f"{fmt_usd(cost_usd)} (estimate" + (f"; {extra}" if extra else "") + ")"


def known_part(state: RunState) -> float:
    """The USD of ``state``'s messages that have a known price when its cost is unknown (a model
    of no known price among priced ones), priced as the fold prices them; ``0.0`` when its cost
    is known, or it was not priced (``--no-price``)."""
    if state.cost_usd is not None or state.cost_note == "not priced" or not state.usage_buckets:
        return 0.0
    # the fold's fallback day for undated messages: the session's last record (session_fold.py)
    last = max((a.last_timestamp for a in (state.main, *state.agents) if a.last_timestamp), default=None)
    return known_cost(state.usage_buckets, last)


def session_cost_text(state: RunState) -> str:
    """:func:`cost_text` of a session: its estimate, or its known part and why the rest is unknown."""
    return cost_text(state.cost_usd, state.cost_note, known_part(state))


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: UTF-8 bytes / :data:`TOKEN_BYTES`, rounded up (an estimate,
    not a tokenizer count)."""
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / TOKEN_BYTES)


def anchored(state: RunState, body: str, anchor: Anchor | None) -> "Item":
    """An item whose line ends with its anchor (``file:line``, or ``unlocated``)."""
    return Item(body, state.fmt_anchor(anchor))


# -- the state as of an episode ---------------------------------------------------------------


def short_names(state: RunState, limit: int = 24) -> tuple[RunState, list[str]]:
    """``state`` with long source names shortened for anchors, and legend lines naming them.

    A name longer than ``limit`` becomes the first 8 characters of its last ``__``-separated part
    plus ``….jsonl`` (``fa812bfe….jsonl``); names stay unique or are all kept whole."""
    names = [one_line_name(s.name) for s in state.sources]
    short = []
    for n in names:
        if len(n) <= limit:
            short.append(n)
            continue
        stem = n[:-6] if n.endswith(".jsonl") else n
        seg = stem.split("__")[-1]
        short.append(seg if len(seg) <= 16 else seg[:8] + "….jsonl")
    if len(set(short)) != len(short) or short == names:
        return state, []
    legend = [f"{sh} = {n}" for sh, n in zip(short, names) if sh != n]
    srcs = tuple(msgspec.structs.replace(s, name=sh) for s, sh in zip(state.sources, short))
    return msgspec.structs.replace(state, sources=srcs), legend
