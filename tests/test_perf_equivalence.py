"""Fast paths give what the plain rule gives: each checked against a reference written here."""

from __future__ import annotations

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
