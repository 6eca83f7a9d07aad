"""One thread in two rollout files (an earlier snapshot of a rollout copied into
``archived_sessions/`` beside the live one under ``sessions/YYYY/MM/DD/``) is one session,
read from one file: the largest (a copy is a snapshot of a file that only grows), on a tie the
one under ``sessions/``, then the path that sorts first. ``sessions``, ``state <id>``,
``report`` and ``search`` agree (user trial: two ``sessions`` rows of one id, and ``state``
refused the id as "in 2 rollout files")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracetui.cli import main
from tracetui.demo.codex_records import RolloutBuilder
from tracetui.ingest.codex_discover import child_rollouts, rollouts
from tracetui.ingest.discover import find_session, list_sessions
from tracetui.ingest.session_files import codex_transcripts

THREAD = "019d7d08-46c9-7f73-affe-4e6ca9852d56"
CHILD = "019d7d08-0000-7000-8000-0000000000c1"
NAME = f"rollout-2026-04-11T14-53-07-{THREAD}.jsonl"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    (tmp_path / "claude" / "projects").mkdir(parents=True)
    return tmp_path / "codex"


def _thread(home: Path) -> tuple[Path, Path]:
    """The live rollout (two turns: 'copyprobe' asked in each) and, in ``archived_sessions/``,
    a copy of its first turn. Returns ``(live, copy)``."""
    b = RolloutBuilder(THREAD, start="2026-04-11T14:53:07.000Z", cwd="/work/sync")
    b.turn("first copyprobe turn")
    b.tokens(10_000, 4_000, 500)
    b.say("done")
    snapshot = b.data()
    b.tick(60).turn("second copyprobe turn")
    b.tokens(12_000, 9_000, 700)
    b.say("done again")
    live = b.write(home / "sessions" / "2026" / "04" / "11" / NAME)
    copy = home / "archived_sessions" / NAME
    copy.parent.mkdir(parents=True)
    copy.write_bytes(snapshot)
    return live, copy


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_snapshot_copy_is_one_session_read_from_the_live_file(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live, _copy = _thread(home)
    assert [(s.session_id, s.path) for s in list_sessions(agent="codex")] == [(THREAD, live)]
    assert find_session(THREAD[:8]).path == live
    rc, out, err = _run(capsys, "sessions", "--all", "--json", "--no-cache")
    assert rc == 0, err
    rows = [r for r in json.loads(out)["sessions"] if r["session_id"] == THREAD]
    assert len(rows) == 1 and rows[0]["tokens"] == 23_200
    rc, out, err = _run(capsys, "state", THREAD[:8], "--json", "--no-cache")
    assert rc == 0 and err == ""
    assert json.loads(out)["tokens"] == {"input": 9_000, "output": 1_200, "cache_creation": 0, "cache_read": 13_000}


def test_report_and_search_read_the_same_file(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live, _copy = _thread(home)
    assert [t.path for t in codex_transcripts()] == [live]
    rc, out, err = _run(capsys, "report", "session", "--json")
    assert rc == 0, err
    (row,) = json.loads(out)["rows"]
    assert (row["key"], row["messages"], row["tokens"]["total"]) == (THREAD, 2, 23_200)
    rc, out, err = _run(capsys, "search", "copyprobe", "--json")
    assert rc == 0, err
    assert {h["path"] for h in json.loads(out)["results"]} == {str(live)}


def test_the_larger_file_wins_wherever_it_is(home: Path) -> None:
    """An archived copy longer than the file under ``sessions/`` (that one restored from an
    older backup, say) has every response: it is the one read."""
    live, copy = _thread(home)
    big, small = live.read_bytes(), copy.read_bytes()
    live.write_bytes(small)
    copy.write_bytes(big)
    assert [s.path for s in list_sessions(agent="codex")] == [copy]


def test_identical_copies_take_the_one_under_sessions(home: Path) -> None:
    live, copy = _thread(home)
    copy.write_bytes(live.read_bytes())
    assert [s.path for s in list_sessions(agent="codex")] == [live]
    assert [p for p, _st, _m in rollouts()] == [live]


def test_a_child_rollout_copied_is_one_subagent(home: Path) -> None:
    live, _copy = _thread(home)
    c = RolloutBuilder(CHILD, start="2026-04-11T15:00:00.000Z", cwd="/work/sync", parent=THREAD)
    c.turn("child work")
    c.tokens(1_000, 0, 100)
    kid = c.write(live.parent / f"rollout-2026-04-11T15-00-00-{CHILD}.jsonl")
    (home / "archived_sessions" / kid.name).write_bytes(kid.read_bytes())
    assert [p for p, _m in child_rollouts(live)] == [kid]
