"""Drill-down of an episode: its steps read back from the transcript, sizes, errors, following the file.

Fixture sessions come from tui_sessions.py and tui_support.py (``TranscriptBuilder``); nothing is copied from
the corpus.
"""

from __future__ import annotations

import re
from pathlib import Path

from fixtures import future_reply_session
from textual.widgets import Static
from tui_sessions import big_result_session, open_drill_down, retry_session, state_of
from tui_support import app_for, demo_session, small_session, wait_for_state, wait_until

from tracetui.tui.excerpts import MAX_LINE_BYTES, read_excerpt
from tracetui.tui.screens.episode import EpisodeScreen
from tracetui.tui.widgets.episodes import EpisodesList


# -- 1. a record longer than the read-back bound is too large, not "changed" ----------------
def test_a_record_longer_than_the_bound_is_said_too_large_with_its_size(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    big_result_session(path, 3000)
    st = state_of(path)
    res = next(ev for ev in st.ledgers[0] if ev.kind == "tool_result")
    line = path.read_bytes().split(b"\n")[res.anchor.line - 1]
    said = read_excerpt(st, res.anchor, res.block, inline=res.excerpt, max_bytes=1024)
    assert "changed" not in said
    assert f"record too large to show here: {len(line) / 1024:.1f} KiB at big.jsonl:{res.anchor.line}" in said
    assert "reads at most 1.0 KiB of a line" in said
    # the ledger's own excerpt of the block is kept in front of the note
    assert said.startswith("BEGIN xxx")
    # within the bound the same block reads back whole (head and tail)
    whole = read_excerpt(st, res.anchor, res.block)
    assert whole.startswith("BEGIN") and whole.endswith("END")


def test_a_record_that_really_changed_is_still_said_changed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    big_result_session(path, 10)
    st = state_of(path)
    res = next(ev for ev in st.ledgers[0] if ev.kind == "tool_result")
    raw = path.read_bytes()
    # rewritten in place: the record's bytes are no longer a JSON object there
    path.write_bytes(raw[: res.anchor.offset] + b"garbage that is not JSON at all\n")
    said = read_excerpt(st, res.anchor, res.block)
    assert "the file changed since it was folded" in said and "too large" not in said


async def test_drill_down_says_a_record_over_4_mib_is_too_large(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    big_result_session(path, MAX_LINE_BYTES + 1000)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_drill_down(pilot, app)
        steps = str(screen.query_one("#episode-steps").content)
        size = len(path.read_bytes().split(b"\n")[2])  # line 3: the result (its text twice: content and toolUseResult)
        assert size > MAX_LINE_BYTES
        assert "the file changed" not in steps
        assert f"record too large to show here: {size / 1024 / 1024:.1f} MiB at big.jsonl:3" in steps
        assert "reads at most 4.0 MiB of a line for an excerpt" in steps


async def test_drill_down_writes_its_byte_offsets_with_separators(tmp_path: Path) -> None:
    # trial 11: the Anchors line said "bytes 440326–448925"
    path = tmp_path / "big.jsonl"
    big_result_session(path, 3000)
    st = state_of(path)
    last = st.ledgers[0][-1].anchor.offset
    assert last >= 1000
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_drill_down(pilot, app)
        errors = str(screen.query_one("#episode-errors").content)
        assert f" bytes 0–{last:,}" in errors, errors


async def test_drill_down_counts_agree_with_its_errors_list(tmp_path: Path) -> None:
    # the demo's episode 2: one failed call (its result came late) and one interrupt; the
    # header said "1 errors" above a list of two entries
    path = demo_session(tmp_path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        view = await wait_for_state(pilot)
        view.query_one(EpisodesList).highlighted = 1
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, EpisodeScreen) and screen.row.index == 2
        summary = str(screen.query_one("#episode-summary").content)
        errors = str(screen.query_one("#episode-errors").content)
        assert "1 errors" not in summary
        assert "3 tool calls · 1 tool error · 1 interrupt · " in summary
        head, _, _rest = errors.partition("Anchors")
        title, *entries = [ln for ln in head.splitlines() if ln.strip()]
        assert title == "Errors  1 tool error · 1 interrupt"
        assert len(entries) == 2
        assert sum(" interrupt [Request interrupted" in e for e in entries) == 1 and sum(" Bash Exit code 137" in e for e in entries) == 1


async def test_drill_down_shows_fixed_errors_and_blank_text(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    retry_session(path)
    st = state_of(path)
    ok = [ev for ev in st.ledgers[0] if ev.kind == "tool_result" and not ev.is_error and "passed" in ev.excerpt][0]
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for_state(pilot)
        screen = await open_drill_down(pilot, app)
        summary = str(screen.query_one("#episode-summary").content)
        assert "3 tool calls · 1 tool error (1 fixed by retry) · 1 API error · 1 API retry notice · " in summary
        errors = str(screen.query_one("#episode-errors").content)
        bash = next(ln for ln in errors.splitlines() if " Bash " in ln)
        assert bash.endswith(f"✓ fixed by retry at s.jsonl:{ok.anchor.line}")
        assert "API error" in errors and "fixed" not in next(ln for ln in errors.splitlines() if "API error" in ln and "·" not in ln)
        steps = str(screen.query_one("#episode-steps").content)
        blank = next(ev for ev in st.ledgers[0] if ev.kind == "assistant_text" and not ev.excerpt.strip())
        assert f"✎ (blank text)  s.jsonl:{blank.anchor.line}" in steps
        assert not re.search(r"✎\s+s\.jsonl:", steps)


def test_the_drill_down_masks_the_trial_shapes_of_secrets(tmp_path: Path) -> None:
    # every call and result read back (a MySQL -pPASSWORD, a Docker config's auth, a .pgpass line
    # read and written, an AWS secret key set, read and printed alone: eighth user trial)
    from trial_secrets import SHAPES, leaked, shapes_session

    st = state_of(shapes_session(tmp_path / "projects"))
    said = [read_excerpt(st, ev.anchor, ev.block) for ev in st.ledgers[0] if ev.kind in ("tool_use", "tool_result")]
    assert len(said) == 14 and sum("«redacted: " in s for s in said) == 7
    assert [s for s in said if leaked(s, SHAPES)] == []


def test_the_drill_down_masks_a_secret_found_once_wherever_it_comes_again(tmp_path: Path) -> None:
    # the goal gives a key and a password with what tells them; later results hold them alone
    # (eighth user trial), read from a fresh fold and from a saved one that grew
    from trial_secrets import RECURRING, leaked, recurring_session

    from tracetui.session.open import load_state, save_store

    projects = tmp_path / "projects"
    path = recurring_session(projects, later=False)
    save_store(load_state([path])[0])  # saved: the goal masked in the store
    path = recurring_session(projects)
    for st in (state_of(path), load_state([path])[1]):
        said = [read_excerpt(st, ev.anchor, ev.block) for ev in st.ledgers[0] if ev.kind in ("tool_use", "tool_result", "prompt")]
        assert "the password is\n«redacted: password or secret»" in said
        assert [s for s in said if leaked(s, RECURRING)] == []


# -- 2. the drill-down of the open episode grows with the file, and says as of which line -----
async def test_drill_down_of_the_open_episode_follows_the_file_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    b = small_session(path)
    app = app_for([path], tmp_path, follow=True, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.press("e")
        screen = app.screen
        assert isinstance(screen, EpisodeScreen) and screen.row.live and screen.row.index == 2
        summary = lambda: str(screen.query_one("#episode-summary", Static).content)  # noqa: E731
        steps = lambda: str(screen.query_one("#episode-steps", Static).content)  # noqa: E731
        lines = path.read_bytes().count(b"\n")
        assert f"as of line {lines} of the main file; follows the file as it grows" in summary()
        assert "Grep" not in steps()
        b.records.clear()
        b.tick(1).tool("Grep", {"pattern": "def parse", "path": "."}, "parser.py:1", took=0.5)
        with open(path, "ab") as f:
            f.write(b.data())
        grown = path.read_bytes().count(b"\n")
        await wait_until(pilot, lambda: f"as of line {grown} " in summary() and screen.loaded, 300, 0.02)
        assert f"as of line {grown} of the main file" in summary()
        assert "Grep" in steps() and "parser.py:1" in steps()
        # paused: the drill-down is held with the panes, and says so
        await pilot.press("escape", "p", "e")
        screen = app.screen
        assert isinstance(screen, EpisodeScreen)
        await pilot.pause()
        assert "held: the monitor is paused" in str(screen.query_one("#episode-summary", Static).content)
        # a completed episode's drill-down is not a moving target: no such line
        await pilot.press("escape", "p", "left_square_bracket", "e")
        assert isinstance(app.screen, EpisodeScreen) and app.screen.row.index == 1
        assert "as of line" not in str(app.screen.query_one("#episode-summary", Static).content)


async def test_the_drill_down_gives_no_duration_ending_past_the_clock(tmp_path: Path) -> None:
    """An episode whose last record is of year 2099: its summary says no duration was measured,
    as the Episodes pane does (trial 8: "took 26327d23h")."""

    path = tmp_path / "projects" / "-p" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(future_reply_session("2099-01-01T00:00:00Z"))
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await wait_until(pilot, lambda: view.shown is not None, 200, 0.01)
        row = next(r for r in view.rows if r.index == 1)
        screen = EpisodeScreen(view.state, row, source=view)
        await app.push_screen(screen)
        await wait_until(pilot, lambda: screen.loaded, 200, 0.02)
        summary = str(screen.query_one("#episode-summary", Static).content)
        assert "took ? (a record time past the clock)" in summary and "26" not in summary.split("took")[1]


async def test_a_tool_result_keeps_its_line_breaks_as_plain_text(tmp_path: Path) -> None:
    # trial 11: a Read result showed as "1 from fastapi import … 2 3 router = …" on one line
    from tracetui.demo.build import TranscriptBuilder
    from tracetui.tui.screens.episode import RESULT_LINES

    numbered = "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(["from fastapi import APIRouter", "", "router = [bold]x[/bold]"], 1))
    long = "\n".join(f"line {i}" for i in range(200))
    b = TranscriptBuilder()
    b.prompt("Read the router")
    b.tick(1).tool("Read", {"file_path": "/home/dev/app/router.py"}, numbered, took=0.5)
    b.tick(1).tool("Bash", {"command": "seq 200"}, long, took=0.5)
    b.tick(1).text("Done.")
    path = b.write(tmp_path / "s.jsonl")
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for_state(pilot)
        screen = await open_drill_down(pilot, app)
        steps = str(screen.query_one("#episode-steps").content)
        lines = steps.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("  out ") and "from fastapi import APIRouter" in line)
        # each line of its own, under the first; the markup as typed
        assert [x.split() for x in lines[at + 1 : at + 3]] == [["2"], ["3", "router", "=", "[bold]x[/bold]", "s.jsonl:3"]], lines
        assert lines[at + 1].startswith(" " * 6)
        # bounded: its first and last lines, the ones between said
        out = steps[steps.index("  out line 0") :]
        shown = out.split("  s.jsonl:")[0].splitlines()
        assert len(shown) == RESULT_LINES and "lines not shown] …" in shown[RESULT_LINES // 2 - 1]
        assert shown[-1].strip() == "line 199"
