"""The monitor names the agent: a Codex CLI session's header carries a badge, the session
switcher has an agent column and lists both agents' sessions, --agent narrows it.

Nothing here reads a figure of the Codex fold: before it exists a rollout folds as another
tool's file, after it as a session; the header names the agent either way."""

from __future__ import annotations

from pathlib import Path

import pytest
from codex_home import day, rollout
from textual.widgets import DataTable
from tui_support import FROZEN_NOW, app_for, open_sessions, small_session, wait_for_state, wait_until

from tracetui.tui.screens.sessions import SessionSwitcher
from tracetui.tui.widgets.header import SessionHeader

THREAD = "0199aaaa-0000-7000-8000-000000000001"
CHILD = "0199bbbb-0000-7000-8000-000000000002"
SID = "aaaa1111-0000-4000-8000-000000000001"


@pytest.fixture
def sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home = tmp_path / "codex"
    monkeypatch.setenv("CODEX_HOME", str(home))
    claude = tmp_path / "projects" / "-home-dev-web" / f"{SID}.jsonl"  # under the app's projects_root
    small_session(claude)
    codex = rollout(day(home, "2026-03-02") / f"rollout-2026-03-02T09-00-00-{THREAD}.jsonl", THREAD, mtime=FROZEN_NOW - 60)
    rollout(day(home, "2026-03-02") / f"rollout-2026-03-02T09-05-00-{CHILD}.jsonl", CHILD, parent=THREAD, mtime=FROZEN_NOW - 30)
    return claude, codex


def _header(app) -> str:  # type: ignore[no-untyped-def]
    view = app.current_view
    return str(view.query_one(SessionHeader).content) if view is not None and view.built else ""


async def test_the_header_names_a_codex_session(sessions: tuple[Path, Path], tmp_path: Path) -> None:
    _, codex = sessions
    app = app_for([codex], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: " Codex CLI " in _header(app), 300, 0.02)
        assert _header(app).splitlines()[0].index(" Codex CLI ") < 20  # beside the status, never cut off
        assert app.current_view.agent == "codex"


async def test_a_claude_sessions_header_has_no_codex_badge(sessions: tuple[Path, Path], tmp_path: Path) -> None:
    claude, _ = sessions
    app = app_for([claude], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert view.agent == "claude"
        head = _header(app)
        assert "Fix the parser" in head or SID[:8] in head
        assert "Codex" not in head


async def test_the_switcher_lists_both_agents_and_names_them(sessions: tuple[Path, Path], tmp_path: Path) -> None:
    claude, codex = sessions
    app = app_for([claude], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        assert isinstance(screen, SessionSwitcher)
        table = screen.query_one(DataTable)
        rows = {str(table.get_row_at(i)[3]): str(table.get_row_at(i)[4]) for i in range(table.row_count)}
        assert rows == {THREAD: "Codex CLI", SID: "Claude Code"}  # the child rollout is no session of its own
        assert [c.label.plain for c in table.columns.values()][-1] == "agent"
        row = [s.path for s in screen.sessions].index(codex)
        table.move_cursor(row=row)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.spec.paths[0] == codex, 300, 0.02)
        assert app.current_view.spec.label == THREAD[:8]


async def test_agent_narrows_the_switcher(sessions: tuple[Path, Path], tmp_path: Path) -> None:
    claude, _ = sessions
    app = app_for([claude], tmp_path)
    app.settings.agent = "codex"
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        assert [(s.agent, s.session_id) for s in screen.sessions] == [("codex", THREAD)]


def test_the_session_watch_watches_the_newest_codex_date_folders(sessions: tuple[Path, Path], tmp_path: Path) -> None:
    from tracetui.tui.sessions_watch import SessionsWatch

    claude, codex = sessions
    home = codex.parents[4]
    for date in ("2026-02-27", "2026-02-28", "2026-03-01"):
        rollout(day(home, date) / "rollout-old.jsonl", f"0199{date}", mtime=FROZEN_NOW - 86400)
    watched: list[list[tuple[Path, str]]] = []

    class Follow:
        def watch(self, key, step, globs, period=None):  # type: ignore[no-untyped-def]
            watched.append(globs)

    posted: list = []
    w = SessionsWatch(posted.append, set(), tmp_path / "projects", None, lambda: FROZEN_NOW)
    w.attach(Follow())
    w.scan(first=True)
    folders = {d for d, g in watched[-1] if g == "*.jsonl"}
    # the Claude project folder, and the three newest Codex date folders (02 holds the newest rollout)
    assert folders == {claude.parent, day(home, "2026-03-02"), day(home, "2026-03-01"), day(home, "2026-02-28")}
    rollout(day(home, "2026-03-02") / "rollout-new.jsonl", "0199ffff-new", mtime=FROZEN_NOW)
    assert [s.session_id for s in w.scan()] == ["0199ffff-new"]


def _visible(table: DataTable) -> list[str]:
    """The lines the table draws in its own width (what a person sees, no scrolling)."""
    from textual.geometry import Region

    return ["".join(seg.text for seg in strip) for strip in table.render_lines(Region(0, 0, table.size.width, table.size.height))]


async def test_at_80x24_the_switcher_shows_each_sessions_id_and_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # two Codex threads in one working folder (a long one) and a Claude Code session: at 80
    # columns every row still says which session and which agent, the project is what gives way
    home = tmp_path / "codex"
    monkeypatch.setenv("CODEX_HOME", str(home))
    claude = tmp_path / "projects" / "-home-dev-projects-a-rather-long-project-name" / f"{SID}.jsonl"
    small_session(claude)
    cwd = "/home/dev/projects/a-rather-long-project-name/services/api"
    rollout(day(home, "2026-03-02") / f"rollout-2026-03-02T09-00-00-{THREAD}.jsonl", THREAD, cwd=cwd, mtime=FROZEN_NOW - 60)
    other = "0199aaaa-1111-7000-8000-000000000009"  # the same time prefix as THREAD
    rollout(day(home, "2026-03-02") / f"rollout-2026-03-02T09-01-00-{other}.jsonl", other, cwd=cwd, mtime=FROZEN_NOW - 50)
    app = app_for([claude], tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_state(pilot)
        screen = await open_sessions(pilot, app)
        await pilot.pause()
        table = screen.query_one(DataTable)
        lines = _visible(table)
        text = "\n".join(lines)
        for ident, agent in ((THREAD, "Codex CLI"), (other, "Codex CLI"), (SID, "Claude Code")):
            row = next((ln for ln in lines if ident[:13] in ln), None)
            assert row is not None, f"{ident[:13]} not shown at 80 columns:\n{text}"
            assert agent in row
        assert "api" in text  # the project's end is kept, its start shortened
        assert all(len(ln.rstrip()) <= table.size.width for ln in lines)
