"""A child whose parent is not on disk, and rollouts forked from each other, are sessions of
their own under their own id, the same in ``sessions``, ``state <id>``, ``search`` and
``report``: a Codex fork whose parent thread has no rollout under the Codex home, a fork
cycle (A from B, B from A; A from itself), and Claude Code subagent files whose session's
transcript is gone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracetui.cli import main
from tracetui.demo.codex_records import RolloutBuilder
from tracetui.demo.transcript import TranscriptBuilder
from tracetui.ingest.discover import list_sessions, orphan_of, resolve_target, transcript_sessions
from tracetui.ingest.session_files import codex_transcripts, subagent_files

MISSING = "019e9999-9999-7000-8000-999999999999"
ORPHAN = "019e0000-dddd-7000-8000-000000000001"
GRANDCHILD = "019e0000-eeee-7000-8000-000000000002"
A = "019e1111-aaaa-7000-8000-00000000000a"
B = "019e2222-bbbb-7000-8000-00000000000b"
SELF = "019e3333-cccc-7000-8000-00000000000c"
SID = "9a9a9a9a-0000-4000-8000-000000000009"


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    (tmp_path / "claude" / "projects").mkdir(parents=True)
    return tmp_path


def _rollout(home: Path, thread: str, day: str, parent: str | None, ask: str) -> Path:
    b = RolloutBuilder(thread, start=f"2026-12-{day}T11:00:00.000Z", cwd="/work/orph", parent=parent)
    b.turn(ask)
    b.tokens(5_000, 0, 500)
    b.say("done")
    return b.write(home / "codex" / "sessions" / "2026" / "12" / day / f"rollout-2026-12-{day}T11-00-00-{thread}.jsonl")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _sessions(capsys: pytest.CaptureFixture[str]) -> dict[str, dict]:
    rc, out, err = _run(capsys, "sessions", "--all", "--json", "--no-cache")
    assert rc == 0, err
    return {r["session_id"]: r for r in json.loads(out)["sessions"]}


def _report(capsys: pytest.CaptureFixture[str], agent: str) -> dict[str, dict]:
    rc, out, err = _run(capsys, "report", "session", "--agent", agent, "--json")
    assert rc == 0, err
    return {r["key"]: r for r in json.loads(out)["rows"]}


def test_a_fork_whose_parent_is_not_on_disk_is_a_session_of_its_own(homes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    orphan = _rollout(homes, ORPHAN, "02", MISSING, "orphanfork please")
    child = _rollout(homes, GRANDCHILD, "03", ORPHAN, "grandchild task")  # a child of the orphan: its subagent
    (info,) = list_sessions(agent="codex")
    assert (info.path, info.session_id, info.orphan) == (orphan, ORPHAN, "parent missing")
    assert orphan_of(orphan) == "parent missing" and orphan_of(child) == ""
    assert [s.path for s in subagent_files(orphan)] == [child]
    files = {t.path: (t.session_id, t.role) for t in codex_transcripts()}
    assert files == {orphan: (ORPHAN, "main"), child: (ORPHAN, "subagent")}

    rows = _sessions(capsys)
    assert set(rows) == {ORPHAN}
    assert rows[ORPHAN]["orphan"] == "parent missing" and rows[ORPHAN]["tokens"] == 11_000
    rc, out, err = _run(capsys, "sessions", "--all", "--no-cache")
    assert rc == 0 and "codex parent missing" in out

    assert resolve_target(ORPHAN[:13]) == orphan
    rc, out, err = _run(capsys, "state", "--json", "--no-cache", ORPHAN[:13])
    assert rc == 0, err
    assert json.loads(out)["session_id"] == ORPHAN

    report = _report(capsys, "codex")
    assert set(report) == {ORPHAN}  # never keyed by the thread that is not there
    assert report[ORPHAN]["messages"] == 2
    rc, out, err = _run(capsys, "search", "orphanfork")
    assert rc == 0, err
    assert ORPHAN in out and MISSING not in out


def test_two_orphans_of_one_missing_parent_stay_apart(homes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _rollout(homes, ORPHAN, "02", MISSING, "first fork")
    _rollout(homes, A, "02", MISSING, "second fork")
    assert {s.session_id for s in transcript_sessions(agent="codex")} == {ORPHAN, A}
    assert set(_report(capsys, "codex")) == {ORPHAN, A}


@pytest.mark.parametrize("cycle", ["each other", "itself"])
def test_rollouts_forked_in_a_loop_are_one_session(homes: Path, capsys: pytest.CaptureFixture[str], cycle: str) -> None:
    if cycle == "each other":
        first = _rollout(homes, A, "02", B, "loop one")
        second = _rollout(homes, B, "03", A, "loop two")
        top, files = A, {first: (A, "main"), second: (A, "subagent")}
    else:
        first = _rollout(homes, SELF, "02", SELF, "loop one")
        top, files = SELF, {first: (SELF, "main")}
    (info,) = list_sessions(agent="codex")
    assert (info.path, info.session_id, info.orphan) == (first, top, "fork cycle")
    assert {t.path: (t.session_id, t.role) for t in codex_transcripts()} == files
    rows = _sessions(capsys)
    assert set(rows) == {top} and rows[top]["orphan"] == "fork cycle"
    assert rows[top]["tokens"] == 5_500 * len(files)  # 5,000 in and 500 out each
    assert set(_report(capsys, "codex")) == {top}
    rc, out, err = _run(capsys, "search", "loop")
    assert rc == 0 and top in out


def test_the_index_files_a_child_again_when_its_parent_appears(homes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _rollout(homes, ORPHAN, "02", MISSING, "orphanfork please")
    assert set(_report(capsys, "codex")) == {ORPHAN}
    _rollout(homes, MISSING, "01", None, "the parent, back")  # restored from a backup, say
    report = _report(capsys, "codex")
    assert set(report) == {MISSING} and report[MISSING]["messages"] == 2  # its own response and the child's
    assert [s.orphan for s in list_sessions(agent="codex")] == [""]


def _orphan_subagents(homes: Path) -> tuple[Path, Path]:
    main = TranscriptBuilder(SID, cwd="/work/orph", start="2026-12-02T10:00:00.000Z")
    main.prompt("start")
    paths = []
    for aid in ("x1", "x2"):
        sub = main.subagent(aid)
        sub.prompt(f"subtask {aid} orphansub")
        sub.text("found it", output=1_000)
    main.write_session(homes / "claude" / "projects" / "-orph").unlink()  # its transcript is gone
    for aid in ("x1", "x2"):
        paths.append(homes / "claude" / "projects" / "-orph" / SID / "subagents" / f"agent-{aid}.jsonl")
    return paths[0], paths[1]


def test_claude_subagent_files_without_their_transcript_are_a_session(homes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = _orphan_subagents(homes)
    (info,) = transcript_sessions(agent="claude")
    assert (info.path, info.session_id, info.project, info.orphan) == (first, SID, "-orph", "parent missing")
    assert [s.path for s in subagent_files(first)] == [second]
    assert orphan_of(first) == "parent missing"

    rows = _sessions(capsys)
    assert set(rows) == {SID} and rows[SID]["orphan"] == "parent missing"
    rc, out, err = _run(capsys, "state", "--json", "--no-cache", SID[:8])
    assert rc == 0, err
    state = json.loads(out)
    report = _report(capsys, "claude")
    assert set(report) == {SID}
    assert (
        report[SID]["tokens"]["output"]
        == state["tokens"]["output"]
        == rows[SID]["tokens"] - state["tokens"]["input"] - (state["tokens"]["cache_read"] + state["tokens"]["cache_creation"])
    )
    rc, out, err = _run(capsys, "search", "orphansub")
    assert rc == 0 and SID in out


def test_a_session_with_its_transcript_is_no_orphan(homes: Path) -> None:
    main = TranscriptBuilder(SID, cwd="/work/orph")
    main.prompt("start")
    main.subagent("x1").prompt("sub")
    path = main.write_session(homes / "claude" / "projects" / "-orph")
    (info,) = transcript_sessions(agent="claude")
    assert (info.path, info.orphan) == (path, "")
    assert orphan_of(path) == "" and len(subagent_files(path)) == 1


def test_naming_a_child_thread_opens_the_session_it_is_read_in(homes: Path) -> None:
    # sixth user trial: B of a fork cycle (read as a child of A) named by its full id said
    # "no session matches", though its rollout is right there
    first = _rollout(homes, A, "02", B, "loop one")
    _rollout(homes, B, "03", A, "loop two")
    assert resolve_target(B) == first and resolve_target(B[:13]) == first
    with pytest.raises(Exception, match="no session matches"):
        resolve_target("019e4444")
