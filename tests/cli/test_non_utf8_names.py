"""A session whose path is not UTF-8 (a project folder or a file named with bytes that do not
decode) is folded, listed and shown like any other: its path written with stand-ins (each such
byte as ``\\xNN``, ingest/files.py ``path_text``), never a traceback, never the raw bytes; the
other sessions are not touched, and its figures are those of the same records under a UTF-8 name.

The sessions are written by the tests (tests/non_utf8_home.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from non_utf8_home import BAD_FOLDER_TEXT, BAD_NAME_TEXT, BAD_SID, OK_SID, BadHome, home_under, run_cli


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BadHome:
    return home_under(tmp_path, monkeypatch)


def _figures(obj: dict) -> tuple:
    return (obj["tokens"], obj["counters"], obj["cost_usd"], len(obj["sources"]), [s["lines"] for s in obj["sources"]])


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_state_json_of_the_newest_session_shows_its_path_with_stand_ins(
    home: BadHome, capsys: pytest.CaptureFixture[str], cache: bool
) -> None:
    flags = [] if cache else ["--no-cache"]
    for _ in range(2 if cache else 1):  # the second run resumes from the fold cache saved by the first
        rc, out, _ = run_cli(capsys, "state", "--json", *flags)
        assert rc == 0
        bad = json.loads(out)
        assert bad["session_id"] == BAD_SID
        paths = [s["path"] for s in bad["sources"]]
        assert paths[0] == f"{home.projects}/{BAD_FOLDER_TEXT}/{BAD_SID}.jsonl"
        assert paths[1] == f"{home.projects}/{BAD_FOLDER_TEXT}/{BAD_SID}/subagents/agent-a1b2c3.jsonl"
    rc, out, _ = run_cli(capsys, "state", "--json", *flags, OK_SID[:8])
    assert rc == 0
    ok = json.loads(out)
    assert ok["session_id"] == OK_SID
    assert _figures(bad) == _figures(ok)


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_state_summary_view_and_card_of_the_newest_session(home: BadHome, capsys: pytest.CaptureFixture[str], cache: bool) -> None:
    flags = [] if cache else ["--no-cache"]
    rc, out, _ = run_cli(capsys, "state", *flags)
    assert rc == 0 and BAD_SID in out and "1 subagent file" in out
    for cmd in ("view", "card"):
        rc, out, _ = run_cli(capsys, cmd, *flags)
        assert rc == 0 and "hello parser" in out
    rc, out, _ = run_cli(capsys, "state", *flags, OK_SID)
    assert rc == 0 and OK_SID in out  # the session beside it is unaffected


def test_a_file_named_with_such_bytes_opens(home: BadHome, capsys: pytest.CaptureFixture[str]) -> None:
    for flags in ([], ["--no-cache"]):
        rc, out, _ = run_cli(capsys, "state", *flags, str(home.named))
        assert rc == 0 and f"source   {BAD_NAME_TEXT}: " in out
        rc, out, _ = run_cli(capsys, "view", *flags, str(home.named))
        assert rc == 0 and f"@ {BAD_NAME_TEXT}:2" in out
        rc, out, _ = run_cli(capsys, "state", "--json", *flags, str(home.named))
        assert rc == 0 and json.loads(out)["sources"][0]["path"].endswith(f"/named/{BAD_NAME_TEXT}")


def test_sessions_lists_it_beside_the_other(home: BadHome, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run_cli(capsys, "sessions", "--all", "--json")
    assert rc == 0
    rows = {r["session_id"]: r for r in json.loads(out)["sessions"]}
    assert set(rows) == {OK_SID, BAD_SID}
    assert rows[BAD_SID]["key"] == f"{home.projects}/{BAD_FOLDER_TEXT}/{BAD_SID}.jsonl"
    assert rows[OK_SID]["key"] == str(home.ok)
    assert rows[BAD_SID]["tokens"] == rows[OK_SID]["tokens"] and rows[BAD_SID]["tokens"] > 0
    rc, out, _ = run_cli(capsys, "sessions", "--all")
    assert rc == 0 and out.count("shop") == 2
