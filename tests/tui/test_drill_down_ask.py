"""The drill-down's Ask: a long prompt is read back from the transcript, and every cut is said
(``… [N chars cut; whole block at file:line] …``), never a head that reads as the whole ask.

Fixture sessions are built by the test (``TranscriptBuilder``); nothing is copied from the corpus.
"""

from __future__ import annotations

from pathlib import Path

from tui_sessions import open_drill_down, state_of
from tui_support import app_for, wait_for_state

from tracetui.demo.build import TranscriptBuilder
from tracetui.model.episodes import ASK_CHARS
from tracetui.tui.excerpts import ASK_SHOWN, ask_shown, read_ask

_WORDS = " ".join(f"word{i:04d}" for i in range(600)) + " THE-END-MARKER"


def _long_ask(path: Path, text: str = _WORDS) -> None:
    b = TranscriptBuilder()
    b.prompt(text)
    b.tick(1).tool("Bash", {"command": "ls"}, "a\nb", took=0.5)
    b.tick(1).text("Done.")
    b.write(path)


async def test_a_long_ask_is_cut_with_the_cut_said_and_its_anchor(tmp_path: Path) -> None:
    # trial 6 §7: the Ask stopped at 600 characters mid-word ("word00") with no mark at all
    path = tmp_path / "longask.jsonl"
    _long_ask(path)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_drill_down(pilot, app)
        summary = str(screen.query_one("#episode-summary").content)
        ask = summary.split("Ask longask.jsonl:1\n", 1)[1]
        half = ASK_SHOWN // 2
        assert ask.startswith("word0000 word0001")
        assert f"… [{len(_WORDS) - 2 * half} chars cut; whole block at longask.jsonl:1] …" in ask
        assert ask.endswith("word0599 THE-END-MARKER")  # the tail of the prompt too


async def test_an_ask_longer_than_the_episode_keeps_is_read_back_whole(tmp_path: Path) -> None:
    # more than the episode model keeps (600) and less than the drill-down shows (2000): whole
    text = " ".join(f"w{i:03d}" for i in range(250)) + " LAST"
    assert ASK_CHARS < len(text) < ASK_SHOWN
    path = tmp_path / "s.jsonl"
    _long_ask(path, text)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_drill_down(pilot, app)
        summary = str(screen.query_one("#episode-summary").content)
        assert summary.endswith("Ask s.jsonl:1\n" + text)


def test_the_head_of_an_ask_not_read_back_says_so() -> None:
    head = _WORDS[:ASK_CHARS]
    said = ask_shown(head, "s.jsonl:1", None)
    assert said == f"{head} … [the first {ASK_CHARS} chars; whole prompt at s.jsonl:1; reading the rest back…]"
    said = ask_shown(head, "s.jsonl:1", ("(cannot read s.jsonl:1: Permission denied)", False))
    assert said.endswith("[the first 600 chars; whole prompt at s.jsonl:1; the rest not read: (cannot read s.jsonl:1: Permission denied)]")
    # a whole text longer than shown (an episode of the fold's history): head, tail, the cut said
    said = ask_shown(_WORDS, "s.jsonl:1", None)
    assert f"[{len(_WORDS) - ASK_SHOWN} chars cut; whole block at s.jsonl:1]" in said and said.endswith("THE-END-MARKER")
    # a short ask is whole: nothing said
    assert ask_shown("Fix the login bug", "s.jsonl:1", None) == "Fix the login bug"


def test_the_ask_read_back_is_the_prompt_as_folded(tmp_path: Path) -> None:
    # a slash command reads back as "/name args", as the fold and the Goal/Now pane give it
    path = tmp_path / "s.jsonl"
    b = TranscriptBuilder()
    b.slash("review", "the " * 400 + "END")
    b.tick(1).text("ok")
    b.write(path)
    st = state_of(path)
    ev = next(e for e in st.ledgers[0] if e.kind == "prompt")
    said, ok = read_ask(st, ev.anchor, ev.block, ASK_SHOWN)
    assert ok and said.startswith("/review the the") and said.endswith("END") and "command-name" not in said


async def test_an_ask_too_large_to_read_back_shows_its_head_once(tmp_path: Path) -> None:
    # trial 10: a prompt past the bound of a read-back said its head, then "the rest not read:"
    # and the same head again before the reason
    from tui_support import wait_until

    from tracetui.tui.excerpts import MAX_LINE_BYTES

    text = "HEAD-MARK " + "x" * (MAX_LINE_BYTES + 1000)
    path = tmp_path / "s.jsonl"
    _long_ask(path, text)
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_drill_down(pilot, app)

        def summary() -> str:
            return str(screen.query_one("#episode-summary").content)

        await wait_until(pilot, lambda: "record too large" in summary(), 300, 0.02)
        ask = summary().split("Ask s.jsonl:1\n", 1)[1]
        assert ask.count("HEAD-MARK") == 1, ask[:300]
        assert "; the rest not read: (record too large to show here: " in ask
