"""``tracetui hook`` (issue 5 §1, §2): recorded hook inputs for every event and source, broken
input, the UserPromptSubmit gate, the output cap, and the settings.json merge."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from fixtures import append, assistant, compact_boundary, jsonl, prompt, text_block, tool_call, tool_result, usage, write

import tracetui.hook.install as hook_install
import tracetui.hook.run as hook
from tracetui.cli import main
from tracetui.hook import MAX_CHARS, merge_settings, remove_from_settings

INPUTS = Path(__file__).parent / "hook_inputs"
SID = "5e55e55e-0000-4000-8000-000000000001"
OLD_SID = "5e55e55e-0000-4000-8000-000000000002"
OLDER_SID = "5e55e55e-0000-4000-8000-000000000003"


def _project(tmp_path: Path) -> Path:
    d = tmp_path / "projects" / "-work-demo"
    d.mkdir(parents=True)
    return d


def _session(proj: Path, sid: str = SID, goal: str = "make the API tests pass", extra: list[Any] | None = None) -> Path:
    recs = [
        prompt(goal, session=sid),
        tool_call("t1", "Bash", {"command": "pytest -q"}, session=sid),
        tool_result("t1", "3 failed, 10 passed", session=sid),
        assistant([text_block("the fixture is wrong")], msg_id="m9", u=usage(50, 5), session=sid),
        tool_call("t2", "Edit", {"file_path": "/work/demo/tests/conftest.py", "old_string": "a", "new_string": "b"}, session=sid),
        *(extra or []),
    ]
    return write(proj / f"{sid}.jsonl", recs)


def _input(name: str, transcript: Path, sid: str = SID) -> bytes:
    text = (INPUTS / name).read_bytes()
    return text.replace(b"{transcript}", str(transcript).encode()).replace(b"{session_id}", sid.encode()).replace(b"{cwd}", b"/work/demo")


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data: bytes, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code = main(["hook", *args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_card(out: str, goal: str = "make the API tests pass") -> None:
    assert out.strip(), "expected a card"
    assert len(out) <= MAX_CHARS + 1 < 10_000
    first, last = out.splitlines()[0], out.rstrip("\n").splitlines()[-1]
    assert "derived from its transcript" in out and "check it" in out  # the disclaimer, up front
    assert last == hook.FOOTER
    assert goal in out
    del first


# -- SessionStart -------------------------------------------------------------------------------


def test_startup_prints_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    t = _session(_project(tmp_path))
    assert run(monkeypatch, capsys, _input("session_start_startup.json", t)) == (0, "", "")


@pytest.mark.parametrize("name", ["session_start_compact.json", "session_start_resume.json"])
def test_compact_and_resume_print_this_sessions_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    t = _session(_project(tmp_path), extra=[compact_boundary(90000, session=SID)])
    code, out, err = run(monkeypatch, capsys, _input(name, t))
    assert code == 0 and err == ""
    assert_card(out)
    assert SID in out.splitlines()[0] and str(t) in out.splitlines()[0]


@pytest.fixture
def one_claude_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook's calls come from one Claude Code process: the process tree the tests run in
    (a CI runner, a shell under init) says nothing about which one that is."""
    import tracetui.hook.cleared as cleared

    monkeypatch.setattr(cleared, "claude_process", lambda: "4242@1")


def _two_sessions_in_one_project(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The session being cleared, another session of the same project written to after it (the
    newest other transcript), and the new session's path (Claude Code may not have written it)."""
    proj = _project(tmp_path)
    old = _session(proj, OLD_SID, goal="the cleared goal")
    os.utime(old, (1_000_000, 1_000_000))
    other = _session(proj, OLDER_SID, goal="another session's goal")
    os.utime(other, (2_000_000, 2_000_000))
    write(proj / "agent-zzz.jsonl", [prompt("a subagent", session=OLD_SID)])  # never a main session
    return old, other, proj / f"{SID}.jsonl"


def test_clear_prints_the_cleared_session_recorded_by_its_session_end_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], one_claude_process: None
) -> None:
    old, other, new = _two_sessions_in_one_project(tmp_path)
    assert run(monkeypatch, capsys, _input("session_end_clear.json", old, OLD_SID)) == (0, "", "")
    code, out, err = run(monkeypatch, capsys, _input("session_start_clear.json", new))
    assert code == 0 and err == ""
    assert_card(out, "the cleared goal")
    assert "another session's goal" not in out
    assert out.startswith("[This session was started with /clear") and OLD_SID in out.splitlines()[0]
    assert "PREVIOUS session" in out
    # the record answers once: a second SessionStart clear (no SessionEnd before it) gets nothing
    code, out, err = run(monkeypatch, capsys, _input("session_start_clear.json", new))
    assert (code, out) == (0, "") and "no SessionEnd record" in err


def test_clear_without_a_session_end_record_prints_nothing_not_the_newest_other_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], one_claude_process: None
) -> None:
    """Two sessions in one project, no SessionEnd record: the newest other transcript may be the
    other session, so no card (issue 10 item 8)."""
    _old, _other, new = _two_sessions_in_one_project(tmp_path)
    code, out, err = run(monkeypatch, capsys, _input("session_start_clear.json", new))
    assert (code, out) == (0, "")
    assert err.startswith("tracetui hook: /clear: no card") and len(err.splitlines()) == 1


def test_clear_takes_no_record_of_another_claude_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two Claude Code processes in one project: the one that cleared is not the one starting."""
    import tracetui.hook.cleared as cleared

    old, _other, new = _two_sessions_in_one_project(tmp_path)
    monkeypatch.setattr(cleared, "claude_process", lambda: "4242@1")
    assert run(monkeypatch, capsys, _input("session_end_clear.json", old, OLD_SID)) == (0, "", "")
    monkeypatch.setattr(cleared, "claude_process", lambda: "4343@1")
    code, out, err = run(monkeypatch, capsys, _input("session_start_clear.json", new))
    assert (code, out) == (0, "") and "no SessionEnd record" in err


def test_clear_takes_no_stale_record_nor_one_from_another_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tracetui.hook.cleared as cleared

    old, _other, new = _two_sessions_in_one_project(tmp_path)
    cache = tmp_path / "c"
    assert cleared.record_cleared(cache, OLD_SID, old, "7@1")
    later = cleared.time.time() + cleared.CLEARED_MARKER_SECONDS + 1
    got, why = cleared.take_cleared(cache, new, "7@1", now=later)
    assert got is None and "old" in why
    assert cleared.record_cleared(cache, OLD_SID, old, "7@1")
    got, why = cleared.take_cleared(cache, tmp_path / "elsewhere" / "x.jsonl", "7@1")
    assert got is None and "another project folder" in why
    assert cleared.record_cleared(cache, OLD_SID, old, "7@1")
    assert cleared.take_cleared(cache, new, "7@1") == (old, "")
    assert not cleared.record_cleared(cache, OLD_SID, old, None)
    # a marker whose SessionStart never came is removed by the next record
    assert cleared.record_cleared(cache, OLD_SID, old, "8@1")
    stale = cleared._marker(cache, "8@1")
    os.utime(stale, (1_000_000, 1_000_000))
    assert cleared.record_cleared(cache, OLD_SID, old, "9@1") and not stale.exists()
    assert cleared.take_cleared(cache, new, None)[0] is None


def test_claude_process_is_the_nearest_ancestor_that_is_not_a_shell() -> None:
    """A program (here a Python process standing for Claude Code) runs the hook's command line
    through ``sh -c``: the hook finds that program, by pid and start time, the same each call."""
    import subprocess

    inner = f"{sys.executable} -c 'from tracetui.hook.cleared import claude_process as c; print(c()); print(c())'"
    outer = f"import os, subprocess, sys; print(os.getpid(), flush=True); subprocess.run(['/bin/sh', '-c', {inner!r}])"
    out = subprocess.run([sys.executable, "-c", outer], capture_output=True, text=True, timeout=60, check=True).stdout.split()
    pid, first, second = out
    assert first == second and first.startswith(f"{pid}@")


def test_session_end_for_another_reason_records_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], one_claude_process: None
) -> None:
    old, _other, new = _two_sessions_in_one_project(tmp_path)
    data = _input("session_end_clear.json", old, OLD_SID).replace(b'"clear"', b'"logout"')
    assert run(monkeypatch, capsys, data) == (0, "", "")
    code, out, err = run(monkeypatch, capsys, _input("session_start_clear.json", new))
    assert (code, out) == (0, "") and "no SessionEnd record" in err


def test_other_events_print_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    t = _session(_project(tmp_path))
    assert run(monkeypatch, capsys, _input("pre_tool_use.json", t)) == (0, "", "")


def test_missing_transcript_prints_nothing_and_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    t = _project(tmp_path) / "not-yet.jsonl"
    for name in ("session_start_resume.json", "user_prompt_submit.json"):
        code, out, err = run(monkeypatch, capsys, _input(name, t))
        assert (code, out) == (0, "")
        assert err == f"tracetui hook: {t}: no such transcript file yet, so no card\n"


# -- UserPromptSubmit: the gate --------------------------------------------------------------


def test_prompt_gate_opens_once_per_compaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    t = _session(_project(tmp_path))
    ups = lambda: run(monkeypatch, capsys, _input("user_prompt_submit.json", t))  # noqa: E731
    assert ups() == (0, "", "")  # nothing to pay for: no compaction, no anomaly
    append(t, jsonl([compact_boundary(150000, session=SID)]))
    code, out, err = ups()
    assert code == 0 and err == ""
    assert_card(out)
    assert ups() == (0, "", "")  # this compaction was already carried
    append(t, jsonl([prompt("next", session=SID), compact_boundary(160000, session=SID)]))
    code, out, _ = ups()
    assert_card(out)


def test_a_gate_that_cannot_remember_stays_closed_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # seventh user trial: with the hook's folder unwritable the gate opened on every prompt (a
    # card of ~900 tokens each) and nothing said why; SessionEnd said a Python class name
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "hook").write_text("a file where the hook's folder should be")
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(cache))
    t = _session(_project(tmp_path), extra=[compact_boundary(150000, session=SID)])
    code, out, err = run(monkeypatch, capsys, _input("user_prompt_submit.json", t))
    assert (code, out) == (0, "") and err.startswith("tracetui hook: no card: what it gave cannot be remembered (")
    assert len(err.strip().splitlines()) == 1 and "Error:" not in err
    code, out, err = run(monkeypatch, capsys, _input("session_start_compact.json", t))
    assert_card(out)  # SessionStart's card is given once anyway
    import tracetui.hook.cleared as cleared

    monkeypatch.setattr(cleared, "claude_process", lambda: "claude-1234")  # a process to record the clear for
    code, out, err = run(monkeypatch, capsys, _input("session_end_clear.json", t))
    assert code == 0 and out == "" and "NotADirectoryError" not in err
    assert (
        err.startswith("tracetui hook: the cleared session not recorded for the next SessionStart: ") and "not a directory" in err.lower()
    )


def test_hook_errors_say_what_and_where_in_words_and_mark_their_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # seventh user trial: "OSError: [Errno 36] File name too long: '/nope/aaa" cut at 500
    # characters with no mark; a damaged gate file said "ValueError: invalid literal for int()"
    event = {"session_id": "x", "transcript_path": "/nope/" + "a" * 5000 + ".jsonl", "hook_event_name": "SessionStart", "source": "compact"}
    code, out, err = run(monkeypatch, capsys, json.dumps(event).encode())
    assert code == 0 and out == "" and "Error" not in err and err.rstrip("\n").endswith("\u2026") and len(err.strip()) <= 500
    t = _session(_project(tmp_path), extra=[compact_boundary(150000, session=SID)])
    state = hook._hook_state_path(SID)
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text('{"compactions": "x", "anomalies": 5}')
    code, out, err = run(monkeypatch, capsys, _input("user_prompt_submit.json", t))
    assert code == 0 and err == "" and out  # a damaged gate file is as none: the card comes


def test_the_gate_starts_afresh_for_a_transcript_replaced_under_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # seventh user trial: replaced by a shorter file, a session's next compaction found the count
    # at the remembered value and got no card
    proj = _project(tmp_path)
    t = _session(proj, extra=[compact_boundary(150000, session=SID)])
    ups = lambda: run(monkeypatch, capsys, _input("user_prompt_submit.json", t))  # noqa: E731
    assert_card(ups()[1])
    write(t, [prompt("a new start, replaced", session=SID), assistant([text_block("ok")], msg_id="m9", u=usage(1, 1), session=SID)])
    assert ups() == (0, "", "")  # the new file has no compaction yet
    append(t, jsonl([compact_boundary(120000, session=SID)]))
    assert_card(ups()[1], goal="a new start, replaced")


def test_compact_session_start_counts_as_the_injection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    t = _session(_project(tmp_path), extra=[compact_boundary(90000, session=SID)])
    assert_card(run(monkeypatch, capsys, _input("session_start_compact.json", t))[1])
    assert run(monkeypatch, capsys, _input("user_prompt_submit.json", t)) == (0, "", "")


def test_prompt_gate_opens_on_a_new_warning_anomaly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    proj = _project(tmp_path)
    errors = []
    for i in range(4):  # a tool error streak (severity error)
        errors += [
            tool_call(f"e{i}", "Bash", {"command": f"make {i}"}, session=SID),
            tool_result(f"e{i}", "boom", is_error=True, session=SID),
        ]
    t = _session(proj, extra=errors)
    code, out, err = run(monkeypatch, capsys, _input("user_prompt_submit.json", t))
    assert code == 0 and err == ""
    assert_card(out)
    # the same anomaly, still open: already carried
    assert run(monkeypatch, capsys, _input("user_prompt_submit.json", t)) == (0, "", "")
    # with the anomaly gate off, an open anomaly alone does not open it
    (tmp_path / "tracetui-cache").exists()
    t2 = _session(proj, "5e55e55e-0000-4000-8000-00000000000a", extra=errors)
    assert run(
        monkeypatch, capsys, _input("user_prompt_submit.json", t2, "5e55e55e-0000-4000-8000-00000000000a"), "--gate", "compaction"
    ) == (0, "", "")


def test_always_turns_the_gate_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    t = _session(_project(tmp_path))
    for _ in range(2):
        code, out, err = run(monkeypatch, capsys, _input("user_prompt_submit.json", t), "--always")
        assert code == 0 and err == ""
        assert_card(out)


def test_gate_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    t = _session(_project(tmp_path), extra=[compact_boundary(90000, session=SID)])
    monkeypatch.setenv("TRACETUI_HOOK_GATE", "none")
    assert run(monkeypatch, capsys, _input("user_prompt_submit.json", t)) == (0, "", "")
    monkeypatch.setenv("TRACETUI_HOOK_GATE", "compaction")
    assert_card(run(monkeypatch, capsys, _input("user_prompt_submit.json", t))[1])


# -- output cap ------------------------------------------------------------------------------


def test_output_is_capped_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    t = _session(_project(tmp_path))
    body = "\n".join(f"line {i} " + "x" * 90 for i in range(2000))
    monkeypatch.setattr(hook, "_render_card", lambda state, now: body)
    code, out, err = run(monkeypatch, capsys, _input("session_start_resume.json", t))
    assert code == 0 and err == ""
    assert len(out) <= MAX_CHARS + 1
    assert "card shortened by tracetui hook" in out and f"of {len(body)} characters shown" in out
    assert out.rstrip("\n").endswith(hook.FOOTER)


def test_shortening_note_is_never_cut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # "--max-chars 500" ended with "… run `tracetui card /tmp/ut/cfg/projects": the note was cut
    t = _session(_project(tmp_path), extra=[compact_boundary(90000, session=SID)])
    body = "\n".join(f"line {i} " + "x" * 70 for i in range(300))
    monkeypatch.setattr(hook, "_render_card", lambda state, now: body)
    note_end = f"characters shown; run `tracetui card {t}` for all of it]"
    # the frame names the transcript's path twice, and its length varies with pytest's temp
    # folder number: the smallest cap is the frame's size (said by a cap too small) plus a little
    code, out, err = run(monkeypatch, capsys, _input("session_start_compact.json", t), "--max-chars", "1")
    frame = int(err.split(" takes ")[1].split(" characters")[0])
    for cap in (2000, 1300, 1000, max(900, frame + 200), frame + 20):
        code, out, err = run(monkeypatch, capsys, _input("session_start_compact.json", t), "--max-chars", str(cap))
        assert code == 0 and err == "", (cap, err)
        text = out.rstrip("\n")
        assert len(text) <= cap, cap
        assert text.endswith(note_end + "\n" + hook.FOOTER), (cap, text[-300:])
        shown = int(text.split("[card shortened by tracetui hook: ")[1].split(" of ")[0])
        assert f"of {len(body)} characters shown" in text and body[:shown] in text
    # no room for even the frame: nothing printed, and the reason on stderr
    code, out, err = run(monkeypatch, capsys, _input("session_start_compact.json", t), "--max-chars", "500")
    assert (code, out) == (0, "") and err.count("\n") == 1
    assert err.startswith("tracetui hook: --max-chars 500 leaves no room for the card: its frame")


def test_fallback_card_until_the_card_view_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.session.reader import SessionReader

    t = _session(_project(tmp_path))
    r = SessionReader([t], price=False)
    r.poll()
    text = hook._fallback_card(r.snapshot(), None)
    assert "minimal card" in text and "make the API tests pass" in text
    assert "pending Edit" in text and f"{SID}.jsonl:5" in text  # the pending call, with its anchor


# -- never break the session -----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in INPUTS.glob("broken_*")))
def test_broken_input_exits_0_with_one_stderr_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    t = _session(_project(tmp_path))
    code, out, err = run(monkeypatch, capsys, _input(name, t))
    assert code == 0 and out == ""
    assert err.count("\n") == 1 and err.startswith("tracetui hook: "), err


@pytest.mark.parametrize(
    "data, says",
    [
        (
            b'{"hook_event_name": "SessionStart", "source": "resume", "transcript_path": 5}',
            "SessionStart hook input: transcript_path is not a string (a JSON number: 5)",
        ),
        (
            b'{"hook_event_name": "UserPromptSubmit", "transcript_path": ["a"]}',
            'UserPromptSubmit hook input: transcript_path is not a string (a JSON array: ["a"])',
        ),
        (b'{"hook_event_name": "UserPromptSubmit", "transcript_path": ""}', "UserPromptSubmit hook input has no transcript_path"),
        ('{"hook_event_name": "UserPromptSubmit", "prompt": "caf\u00e9"}'.encode("latin-1"), "hook input is not UTF-8 JSON"),
        (b"\xff\xfe not utf-8 at all\n", "hook input is not UTF-8 JSON"),
    ],
)
def test_bad_input_fields_are_named_exactly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data: bytes, says: str
) -> None:
    # "5" said "has no transcript_path"; non-UTF-8 bytes said "str is not valid UTF-8: surrogates not allowed"
    assert run(monkeypatch, capsys, data) == (0, "", f"tracetui hook: {says}\n")


def test_the_command_on_bad_input_exits_0_with_one_stderr_line(tmp_path: Path) -> None:
    import subprocess

    env = {**os.environ, "TRACETUI_CACHE_DIR": str(tmp_path / "cache")}
    missing = tmp_path / "gone.jsonl"
    cases = [
        (b"\xff\xfe{}", "tracetui hook: hook input is not UTF-8 JSON\n"),
        (
            b'{"hook_event_name": "SessionStart", "source": "compact", "transcript_path": 5}',
            "tracetui hook: SessionStart hook input: transcript_path is not a string (a JSON number: 5)\n",
        ),
        (
            json.dumps({"hook_event_name": "SessionStart", "source": "resume", "transcript_path": str(missing)}).encode(),
            f"tracetui hook: {missing}: no such transcript file yet, so no card\n",
        ),
    ]
    for data, err in cases:
        p = subprocess.run([sys.executable, "-m", "tracetui.cli", "hook"], input=data, env=env, capture_output=True, timeout=60)
        assert (p.returncode, p.stdout, p.stderr.decode()) == (0, b"", err)


def test_not_a_transcript_exits_0_with_one_stderr_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    t = _project(tmp_path) / f"{SID}.jsonl"
    t.write_bytes(b"\x00\x01 not a transcript\n")
    code, out, err = run(monkeypatch, capsys, _input("session_start_resume.json", t))
    assert (code, out) == (0, "") and err.count("\n") == 1 and "not a transcript" in err
    # the message names the file; the exception's class is no news to the user
    assert err.startswith(f"tracetui hook: {t}: not a transcript"), err


def test_internal_error_exits_0_with_one_stderr_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    t = _session(_project(tmp_path))

    def boom(*a: Any, **k: Any) -> Any:
        raise RuntimeError("something deep\nwith a second line")

    monkeypatch.setattr(hook, "_fold", boom)
    code, out, err = run(monkeypatch, capsys, _input("session_start_resume.json", t))
    assert (code, out) == (0, "") and err == "tracetui hook: RuntimeError: something deep\n"


@pytest.mark.parametrize("args", [["--gate", "bogus"], ["--max-chars", "many"], ["--from-the-future"], ["stray-word"]])
def test_bad_arguments_do_not_block_the_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    t = _session(_project(tmp_path), extra=[compact_boundary(90000, session=SID)])
    code, out, err = run(monkeypatch, capsys, _input("user_prompt_submit.json", t), *args)
    assert code == 0  # exit 2 would block the user's prompt
    assert err.count("\n") == 1 and err.startswith("tracetui hook: ")
    if args == ["--from-the-future"]:  # an unknown flag is ignored, the hook still works
        assert_card(out)
    else:
        assert out == ""


def test_large_cold_session_is_folded_in_the_background(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    t = _session(_project(tmp_path))
    started: list[Path] = []

    def warm(path: Path) -> bool:  # stands in for the detached child: fold and save here
        from tracetui.session.store import open_cached

        started.append(path)
        r = open_cached([path], price=False)
        r.poll()
        r.save_cache()
        return True

    monkeypatch.setattr(hook, "COLD_BACKGROUND_BYTES", 1)
    monkeypatch.setattr(hook, "_warm_in_background", warm)
    code, out, err = run(monkeypatch, capsys, _input("session_start_resume.json", t))
    assert (code, out) == (0, "") and started == [t]
    assert err.count("\n") == 1 and "building it in the background" in err
    # the next call finds the cache warm and answers
    code, out, err = run(monkeypatch, capsys, _input("session_start_resume.json", t))
    assert code == 0 and err == ""
    assert_card(out)


def test_cache_makes_the_second_call_warm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from tracetui.session.store import open_cached

    t = _session(_project(tmp_path))
    code, out1, _ = run(monkeypatch, capsys, _input("session_start_resume.json", t))
    assert open_cached([t]).cache_status == "warm"
    code, out2, _ = run(monkeypatch, capsys, _input("session_start_resume.json", t))
    code, out3, _ = run(monkeypatch, capsys, _input("session_start_resume.json", t), "--no-cache")
    assert out1 == out2 == out3


# -- settings.json ---------------------------------------------------------------------------

EXISTING = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/bin/log-prompt", "timeout": 5}]}],
    },
}


def _ours(settings: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(ev, g) for ev, gs in settings.get("hooks", {}).items() for g in gs if any(hook_install._is_ours(h) for h in g["hooks"])]


def test_merge_keeps_every_other_hook_and_is_idempotent() -> None:
    before = json.loads(json.dumps(EXISTING))
    once = merge_settings(before, hook.EVENTS, "tracetui hook")
    assert before == EXISTING  # the input is not mutated
    assert once["model"] == "opus" and once["permissions"] == EXISTING["permissions"]
    for ev, groups in EXISTING["hooks"].items():
        assert once["hooks"][ev][: len(groups)] == groups  # others kept, in place
    ours = _ours(once)
    assert [ev for ev, _ in ours] == ["SessionStart", "UserPromptSubmit", "SessionEnd"]
    assert ours[0][1]["matcher"] == "compact|resume|clear" and "matcher" not in ours[1][1]
    assert ours[2][1]["matcher"] == "clear"  # tells the SessionStart clear call which session ended
    assert ours[0][1]["hooks"] == [{"type": "command", "command": "tracetui hook", "timeout": hook.HOOK_TIMEOUT}]
    assert merge_settings(once, hook.EVENTS, "tracetui hook") == once
    assert remove_from_settings(once) == EXISTING


def test_merge_replaces_an_older_entry_of_ours_instead_of_adding_one() -> None:
    s = json.loads(json.dumps(EXISTING))
    s["hooks"]["UserPromptSubmit"][0]["hooks"].append({"type": "command", "command": "/opt/venv/bin/tracetui hook --always", "timeout": 3})
    out = merge_settings(s, ("UserPromptSubmit",), "tracetui hook")
    cmds = [h["command"] for g in out["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert cmds == ["~/bin/log-prompt", "tracetui hook"]
    assert "SessionStart" in out["hooks"] and not any(g for ev, g in _ours(out) if ev == "SessionStart")


def test_commands_that_merely_mention_tracetui_are_not_ours() -> None:
    for cmd in ["tracetui hook install --user", "echo tracetui-hooker", "mytracetui hook", "tracetui state"]:
        assert not hook_install._is_ours({"type": "command", "command": cmd}), cmd
    for cmd in ["tracetui hook", "/usr/local/bin/tracetui hook --always", "python -m tracetui.cli hook", '"/x y/tracetui" hook']:
        assert hook_install._is_ours({"type": "command", "command": cmd}), cmd


def test_install_shared_writes_backup_and_second_install_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sp = tmp_path / "proj" / ".claude" / "settings.json"
    sp.parent.mkdir(parents=True)
    original = json.dumps(EXISTING, indent=4)
    sp.write_text(original)
    assert main(["hook", "install", "--shared", "--dir", str(tmp_path / "proj")]) == 0
    out = capsys.readouterr().out
    assert "installed" in out and "backup" in out
    (bak,) = sp.parent.glob("settings.json.bak-*")
    assert bak.read_text() == original
    first = sp.read_text()
    assert len(_ours(json.loads(first))) == 3  # SessionStart, UserPromptSubmit, SessionEnd
    assert main(["hook", "install", "--shared", "--dir", str(tmp_path / "proj")]) == 0
    assert "unchanged" in capsys.readouterr().out
    assert sp.read_text() == first and len(list(sp.parent.glob("settings.json.bak-*"))) == 1
    assert main(["hook", "uninstall", "--shared", "--dir", str(tmp_path / "proj")]) == 0
    assert json.loads(sp.read_text()) == EXISTING
    capsys.readouterr()
    # a second uninstall finds nothing of ours, and says so (not "already as wanted")
    assert main(["hook", "uninstall", "--shared", "--dir", str(tmp_path / "proj")]) == 0
    assert capsys.readouterr().out == f"{sp}: no tracetui hook entries to remove; unchanged\n"


def test_uninstall_with_no_settings_file_says_there_is_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # trial 13: "no tracetui hook entries to remove" of a file that does not exist
    sp = tmp_path / ".claude" / "settings.local.json"
    for dry in ([], ["--dry-run"]):
        assert main(["hook", "uninstall", "--dir", str(tmp_path), *dry]) == 0
        out = capsys.readouterr().out
        assert f"{sp}: no such file, so no tracetui hook entries to remove" in out, out
    assert not sp.exists() and not sp.parent.exists()


def test_install_dry_run_prints_the_change_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sp = tmp_path / ".claude" / "settings.json"
    assert main(["hook", "install", "--dir", str(tmp_path), "--dry-run", "--events", "UserPromptSubmit"]) == 0
    out = capsys.readouterr().out
    assert not sp.exists()
    assert '+      "UserPromptSubmit": [' in out or '+    "UserPromptSubmit": [' in out
    assert "SessionStart" not in out and "nothing written" in out


def test_install_in_a_project_defaults_to_its_local_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the shared settings.json is committed, and the entry names this machine's path
    shared = tmp_path / ".claude" / "settings.json"
    shared.parent.mkdir()
    shared.write_text('{"permissions": {"allow": []}}\n')
    assert main(["hook", "install", "--dir", str(tmp_path)]) == 0
    local = tmp_path / ".claude" / "settings.local.json"
    assert f"in {local}" in capsys.readouterr().out
    assert len(_ours(json.loads(local.read_text()))) == 3  # SessionStart, UserPromptSubmit, SessionEnd
    assert shared.read_text() == '{"permissions": {"allow": []}}\n'
    # an older install's entries in the shared file would run twice: said
    assert main(["hook", "install", "--shared", "--dir", str(tmp_path)]) == 0
    assert "settings.local.json has tracetui hook entries too" in capsys.readouterr().err
    assert main(["hook", "install", "--dir", str(tmp_path)]) == 0
    assert f"{shared} has tracetui hook entries too; 'tracetui hook uninstall --shared' removes them" in capsys.readouterr().err


def _mode(p: Path) -> int:
    import stat

    return stat.S_IMODE(p.stat().st_mode)


def test_install_keeps_the_mode_of_a_private_settings_file_and_its_backup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a 0600 settings.json (and its backup) became 0644
    sp = tmp_path / ".claude" / "settings.local.json"
    sp.parent.mkdir()
    sp.write_text(json.dumps(EXISTING, indent=2) + "\n")
    os.chmod(sp, 0o600)
    old = os.umask(0o022)
    try:
        assert main(["hook", "install", "--dir", str(tmp_path)]) == 0
    finally:
        os.umask(old)
    (bak,) = sp.parent.glob("settings.local.json.bak-*")
    assert _mode(sp) == 0o600 and _mode(bak) == 0o600
    assert main(["hook", "uninstall", "--dir", str(tmp_path)]) == 0
    assert _mode(sp) == 0o600 and all(_mode(b) == 0o600 for b in sp.parent.glob("settings.local.json.bak-*"))


def test_install_creates_a_new_settings_file_0600(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # trial 13: `hook install --user` made ~/.claude/settings.json 0644, where the README says
    # every file tracetui creates is 0600 (a settings file can hold credentials in its env)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    old = os.umask(0o022)
    try:
        assert main(["hook", "install", "--user"]) == 0
        assert main(["hook", "install", "--dir", str(tmp_path), "--events", "SessionStart"]) == 0
    finally:
        os.umask(old)
    assert _mode(tmp_path / "cfg" / "settings.json") == 0o600
    assert _mode(tmp_path / ".claude" / "settings.local.json") == 0o600


def test_install_writes_through_a_symlinked_settings_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a symlinked settings.json (dotfiles) was replaced by a plain file
    monkey_cfg = tmp_path / "cfg"
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(json.dumps(EXISTING, indent=2) + "\n")
    os.chmod(dotfiles, 0o640)
    monkey_cfg.mkdir()
    link = monkey_cfg / "settings.json"
    link.symlink_to(dotfiles)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(monkey_cfg))
    assert main(["hook", "install", "--user"]) == 0
    out = capsys.readouterr().out
    assert link.is_symlink() and os.readlink(link) == str(dotfiles)
    assert f"(a symlink: written to {dotfiles})" in out
    assert len(_ours(json.loads(dotfiles.read_text()))) == 3 and _mode(dotfiles) == 0o640
    assert not list(dotfiles.parent.glob("*.bak-*"))  # the backup is beside the link, not in the dotfiles
    (bak,) = monkey_cfg.glob("settings.json.bak-*")
    assert json.loads(bak.read_text()) == EXISTING and not bak.is_symlink()
    # a link to nothing is refused, saying why
    dotfiles.unlink()
    assert main(["hook", "install", "--user"]) == 1
    err = capsys.readouterr().err
    assert err == f"tracetui: {link}: a symlink to {dotfiles}, which does not exist; not touching it\n"
    assert link.is_symlink() and not dotfiles.exists()
    # a link to a folder too
    link.unlink()
    link.symlink_to(tmp_path)
    assert main(["hook", "install", "--user"]) == 1
    assert "which is not a file; not touching it" in capsys.readouterr().err


@pytest.mark.parametrize("indent", [4, "\t", None])
def test_install_keeps_the_files_formatting_and_the_dry_run_shows_the_real_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], indent: int | str | None
) -> None:
    # the dry run diffed a reformatted copy, hiding that the whole file was rewritten
    sp = tmp_path / ".claude" / "settings.local.json"
    sp.parent.mkdir()
    original = json.dumps(EXISTING, indent=indent, ensure_ascii=False) + ("\n" if indent is not None else "")
    sp.write_text(original)
    assert main(["hook", "install", "--dir", str(tmp_path), "--dry-run"]) == 0
    diff = capsys.readouterr().out
    assert sp.read_text() == original
    assert main(["hook", "install", "--dir", str(tmp_path)]) == 0
    after = sp.read_text()
    capsys.readouterr()
    # the diff is the one of the bytes written against the bytes that were on disk
    import difflib

    want = difflib.unified_diff(original.splitlines(True), after.splitlines(True), f"{sp} (now)", f"{sp} (after)")
    body = [ln for ln in diff.splitlines(True) if not ln.startswith(("dry run", "\\"))]
    assert [ln.rstrip("\n") for ln in body] == [ln.rstrip("\n") for ln in want]
    lines = [ln for ln in body if not ln.startswith(("---", "+++", "@@"))]
    removed = [ln for ln in lines if ln.startswith("-")]
    kept = [ln for ln in original.splitlines() if ln.strip()]
    if indent is not None:
        # only the lines the change needs are removed: the user's own lines stay as written
        assert len(removed) <= 3, removed
        assert all(k in after.splitlines() for k in kept if "UserPromptSubmit" not in k and k.strip() not in ("}", "]", "},", "],"))
    else:
        assert "\n" not in after.strip()  # a one-line file stays on one line
    assert after.endswith("\n") == original.endswith("\n")


def test_install_and_uninstall_change_only_the_lines_they_must(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sp = tmp_path / ".claude" / "settings.local.json"
    sp.parent.mkdir()
    # the user's own layout: a compact hook line, a comment-free but hand-aligned object
    original = '{\n    "model":   "opus",\n    "hooks": {\n        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\n    },\n    "env": {"A": "b"}\n}\n'
    sp.write_text(original)
    assert main(["hook", "install", "--dir", str(tmp_path)]) == 0
    after = sp.read_text()
    for line in (
        '    "model":   "opus",',
        '        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],',
        '    "env": {"A": "b"}',
    ):
        assert line in after.splitlines(), line
    assert len(_ours(json.loads(after))) == 3
    assert main(["hook", "uninstall", "--dir", str(tmp_path)]) == 0
    assert sp.read_text() == original  # byte for byte what it was
    capsys.readouterr()


def test_install_keeps_crlf_line_ends(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sp = tmp_path / ".claude" / "settings.local.json"
    sp.parent.mkdir()
    original = json.dumps(EXISTING, indent=2).replace("\n", "\r\n").encode() + b"\r\n"
    sp.write_bytes(original)
    assert main(["hook", "install", "--dir", str(tmp_path)]) == 0
    after = sp.read_bytes()
    assert after.count(b"\n") == after.count(b"\r\n") and len(_ours(json.loads(after))) == 3
    assert main(["hook", "uninstall", "--dir", str(tmp_path)]) == 0
    assert sp.read_bytes() == original
    capsys.readouterr()


def test_install_user_honours_claude_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert main(["hook", "install", "--user"]) == 0
    s = json.loads((tmp_path / "cfg" / "settings.json").read_text())
    assert [ev for ev, _ in _ours(s)] == ["SessionStart", "UserPromptSubmit", "SessionEnd"]
    assert not list((tmp_path / "cfg").glob("*.bak-*"))  # nothing to back up: there was no file
    assert main(["hook", "install", "--user", "--events", "UserPromptSubmit"]) == 0  # still the file install created
    backups = list((tmp_path / "cfg").glob("*.bak-*"))
    capsys.readouterr()
    assert main(["hook", "uninstall", "--user"]) == 0
    # the file install created, left with nothing, is removed, not kept as {} (a fresh-user
    # trial), and needs no backup: it held only what install wrote
    assert not (tmp_path / "cfg" / "settings.json").exists() and list((tmp_path / "cfg").glob("*.bak-*")) == backups
    assert "is removed" in capsys.readouterr().out
    # a file of the user's is never removed, not even one left with nothing: their {} stays
    for theirs in ("{}\n", "{\n}\n"):
        (tmp_path / "cfg" / "settings.json").write_text(theirs)
        assert main(["hook", "install", "--user"]) == 0 and main(["hook", "uninstall", "--user"]) == 0
        assert json.loads((tmp_path / "cfg" / "settings.json").read_text()) == {}


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": {"x": 1}}}'])
def test_install_refuses_a_settings_file_it_does_not_understand(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str) -> None:
    sp = tmp_path / ".claude" / "settings.local.json"
    sp.parent.mkdir(parents=True)
    sp.write_text(content)
    assert main(["hook", "install", "--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not touching it" in err
    assert sp.read_text() == content


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"\xff\xfe{\x00}\x00", "not UTF-8 text (byte 0: invalid start byte); not touching it"),  # UTF-16, as some editors write it
        (b'{"model": "caf\xe9"}', "not UTF-8 text (byte 14: invalid continuation byte); not touching it"),  # Latin-1
        (b'{"a": 1, "a": 2}', 'the key "a" appears twice in one object; not touching it'),
        (
            b'{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "first"}]}]},'
            b' "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "second"}]}]}}',
            'the key "hooks" appears twice in one object; not touching it',
        ),
    ],
)
@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_a_settings_file_not_utf8_or_with_a_key_twice_is_left_alone_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, why: str, action: str
) -> None:
    """A rewrite would garble the text or drop one member of the two (which one Claude Code
    reads is its parser's choice): the file is refused as it is, in one line (trial 8: a
    traceback, and the first ``hooks`` member dropped without a word)."""
    sp = tmp_path / ".claude" / "settings.local.json"
    sp.parent.mkdir(parents=True)
    sp.write_bytes(content)
    assert main(["hook", action, "--dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"tracetui: {sp}: {why}\n"
    assert sp.read_bytes() == content and not list(sp.parent.glob("*.bak-*"))


def test_install_rejects_unknown_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hook", "install", "--dir", str(tmp_path), "--events", "Stop"]) == 1
    assert "unknown event Stop" in capsys.readouterr().err
    assert not (tmp_path / ".claude").exists()


# -- the installed command -----------------------------------------------------------------


def _commands(settings: dict[str, Any]) -> list[str]:
    return [h["command"] for _, g in _ours(settings) for h in g["hooks"] if hook_install._is_ours(h)]


def test_default_command_is_the_running_tracetui_quoted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # "tracetui hook" broke when tracetui was only on a virtualenv's PATH
    script = tmp_path / "my venv" / "bin" / "tracetui"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(script), "hook", "install"])
    assert hook_install.default_command() == f"'{script}' hook"
    # python -m tracetui.cli with no script beside the python nor on PATH: the python itself
    py = tmp_path / "other env" / "bin" / "python3"
    py.parent.mkdir(parents=True)
    py.write_text("")
    monkeypatch.setattr(sys, "argv", ["-m", "hook", "install"])
    monkeypatch.setattr(sys, "executable", str(py))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert hook_install.default_command() == f"'{py}' -m tracetui.cli hook"
    # a script beside that python is the one installed with it
    (py.parent / "tracetui").write_text("#!/bin/sh\n")
    assert hook_install.default_command() == f"'{py.parent / 'tracetui'}' hook"
    for cmd in (f"'{script}' hook", f"'{py}' -m tracetui.cli hook"):
        assert hook_install._is_ours({"type": "command", "command": cmd}), cmd


def test_install_replaces_either_form_of_ours_and_never_duplicates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "venv" / "bin" / "tracetui"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(script)])
    sp = tmp_path / "proj" / ".claude" / "settings.local.json"
    sp.parent.mkdir(parents=True)
    old = {
        "hooks": {
            "SessionStart": [
                {"matcher": "compact|resume|clear", "hooks": [{"type": "command", "command": "tracetui hook", "timeout": 30}]}
            ],
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "~/bin/log-prompt"}]},
                {"hooks": [{"type": "command", "command": "/usr/bin/python3 -m tracetui.cli hook", "timeout": 30}]},
            ],
        }
    }
    sp.write_text(json.dumps(old))
    proj = ["--dir", str(tmp_path / "proj")]
    assert main(["hook", "install", *proj]) == 0
    assert f"(command: {script} hook)" in capsys.readouterr().out
    s = json.loads(sp.read_text())
    assert _commands(s) == [f"{script} hook"] * 3  # one per event, the old ones gone
    assert [h["command"] for g in s["hooks"]["UserPromptSubmit"] for h in g["hooks"]] == ["~/bin/log-prompt", f"{script} hook"]
    first = sp.read_text()
    assert main(["hook", "install", *proj]) == 0 and sp.read_text() == first  # kept as is
    # --command overrides, and replaces the absolute form in turn
    assert main(["hook", "install", *proj, "--command", "tracetui hook --always"]) == 0
    assert _commands(json.loads(sp.read_text())) == ["tracetui hook --always"] * 3
    assert main(["hook", "install", *proj]) == 0
    assert _commands(json.loads(sp.read_text())) == [f"{script} hook"] * 3


def test_installed_command_runs_without_tracetui_on_path(tmp_path: Path) -> None:
    import shlex
    import subprocess

    env = {**os.environ, "PATH": str(tmp_path / "nothing-here"), "TRACETUI_CACHE_DIR": str(tmp_path / "cache")}
    p = subprocess.run(
        [sys.executable, "-m", "tracetui.cli", "hook", "install", "--dir", str(tmp_path)], env=env, capture_output=True, timeout=60
    )
    assert p.returncode == 0, p.stderr
    (cmd,) = set(_commands(json.loads((tmp_path / ".claude" / "settings.local.json").read_text())))
    assert os.path.isabs(shlex.split(cmd)[0]) and cmd.endswith(" hook")
    t = _session(_project(tmp_path), extra=[compact_boundary(90000, session=SID)])
    # as Claude Code runs it: through the shell, with a PATH that has no tracetui
    run = subprocess.run(["/bin/sh", "-c", cmd], input=_input("session_start_compact.json", t), env=env, capture_output=True, timeout=60)
    assert run.returncode == 0 and run.stderr == b"", run.stderr
    assert_card(run.stdout.decode())


def test_install_into_a_folder_that_does_not_exist_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a typo in --dir made a stray folder with a settings file in it
    missing = tmp_path / "no" / "such"
    assert main(["hook", "install", "--dir", str(missing)]) == 1
    assert capsys.readouterr().err == f"tracetui: {missing}: no such project folder\n"
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("value", ["0", "-3", "x"])
def test_hook_max_chars_below_the_minimum_is_one_line_and_exit_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    # --max-chars 0 gave the whole output; a wrong value is reported (the session goes on)
    t = _project(tmp_path) / f"{SID}.jsonl"
    code, out, err = run(monkeypatch, capsys, _input("session_start_resume.json", t), "--max-chars", value)
    assert (code, out) == (0, "") and err.count("\n") == 1 and "--max-chars" in err


def test_hook_max_chars_above_the_most_is_refused_in_a_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # trial 13: --max-chars 50000 was taken without a word, though the help says 9500 is the most
    from tracetui.hook.protocol import MAX_CHARS

    t = _project(tmp_path) / f"{SID}.jsonl"
    code, out, err = run(monkeypatch, capsys, _input("session_start_resume.json", t), "--max-chars", "50000")
    assert (code, out) == (0, "") and err.count("\n") == 1
    assert f"--max-chars: must be at most {MAX_CHARS} (" in err and err.rstrip().endswith(": 50000"), err
    code, out, err = run(monkeypatch, capsys, _input("session_start_resume.json", t), "--max-chars", str(MAX_CHARS))
    assert code == 0 and "must be at most" not in err


def test_a_warm_call_saves_only_a_gap_worth_saving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a warm resume, a small gap is folded again by the next call rather than saved
    (a save of a large session's state costs seconds Claude Code waits for); a gap of at least
    SAVE_GAP_BYTES is saved, and so is a cold fold."""
    from tracetui.session.store import open_cached

    t = _session(_project(tmp_path))
    data = _input("session_start_resume.json", t)

    def saved_offset() -> int:
        r = open_cached([t], subagents=True, price=False)
        return sum(tl.offset for tl in r.tailers) if r.cache_status == "warm" else -1

    assert hook.run_hook(data, always=True)
    first = saved_offset()
    assert first == t.stat().st_size  # the cold fold was saved
    append(t, jsonl([prompt("one more turn")]))
    assert hook.run_hook(data, always=True)
    assert saved_offset() == first  # a few bytes: not saved, folded again next time
    monkeypatch.setattr(hook, "SAVE_GAP_BYTES", 1)
    assert hook.run_hook(data, always=True)
    assert saved_offset() == t.stat().st_size
