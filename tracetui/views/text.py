"""Shortening helpers shared by the worker view and the card: one-line text, quoting tool output
as data, sections that fit a budget and always say what they left out (the as-of-episode state, re-exported
here, lives in :mod:`tracetui.views.as_of`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

import msgspec

from tracetui.model.anomalies import as_datetime, fmt_span
from tracetui.model.pricing import cost_note_extra
from tracetui.model.state import Anchor, RunState
from tracetui.views.as_of import episode_count, episodes_as_of, state_as_of
from tracetui.views.format import fmt_short, fmt_usd

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
]

#: bytes of UTF-8 per token in :func:`estimate_tokens`. Claude's tokenizer averages about 3.5–4
#: characters per token on English prose and fewer on code and paths; no tokenizer is available
#: offline, so we take the conservative 3.5 bytes per token (non-ASCII text counts its bytes).
TOKEN_BYTES = 3.5


from tracetui.views.safe import cut_redacted, safe_text  # noqa: E402

#: a secret's mask, kept whole by :func:`quote`
_MASK = re.compile("(\u00abredacted: [^\u00ab\u00bb\n\u2026]+\u00bb)")


def open_quote(text: str) -> bool:
    """``text`` ends inside a quoted datum (``«…``: a ``«`` with no ``»`` after it, a secret's
    mask not counted), as a line cut inside a :func:`quote` does."""
    if "«" not in text:
        return False
    rest = _MASK.sub("", text)
    return rest.rfind("«") > rest.rfind("»")


def one_line(text: str, limit: int) -> str:
    """``text`` with runs of whitespace folded to one space, cut to ``limit`` characters with
    ``…``; a text that is cut has its secrets masked first (:func:`~tracetui.views.safe.cut_redacted`)."""
    return cut_redacted(" ".join(safe_text(str(text)).split()), limit)


def quote(text: str, limit: int = 120) -> str:
    """Text taken from tool output (or the user's words) as a quoted datum: ``«…»`` on one line,
    guillemets inside replaced (a secret's mask ``«redacted: …»`` kept), at most ``limit``
    characters inside the quotes."""
    text = str(text)
    if "«" in text or "»" in text:
        parts = _MASK.split(text)
        text = "".join(p if i % 2 else p.replace("«", '"').replace("»", '"') for i, p in enumerate(parts))
    return f"«{one_line(text, limit)}»"


def fmt_n(n: int | float) -> str:
    """A count in short form (``987``, ``12.3k``, ``4.56M``): :func:`tracetui.views.format.fmt_short`."""
    return fmt_short(n)


def fmt_duration(seconds: float | None) -> str:
    """``42s``, ``3m10s``, ``2h05m``, ``277d10h`` (rounded to the second); ``?`` for unknown.
    The model's :func:`~tracetui.model.anomalies.fmt_span` does the formatting, so the views,
    the anomaly messages and the monitor write a span the same way."""
    if seconds is None:
        return "?"
    return fmt_span(round(seconds))


def cost_text(cost_usd: float | None, note: str) -> str:
    """``$1.23 (estimate)``; ``$1.23 (estimate; usage of 1 record rejected, not priced)`` when the
    note says more than a plain estimate; ``unknown (<note>)`` without a cost."""
    if cost_usd is None:
        return f"unknown ({note})"
    extra = cost_note_extra(note)
    return f"{fmt_usd(cost_usd)} (estimate" + (f"; {extra}" if extra else "") + ")"


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: UTF-8 bytes / :data:`TOKEN_BYTES`, rounded up (an estimate,
    not a tokenizer count)."""
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / TOKEN_BYTES)


def anchored(state: RunState, body: str, anchor: Anchor | None) -> "Item":
    """An item whose line ends with its anchor (``file:line``, or ``unlocated``)."""
    return Item(body, state.fmt_anchor(anchor))


def _cut_at_figure(cut: str, whole: str) -> str:
    """``cut`` (``whole`` shortened by :func:`one_line`, ending in ``…``) without a figure cut to
    its first digits (``tool calls 13…`` for 1,342): such a word goes whole, the ``…`` stays. A
    cut inside quoted data (``«…``) is left as it is: an excerpt, not a figure."""
    if not cut.endswith("…") or len(cut) >= len(" ".join(whole.split())):
        return cut
    head = cut[:-1]
    start = head.rfind(" ") + 1
    word = head[start:]
    if start > 0 and "«" not in head[head.rfind("»") + 1 :] and any(ch.isdigit() for ch in word):
        return head[:start].rstrip() + " …"
    return cut


class Item(msgspec.Struct, frozen=True):
    """One line of a section: its text and the anchor it ends with (``""`` for none)."""

    body: str
    anchor: str = ""

    def render(self, limit: int) -> str:
        """The line at most ``limit`` characters long (at least its anchor and 12 of its body):
        a body cut inside a quoted datum closes it (``«spec…»``), a figure goes whole."""
        tail = f" @ {self.anchor}" if self.anchor else ""
        room = max(limit - len(tail), 12)
        body = one_line(self.body, room)
        if body.endswith("…") and open_quote(body):
            body = one_line(self.body, room - 1)
            body = body[:-1].rstrip() + "…"
            return (body + "»" if open_quote(body) else body) + tail
        return _cut_at_figure(body, self.body) + tail


class Section(msgspec.Struct):
    """A titled list of items, most important first. When items are dropped to fit, a line
    ``+N more <noun>`` says so. ``keep`` items are never dropped (``None`` lines never cut);
    ``cost`` orders shrinking: sections with a higher cost lose items first. ``items`` may be
    any sequence, such as :class:`LazyItems` for a long list of which only a few lines fit."""

    title: str
    items: Sequence[Item]
    noun: str = "items"
    keep: int = 0
    cost: int = 1
    extra_more: int = 0  # items not even offered (already cut upstream), counted in "+N more"
    inline: bool = False  # one line: "TITLE: item"

    def lines(self, shown: int, limit: int) -> list[str]:
        """The section's lines with its first ``shown`` items, each cut to ``limit`` characters."""
        if self.inline:
            if not self.items:
                return []
            return [self._inline_line(limit)]
        out = [self.title] if self.title else []
        for k in range(min(shown, len(self.items))):
            out.append(self._item_line(k, limit))
        more = self._more(shown)
        if more:
            out.append(more)
        return out

    def _inline_line(self, limit: int) -> str:
        return self.title + ": " + self.items[0].render(limit - len(self.title) - 2)

    def _item_line(self, k: int, limit: int) -> str:
        return "  " + self.items[k].render(limit - 2)

    def _more(self, shown: int) -> str:
        more = len(self.items) - shown + self.extra_more
        return f"  +{more} more {self.noun}" if more > 0 else ""


class LazyItems(Sequence[Item]):
    """A read-only sequence of ``n`` items made on first access by ``make(k)`` (0-based) and
    kept: a section can offer thousands of items (every pending call) while :func:`fit` builds
    only the few that could fit its budget."""

    def __init__(self, n: int, make: Callable[[int], Item]) -> None:
        self._n = n
        self._make = make
        self._made: dict[int, Item] = {}

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(self._n))]
        if k < 0:
            k += self._n
        if not 0 <= k < self._n:
            raise IndexError(k)
        it = self._made.get(k)
        if it is None:
            it = self._made[k] = self._make(k)
        return it


class Additive(NamedTuple):
    """A measure of text that adds up over its lines, so :func:`fit` can price a layout without
    joining it: for ``text = "\\n".join(lines)``,
    ``measure(text) == total(sum(line(l) for l in lines) + sep * (len(lines) - 1))`` (``total(0)``
    for no lines). Contract: ``line(s) >= 0``, ``line("") == 0``, ``sep >= 0``, and ``total``
    non-decreasing (``None``: the identity). :data:`CHARS` is ``len``."""

    line: Callable[[str], int]
    sep: int = 1
    total: Callable[[int], int] | None = None


#: characters, as ``len`` counts them (``fit``'s default measure)
CHARS = Additive(len, 1, None)


class _Layout:
    """The sections laid out at one line limit: each line rendered at most once (cached), and,
    with an additive measure, priced from per-line costs, rendering only the items that could
    still fit (every line costs at least nothing, and the total is non-decreasing)."""

    def __init__(
        self,
        head: Sequence[str],
        sections: Sequence[Section],
        foot: Sequence[str],
        limit: int,
        budget: int,
        measure: Callable[[str], int],
        add: Additive | None,
    ) -> None:
        self.head, self.sections, self.foot, self.limit, self.budget = head, sections, foot, limit, budget
        self.measure, self.add = measure, add
        self.lines: list[list[str]] = [[] for _ in sections]  # rendered item lines, a prefix
        self.inline: list[str | None] = [s._inline_line(limit) if s.inline and len(s.items) else None for s in sections]
        if add is not None:
            f, c = add.line, add.sep
            self.total = add.total or (lambda x: x)
            # every line costs line(l) + sep; the text's measure subtracts one sep
            fixed = [*head, *foot, *(s.title for s in sections if not s.inline and s.title), *(x for x in self.inline if x is not None)]
            self.base = sum(f(x) + c for x in fixed)
            self.base_n = len(fixed)
            self.prefix: list[list[int]] = [[0] for _ in sections]

    def _line(self, i: int, k: int) -> str:
        got = self.lines[i]
        while len(got) <= k:
            got.append(self.sections[i]._item_line(len(got), self.limit))
        return got[k]

    def fits(self, shown: list[int]) -> bool:
        if self.add is None:
            return self.measure(self.text(shown)) <= self.budget
        f, c, total, budget = self.add.line, self.add.sep, self.total, self.budget
        raw, n = self.base, self.base_n
        grow = []
        for i, s in enumerate(self.sections):
            if s.inline:
                continue
            k = min(shown[i], len(s.items))
            more = s._more(shown[i])
            if more:
                raw += f(more) + c
                n += 1
            pre = self.prefix[i]
            have = min(k, len(pre) - 1)
            raw += pre[have]
            n += k
            if k > have:
                grow.append((i, have, k))
        if grow and total(raw - c) > budget:
            return False  # already over with what is priced: render nothing more
        for i, have, k in grow:  # render only while the total could still fit
            pre = self.prefix[i]
            for j in range(have, k):
                g = f(self._line(i, j)) + c
                pre.append(pre[-1] + g)
                raw += g
                if total(raw - c) > budget:
                    return False
        return total(raw - c if n else 0) <= budget

    def text(self, shown: list[int]) -> str:
        body: list[str] = list(self.head)
        for i, s in enumerate(self.sections):
            if s.inline:
                if self.inline[i] is not None:
                    body.append(self.inline[i])  # type: ignore[arg-type]
                continue
            if s.title:
                body.append(s.title)
            for k in range(min(shown[i], len(s.items))):
                body.append(self._line(i, k))
            more = s._more(shown[i])
            if more:
                body.append(more)
        body.extend(self.foot)
        return "\n".join(body)


def fit(
    head: Sequence[str],
    sections: Sequence[Section],
    foot: Sequence[str],
    budget: int,
    measure: Callable[[str], int] = len,
    line_limits: Sequence[int] = (220, 140, 90, 60),
    additive: Additive | None = None,
) -> str:
    """Join ``head``, the sections and ``foot`` into text whose ``measure`` is at most ``budget``.

    Shrinks in this order until it fits: drop items from sections (highest ``cost`` first, down
    to each section's ``keep``; each drop shows in a ``+N more`` line), shorten lines (the anchor
    at the end of a line is kept), and last, cut whole lines from the end of the sections with a
    final ``+N more lines cut`` note. ``head`` and ``foot`` stay whole unless the budget cannot
    even hold them, in which case the text is cut to the budget (the only silent case, for
    budgets below a few hundred characters). Deterministic.

    ``additive``: the same measure in per-line form (see :class:`Additive`; implied when
    ``measure`` is ``len``). With it, each candidate layout is priced without being joined and
    only the items that could fit are rendered, so a section of thousands of items costs about
    what fits in ``budget``; without it, every candidate is joined and measured (lines are still
    rendered once per line limit). Either way the result is the same text.
    """
    if additive is None and measure is len:
        additive = CHARS
    order = sorted(range(len(sections)), key=lambda i: (-sections[i].cost, i))
    full = [len(s.items) for s in sections]
    lay: _Layout | None = None
    shown = list(full)
    for limit in line_limits:
        lay = _Layout(head, sections, foot, limit, budget, measure, additive)
        shown = list(full)
        if lay.fits(shown):
            return lay.text(shown)
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
                if lay.fits(shown):
                    # give items back one by one while it still fits (cheapest sections first)
                    for j in reversed(order):
                        while shown[j] < full[j]:
                            shown[j] += 1
                            if not lay.fits(shown):
                                shown[j] -= 1
                                break
                    return lay.text(shown)
    text = lay.text(shown) if lay is not None else ""
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
