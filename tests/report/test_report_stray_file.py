"""A file under the projects folder whose first line is no transcript record (garbage, then
copies of another session's records) is no session for ``tracetui sessions``, and so none for
``report`` and ``search`` either (one rule: discover.py ``is_session_file``): it is not indexed,
and so it cannot take the other session's API messages through their message ids (it had them
"as early", its path sorting first)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from report_folder import two_prompt_session

from tracetui.cli import main

OLD = "0aaa0000-0000-4000-8000-000000000001"
JUNK = "0bbb0000-0000-4000-8000-000000000002"


@pytest.fixture
def stray(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``-work-zeta/OLD.jsonl``, and ``-work-aaa/JUNK.jsonl``: a line of garbage, then a copy of
    OLD's records (its folder sorts first). Returns the stray file."""
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    (tmp_path / "no-settings.toml").write_text("")  # sessions says when $TRACETUI_CONFIG names no file
    root = claude / "projects"
    orig = two_prompt_session(root / "-work-zeta", OLD)
    junk = root / "-work-aaa" / f"{JUNK}.jsonl"
    junk.parent.mkdir(parents=True)
    junk.write_bytes(b"garbage, not JSON\n" + orig.read_bytes())
    return junk


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)


def test_report_and_sessions_agree_and_the_messages_stay_with_their_session(stray: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed = {s["session_id"] for s in _json(capsys, "sessions", "--all")["sessions"]}
    rep = _json(capsys, "report", "session")
    rows = {r["key"]: r for r in rep["rows"]}
    assert set(rows) == listed == {OLD}
    assert rows[OLD]["messages"] == 2 and rows[OLD]["tokens"]["total"] > 0
    assert rep["counted_elsewhere"] == [] and not any(JUNK in n for n in rep["notes"])


def test_search_leaves_the_stray_file_out(stray: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hits = _json(capsys, "search", "lexer")
    assert {h["path"] for h in hits["results"]} == {str(stray.parent.parent / "-work-zeta" / f"{OLD}.jsonl")}
    assert {h["session"] for h in hits["results"]} == {OLD}


def test_a_session_file_rewritten_as_junk_leaves_the_index(stray: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = stray.read_bytes().split(b"\n", 1)[1].replace(OLD.encode(), JUNK.encode())
    stray.write_bytes(good)  # a session of its own first: indexed
    rows = {r["key"] for r in _json(capsys, "report", "session")["rows"]}
    assert rows == {OLD, JUNK}
    new = stray.with_suffix(".tmp")
    new.write_bytes(b"\x00\x01 binary\n" + good)
    os.replace(new, stray)  # replaced by a stray file
    rows = {r["key"] for r in _json(capsys, "report", "session")["rows"]}
    assert rows == {OLD}
