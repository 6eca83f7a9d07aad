"""Fast paths give exactly what the straightforward code gives: ``views.text.fit``'s layout,
and the cost-spike detector's running median.

``_reference_fit`` below is the original implementation (every candidate joined and measured,
every line re-rendered), kept as the specification: the fast ``fit`` prices layouts from per-line
costs and renders only the items that could fit, and must return the same text for any input.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Callable, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tracetui.views.text import TOKEN_BYTES, Additive, Item, LazyItems, Section, estimate_tokens, fit


def _reference_lines(s: Section, shown: int, limit: int) -> list[str]:
    if s.inline:
        if not s.items:
            return []
        return [s.title + ": " + s.items[0].render(limit - len(s.title) - 2)]
    out = [s.title] if s.title else []
    for it in list(s.items)[:shown]:
        out.append("  " + it.render(limit - 2))
    more = len(s.items) - shown + s.extra_more
    if more > 0:
        out.append(f"  +{more} more {s.noun}")
    return out


def _reference_fit(
    head: Sequence[str],
    sections: Sequence[Section],
    foot: Sequence[str],
    budget: int,
    measure: Callable[[str], int] = len,
    line_limits: Sequence[int] = (220, 140, 90, 60),
) -> str:
    shown = [len(s.items) for s in sections]

    def render(limit: int) -> str:
        body: list[str] = list(head)
        for s, n in zip(sections, shown):
            body.extend(_reference_lines(s, n, limit))
        body.extend(foot)
        return "\n".join(body)

    order = sorted(range(len(sections)), key=lambda i: (-sections[i].cost, i))
    text = ""
    for limit in line_limits:
        shown = [len(s.items) for s in sections]
        text = render(limit)
        if measure(text) <= budget:
            return text
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
                    for j in reversed(order):
                        while shown[j] < len(sections[j].items):
                            shown[j] += 1
                            t2 = render(limit)
                            if measure(t2) > budget:
                                shown[j] -= 1
                                break
                            text = t2
                    return text
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
    while t and measure(t) > budget:
        over = measure(t) - budget
        t = t[: max(len(t) - max(over, 1), 0)]
    return t


def _tokens(text: str) -> int:  # the card's measure
    return estimate_tokens(text.replace("~@@@", "~800"))


TOKENS = Additive(lambda line: len(line.replace("~@@@", "~800").encode("utf-8", "surrogatepass")), 1, lambda b: math.ceil(b / TOKEN_BYTES))

_text = st.text(alphabet=st.sampled_from("ab c\té€~@\n«»x"), max_size=120)
_sections = st.lists(
    st.builds(
        lambda title, bodies, anchors, keep, cost, extra, inline, noun: Section(
            title, [Item(b, a) for b, a in zip(bodies, anchors)], noun=noun, keep=keep, cost=cost, extra_more=extra, inline=inline
        ),
        st.sampled_from(["", "S", "SECTION TITLE ~@@@"]),
        st.lists(_text, max_size=25),
        st.lists(st.sampled_from(["", "f.jsonl:1", "a-much-longer-file-name.jsonl:123456", "unlocated"]), min_size=25, max_size=25),
        st.integers(0, 4),
        st.integers(0, 5),
        st.integers(0, 3),
        st.booleans(),
        st.sampled_from(["items", "files"]),
    ),
    max_size=6,
)
_head = st.lists(st.sampled_from(["HEAD ~@@@ tokens", "second head line", ""]), max_size=3)
_limits = st.sampled_from([(220, 140, 90, 60), (200, 150, 110, 80), (40,), ()])


@settings(max_examples=200, deadline=None)
@given(_head, _sections, st.lists(st.sampled_from(["FOOT", "a longer foot line é"]), max_size=2), st.integers(-3, 3000), _limits)
def test_fit_is_the_reference_in_characters(head, sections, foot, budget, limits) -> None:
    want = _reference_fit(head, sections, foot, budget, len, limits)
    assert fit(head, sections, foot, budget, len, limits) == want
    # the generic path (a measure with no additive form) gives the same text too
    assert fit(head, sections, foot, budget, lambda t: len(t), limits) == want
    assert len(want) <= max(budget, 0)
    # exactly at the edge: the budget the text just meets, and one less
    for b in {len(want), len(want) - 1, len("\n".join([*head, *foot]))}:
        assert fit(head, sections, foot, b, len, limits) == _reference_fit(head, sections, foot, b, len, limits)


@settings(max_examples=150, deadline=None)
@given(_head, _sections, st.lists(st.sampled_from(["FOOT", "a longer foot line é"]), max_size=2), st.integers(0, 900), _limits)
def test_fit_is_the_reference_in_estimated_tokens(head, sections, foot, budget, limits) -> None:
    want = _reference_fit(head, sections, foot, budget, _tokens, limits)
    assert fit(head, sections, foot, budget, _tokens, limits, additive=TOKENS) == want
    assert _tokens(want) <= budget
    for b in {_tokens(want), _tokens(want) - 1}:
        assert fit(head, sections, foot, b, _tokens, limits, additive=TOKENS) == _reference_fit(head, sections, foot, b, _tokens, limits)


@given(st.lists(_text, min_size=1, max_size=40))
def test_the_token_measure_adds_up_over_lines(lines) -> None:
    text = "\n".join(lines)
    raw = sum(TOKENS.line(x) + TOKENS.sep for x in lines) - TOKENS.sep
    assert TOKENS.total(raw) == _tokens(text)


def test_a_long_lazy_section_builds_only_what_could_fit() -> None:
    made: list[int] = []

    def make(k: int) -> Item:
        made.append(k)
        return Item(f"pending call number {k}", f"f.jsonl:{k + 1}")

    n = 20_000
    secs = [
        Section("OPEN", LazyItems(n, make), noun="open items", keep=1, cost=2),
        Section("OTHER", [Item("x" * 50, "f.jsonl:1")] * 3, keep=1),
    ]
    text = fit(["HEAD"], secs, ["FOOT"], 2000)
    assert len(text) <= 2000
    shown = [ln for ln in text.split("\n") if ln.startswith("  pending call number")]
    m = [ln for ln in text.split("\n") if ln.startswith("  +") and ln.endswith("more open items")]
    assert m and len(shown) + int(m[0].split()[0][1:]) == n
    # every line is at least ~30 characters: no more than ~2000/30 items per line limit are built
    assert len(set(made)) <= 2000 // 30 + 2
    assert text == _reference_fit(["HEAD"], secs, ["FOOT"], 2000)


def test_lazy_items_is_a_sequence() -> None:
    li = LazyItems(5, lambda k: Item(str(k)))
    assert len(li) == 5 and li[0].body == "0" and li[-1].body == "4" and [i.body for i in li[1:3]] == ["1", "2"]
    assert li[2] is li[2]  # made once
    assert [i.body for i in li] == ["0", "1", "2", "3", "4"]


@given(st.lists(st.floats(min_value=0, max_value=1e4, allow_nan=False), min_size=1, max_size=60))
def test_the_running_median_is_statistics_median(xs) -> None:
    from tracetui.model.anomalies import _sorted_median

    kept: list[float] = []
    for i, x in enumerate(xs):
        bisect.insort(kept, x)
        assert _sorted_median(kept) == statistics.median(xs[: i + 1])
