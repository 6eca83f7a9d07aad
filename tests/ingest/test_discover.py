"""Discovery: projects folder, newest session, id prefixes, the three subagent layouts, late files."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixtures import assistant, fan_out, prompt, text_block, tool_result, tool_use_block, usage, write

from tracetui.ingest.discover import DiscoveryError, claude_dir, find_session, list_sessions, newest_session, projects_dir, resolve_target
from tracetui.ingest.session_files import all_transcripts, subagent_files
from tracetui.session.reader import SessionReader

SID_A = "aaaaaaaa-1111-4000-8000-000000000001"
SID_B = "aaaaaaaa-2222-4000-8000-000000000002"
SID_C = "cccccccc-3333-4000-8000-000000000003"


@pytest.fixture
def projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    proj = root / "projects" / "-work-demo"
    for i, sid in enumerate((SID_A, SID_B, SID_C)):
        p = write(proj / f"{sid}.jsonl", [prompt(f"session {i}", session=sid)])
        os.utime(p, (1_700_000_000 + i * 10, 1_700_000_000 + i * 10))
    return root / "projects"


def test_claude_dir_from_env(projects: Path) -> None:
    assert claude_dir() == projects.parent
    assert projects_dir() == projects


def test_claude_dir_default_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert claude_dir() == tmp_path / ".claude"


def test_newest_session_by_mtime_skips_agent_files(projects: Path) -> None:
    agent = write(projects / "-work-demo" / "agent-1234abcd.jsonl", [prompt("x", session=SID_A)])
    os.utime(agent, (1_800_000_000, 1_800_000_000))
    s = newest_session()
    assert s is not None and s.session_id == SID_C and s.project == "-work-demo"


def test_no_sessions_gives_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "nothing"))
    assert newest_session() is None


def test_session_by_id_and_prefix(projects: Path) -> None:
    assert find_session(SID_B).session_id == SID_B
    assert find_session("cccc").session_id == SID_C
    assert resolve_target("cccccccc-3333").name == f"{SID_C}.jsonl"


def test_ambiguous_prefix_is_an_error_naming_matches(projects: Path) -> None:
    with pytest.raises(DiscoveryError) as ei:
        find_session("aaaa")
    msg = str(ei.value)
    assert "'aaaa'" in msg and "2 sessions" in msg and "\n" not in msg
    assert SID_A in msg and SID_B in msg
    # ids that differ only at their end are given whole (a fresh-user trial: cut to 13
    # characters, the candidates looked identical)
    twins = ["bbbbbbbb-1111-4000-8000-000000000001", "bbbbbbbb-1111-4000-8000-000000000002"]
    for sid in twins:
        write(projects / "-work-demo" / f"{sid}.jsonl", [prompt("twin", session=sid)])
    with pytest.raises(DiscoveryError) as ei:
        find_session("bbbbbbbb-1111")
    assert all(sid in str(ei.value) for sid in twins)


def test_unknown_id_is_an_error(projects: Path) -> None:
    with pytest.raises(DiscoveryError, match="no session matches 'zzzz'"):
        find_session("zzzz")


def test_path_argument_is_taken_as_given(projects: Path, tmp_path: Path) -> None:
    assert resolve_target(str(tmp_path / "x.jsonl")) == tmp_path / "x.jsonl"


def _main_with_task(dirpath: Path, sid: str, tool_id: str = "tA") -> Path:
    return write(
        dirpath / f"{sid}.jsonl",
        [
            prompt("goal", session=sid),
            assistant([tool_use_block(tool_id, "Task", {"description": "d", "prompt": "p"})], msg_id="m0", u=usage(1, 1), session=sid),
        ],
    )


def _agent_records(sid: str, aid: str) -> list[dict]:
    return [
        prompt("p", sidechain=True, agentId=aid, session=sid),
        assistant([text_block("sub answer")], msg_id=f"m-{aid}", u=usage(5, 5), sidechain=True, agentId=aid, session=sid),
    ]


def test_layout_inline_sidechains(tmp_path: Path) -> None:
    main = write(
        tmp_path / "s.jsonl",
        [
            prompt("goal", session="s"),
            prompt("sub prompt", sidechain=True, session="s"),
            assistant([text_block("x")], sidechain=True, u=usage(1, 1)),
        ],
    )
    assert subagent_files(main) == []
    r = SessionReader(main, price=False)
    r.poll()
    st = r.snapshot()
    assert st.agents == () and st.counters.sidechain_records == 2 and st.goal.text == "goal"


def test_layout_sibling_agent_files_matched_by_session_id(tmp_path: Path) -> None:
    sid = "sess-two-oh"
    main = _main_with_task(tmp_path, sid)
    write(tmp_path / "agent-6633a783.jsonl", _agent_records(sid, "6633a783"))
    write(tmp_path / "agent-deadbeef.jsonl", _agent_records("another-session", "deadbeef"))
    found = subagent_files(main)
    assert [(f.path.name, f.agent_id, f.tool_use_id) for f in found] == [("agent-6633a783.jsonl", "6633a783", None)]


def test_layout_subagents_dir_with_meta_json(tmp_path: Path) -> None:
    sid = "sess-two-one"
    main = _main_with_task(tmp_path, sid, tool_id="toolu_X")
    sub = tmp_path / sid / "subagents"
    write(sub / "agent-a0123456789abcdef.jsonl", _agent_records(sid, "a0123456789abcdef"))
    (sub / "agent-a0123456789abcdef.meta.json").write_text(
        json.dumps({"agentType": "Explore", "description": "d", "toolUseId": "toolu_X", "spawnDepth": 1})
    )
    write(sub / "workflows" / "wf1" / "agent-anested.jsonl", _agent_records(sid, "anested"))
    found = subagent_files(main)
    assert [(f.agent_id, f.tool_use_id) for f in found] == [("a0123456789abcdef", "toolu_X"), ("anested", None)]
    r = SessionReader(main, price=False)
    r.poll()
    st = r.snapshot()
    assert len(st.agents) == 2
    (link,) = st.main.subagents
    # linked through .meta.json's toolUseId, although the Task has no result yet
    assert link.tool_use_id == "toolu_X" and link.source is not None
    assert st.sources[link.source].name == "agent-a0123456789abcdef.jsonl"


def test_another_sessions_file_under_subagents_is_left_out(tmp_path: Path) -> None:
    """Fourth user trial: a subagent file of another session copied under ``<sid>/subagents/``
    was folded into this session's figures (its tokens, calls and folder)."""
    sid = "sess-own"
    main = _main_with_task(tmp_path, sid, tool_id="toolu_X")
    sub = tmp_path / sid / "subagents"
    write(sub / "agent-amine.jsonl", _agent_records(sid, "amine"))
    write(sub / "agent-aforeign.jsonl", _agent_records("sess-other", "aforeign"))
    assert [f.agent_id for f in subagent_files(main)] == ["amine"]
    r = SessionReader(main, price=False)
    r.poll()
    assert [s.name for s in r.snapshot().sources] == [main.name, "agent-amine.jsonl"]


def test_every_transcript_files_another_sessions_subagent_file_under_its_own_session(tmp_path: Path) -> None:
    # sixth user trial: report (which reads every transcript) added such a file's tokens to the
    # folder's session, which state and sessions leave it out of
    proj = tmp_path / "-proj"
    sid = "sess-own"
    _main_with_task(proj, sid, tool_id="toolu_X")
    sub = proj / sid / "subagents"
    write(sub / "agent-amine.jsonl", _agent_records(sid, "amine"))
    write(sub / "agent-aforeign.jsonl", _agent_records("sess-other", "aforeign"))
    filed = {f.path.name: (f.session_id, f.role) for f in all_transcripts(tmp_path)}
    assert filed == {
        f"{sid}.jsonl": (sid, "main"),
        "agent-amine.jsonl": (sid, "subagent"),
        "agent-aforeign.jsonl": ("sess-other", "subagent"),
    }


def test_subagent_file_appearing_later_is_picked_up_by_next_poll(tmp_path: Path) -> None:
    sid = "sess-late"
    main = _main_with_task(tmp_path, sid)
    r = SessionReader(main, price=False)
    r.poll()
    assert r.snapshot().agents == ()
    write(tmp_path / sid / "subagents" / "agent-alate.jsonl", _agent_records(sid, "alate"))
    with open(main, "ab") as f:
        f.write(json.dumps(tool_result("tA", "done", result={"status": "completed", "agentId": "alate"}, session=sid)).encode() + b"\n")
    assert r.poll()
    st = r.snapshot()
    assert [a.agent_id for a in st.agents] == ["alate"]
    assert st.main.subagents[0].source == 1
    assert st.agents[0].goal.text == "p" and st.tokens.input == 6


def test_no_subagents_flag_reads_only_named_file(tmp_path: Path) -> None:
    sid = "sess-ns"
    main = _main_with_task(tmp_path, sid)
    write(tmp_path / sid / "subagents" / "agent-ax.jsonl", _agent_records(sid, "ax"))
    r = SessionReader(main, subagents=False, price=False)
    r.poll()
    st = r.snapshot()
    assert st.agents == () and len(st.sources) == 1


def test_an_empty_argument_is_an_error_not_the_current_folder() -> None:
    import pytest as _pytest

    from tracetui.ingest.discover import DiscoveryError, resolve_target

    with _pytest.raises(DiscoveryError, match="empty argument"):
        resolve_target("")


def test_one_id_in_two_project_folders_is_the_file_the_fleet_reads(projects: Path) -> None:
    # a copied or moved project: the session is one (the fleet and `sessions` show one row, read
    # from the largest file, then the path that sorts first), and its id names that file; it
    # asked for a path (trial 12: the id `sessions` showed was refused, the whole id too)
    sid = "dddddddd-4444-4444-8444-444444444444"
    write(projects / "-one" / f"{sid}.jsonl", [prompt("a")])
    b = write(projects / "-two" / f"{sid}.jsonl", [prompt("a"), prompt("b, later")])
    assert find_session(sid).path == b and find_session("dddddddd-4").path == b
    c = write(projects / "-three" / f"{sid}.jsonl", [prompt("a"), prompt("b, later")])
    assert find_session(sid).path == c  # the same size: the path that sorts first ("-three" < "-two")


def test_a_prefix_of_several_sessions_names_each_and_its_folders(projects: Path) -> None:
    # trial 12: "'0543d59c' matches 3 sessions" named 2 ids: the third was the copy of one of
    # them in another project folder
    sid = "dddddddd-4444-4444-8444-444444444444"
    write(projects / "-one" / f"{sid}.jsonl", [prompt("a")])
    write(projects / "-two" / f"{sid}.jsonl", [prompt("a")])
    other = "dddddddd-5555-4444-8444-444444444444"
    write(projects / "-one" / f"{other}.jsonl", [prompt("c")])
    with pytest.raises(DiscoveryError) as ei:
        find_session("dddddddd")
    msg = str(ei.value)
    assert msg.startswith("'dddddddd' matches 2 sessions (") and msg.endswith("); give more of the id"), msg
    assert f"{sid} (in 2 project folders: -one, -two)" in msg and other in msg and "\n" not in msg


def test_a_session_with_only_subagent_files_is_said_so_by_id(projects: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an older layout's folder holding a session's agent-*.jsonl but not its own transcript:
    # the report lists the session (its files carry its id); state by that id says what there is
    from tracetui.cli import main

    orphan = "dddddddd-4444-4000-8000-000000000004"
    folder = projects / "-work-old"
    a1 = write(folder / "agent-1111aaaa.jsonl", [prompt("look around", session=orphan)])
    write(folder / "agent-2222bbbb.jsonl", [prompt("look again", session=orphan)])
    for ident in (orphan, orphan[:8]):
        with pytest.raises(DiscoveryError) as exc:
            find_session(ident)
        said = str(exc.value)
        assert said.startswith(f"session {orphan} has no transcript of its own") and "\n" not in said
        assert "only 2 subagent files beside" in said and str(a1) in said
    assert main(["state", "--no-cache", orphan[:8]]) == 1
    err = capsys.readouterr().err
    assert "has no transcript of its own" in err and err.count("\n") == 1
    # an id that no file carries still says no session matches
    with pytest.raises(DiscoveryError, match="no session matches"):
        find_session("ffffffff")


def test_a_subagent_files_first_line_is_decoded_once_and_a_rewrite_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every discovery (and each hook call) asks each subagent file's session id: a complete
    first line is decoded once; a file rewritten in place under another id is read again."""
    from tracetui.ingest import claude_orphans

    p = tmp_path / "agent-a1.jsonl"
    long_cwd = "/home/dev/" + "x" * 300
    write(p, [prompt("hi", session="sess-one", cwd=long_cwd)])
    decoded = []
    real = claude_orphans._first

    class Counting:
        def decode(self, line):
            decoded.append(line)
            return real.decode(line)

    monkeypatch.setattr(claude_orphans, "_first", Counting())
    assert [claude_orphans.first_session_id(p) for _ in range(3)] == ["sess-one"] * 3
    assert len(decoded) == 1
    with open(p, "r+b") as f:  # the same inode, another session, the same long head
        f.write(p.read_bytes().replace(b"sess-one", b"sess-two"))
    assert claude_orphans.first_session_id(p) == "sess-two"


def test_the_agent_siblings_of_a_folder_are_listed_again_once_it_changes(tmp_path: Path) -> None:
    # listed once while the folder is unchanged (every session of a folder looks among them)
    import os as _os

    from tracetui.ingest.claude_orphans import agent_siblings

    write(tmp_path / "agent-a1.jsonl", _agent_records("s", "a1"))
    write(tmp_path / "s.jsonl", [prompt("goal", session="s")])
    old = 1_000_000_000
    _os.utime(tmp_path, (old, old))  # an old mtime: the listing may be kept
    assert [p.name for p in agent_siblings(tmp_path)] == ["agent-a1.jsonl"]
    write(tmp_path / "agent-a2.jsonl", _agent_records("s", "a2"))  # the folder's mtime moves on
    assert [p.name for p in agent_siblings(tmp_path)] == ["agent-a1.jsonl", "agent-a2.jsonl"]
    (tmp_path / "agent-a1.jsonl").unlink()
    _os.utime(tmp_path, (old, old))  # the same mtime as listed before: the racy case is the clock's
    assert [p.name for p in agent_siblings(tmp_path)] == ["agent-a2.jsonl"]


def _old_folders(top: Path) -> None:
    """Every folder under ``top`` (and it) dated long ago: their listings may be kept."""
    old = 1_000_000_000
    for d in [top, *(q for q in top.rglob("*") if q.is_dir())]:
        os.utime(d, (old, old))


def test_a_reader_polled_again_reads_no_subagent_file_it_has_and_lists_no_unchanged_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a fresh-user trial: 5,000 subagent files were listed, stat'ed, opened twice (first record,
    # .meta.json) and resolved at every poll (a second a poll, the monitor 15 % CPU idle)
    from tracetui.ingest import claude_orphans, session_files

    main = fan_out(tmp_path / "proj", 30)
    _old_folders(tmp_path / "proj")
    r = SessionReader([main], price=False)
    r.poll()
    assert len(r.tailers) == 31
    seen: dict[str, int] = {"scandir": 0, "first": 0, "meta": 0, "regular": 0}

    def counting(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any, **k: Any) -> Any:
            seen[name] += 1
            return fn(*a, **k)

        return wrapper

    monkeypatch.setattr(claude_orphans.os, "scandir", counting("scandir", os.scandir))
    monkeypatch.setattr(session_files, "first_session_id", counting("first", session_files.first_session_id))
    monkeypatch.setattr(session_files, "_meta_tool_use_id", counting("meta", session_files._meta_tool_use_id))
    monkeypatch.setattr(session_files, "is_regular", counting("regular", session_files.is_regular))
    n_agents = len(r.snapshot().agents)
    assert not r.poll()
    assert seen == {"scandir": 0, "first": 0, "meta": 0, "regular": 0}
    # a new file changes its folder's mtime: listed again, and only the new file is read
    sub = main.parent / main.stem / "subagents"
    write(sub / "agent-zz.jsonl", [prompt("late work", sidechain=True, agentId="zz", session=main.stem)])
    assert r.poll()
    assert seen["scandir"] >= 1 and seen["first"] == seen["meta"] == seen["regular"] == 1
    after = r.snapshot()
    assert len(after.agents) == n_agents + 1 and after.agents[-1].agent_id == "zz"
    fresh = SessionReader([main], price=False)
    fresh.poll()
    again = fresh.snapshot()
    assert (after.counters, after.tools_by_name, after.sources) == (again.counters, again.tools_by_name, again.sources)


def test_a_folder_listed_soon_after_it_changed_is_listed_again_though_its_mtime_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a coarse clock: an entry added in the same tick as the listing leaves the folder's mtime
    # as it was listed with; a listing taken that soon after the mtime is not kept, however
    # late the next look (the earlier rule asked how old the mtime is now, and kept it)
    from tracetui.ingest import claude_orphans

    d = tmp_path / "subagents"
    write(d / "agent-a1.jsonl", [prompt("one", sidechain=True, agentId="a1")])
    st = os.stat(d)
    clock = {"ns": st.st_mtime_ns + 500_000_000}  # listed half a second after the change
    monkeypatch.setattr(claude_orphans.time, "time_ns", lambda: clock["ns"])
    monkeypatch.setattr(claude_orphans.time, "time", lambda: clock["ns"] / 1e9)
    assert [Path(n).name for n in claude_orphans.agent_names(str(d))] == ["agent-a1.jsonl"]
    write(d / "agent-a2.jsonl", [prompt("two", sidechain=True, agentId="a2")])
    os.utime(d, ns=(st.st_atime_ns, st.st_mtime_ns))  # the same tick: the mtime did not move
    clock["ns"] += 60 * 10**9  # looked at a minute later
    assert sorted(Path(n).name for n in claude_orphans.agent_names(str(d))) == ["agent-a1.jsonl", "agent-a2.jsonl"]
    # listed long after its mtime, an unchanged folder is not listed again
    calls = []
    real = os.scandir
    monkeypatch.setattr(claude_orphans.os, "scandir", lambda p: calls.append(p) or real(p))
    assert len(claude_orphans.agent_names(str(d))) == 2 and calls == []


def test_a_session_is_found_by_the_id_its_records_carry_as_by_its_file_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # sixth user trial: a resumed session (a file named after the new id, its first record the
    # old one's) is listed by sessions under the id its records carry, which state ID did not find
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    proj = tmp_path / "projects" / "-resume"
    old, new = "aaaa1111-0000-0000-0000-000000000001", "bbbb2222-0000-0000-0000-000000000002"
    p = write(proj / f"{new}.jsonl", [prompt("before the resume", session=old), prompt("after", session=new)])
    assert find_session(new).path == p and find_session("bbbb").path == p
    assert find_session(old).path == p and find_session("aaaa1111").path == p
    with pytest.raises(DiscoveryError, match="no session matches"):
        find_session("cccc")
    # a transcript opening with a record that carries no sessionId (a file-history snapshot)
    snap = {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": False}
    q = write(proj / "main.jsonl", [snap, prompt("hello", session="dddd3333-0000-0000-0000-000000000003")])
    assert find_session("dddd3333").path == q


def test_a_session_reached_through_a_symlinked_project_folder_too_is_listed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # seventh user trial: every session twice in sessions and the fleet, and "state ID" refused
    # it as "in 2 project folders"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    proj = tmp_path / "projects" / "-real"
    p = write(proj / "sess-link.jsonl", [prompt("hi", session="sess-link")])
    (tmp_path / "projects" / "-alink").symlink_to(proj, target_is_directory=True)
    assert [(s.path, s.project) for s in list_sessions()] == [(p, "-real")]
    assert find_session("sess-link").path == p


def test_a_symlinked_transcript_is_its_file_s_session_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # thirteenth user trial: a link -b/7777….jsonl to -z/0543….jsonl was a second session for
    # report and search (its figures counted twice, every hit shown twice) and no session for
    # sessions and state. The link's folder sorts first here: the file's own name still wins
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    real = write(tmp_path / "projects" / "-z" / f"{SID_A}.jsonl", [prompt("hi", session=SID_A)])
    link = tmp_path / "projects" / "-b" / f"{SID_C}.jsonl"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert [(s.path, s.session_id) for s in list_sessions()] == [(real, SID_A)]
    assert find_session(SID_C[:8]).path == real  # the link's name opens the file's session
    assert find_session(SID_C).path == real
    assert [(t.path, t.session_id) for t in all_transcripts()] == [(real, SID_A)]


def test_a_file_stamped_in_the_future_is_not_the_newest_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    proj = tmp_path / "projects" / "-p"
    now = time.time()
    fut = write(proj / "sess-future.jsonl", [prompt("hi", session="sess-future")])
    real = write(proj / "sess-real.jsonl", [prompt("hi", session="sess-real")])
    os.utime(fut, (now + 86_400 * 365, now + 86_400 * 365))
    os.utime(real, (now - 60, now - 60))
    assert newest_session().path == real
    real.unlink()
    assert newest_session().path == fut  # the only one: still found


def test_a_first_line_after_a_byte_order_mark_or_with_a_lone_surrogate_is_a_session_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a fresh-user trial: such a file was left out of sessions, the fleet and --all (a first-line
    # check msgspec refused) while state ID, report and search folded it as a session
    from tracetui.ingest.claude_orphans import first_session_id
    from tracetui.ingest.discover import transcript_sessions
    from tracetui.ingest.first_line import opens_a_transcript

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    proj = tmp_path / "projects" / "-p"
    bom = write(proj / "sess-bom.jsonl", [b"\xef\xbb\xbf" + json.dumps(prompt("hi", session="sess-bom")).encode()])
    surr = write(proj / "sess-surr.jsonl", [json.dumps(prompt("bad \ud800 here", session="sess-surr")).encode()])
    assert b"\\ud800" in surr.read_bytes()
    late = write(proj / "sess-late.jsonl", [b"", b"\xef\xbb\xbf" + json.dumps(prompt("hi", session="sess-late")).encode()])
    assert opens_a_transcript(bom) and opens_a_transcript(surr)
    assert not opens_a_transcript(late)  # a mark past the start of the file is no mark: the fold quarantines it
    assert {s.path for s in transcript_sessions()} == {bom, surr}
    assert (first_session_id(bom), first_session_id(surr)) == ("sess-bom", "sess-surr")
    for p, goal in ((bom, "hi"), (surr, "bad \ufffd here")):  # the fold reads the same lines as records
        r = SessionReader(p, price=False)
        r.poll()
        st = r.snapshot()
        assert (st.counters.records, st.counters.malformed, st.goal.text) == (1, 0, goal)
    r = SessionReader(late, price=False)
    r.poll()
    assert r.snapshot().counters.malformed == 1


def test_a_session_id_on_a_later_line_with_a_lone_surrogate_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the file's name is not its session id and its first record carries none: the id is read
    # from the first record that has one, as the fold reads that line (U+FFFD for the surrogate)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    proj = tmp_path / "projects" / "-p"
    head = {"type": "file-history-snapshot", "messageId": "m1", "snapshot": {}}
    p = write(proj / "renamed.jsonl", [json.dumps(head).encode(), json.dumps(prompt("odd \ud800 text", session="feedface-0001")).encode()])
    assert b"\\ud800" in p.read_bytes()
    assert find_session("feedface").path == p
