"""Fast paths give what the plain rule gives: each checked against a reference written here."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from tracetui.ingest.decode import excerpt_of


def _excerpt_reference(text: str, limit: int) -> str:
    """The excerpt rule, plainly: strip, cut to ``limit`` characters with an ellipsis, fold
    line breaks and tabs to spaces."""
    text = text.strip()
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("\r", " ").replace("\n", " ").replace("\t", " ")


_TEXT = st.text(alphabet=st.sampled_from([" ", "\n", "\t", "\r", "\u3000", "a", "é", "x", "\u2028"]), max_size=700)


@settings(max_examples=400, deadline=None)
@given(lead=st.integers(0, 400), body=_TEXT, trail=st.sampled_from(["", " ", "\n" * 70, " x"]), limit=st.sampled_from([40, 80, 100]))
def test_excerpt_of_matches_the_plain_rule(lead: int, body: str, trail: str, limit: int) -> None:
    text = " " * lead + body + trail
    assert excerpt_of(text, limit) == _excerpt_reference(text, limit)


def test_excerpt_of_a_long_indented_text() -> None:
    text = "     1\tdef main():\n" + "x = 1\n" * 100_000
    assert excerpt_of(text, 20) == "1 def main(): x = 1…"


def _one_line_reference(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@settings(max_examples=300, deadline=None)
@given(body=_TEXT, words=st.integers(0, 300), limit=st.sampled_from([20, 60, 140, 160]))
def test_one_line_summaries_match_the_plain_rule(body: str, words: int, limit: int) -> None:
    from tracetui.ingest.tools import one_line

    text = body + " ab\n\t" * words + body
    want = _one_line_reference(text, limit)
    assert one_line(text, limit) == want


def _statements_reference(text: str) -> list[tuple[str, str]]:
    """The statement rule, plainly: each sentence of the first 4000 characters, stripped, of 8
    characters or more, searched whole for a constraint, else for a criterion."""
    from tracetui.ingest.tools import one_line
    from tracetui.model.derive_rules import _CONSTRAINT, _CRITERION, _SENTENCE

    out = []
    for m in _SENTENCE.finditer(text[:4000]):
        s = m.group(0).strip()
        if len(s) < 8:
            continue
        if _CONSTRAINT.search(s):
            out.append(("constraint", one_line(s, 160)))
        elif _CRITERION.search(s):
            out.append(("criterion", one_line(s, 160)))
    return out


_WORDS = [
    "don't",
    "Do not",
    "NEVER",
    "only",
    "must",
    "Should",
    "pass",
    "passes",
    "passing",
    "tests pass",
    "leave",
    "alone",
    "as is",
    "until",
    "verify",
    "expected",
    "e.g.",
    "vs.",
    "x",
    "foo",
    "passx",
    "ſhould",
    "İ",
    "\u212aeep",
    "mustn't",
    "at most",
]
_SEPS = [" ", "  ", ". ", "! ", "!!", "?", "\n", ".", "\t", "..."]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_SEPS)), max_size=40), st.booleans())
def test_statements_match_the_plain_rule(parts: list[tuple[str, str]], ascii_only: bool) -> None:
    from tracetui.model.derive_rules import statements as _statements

    text = "".join(w + s for w, s in parts)
    if ascii_only:
        text = text.encode("ascii", "ignore").decode()
    assert _statements(text) == _statements_reference(text)


def test_statements_of_a_long_prompt_match_the_plain_rule() -> None:
    from tracetui.model.derive_rules import statements as _statements

    text = ("Run it. Leave the fixtures alone. " * 40 + "You must not push. ") * 5
    assert _statements(text) == _statements_reference(text)
    assert _statements(text)  # the text holds statements past the first sentence


_OUT_WORDS = [
    "ok",
    "FAIL",
    "passed",
    "failed",
    "error",
    "Tests:",
    "Tests",
    "total",
    "test result: ok.",
    "failure",
    "tests,",
    "(",
    ")",
    "|",
    "3",
    "12",
    "\u0663",
    "0.5s",
    ".s",
    "(cached)",
    "pkg",
    "=====",
    "--- FAIL: ",
    "\x1b[32m",
    "in",
    "é",
    "x",
]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_OUT_WORDS), st.sampled_from([" ", "\n", "  ", "\t", ", ", ""])), max_size=30))
def test_a_tail_ruled_out_holds_no_summary(parts: list[tuple[str, str]]) -> None:
    """``_may_hold_summary`` rules a tail out only when no summary pattern matches it."""
    from tracetui.model import facts

    tail = "".join(w + s for w, s in parts)
    if facts._may_hold_summary(tail):
        return
    clean = facts._clean(tail)
    for pattern in (facts._JEST, facts._VITEST, facts._CARGO, facts._EXUNIT, facts._GO_OK, facts._GO_FAIL, facts._PYTEST_LINE):
        assert pattern.search(clean) is None
    assert not facts._has_count(clean, facts._PYTEST_WORDS)


_COUNT_PARTS = st.sampled_from(
    [
        "3",
        "\u0663",
        "x",
        " ",
        "  ",
        " passed",
        " xpassed",
        " xfailed",
        " failed",
        " errors",
        " error",
        "rerun",
        " rerun",
        "passed",
        "\n",
        "é",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_COUNT_PARTS, max_size=30))
def test_has_count_matches_the_plain_rule(parts: list[str]) -> None:
    """``_has_count`` (one pattern scan) finds a word right after a decimal digit exactly when
    the plain rule does: some position ``i >= 1`` where a word starts and ``text[i - 1]`` is a
    decimal digit."""
    from tracetui.model import facts

    text = "".join(parts)
    words = facts._PYTEST_WORDS
    plain = any(text.startswith(w, i) and text[i - 1].isdecimal() for i in range(1, len(text)) for w in words)
    assert facts._has_count(text, words) == plain


_USAGE_ADD = st.tuples(
    st.sampled_from(["m1", "m2", "m3"]),
    st.sampled_from(["opus", "sonnet"]),
    st.tuples(*(st.sampled_from([0, 5, 90_000, 150_000]) if i != 1 else st.integers(0, 40) for i in range(5))),
    st.sampled_from(["", "2026-01-01", "2026-01-02"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_USAGE_ADD, max_size=30), st.booleans())
def test_usage_book_matches_the_plain_rule(adds: list, grow: bool) -> None:
    """The book after any adds (output tokens growing on a message's next records, as Claude
    Code writes them, or anything): per message the field-wise max, the first model, the
    earliest day given (none: ``""``); buckets and totals summed from those."""
    from tracetui.model.pricing import bucket_key, buckets_of
    from tracetui.model.usage import UsageBook

    book = UsageBook()
    best: dict[str, tuple[int, ...]] = {}
    model: dict[str, str] = {}
    day: dict[str, str] = {}
    out: dict[str, int] = {}
    for key, m, u, d in adds:
        if grow:  # output only grows, the rest repeated: the fold's common case
            out[key] = out.get(key, 0) + u[1]
            u = (*best.get(key, u)[:1], out[key], *best.get(key, u)[2:])
        book.add(key, m, u, d)
        best[key] = tuple(map(max, best.get(key, u), u))
        model.setdefault(key, m)
        if d and (not day.get(key) or d < day[key]):
            day[key] = d
        day.setdefault(key, "")
    counts: dict[str, list[int]] = {}
    for key, u in best.items():
        c = counts.setdefault(bucket_key(model[key], day[key], u), [0, 0, 0, 0, 0, 0])
        c[0] += 1
        for i in range(5):
            c[i + 1] += u[i]
    assert book.usage_buckets() == buckets_of(counts)
    assert book.by_id == {k: tuple(v) for k, v in best.items()}
    t = book.tokens()
    assert (t.input, t.output, t.cache_creation, t.cache_read) == tuple(sum(u[i] for u in best.values()) for i in range(4))


_INPUT_TEXT = st.text(alphabet=st.sampled_from([" ", "\n", "\t", "\u00a0", "\u2028", "\x1f", "\x00", "a", "é", "-"]), max_size=60)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.sampled_from(["command", "description", "file_path", "n", "timeout"]), _INPUT_TEXT | st.integers(0, 3)))
def test_normalised_input_matches_the_plain_rule(inp: dict) -> None:
    """The tool-loop detector's input: volatile keys dropped, white space of every string
    folded as ``" ".join(s.split())`` folds it (a string with nothing to fold is kept as is)."""
    from tracetui.model.derive_rules import VOLATILE_KEYS, normalised_input

    want = {k: (" ".join(v.split()) if isinstance(v, str) else v) for k, v in inp.items() if k not in VOLATILE_KEYS}
    got = normalised_input(inp)
    assert got == want
    if want == inp and all(v.isprintable() for v in inp.values() if isinstance(v, str)):
        assert got is inp  # nothing to drop or fold: the input itself, not a copy (the common call)


@settings(max_examples=300, deadline=None)
@given(st.lists(_USAGE_ADD, max_size=30))
def test_episode_tokens_match_the_plain_rule(adds: list) -> None:
    """An episode's tokens, per model and per pricing bucket (``EpisodeBuilder.tokens``) are
    what the fold's bucket rule gives its messages (``pricing.bucket_key``/``buckets_of``)."""
    from tracetui.model.episodes import EpisodeBuilder
    from tracetui.model.pricing import bucket_key, buckets_of
    from tracetui.model.types import Tokens

    b = EpisodeBuilder(index=1)
    for key, m, u, d in adds:
        b.msg_usage[key] = u
        if key != "m3":  # a message of no known model is priced as "unknown"
            b.msg_model.setdefault(key, m)
        b.msg_day.setdefault(key, d)
    counts: dict[str, list[int]] = {}
    by: dict[str, list[int]] = {}
    for key, u in b.msg_usage.items():
        model = b.msg_model.get(key, "unknown")
        c = counts.setdefault(bucket_key(model, b.msg_day.get(key, ""), u), [0, 0, 0, 0, 0, 0])
        c[0] += 1
        m = by.setdefault(model, [0, 0, 0, 0])
        for i in range(5):
            c[i + 1] += u[i]
        for i in range(4):
            m[i] += u[i]
    total, per_model, buckets = b.tokens()
    assert buckets == buckets_of(counts)
    assert per_model == {k: Tokens(*v) for k, v in sorted(by.items())}
    assert total == Tokens(*(sum(v[i] for v in by.values()) for i in range(4)))


class _Holder(msgspec.Struct):
    content: msgspec.Raw = msgspec.field(default_factory=msgspec.Raw)


_TAIL_TEXT = st.text(alphabet=st.sampled_from([" ", "a", "\\", '"', "\n", "\t", "\x01", "é", "\u2028", "😀", "\u00a0"]), max_size=400)


@settings(max_examples=600, deadline=None)
@given(
    head=_TAIL_TEXT,
    words=st.integers(0, 400),
    word=st.sampled_from(["ab ", "é\\ ", "😀\n ", '" ']),
    end=_TAIL_TEXT,
    chars=st.integers(1, 300),
    bad=st.booleans(),
)
def test_result_tail_matches_the_plain_rule(head: str, words: int, word: str, end: str, chars: int, bad: bool) -> None:
    """The end of a tool result's text decoded from a suffix is the end of its whole text,
    for any characters and escapes (and with an invalid UTF-8 byte at the string's start)."""
    import orjson

    from tracetui.ingest import content as c

    data = orjson.dumps({"content": head + word * words + end})
    if bad:
        data = data[:12] + b"\xff" + data[12:]  # right after the string's opening quote
    raw = msgspec.json.decode(data, type=_Holder).content
    was = c.TAIL_FROM
    c.TAIL_FROM = 0  # every string takes the suffix path
    try:
        assert c.result_tail(raw, chars) == c.result_text(raw)[-chars:]
    finally:
        c.TAIL_FROM = was
