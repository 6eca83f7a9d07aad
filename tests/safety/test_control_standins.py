"""Every control character of a transcript or a file name is shown by its stand-in, in its
place, in every widget: no widget hands Rich or Textual a text holding one (Rich drops BEL, and
measures ESC as no cell, so the last-line guard, tracetui/tui/terminal_safe.py, had to cut the
segment's last characters to keep its width: ``Ev␛[2Jil[bold`` for ``Ev\\x1b[2Jil[bold]``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import rich.text
import textual.content
from hostile import EVIL, hostile_session
from tui_support import app_for, open_sessions, wait_for_state, wait_until

from tracetui.demo.build import TranscriptBuilder
from tracetui.tui.screens.episode import EpisodeScreen
from tracetui.tui.screens.help import HelpScreen
from tracetui.tui.widgets.counters import CountersPane
from tracetui.tui.widgets.pending_calls import PendingCalls
from tracetui.views.safe import has_controls

#: tool names a tester tried, and what the monitor must show for each
NAMES = {
    "Ev\x1b[2Jil[bold]": "Ev␛[2Jil[bold]",
    "Ab\x1b]x": "Ab␛]x",
    "Gh\x1b[31mRED]": "Gh␛[31mRED]",
    "Cd\x07[e]f": "Cd␇[e]f",
}
NAMES_BY_SHOWN = {v: k for k, v in NAMES.items()}
PROJECT = "-evil\x1b]0;DIRTITLE\x07[bold]dir"
FILE = "evil\x1b]0;FILETITLE\x07name.jsonl"


def screen_rows(app) -> list[str]:
    """Every row of the screen as the compositor draws it (the line filters applied)."""
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


def drawn(app, widget) -> list[str]:
    """The rows of ``widget``'s region as drawn, trailing blanks stripped."""
    r = widget.region
    return [row[r.x : r.right].rstrip() for row in screen_rows(app)[r.y : r.bottom]]


def _ids(path: Path) -> list[str]:
    """The last 8 characters of each tool_use id in ``path``, in order."""
    import json

    out = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        for block in rec.get("message", {}).get("content", []) if rec.get("type") == "assistant" else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                out.append(block["id"][-8:])
    return out


@pytest.fixture
def unclean(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text holding a control character that reaches Rich's or Textual's text classes
    (both strip some controls, BEL among them, as they are given text)."""
    seen: list[str] = []
    rich_strip, textual_strip = rich.text.strip_control_codes, textual.content._strip_control_codes

    def on_rich(text: str, *a, **k) -> str:  # type: ignore[no-untyped-def]
        if has_controls(text):
            seen.append(text)
        return rich_strip(text, *a, **k)

    def on_textual(text: str, *a, **k) -> str:  # type: ignore[no-untyped-def]
        if has_controls(text):
            seen.append(text)
        return textual_strip(text, *a, **k)

    monkeypatch.setattr(rich.text, "strip_control_codes", on_rich)
    monkeypatch.setattr(textual.content, "_strip_control_codes", on_textual)
    return seen


async def test_no_widget_gives_rich_a_control_character(tmp_path: Path, unclean: list[str]) -> None:
    main, _sub = hostile_session(tmp_path / "projects")
    app = app_for([main], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await wait_until(pilot, lambda: view.state is not None and len(view.state.agents) == 1)
        await pilot.pause()
        assert unclean == [], ("MAIN", unclean[:5])
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.pause()
        await pilot.press("escape")
        await open_sessions(pilot, app)
        await pilot.pause()
        assert unclean == [], ("SESS", unclean[:5])
        await pilot.press("escape", "e")
        await wait_until(pilot, lambda: isinstance(app.screen, EpisodeScreen))
        await pilot.pause()
        assert unclean == [], ("DRILL", unclean[:5])
        await pilot.press("escape", "left_square_bracket")
        await pilot.pause()
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EpisodeScreen))
        await pilot.pause()
        assert unclean == [], ("history drill-down", unclean[:5])
        await pilot.press("escape")
        app.notify("file " + EVIL, title="t " + EVIL, markup=False)
        await pilot.pause()
        assert unclean == [], ("notification", unclean[:5])


def _named_session(projects: Path) -> Path:
    """One prompt, then a pending call of each of :data:`NAMES`, in :data:`FILE` under :data:`PROJECT`."""
    b = TranscriptBuilder()
    b.prompt("go")
    for name in NAMES:
        b.tick(1).tool_use(name, {"command": "x"})
    return b.write(projects / PROJECT / FILE)


async def test_names_with_controls_are_drawn_whole_with_their_stand_ins(tmp_path: Path) -> None:
    main = _named_session(tmp_path / "projects")
    app = app_for([main], tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.pause()
        short = "evil␛]0;…"  # a long file name's first 8 characters (pane.py short_anchor)
        pending = drawn(app, app.screen.query_one(PendingCalls))
        assert pending[1:5] == [
            f"  5m5{9 - i}s {v} x …{cid} {short}:{i + 2}" for i, (v, cid) in enumerate(zip(NAMES.values(), _ids(main)))
        ], pending
        counters = drawn(app, app.screen.query_one(CountersPane))
        assert counters[2] == " tools 4 " + " ".join(f"{v} 1" for v in sorted(NAMES.values(), key=lambda v: NAMES_BY_SHOWN[v])), counters
        rows = screen_rows(app)
        header = next(r for r in rows if " through " in r)
        assert " through evil␛]0;FILETITLE␇name.jsonl:5 @" in header, header
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EpisodeScreen))
        await wait_until(pilot, lambda: any("read back from the transcript" in r for r in screen_rows(app)))
        steps = [r.strip() for r in screen_rows(app) if r.startswith(" ▸ ")]
        assert [s.split("  ")[:2] for s in steps] == [[f"▸ {v}", f"{short}:{n}"] for v, n in zip(NAMES.values(), (2, 3, 4, 5))]
        assert any("file -evil␛]0;DIRTITLE␇[bold]dir/evil␛]0;FILETITLE␇name.jsonl bytes" in r for r in screen_rows(app))
        await pilot.press("escape")
        await open_sessions(pilot, app)
        await pilot.pause()
        assert any("-evil␛]0;DIRTITLE␇[bold]dir" in r for r in screen_rows(app)), screen_rows(app)
