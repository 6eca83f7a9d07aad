"""An idle session must not look busy; the Now pane's text wraps to the pane's height.

Each Pilot test here failed before its fix: an idle session's call in flight read "running X for
452d" with a red 452-day age in Pending calls, and the frontier text was cut at the pane's width
less 30 columns though the pane had room for more. Fixture sessions are built here.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text
from tui_support import app_for, wait_for_state

from tracetui.demo.build import TranscriptBuilder
from tracetui.tui.widgets.now import NowPane, fit_frontier
from tracetui.tui.widgets.pending_calls import PendingCalls

DAY = 86400
#: the demo's closing words: the frontier text the Now pane cut to "said Done: POST /api/upload is l…"
DONE = "Done: POST /api/upload is limited to 10 requests/minute per API key (app/ratelimit.py); all 14 upload tests pass; committed as 4e1d2a9."


def _last_time(b: TranscriptBuilder) -> float:
    return datetime.fromisoformat(b.records[-1]["timestamp"].replace("Z", "+00:00")).timestamp()


def _ended_while_a_call_ran(path: Path) -> float:
    """A session whose last record is a tool_use (it ended while the call ran); the file's mtime
    is set to one second after that record. Returns that mtime."""
    b = TranscriptBuilder()
    b.prompt("Run the slow integration suite")
    b.tick(2).tool_use("Bash", {"command": "pytest -q tests/integration"})
    b.write(path)
    written = _last_time(b) + 1
    os.utime(path, (written, written))
    return written


def _ended_saying(path: Path, text: str) -> float:
    """A session whose last record is the assistant saying ``text``; mtime as above."""
    b = TranscriptBuilder()
    b.prompt("Rate-limit the upload endpoint")
    b.tick(1).tool("Read", {"file_path": "/home/dev/shop-api/app/routes/upload.py"}, "def upload(): ...", took=0.2)
    b.tick(2).text(text)
    b.write(path)
    written = _last_time(b) + 1
    os.utime(path, (written, written))
    return written


def _lines(widget) -> list[str]:
    return str(widget.content).split("\n")


async def test_an_idle_session_says_the_call_has_no_result_not_that_it_runs(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    written = _ended_while_a_call_ran(path)
    app = app_for([path], tmp_path, now=written + 452 * DAY + 3600)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        now = str(view.query_one(NowPane).content)
        assert "running" not in now and "for 452d" not in now, now
        flat = " ".join(now.split())
        assert "Bash(pytest -q tests/integration): no result recorded; session idle 452d (the transcript stops here)" in flat
        assert "452d01h ago  s.jsonl:2" in now  # the call's own age and anchor stay
        pending = view.query_one(PendingCalls)
        assert pending.border_title == "Pending calls (1) · session idle 452d"
        row = _lines(pending)[0]
        assert row.lstrip().startswith("452d01h Bash pytest -q tests/integration")  # the age stays
        assert all(span.style == "dim" for span in pending.content.spans if "452d" in pending.content.plain[span.start : span.end])
    # narrow: a shorter suffix, still whole, and the age and anchor line
    app = app_for([path], tmp_path, now=written + 452 * DAY + 3600)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await wait_for_state(pilot)
        pane = view.query_one(NowPane)
        now = str(pane.content)
        assert "running" not in now and "no result" in now and "idle 452d" in now, now
        assert "452d01h ago  s.jsonl:2" in now
        assert all(len(line) <= pane.content_size.width for line in _lines(pane))


async def test_a_live_session_still_says_the_call_runs(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    written = _ended_while_a_call_ran(path)
    app = app_for([path], tmp_path, now=written + 60)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        now = str(view.query_one(NowPane).content)
        assert now.startswith("running Bash(pytest -q tests/integration)") and "for 1m01s  s.jsonl:2" in now, now
        assert "no result" not in now and "idle" not in now
        assert view.query_one(PendingCalls).border_title == "Pending calls (1)"


async def test_the_frontier_text_wraps_to_the_pane_height(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    written = _ended_saying(path, DONE)
    # 120x40: three rows; the text takes two lines whole, the age and anchor the third (the
    # text was cut at twice the width less 30 columns)
    app = app_for([path], tmp_path, now=written + 60)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        pane = view.query_one(NowPane)
        lines = _lines(pane)
        text = view.state.main.frontier.text  # the fold keeps up to FRONTIER_CHARS (400)
        assert text == DONE
        assert pane.content_size.height == 3 and len(lines) == 3
        # the whole text over the rows, the age and anchor after it on the last row
        shown = " ".join(" ".join(lines).split("1m01s ago")[0].split())
        assert shown == f"said {text}", shown
        assert lines[2].rstrip().endswith("1m01s ago  s.jsonl:4")
        assert all(len(line) <= pane.content_size.width for line in lines)
    # 110x30: two rows; the text fills the first and goes on beside the age (it was cut at 28 characters)
    app = app_for([path], tmp_path, now=written + 60)
    async with app.run_test(size=(110, 30)) as pilot:
        view = await wait_for_state(pilot)
        pane = view.query_one(NowPane)
        lines = _lines(pane)
        width = pane.content_size.width
        assert pane.content_size.height == 2 and len(lines) == 2
        assert all(len(line) <= width for line in lines)
        shown = " ".join(" ".join(lines).split("1m01s ago")[0].split())
        assert shown.startswith("said ") and shown.endswith("…")
        assert DONE.startswith(shown[5:-1].rstrip()) and len(shown) > width  # more than a line's worth
        assert lines[-1].rstrip().endswith("1m01s ago  s.jsonl:4")


@settings(max_examples=150, deadline=None)
@given(
    body=st.text(alphabet=st.sampled_from(list("ab cd/é世界 -")), max_size=300),
    width=st.integers(1, 120),
    rows=st.integers(1, 5),
    idle=st.booleans(),
)
def test_fit_frontier_stays_in_the_pane_and_keeps_head_and_tail(body: str, width: int, rows: int, idle: bool) -> None:
    from tracetui.tui.format import one_line

    body = one_line(body)
    suffixes = [Text(": no result recorded; session idle 452d"), Text(": no result; idle 452d")] if idle else []
    out = fit_frontier(Text("said "), body, suffixes, Text("4m05s ago  s.jsonl:12"), width, rows)
    lines = out.plain.split("\n")
    assert len(lines) <= rows
    assert all(Text(line).cell_len <= width for line in lines)
    if width >= 40 and rows >= 2:
        # wide enough: head and tail whole, the body a prefix of the text (cut with … only when needed)
        flat = out.plain
        assert flat.startswith("said ") and "4m05s ago  s.jsonl:12" in flat

        def bare(x: str) -> str:  # wrapping moves spaces and may split a long word
            return "".join(x.split())

        if idle:
            assert "idle452d" in bare(flat)

        shown = bare(flat[5:].split("4m05s ago")[0])
        for s in suffixes:
            shown = shown.removesuffix(bare(s.plain))
        assert shown == bare(body) or (shown.endswith("…") and bare(body).startswith(shown[:-1]))


def _tree_labels(tree) -> list[str]:
    labels: list[str] = []

    def walk(node) -> None:
        labels.append(str(node.label))
        for child in node.children:
            walk(child)

    walk(tree.root)
    return labels


async def test_an_idle_session_says_a_subagent_call_has_no_result_not_that_it_runs(tmp_path: Path) -> None:
    from tracetui.tui.widgets.subagents import SubagentsTree

    path = tmp_path / "s.jsonl"
    b = TranscriptBuilder()
    b.prompt("Find where the config is read")
    b.tick(1).tool_use("Task", {"description": "Find the config", "subagent_type": "Explore", "prompt": "Where is the config read?"})
    b.write(path)
    written = _last_time(b) + 1
    os.utime(path, (written, written))
    for now, says, never in ((written + 452 * DAY, "no result recorded", "running"), (written + 60, "running", "no result")):
        app = app_for([path], tmp_path, now=now)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for_state(pilot)
            await pilot.pause()
            labels = _tree_labels(app.screen.query_one(SubagentsTree))
            task = next(label for label in labels if label.startswith("Task Find the config"))
            assert says in task and never not in task, labels
            # a call the session stopped during has no transcript file; a live one's may come yet
            assert any(("no transcript file" if never == "running" else "transcript not found yet") in label for label in labels), labels
