"""The cross-session index with a session whose path is not UTF-8 beside one whose path is:
``report`` and ``search`` read both (one such session must not break them for every other),
the path written with stand-ins (ingest/files.py ``path_text``), the figures those of the same
records under a UTF-8 name; a second run reads nothing again, a renamed folder is read anew.

The sessions are written by the test (tests/non_utf8_home.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from non_utf8_home import BAD_FOLDER, BAD_FOLDER_TEXT, BAD_SID, OK_SID, BadHome, home_under, run_cli

from tracetui.session.index import refresh


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BadHome:
    return home_under(tmp_path, monkeypatch)


def _sessions(capsys: pytest.CaptureFixture[str]) -> dict[str, tuple]:
    rc, out, _ = run_cli(capsys, "report", "session", "--json")
    assert rc == 0
    rows = json.loads(out)["rows"]
    return {r["key"]: (r["messages"], r["tokens"], r["cost_usd"]) for r in rows}


def test_report_counts_it_as_the_same_records_under_a_utf8_name(home: BadHome, capsys: pytest.CaptureFixture[str]) -> None:
    got = _sessions(capsys)
    assert set(got) == {OK_SID, BAD_SID}
    assert got[BAD_SID] == got[OK_SID] and got[OK_SID][0] > 0
    rc, out, _ = run_cli(capsys, "report", "daily")
    assert rc == 0 and "2026-03-02" in out
    # a rename to a UTF-8 name: the same figures
    os.rename(home.projects / BAD_FOLDER, home.projects / "-home-dev-renamed")
    assert _sessions(capsys) == got


def test_search_finds_both_and_shows_the_path_with_stand_ins(home: BadHome, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run_cli(capsys, "search", "hello")
    assert rc == 0
    assert f"{home.projects}/{BAD_FOLDER_TEXT}/{BAD_SID}.jsonl:1" in out
    assert f"{home.ok}:1" in out
    rc, out, _ = run_cli(capsys, "search", "hello", "--json")
    assert rc == 0
    hits = {h["session"]: h for h in json.loads(out)["results"]}
    assert set(hits) == {OK_SID, BAD_SID}
    assert hits[BAD_SID]["project"] == BAD_FOLDER_TEXT and hits[OK_SID]["project"] == "-home-dev-ok"


def test_a_second_update_reads_nothing_again(home: BadHome, tmp_path: Path) -> None:
    index, stats = refresh(home.projects, tmp_path / "index.sqlite")
    assert stats.errors == [] and stats.new == 4  # two transcripts and their subagent files
    index.conn.close()
    index, stats = refresh(home.projects, tmp_path / "index.sqlite")
    assert stats.errors == [] and (stats.new, stats.grown, stats.redone, stats.dropped) == (0, 0, 0, 0)
    index.conn.close()
