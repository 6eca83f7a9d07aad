"""A session file copied under another session id (``sed s/OLD/NEW/g`` into another project
folder: the same API message ids, the same timestamps) in ``tracetui report``: every message is
counted once, under the file whose path sorts first (the stated tie rule), and the other
session is still listed, with 0 messages and a note saying where its messages are counted
(user trial: its row, and its project's, were gone)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_folder import two_prompt_session

from tracetui.cli import main
from tracetui.demo.transcript import TranscriptBuilder

OLD = "0aaa0000-0000-4000-8000-000000000001"
NEW = "0bbb0000-0000-4000-8000-000000000002"


@pytest.fixture
def copied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``-work-zeta/OLD.jsonl`` and its copy ``-work-aaa/NEW.jsonl`` (the copy's folder sorts
    first, so the copy has every message). Returns the projects folder."""
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    root = claude / "projects"
    orig = two_prompt_session(root / "-work-zeta", OLD)
    copy = root / "-work-aaa" / f"{NEW}.jsonl"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(orig.read_bytes().replace(OLD.encode(), NEW.encode()))
    return root


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["report", *argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)


def test_the_session_whose_messages_are_counted_elsewhere_is_listed(copied: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rep = _json(capsys, "session")
    rows = {r["key"]: r for r in rep["rows"]}
    assert set(rows) == {OLD, NEW}
    assert rows[NEW]["messages"] == 2  # the copy's path sorts first: its file has them (the tie rule)
    assert rows[OLD]["messages"] == 0 and rows[OLD]["tokens"]["total"] == 0
    assert rows[OLD]["cost_usd"] == 0.0
    assert rep["total"]["sessions"] == 2 and rep["total"]["messages"] == 2
    (note,) = [n for n in rep["notes"] if OLD in n]
    assert "2 API messages" in note and f"counted under session {NEW}" in note
    assert rep["counted_elsewhere"] == [
        {"session": OLD, "project": "-work-zeta", "messages": 2, "under": [{"session": NEW, "project": "-work-aaa", "messages": 2}]}
    ]


def test_its_project_is_listed(copied: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rep = _json(capsys, "project")
    rows = {r["key"]: r for r in rep["rows"]}
    assert set(rows) == {"-work-aaa", "-work-zeta"}
    assert (rows["-work-zeta"]["sessions"], rows["-work-zeta"]["messages"]) == (1, 0)
    assert (rows["-work-aaa"]["sessions"], rows["-work-aaa"]["messages"]) == (1, 2)
    assert rep["total"]["sessions"] == 2


def test_the_text_table_says_where_and_states_the_tie_rule(copied: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "session"]) == 0
    out = capsys.readouterr().out
    assert OLD in out and NEW in out
    assert f"session {OLD} (-work-zeta): 0 messages here, its 2 API messages are counted under session {NEW} (-work-aaa)" in out
    assert "the path that sorts first" in out


def test_a_day_range_without_them_lists_neither(copied: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rep = _json(capsys, "session", "--since", "2026-04-01")
    assert rep["rows"] == [] and rep["counted_elsewhere"] == []


def test_a_project_with_other_sessions_counts_it_among_them(copied: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b = TranscriptBuilder(session_id="0ccc0000-0000-4000-8000-000000000003", cwd="/work/zeta", start="2026-03-04T10:00:00.000Z")
    b.prompt("a session of its own")
    b.text("Sure.")
    b.write_session(copied / "-work-zeta")
    rows = {r["key"]: r for r in _json(capsys, "project")["rows"]}
    assert (rows["-work-zeta"]["sessions"], rows["-work-zeta"]["messages"]) == (2, 1)
    assert rows["-work-zeta"]["first_timestamp"] == "2026-03-02T10:00:00.000Z"
    rep = _json(capsys, "session", "--project=-work-zeta")  # the folder (both copies have the cwd)
    assert {r["key"]: r["messages"] for r in rep["rows"]} == {OLD: 0, "0ccc0000-0000-4000-8000-000000000003": 1}
    assert [e["session"] for e in rep["counted_elsewhere"]] == [OLD]


def test_a_copy_under_the_same_id_is_told_apart_by_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # trial 12: the copy's row and the original's read the same (session id, working
    # directory); the project folder was in the notes only
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    root = claude / "projects"
    orig = two_prompt_session(root / "-work-zeta", OLD)
    (root / "-work-aaa").mkdir()
    (root / "-work-aaa" / orig.name).write_bytes(orig.read_bytes())
    assert main(["report", "session"]) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(OLD)]
    assert len(rows) == 2
    assert "/work/zeta (-work-aaa)" in rows[0] + rows[1] and "/work/zeta (-work-zeta)" in rows[0] + rows[1]
    two_prompt_session(root / "-work-eta", NEW)  # alone with its id: its folder is not added
    assert main(["report", "session"]) == 0
    (row,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(NEW)]
    assert "/work/zeta " in row and "(-work-eta)" not in row
