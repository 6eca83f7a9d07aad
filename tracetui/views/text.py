"""Shortening helpers shared by the worker view and the card: one-line text, quoting tool output
as data, sections that fit a budget and always say what they left out, and the as-of-episode state.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Callable, Sequence

import msgspec

from tracetui.model.state import Anchor, RunState

__all__ = [
    "one_line",
    "quote",
    "fmt_n",
    "fmt_duration",
    "estimate_tokens",
    "Item",
    "Section",
    "fit",
    "anchored",
    "state_as_of",
    "episode_count",
    "as_datetime",
    "TOKEN_BYTES",
    "episodes_as_of",
    "short_names",
]

#: bytes of UTF-8 per token in :func:`estimate_tokens`. Claude's tokenizer averages about 3.5–4
#: characters per token on English prose and fewer on code and paths; no tokenizer is available
#: offline, so we take the conservative 3.5 bytes per token (non-ASCII text counts its bytes).
TOKEN_BYTES = 3.5


def one_line(text: str, limit: int) -> str:
    """``text`` with runs of whitespace folded to one space, cut to ``limit`` characters with ``…``."""
    text = " ".join(str(text).split())
    if limit <= 0:
        return ""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def quote(text: str, limit: int = 120) -> str:
    """Text taken from tool output (or the user's words) as a quoted datum: ``«…»`` on one line,
    guillemets inside replaced, at most ``limit`` characters inside the quotes."""
    t = one_line(str(text).replace("«", '"').replace("»", '"'), limit)
    return f"«{t}»"


def fmt_n(n: int | float) -> str:
    """A count in short form: ``987``, ``12.3k``, ``4.5M``."""
    n = float(n)
    for unit, div in (("M", 1e6), ("k", 1e3)):
        if abs(n) >= div:
            return f"{n / div:.1f}{unit}"
    return f"{int(n)}"


def fmt_duration(seconds: float | None) -> str:
    """``42s``, ``3m10s``, ``2h05m``; ``?`` for unknown."""
    if seconds is None:
        return "?"
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: UTF-8 bytes / :data:`TOKEN_BYTES`, rounded up (an estimate,
    not a tokenizer count)."""
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / TOKEN_BYTES)


def as_datetime(now: datetime | float | int | None) -> datetime | None:
    """``now`` (a datetime, or epoch seconds) as an aware UTC datetime, or ``None``."""
    if now is None:
        return None
    if isinstance(now, datetime):
        return now if now.tzinfo else now.replace(tzinfo=timezone.utc)
    return datetime.fromtimestamp(float(now), tz=timezone.utc)


def anchored(state: RunState, body: str, anchor: Anchor | None) -> "Item":
    """An item whose line ends with its anchor (``file:line``, or ``unlocated``)."""
    return Item(body, state.fmt_anchor(anchor))


class Item(msgspec.Struct, frozen=True):
    """One line of a section: its text and the anchor it ends with (``""`` for none)."""

    body: str
    anchor: str = ""

    def render(self, limit: int) -> str:
        tail = f" @ {self.anchor}" if self.anchor else ""
        return one_line(self.body, max(limit - len(tail), 12)) + tail


class Section(msgspec.Struct):
    """A titled list of items, most important first. When items are dropped to fit, a line
    ``+N more <noun>`` says so. ``keep`` items are never dropped (``None`` lines never cut);
    ``cost`` orders shrinking: sections with a higher cost lose items first."""

    title: str
    items: list[Item]
    noun: str = "items"
    keep: int = 0
    cost: int = 1
    extra_more: int = 0  # items not even offered (already cut upstream), counted in "+N more"
    inline: bool = False  # one line: "TITLE: item"

    def lines(self, shown: int, limit: int) -> list[str]:
        if self.inline:
            if not self.items:
                return []
            return [self.title + ": " + self.items[0].render(limit - len(self.title) - 2)]
        out = [self.title] if self.title else []
        for it in self.items[:shown]:
            out.append("  " + it.render(limit - 2))
        more = len(self.items) - shown + self.extra_more
        if more > 0:
            out.append(f"  +{more} more {self.noun}")
        return out


def fit(
    head: Sequence[str],
    sections: Sequence[Section],
    foot: Sequence[str],
    budget: int,
    measure: Callable[[str], int] = len,
    line_limits: Sequence[int] = (220, 140, 90, 60),
) -> str:
    """Join ``head``, the sections and ``foot`` into text whose ``measure`` is at most ``budget``.

    Shrinks in this order until it fits: drop items from sections (highest ``cost`` first, down
    to each section's ``keep``; each drop shows in a ``+N more`` line), shorten lines (the anchor
    at the end of a line is kept), and last, cut whole lines from the end of the sections with a
    final ``+N more lines cut`` note. ``head`` and ``foot`` stay whole unless the budget cannot
    even hold them, in which case the text is cut to the budget (the only silent case, for
    budgets below a few hundred characters). Deterministic.
    """
    shown = [len(s.items) for s in sections]

    def render(limit: int) -> str:
        body: list[str] = list(head)
        for s, n in zip(sections, shown):
            body.extend(s.lines(n, limit))
        body.extend(foot)
        return "\n".join(body)

    order = sorted(range(len(sections)), key=lambda i: (-sections[i].cost, i))
    text = ""
    for limit in line_limits:
        shown = [len(s.items) for s in sections]
        text = render(limit)
        if measure(text) <= budget:
            return text
        # drop items, the costliest sections first, halving what each shows in turn
        progress = True
        while progress:
            progress = False
            for i in order:
                s = sections[i]
                if shown[i] <= s.keep:
                    continue
                shown[i] = max(s.keep, shown[i] // 2 if shown[i] > 4 else shown[i] - 1)
                progress = True
                text = render(limit)
                if measure(text) <= budget:
                    # give items back one by one while it still fits (cheapest sections first)
                    for j in reversed(order):
                        while shown[j] < len(sections[j].items):
                            shown[j] += 1
                            t2 = render(limit)
                            if measure(t2) > budget:
                                shown[j] -= 1
                                break
                            text = t2
                    return text
    # still too long: cut whole lines from the end of the sections
    body = text.split("\n")
    head_n, foot_n = len(head), len(foot)
    mid = body[head_n : len(body) - foot_n]
    while mid:
        cut = len(body) - head_n - foot_n - len(mid)
        note = [f"+{cut} more lines cut to fit {budget}"] if cut else []
        t = "\n".join([*head, *mid, *note, *foot])
        if measure(t) <= budget:
            return t
        mid.pop()
    t = "\n".join([*head, f"+{len(body) - head_n - foot_n} more lines cut to fit {budget}", *foot])
    if measure(t) <= budget:
        return t
    # the budget cannot hold even the head and foot: cut characters
    while t and measure(t) > budget:
        over = measure(t) - budget
        t = t[: max(len(t) - max(over, 1), 0)]
    return t


# -- the state as of an episode ---------------------------------------------------------------

def episode_count(state: RunState) -> int:
    """How many episodes (human prompts) the main thread has."""
    return state.main.prompts


def state_as_of(state: RunState, episode: int | None) -> RunState:
    """The state at the end of episode ``episode`` (1-based), compiled from ``state.history``.

    ``None`` or the last episode gives ``state`` itself. Earlier episodes give a RunState whose
    main thread is the snapshot taken when the next prompt arrived; subagent files are left out
    (their progress at that moment is not recorded) and cost is recomputed from that snapshot's
    tokens (``None`` when the state was not priced). Raises ``ValueError`` for an episode
    outside ``1..N``.
    """
    n = episode_count(state)
    if episode is None or (episode == n and n > 0):
        return state
    if not 1 <= episode <= n or episode - 1 >= len(state.history):
        raise ValueError(f"episode {episode} does not exist (this session has {n} episode(s), numbered 1 to {n})")
    h = state.history[episode - 1]
    # the snapshot was taken as the closing prompt's record was read: its last_anchor is that
    # record; the view covers the events before it (bytes before its offset)
    closing = h.last_anchor
    led = state.ledgers[h.src] if h.src < len(state.ledgers) else []
    if 0 < h.ledger_len <= len(led):
        h = msgspec.structs.replace(h, last_anchor=led[h.ledger_len - 1].anchor)
    eps = episodes_as_of(state.episodes, h.ledger_len)
    if h.derived is not None and not h.derived.episodes:
        # history snapshots leave their episodes out (FileFold.snapshot): give it those as of then
        h = msgspec.structs.replace(h, derived=msgspec.structs.replace(h.derived, episodes=eps))
    cost, note = None, state.cost_note
    if state.cost_note != "not priced":
        from tracetui.model.pricing import estimate_cost

        cost, note = estimate_cost(h.tokens_by_model, h.last_timestamp)
    srcs = []
    for s in state.sources[:1]:
        srcs.append(
            msgspec.structs.replace(
                s,
                consumed=(closing.offset if closing is not None else 0),
                lines=(closing.line - 1 if closing is not None else 0),
                pending_bytes=0,
                malformed=h.counters.malformed,
                unknown=h.counters.unknown_records + h.counters.unknown_blocks,
                last_anchor=h.last_anchor,
            )
        )
    return msgspec.structs.replace(
        state,
        main=h,
        agents=(),
        sources=tuple(srcs),
        counters=h.counters,
        tools_by_name=dict(sorted(h.tools_by_name.items(), key=lambda kv: (-kv[1], kv[0]))),
        tokens=h.tokens,
        tokens_by_model=h.tokens_by_model,
        cost_usd=cost,
        cost_note=note,
        models=h.models,
        pending=h.pending,
        files=h.files,
        history=state.history[: episode - 1],
        episodes=eps,
    )


def episodes_as_of(episodes: tuple, cutoff: int) -> tuple:
    """The episode versions made at or before ledger position ``cutoff`` (the prompt that ends
    the episode in question), with lifecycles as they stood then: each index's newest version
    is current, older ones superseded."""
    kept = [e for e in episodes if e.made_at <= cutoff and e.status != "in_progress" or (e.made_at <= cutoff and e.lifecycle == "superseded")]
    newest: dict[int, int] = {}
    for e in kept:
        newest[e.index] = max(newest.get(e.index, 0), e.version)
    out = []
    for e in kept:
        cur = e.version == newest[e.index]
        out.append(msgspec.structs.replace(e, lifecycle="current" if cur else "superseded", superseded_by=None if cur else e.superseded_by))
    return tuple(out)


def short_names(state: RunState, limit: int = 24) -> tuple[RunState, list[str]]:
    """``state`` with long source names shortened for anchors, and legend lines naming them.

    A name longer than ``limit`` becomes the first 8 characters of its last ``__``-separated part
    plus ``….jsonl`` (``fa812bfe….jsonl``); names stay unique or are all kept whole."""
    names = [s.name for s in state.sources]
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
