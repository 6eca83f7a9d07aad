"""One formatter for counts, short counts and byte sizes, used by every view, the headless
outputs and the monitor (issue 10 item 12)."""

from __future__ import annotations

import re

import pytest
from rich.text import Text

from tracetui.tui import format as tui_format
from tracetui.tui.fields import MORE, append_fields
from tracetui.views import text as views_text
from tracetui.views.format import fmt_bytes, fmt_count, fmt_short, fmt_usd, plural


def test_counts_have_thousands_separators() -> None:
    assert [fmt_count(n) for n in (0, 987, 12_345, 1_234_567, None)] == ["0", "987", "12,345", "1,234,567", "?"]


@pytest.mark.parametrize(
    ("n", "shown"),
    [
        (0, "0"),
        (999, "999"),
        (1000, "1.0k"),
        (12_345, "12.3k"),
        (999_949, "999.9k"),
        (999_950, "1.00M"),
        (4_560_000, "4.56M"),
        (2_100_000_000, "2.10G"),
    ],
)
def test_short_counts_never_write_a_thousand_of_a_unit(n: int, shown: str) -> None:
    assert fmt_short(n) == shown


@pytest.mark.parametrize(
    ("n", "shown"),
    [
        (512, "512 B"),
        (1023, "1023 B"),
        (1024, "1.0 KiB"),
        (1_048_524, "1023.9 KiB"),
        (1_048_525, "1.0 MiB"),
        (31_457_372, "30.0 MiB"),
        (5 << 30, "5.00 GiB"),
    ],
)
def test_bytes_are_binary_and_labelled_so(n: int, shown: str) -> None:
    assert fmt_bytes(n) == shown


def test_the_monitor_and_the_views_use_the_one_formatter() -> None:
    for n in (7, 12_345, 999_950, 4_560_000, 31_457_372):
        assert tui_format.fmt_tokens(n) == views_text.fmt_n(n) == fmt_short(n)
        assert tui_format.fmt_bytes(n) == fmt_bytes(n)
        assert tui_format.fmt_count(n) == fmt_count(n)


def test_fields_are_dropped_whole_never_cut_inside_a_figure() -> None:
    fields = [("in 179", ""), (" out 2.4k", ""), (" cache w 25.1k", ""), (" r 594.4k", "")]
    for width in range(8, 60):
        out = Text("tokens ")
        dropped = append_fields(out, fields, width)
        line = out.plain
        assert len(line) <= width or dropped == len(fields)
        kept = fields[: len(fields) - dropped]
        body = "tokens " + "".join(f for f, _ in kept)
        assert line in (body, body + MORE)
        assert line.endswith(MORE) == (0 < dropped and len(body) + len(MORE) <= width)


def Item_cut_digits(line: str) -> str | None:
    m = re.search(r"\d[\d.,]*…", line)
    return m.group(0) if m else None


def test_a_view_line_cut_short_never_ends_on_a_figure_s_first_digits() -> None:
    item = views_text.Item("records 30 · prompts 3 · tool calls 1342 (errors 12)", "s.jsonl:30")
    line = item.render(52)
    assert line == "records 30 · prompts 3 · tool calls … @ s.jsonl:30", line
    assert Item_cut_digits(item.render(56)) is None
    quoted = views_text.Item("failed with " + views_text.quote("Exit code 1 in 0.52s and more text here", 60), "s.jsonl:9")
    for n in range(30, 60):  # quoted data is cut as it is (an excerpt, not a figure), and still closes
        line = quoted.render(n)
        whole = views_text.one_line(quoted.body, n - len(" @ s.jsonl:9"))
        if whole.endswith("…"):
            cut = views_text.one_line(quoted.body, n - len(" @ s.jsonl:9") - 1)
            assert line == cut[:-1].rstrip() + "…» @ s.jsonl:9", (n, line)
        else:
            assert line == whole + " @ s.jsonl:9", (n, line)


def test_usd_has_thousands_separators() -> None:
    # trial 11: a session of 10**11 input tokens printed "cost $1000000.00"
    assert [fmt_usd(x) for x in (0, 1.234, 1234.5, 1_000_000, None)] == ["$0.00", "$1.23", "$1,234.50", "$1,000,000.00", "?"]
    assert views_text.cost_text(1_000_000.0, "estimate").startswith("$1,000,000.00 (estimate")


def test_plural_writes_the_count_and_the_right_noun() -> None:
    # trial 11: "(1 API messages)", "1 tool errors", "1 anomalies", "0 subagent file(s)"
    assert plural(1, "API message") == "1 API message"
    assert plural(0, "subagent file") == "0 subagent files"
    assert plural(12_345, "tool error") == "12,345 tool errors"
    assert plural(1, "anomaly", "anomalies") == "1 anomaly"
    assert plural(2, "anomaly", "anomalies") == "2 anomalies"
