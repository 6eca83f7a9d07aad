"""Discovery of Codex CLI rollouts: $CODEX_HOME trees, recognition by the first record, child
rollouts as subagents of their parent, newest of either agent, thread id prefixes.

Every rollout here is written by the test (shapes from shared/docs/codex-format.md).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from codex_home import day as _day
from codex_home import rollout as _rollout
from fixtures import prompt, write

from tracetui.ingest import codex_discover
from tracetui.ingest.agents import file_agent
from tracetui.ingest.codex_discover import child_rollouts, codex_dir, parse_first_line, rollout_meta
from tracetui.ingest.discover import DiscoveryError, find_session, list_sessions, newest_session, resolve_target
from tracetui.ingest.session_files import subagent_files, subagent_places

PARENT = "0199aaaa-0000-7000-8000-000000000001"
CHILD = "0199bbbb-0000-7000-8000-000000000002"
GRANDCHILD = "0199bbbb-1111-7000-8000-000000000003"
FORK = "0199cccc-0000-7000-8000-000000000004"
OLD = "0199dddd-0000-7000-8000-000000000005"
CLAUDE_SID = "eeeeeeee-1111-4000-8000-000000000006"


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A $CODEX_HOME with nested date folders, an archived rollout, a child, a grandchild, a fork,
    a non-rollout file and a torn first line; and a $CLAUDE_CONFIG_DIR with one session."""
    home = tmp_path / "codex"
    claude = tmp_path / "claude"
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    base = 1_700_000_000
    _rollout(_day(home, "2026-03-02") / f"rollout-2026-03-02T09-00-00-{PARENT}.jsonl", PARENT, mtime=base + 30)
    _rollout(_day(home, "2026-03-02") / f"rollout-2026-03-02T09-05-00-{CHILD}.jsonl", CHILD, parent=PARENT, mtime=base + 60)
    _rollout(_day(home, "2026-03-03") / f"rollout-2026-03-03T01-00-00-{GRANDCHILD}.jsonl", GRANDCHILD, parent=CHILD, mtime=base + 61)
    _rollout(_day(home, "2026-03-04") / f"rollout-2026-03-04T01-00-00-{FORK}.jsonl", FORK, fork_of=PARENT, mtime=base + 62)
    _rollout(home / "archived_sessions" / f"rollout-2026-01-01T08-00-00-{OLD}.jsonl", OLD, cwd="/home/dev/old", mtime=base)
    # named like a rollout, but its first line is not a session_meta (recognised by records, not names)
    write(_day(home, "2026-03-02") / "rollout-2026-03-02T10-00-00-notreally.jsonl", [prompt("hello")])
    torn = _day(home, "2026-03-02") / "rollout-2026-03-02T11-00-00-torn.jsonl"
    torn.write_text('{"timestamp": "2026-03-02T11:00:00.000Z", "type": "session_me\n{"type": "event_msg"}\n')
    (_day(home, "2026-03-02") / "notes.txt").write_text("not a rollout\n")
    p = write(claude / "projects" / "-home-dev-web" / f"{CLAUDE_SID}.jsonl", [prompt("claude work", session=CLAUDE_SID)])
    os.utime(p, (base + 20, base + 20))
    return home, claude


def test_codex_dir_from_env_and_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "ch"))
    assert codex_dir() == tmp_path / "ch"
    monkeypatch.delenv("CODEX_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert codex_dir() == tmp_path / ".codex"


def test_both_agents_are_listed_newest_first_children_left_out(homes: tuple[Path, Path]) -> None:
    got = [(s.agent, s.session_id, s.project) for s in list_sessions()]
    assert got == [
        ("codex", PARENT, "/home/dev/app"),
        ("claude", CLAUDE_SID, "-home-dev-web"),
        ("codex", OLD, "/home/dev/old"),
    ]


def test_agent_narrows_the_listing(homes: tuple[Path, Path]) -> None:
    assert [s.session_id for s in list_sessions(agent="codex")] == [PARENT, OLD]
    assert [s.session_id for s in list_sessions(agent="claude")] == [CLAUDE_SID]


def test_newest_of_either_agent(homes: tuple[Path, Path]) -> None:
    home, claude = homes
    assert newest_session().agent == "codex"
    p = claude / "projects" / "-home-dev-web" / f"{CLAUDE_SID}.jsonl"
    now = time.time() - 5  # newer than every rollout (a time in the future would not count)
    os.utime(p, (now, now))
    assert newest_session().session_id == CLAUDE_SID
    assert newest_session(agent="codex").session_id == PARENT


def test_a_thread_id_or_prefix_works_like_a_session_id(homes: tuple[Path, Path]) -> None:
    assert find_session(PARENT).agent == "codex"
    assert find_session("0199aa").session_id == PARENT
    assert resolve_target("0199dd").name.endswith(f"{OLD}.jsonl")
    assert resolve_target("eeee").name == f"{CLAUDE_SID}.jsonl"
    with pytest.raises(DiscoveryError, match="no session matches 'eeee' under .*codex"):
        resolve_target("eeee", agent="codex")
    with pytest.raises(DiscoveryError, match=r"'0199' matches 2 sessions"):
        find_session("0199")
    # a child rollout is no session of its own: its id opens the session it is read in
    assert find_session(CHILD).session_id == PARENT


def test_the_same_thread_in_two_files_opens_one(homes: tuple[Path, Path]) -> None:
    """A copy of a rollout (the same thread, as large) in ``archived_sessions/``: the one
    under ``sessions/`` is the session (codex_discover.copy_rank), not a refusal."""
    home, _ = homes
    live = find_session(PARENT).path
    _rollout(home / "archived_sessions" / "rollout-copy.jsonl", PARENT, mtime=1_700_000_001)
    assert find_session(PARENT).path == live


def test_children_forks_and_theirs_are_the_parents_subagents(homes: tuple[Path, Path]) -> None:
    home, _ = homes
    main = find_session(PARENT).path
    subs = subagent_files(main)
    assert sorted(s.agent_id for s in subs) == sorted([CHILD, GRANDCHILD, FORK])
    assert all(s.tool_use_id is None for s in subs)
    assert [s.path for s in subs] == sorted(s.path for s in subs)
    child = next(s.path for s in subs if s.agent_id == CHILD)
    assert [s.agent_id for s in subagent_files(child)] == [GRANDCHILD]
    assert subagent_files(find_session(OLD).path) == []
    trees, globs = subagent_places(main)
    assert trees == [home / "sessions"] and globs == [(home / "archived_sessions", "*.jsonl")]


def test_children_in_date_folders_before_the_parents_are_not_looked_for(homes: tuple[Path, Path]) -> None:
    home, _ = homes
    early = _rollout(_day(home, "2026-02-28") / "rollout-early.jsonl", "0199eeee-0000-7000-8000-000000000009", parent=PARENT)
    main = find_session(PARENT).path
    assert early not in [p for p, _ in child_rollouts(main)]
    # an archived child is found wherever its parent is
    arch = _rollout(home / "archived_sessions" / "rollout-archived-child.jsonl", "0199ffff-0000-7000-8000-00000000000a", parent=PARENT)
    assert arch in [p for p, _ in child_rollouts(main)]


def test_a_claude_transcripts_subagents_are_unchanged(homes: tuple[Path, Path]) -> None:
    _, claude = homes
    main = claude / "projects" / "-home-dev-web" / f"{CLAUDE_SID}.jsonl"
    assert subagent_files(main) == []
    assert subagent_places(main) == ([main.parent / CLAUDE_SID], [(main.parent, "agent-*.jsonl")])


def test_recognised_by_the_first_record_not_the_name(homes: tuple[Path, Path], tmp_path: Path) -> None:
    home, _ = homes
    day = _day(home, "2026-03-02")
    assert rollout_meta(day / "rollout-2026-03-02T10-00-00-notreally.jsonl") is None
    assert rollout_meta(day / "rollout-2026-03-02T11-00-00-torn.jsonl") is None
    plain = _rollout(tmp_path / "elsewhere" / "session.jsonl", "0199abab-0000-7000-8000-00000000000b")
    assert file_agent(plain) == "codex"
    assert file_agent(day / "rollout-2026-03-02T10-00-00-notreally.jsonl") == "claude"
    assert file_agent(tmp_path / "missing.jsonl") == "claude"
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert rollout_meta(fifo) is None  # never opened


def test_parse_first_line_shapes() -> None:
    meta = {"type": "session_meta", "payload": {"id": "t", "cwd": "/w", "source": {"subagent": "review"}}}
    m = parse_first_line(b"\xef\xbb\xbf" + json.dumps(meta).encode())
    assert m is not None and (m.thread_id, m.cwd, m.parent_id) == ("t", "/w", None)
    assert parse_first_line(b'{"type": "session_meta", "payload": {"id": 7}}') is None
    assert parse_first_line(b'{"type": "session_meta", "payload": {}}') is None
    assert parse_first_line(b"[1, 2]") is None
    assert parse_first_line(b"") is None
    # an escaped lone surrogate in the first record (its instructions, say): the fold reads it as
    # a rollout (the bad character U+FFFD), so discovery does too (a fresh-user trial: left out)
    meta["payload"]["base_instructions"] = {"text": "bad \ud800 text"}
    m = parse_first_line(json.dumps(meta).encode())
    assert m is not None and m.thread_id == "t"


def test_a_first_line_being_written_is_read_again_once_complete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "codex"
    monkeypatch.setenv("CODEX_HOME", str(home))
    p = _day(home, "2026-03-05") / "rollout-live.jsonl"
    p.parent.mkdir(parents=True)
    whole = json.dumps({"timestamp": "t", "type": "session_meta", "payload": {"id": "0199live", "cwd": "/w"}})
    p.write_text(whole[:30])
    assert list_sessions(agent="codex") == []
    p.write_text(whole + "\n")
    os.utime(p, (1_700_000_500, 1_700_000_500))
    assert [s.session_id for s in list_sessions(agent="codex")] == ["0199live"]


def test_the_first_line_is_read_once_per_file(homes: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    list_sessions()
    reads: list[Path] = []
    real = codex_discover.open_regular

    def counting(path):  # type: ignore[no-untyped-def]
        reads.append(Path(path))
        return real(path)

    monkeypatch.setattr(codex_discover, "open_regular", counting)
    home, _ = homes
    main = _day(home, "2026-03-02") / f"rollout-2026-03-02T09-00-00-{PARENT}.jsonl"
    with main.open("a") as f:  # the session goes on: its first line is still the same
        f.write(json.dumps({"timestamp": "t", "type": "event_msg", "payload": {"type": "agent_message", "message": "ok"}}) + "\n")
    assert [s.session_id for s in list_sessions(agent="codex")] == [PARENT, OLD]
    subagent_files(main)
    assert reads == []


def test_a_claude_transcripts_first_line_is_read_once_while_it_grows(homes: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    _, claude = homes
    main = claude / "projects" / "-home-dev-web" / f"{CLAUDE_SID}.jsonl"
    assert subagent_files(main) == []
    reads: list[Path] = []
    real = codex_discover.open_regular

    def counting(path):  # type: ignore[no-untyped-def]
        reads.append(Path(path))
        return real(path)

    monkeypatch.setattr(codex_discover, "open_regular", counting)
    with main.open("a") as f:
        f.write(json.dumps(prompt("more work", session=CLAUDE_SID)) + "\n")
    assert file_agent(main) == "claude" and subagent_files(main) == []
    assert reads == []
    # cut shorter than its first line (rewritten in place): read again
    main.write_text("")
    assert file_agent(main) == "claude"
    assert reads == [main]


def test_an_unchanged_folder_is_not_listed_again_and_a_new_child_is_found(
    homes: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, _ = homes
    an_hour_ago = 1_700_000_000
    for d in [home, *(p for p in home.rglob("*") if p.is_dir())]:
        os.utime(d, (an_hour_ago, an_hour_ago))
    main = find_session(PARENT).path
    assert len(subagent_files(main)) == 3
    listed: list[str] = []
    real = os.scandir

    def counting(path):  # type: ignore[no-untyped-def]
        listed.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(codex_discover.os, "scandir", counting)
    assert len(subagent_files(main)) == 3
    assert listed == []
    # a new child makes its folder's time now: that folder (only) is listed again
    late = _rollout(_day(home, "2026-03-04") / "rollout-late.jsonl", "0199abcd-0000-7000-8000-00000000000c", parent=PARENT)
    assert late in [s.path for s in subagent_files(main)]
    assert listed == [str(_day(home, "2026-03-04"))]


def test_a_folder_symlink_loop_lists_each_rollout_once(homes: tuple[Path, Path]) -> None:
    """Fourth user trial: a link from a date folder back to ``sessions`` listed every rollout
    once per turn of the loop (41 times), and a thread id then named 41 files."""
    home, _ = homes
    (_day(home, "2026-03-02") / "loop").symlink_to(home / "sessions", target_is_directory=True)
    codex_discover._DIRS.clear()
    got = [(s.agent, s.session_id) for s in list_sessions()]
    assert got == [("codex", PARENT), ("claude", CLAUDE_SID), ("codex", OLD)]
    assert find_session(PARENT).agent == "codex"


def test_one_id_for_a_claude_session_and_a_codex_thread_names_both_agents(homes: tuple[Path, Path]) -> None:
    _, claude = homes
    write(claude / "projects" / "-home-dev-clash" / f"{PARENT}.jsonl", [prompt("same id", session=PARENT)])
    with pytest.raises(DiscoveryError, match=f"{PARENT} is the id of a Claude Code session and a Codex thread; add --agent claude|codex"):
        find_session(PARENT)
    assert find_session(PARENT, agent="claude").agent == "claude"
    assert find_session(PARENT, agent="codex").agent == "codex"
