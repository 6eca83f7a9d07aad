"""The rule that keeps one fleet row per session when the fleet holds several files of it
(tracetui/views/fleet_copies.py): the same file under several paths, a session and its copies."""

from __future__ import annotations

from tracetui.views.fleet_copies import FileOf, one_per_session, session_name
from tracetui.views.fleet_facts import SessionFacts


def facts(key: str, session_id: str = "", agent: str = "claude", orphan: str = "") -> SessionFacts:
    return SessionFacts(key, session_id, "p", agent, "t", None, (), "", (), (0, 0, 0), 0, None, 0, 0, orphan=orphan)


def kept(files: dict[str, FileOf], ids: dict[str, str] | None = None, agent: str = "claude") -> list[str]:
    ids = ids or {}
    pairs = [(facts(k, ids.get(k, ""), agent), None) for k in files]
    return [f.key for f, _ in one_per_session(pairs, files)]


def test_the_same_file_under_two_paths_is_the_tabs() -> None:
    same = (1, 42)
    assert kept({"/p/-a/s.jsonl": FileOf(same, 10, False), "s.jsonl": FileOf(same, 10, True)}) == ["s.jsonl"]
    # the size stat'ed a moment apart (the file grows) changes nothing
    assert kept({"/p/-a/s.jsonl": FileOf(same, 12, False), "/link/-a/s.jsonl": FileOf(same, 10, True)}) == ["/link/-a/s.jsonl"]
    # two tabs of one file: the path that sorts first
    assert kept({"/b/s.jsonl": FileOf(same, 10, True), "/a/s.jsonl": FileOf(same, 10, True)}) == ["/a/s.jsonl"]


def test_a_session_and_its_copy_is_the_larger_then_the_tabs_then_the_first_path() -> None:
    assert kept({"/p/-a/s.jsonl": FileOf((1, 1), 20, False), "/tmp/s.jsonl": FileOf((1, 2), 10, True)}) == ["/p/-a/s.jsonl"]
    assert kept({"/p/-a/s.jsonl": FileOf((1, 1), 10, False), "/tmp/s.jsonl": FileOf((1, 2), 20, True)}) == ["/tmp/s.jsonl"]
    assert kept({"/p/-a/s.jsonl": FileOf((1, 1), 10, False), "/tmp/s.jsonl": FileOf((1, 2), 10, True)}) == ["/tmp/s.jsonl"]
    assert kept({"/p/-b/s.jsonl": FileOf((1, 1), 10, False), "/p/-a/s.jsonl": FileOf((1, 2), 10, False)}) == ["/p/-a/s.jsonl"]


def test_a_codex_thread_outside_archived_sessions_first() -> None:
    files = {"/c/archived_sessions/r-t.jsonl": FileOf((1, 1), 10, False), "/c/sessions/2026/r-t.jsonl": FileOf((1, 2), 10, False)}
    ids = dict.fromkeys(files, "t")
    assert kept(files, ids, "codex") == ["/c/sessions/2026/r-t.jsonl"]


def test_other_sessions_are_rows_of_their_own() -> None:
    files = {"/p/-a/s.jsonl": FileOf((1, 1), 10, True), "/p/-a/t.jsonl": FileOf((1, 2), 10, False), "/x/u.jsonl": FileOf(None, 0, True)}
    assert kept(files) == list(files)
    # a resumed Claude Code session's file opens with the records of the session it resumed
    # (their sessionId): its own id is its file name
    ids = {"/p/-a/s.jsonl": "old", "/p/-a/t.jsonl": "old"}
    assert kept({k: files[k] for k in ids}, ids) == list(ids)
    assert session_name(facts("/p/-a/s.jsonl", "old")) == ("claude", "s")
    assert session_name(facts("/c/r-2026-t.jsonl", "t", "codex")) == ("codex", "t")
    # subagent files whose transcript is gone: their session's folder names them
    gone = "/p/-a/s1/subagents/agent-a1.jsonl"
    assert session_name(facts(gone, "s1", orphan="parent missing")) == ("claude", "s1")
