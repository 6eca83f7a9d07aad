"""Sections that fit a budget: items dropped costliest first, lines shortened, and always a line
saying what was left out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import msgspec

from tracetui.views.lines import Item

__all__ = ["Section", "LazyItems", "Additive", "CHARS", "fit"]


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
