"""Codex rollouts whose ``session_meta.source`` says they are a subagent's but name no parent
(``{"subagent": "review"}``, from ``codex review``). codex-format.md says how a child is linked
to its parent (``thread_spawn.parent_thread_id`` or ``forked_from_id`` in the child, the child's
thread id in the parent's ``collab_agent_spawn_end``) and of no link for these: they stay
sessions of their own, and every list says what they are."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from codex_home import day
from textual.widgets import DataTable
from tui_support import FROZEN_NOW, app_for, open_sessions, wait_until

from tracetui.cli import main
from tracetui.demo.codex_records import RolloutBuilder
from tracetui.ingest.codex_discover import parse_first_line
from tracetui.ingest.discover import list_sessions
from tracetui.tui.screens.fleet import FleetScreen

SESSION = "0199aaaa-0000-7000-8000-00000000000a"
REVIEW = "0199cccc-0000-7000-8000-00000000000c"


def _meta_line(source: object, **more: object) -> bytes:
    return json.dumps({"timestamp": "t", "type": "session_meta", "payload": {"id": "x", "source": source, **more}}).encode()


@pytest.mark.parametrize(
    ("source", "more", "parent", "role"),
    [
        ("cli", {}, None, ""),
        ({"subagent": "review"}, {}, None, "review"),
        ({"subagent": {"thread_spawn": {"parent_thread_id": "p1", "depth": 1}}}, {}, "p1", ""),
        ({"subagent": {"other": {}}}, {}, None, "subagent"),
        ({"subagent": "review"}, {"forked_from_id": "p2"}, "p2", ""),  # a named parent links it: no label
    ],
)
def test_the_first_record_says_the_role(source: object, more: dict, parent: str | None, role: str) -> None:
    meta = parse_first_line(_meta_line(source, **more))
    assert meta is not None and (meta.parent_id, meta.role) == (parent, role)


def _write(home: Path, thread: str, when: float, review: bool, ask: str) -> Path:
    b = RolloutBuilder(thread_id=thread, start=time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(when - 60)))
    if review:
        b.meta["source"] = {"subagent": "review"}
        b.meta["originator"] = "codex_exec"
    b.turn(ask).tick(2).say("Done.").tokens(12_000, 8_000, 300).done("Done.")
    p = b.write(day(home, time.strftime("%Y-%m-%d", time.gmtime(when))) / f"rollout-x-{thread}.jsonl")
    os.utime(p, (when, when))
    return p


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "codex"
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    return home


def test_listed_with_its_role(homes: Path) -> None:
    now = time.time()
    _write(homes, SESSION, now - 120, False, "Add a health endpoint")
    _write(homes, REVIEW, now - 60, True, "Review the current changes")
    got = {s.session_id: s.role for s in list_sessions(agent="codex")}
    assert got == {SESSION: "", REVIEW: "review"}


def test_sessions_says_review(homes: Path, capsys) -> None:
    now = time.time()
    _write(homes, SESSION, now - 120, False, "Add a health endpoint")
    _write(homes, REVIEW, now - 60, True, "Review the current changes")
    assert main(["sessions", "--json", "--no-cache"]) == 0
    rows = {r["session_id"]: r for r in json.loads(capsys.readouterr().out)["sessions"]}
    assert (rows[REVIEW]["agent"], rows[REVIEW]["role"]) == ("codex", "review")
    assert (rows[SESSION]["agent"], rows[SESSION]["role"]) == ("codex", None)
    assert main(["sessions", "--no-cache"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln for ln in lines if "codex review" in ln] == [next(ln for ln in lines if "Review the current" in ln)]


async def test_the_switcher_and_the_fleet_say_review(homes: Path, tmp_path: Path) -> None:
    session = _write(homes, SESSION, FROZEN_NOW - 120, False, "Add a health endpoint")
    review = _write(homes, REVIEW, FROZEN_NOW - 60, True, "Review the current changes")
    app = app_for([session], tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.state is not None, 300, 0.02)
        screen = await open_sessions(pilot, app)
        table = screen.query_one(DataTable)
        agents = {str(table.get_row_at(i)[3]): str(table.get_row_at(i)[4]) for i in range(table.row_count)}
        assert agents == {SESSION: "Codex CLI", REVIEW: "Codex CLI review"}
        await pilot.press("escape")
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen) and len(app.screen.rows) == 2, 500, 0.02)
        fleet = app.screen
        cells = {r.facts.session_id: fleet.query_one("#fleet-rows").row_text(i) for i, r in enumerate(fleet.rows)}
        assert "codex review" in cells[REVIEW] and "codex" in cells[SESSION] and "codex review" not in cells[SESSION]
        assert {r.facts.key for r in fleet.rows} == {str(session), str(review)}
