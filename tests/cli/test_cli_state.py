"""``tracetui state``: plain, ``--json``, ``--no-subagents``, ``--follow`` and one-line errors."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fixtures import assistant, line, prompt, text_block, tool_call, tool_result, usage, write

from tracetui.cli import SUBCOMMANDS, _build_parser, main

COUNTER_KEYS = {
    "records",
    "malformed",
    "unknown_records",
    "tool_calls",
    "tool_errors",
    "api_messages",
    "user_prompts",
    "interrupts",
    "compactions",
}


def _transcript(tmp_path: Path) -> Path:
    sid = "cli-sess"
    main_p = write(
        tmp_path / f"{sid}.jsonl",
        [
            prompt("build the thing", session=sid),
            tool_call("t1", "Read", {"file_path": "/src/a.py"}, session=sid),
            tool_result("t1", "code", session=sid),
            tool_call("t2", "Bash", {"command": "make"}, session=sid),
            tool_result("t2", "failed", is_error=True, session=sid),
            tool_call("t3", "Agent", {"description": "helper", "prompt": "help"}, session=sid),
            tool_call("t4", "Edit", {"file_path": "/src/a.py", "old_string": "a", "new_string": "b"}, session=sid),
        ],
    )
    write(
        tmp_path / sid / "subagents" / "agent-asub.jsonl",
        [
            prompt("help", sidechain=True, agentId="asub", session=sid),
            assistant([text_block("ok")], msg_id="msub", u=usage(3, 4), sidechain=True, agentId="asub", session=sid),
        ],
    )
    return main_p


def test_json_has_the_keys_named_in_the_issue(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _transcript(tmp_path)
    assert main(["state", str(p), "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert COUNTER_KEYS <= set(js["counters"])
    c = js["counters"]
    assert c["records"] == 9 and c["tool_calls"] == 4 and c["tool_errors"] == 1
    # the session's human prompts are the main thread's; the subagent's own transcript counts
    # its first prompt (the Task input) in its per-agent breakdown only
    assert c["user_prompts"] == 1 and js["agents"][0]["counters"]["user_prompts"] == 1
    assert [a["counters"]["user_prompts"] for a in js["agents"]] == [1, 1]
    assert js["tool_calls_by_name"] == {"Agent": 1, "Bash": 1, "Edit": 1, "Read": 1}
    assert set(js["tokens"]) == {"input", "output", "cache_creation", "cache_read"}
    assert js["tokens"]["input"] == 4 + 3  # four tool calls of 1 input token, the subagent's 3
    assert "cost_usd" in js and (js["cost_usd"] is None or isinstance(js["cost_usd"], float))
    pend = {p["id"]: p for p in js["pending_calls"]}
    assert set(pend) == {"t3", "t4"}
    assert {"id", "name", "anchor"} <= set(pend["t4"]) and pend["t4"]["name"] == "Edit"
    assert pend["t4"]["anchor"]["line"] == 7
    (f,) = js["files"]
    assert {"path", "reads", "writes", "edits"} <= set(f) and (f["path"], f["reads"], f["edits"]) == ("/src/a.py", 1, 1)
    assert js["models"] == ["claude-sonnet-4-5-20250929"]
    assert js["goal"]["text"] == "build the thing" and js["goal"]["anchor"]["line"] == 1
    assert js["latest_ask"]["text"] == "build the thing"
    srcs = js["sources"]
    assert len(srcs) == 2
    for s in srcs:
        assert {"path", "bytes_consumed", "resume_offset", "pending_bytes", "malformed", "unknown", "truncated", "replaced"} <= set(s)
    assert srcs[0]["bytes_consumed"] == p.stat().st_size and srcs[0]["truncated"] is False


def test_no_subagents_folds_only_named_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _transcript(tmp_path)
    assert main(["state", str(p), "--json", "--no-subagents"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert len(js["sources"]) == 1 and js["counters"]["records"] == 7 and js["tokens"]["input"] == 4


def test_plain_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _transcript(tmp_path)
    assert main(["state", str(p)]) == 0
    out = capsys.readouterr().out
    assert "build the thing" in out and "4 calls" in out and "cli-sess.jsonl" in out
    assert len(out.splitlines()) < 25


def test_session_by_id_prefix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    proj = tmp_path / "cfg" / "projects" / "-x"
    write(proj / "abcdef12-0000.jsonl", [prompt("found me", session="abcdef12-0000")])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert main(["state", "abcdef", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["goal"]["text"] == "found me"
    assert main(["state", "--json"]) == 0  # newest session
    assert json.loads(capsys.readouterr().out)["goal"]["text"] == "found me"


def _run(args: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tracetui.cli", *args], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize(
    "case",
    ["missing", "empty", "not_transcript", "text_file", "directory", "unreadable", "no_session"],
)
def test_errors_are_one_line_naming_the_file(tmp_path: Path, case: str) -> None:
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(tmp_path / "nocfg"))
    p = tmp_path / f"{case}.jsonl"
    if case == "empty":
        p.write_bytes(b"")
    elif case == "not_transcript":
        p.write_bytes(b'"a string"\n[1,2]\n42\n')
    elif case == "text_file":
        p = tmp_path / "notes.jsonl"
        p.write_text("just some text\nno json here\n")
    elif case == "directory":
        p = tmp_path / "adir"
        p.mkdir()
    elif case == "unreadable":
        if os.geteuid() == 0:
            pytest.skip("running as root: permissions are not enforced")
        p.write_bytes(line(prompt("x")) + b"\n")
        p.chmod(0)
    args = ["state", "--json"] if case == "no_session" else ["state", str(p), "--json"]
    res = _run(args, env)
    assert res.returncode != 0
    assert res.stdout == ""
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in res.stderr
    if case == "no_session":
        assert "nocfg" in err
    else:
        assert p.name in err


def test_unreadable_file_as_root_still_fails_cleanly(tmp_path: Path) -> None:
    # a path that can't be opened for reading even as root: a file under a non-directory
    f = tmp_path / "plain"
    f.write_text("x")
    res = _run(["state", str(f / "child.jsonl")])
    assert res.returncode != 0 and "Traceback" not in res.stderr and "child.jsonl" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


@contextlib.contextmanager
def _follow(p: Path) -> Iterator[Callable[[int], dict]]:
    """Run ``tracetui state P --follow``; yields ``next_state(min_records)``, which returns the
    first printed state with at least that many records (a change may print in several steps)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tracetui.cli", "state", str(p), "--follow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stdout], daemon=True).start()

    def next_state(min_records: int) -> dict:
        got = json.loads(lines.get(timeout=30))
        while got["counters"]["records"] < min_records:
            got = json.loads(lines.get(timeout=30))
        return got

    next_state.proc = proc  # type: ignore[attr-defined]
    try:
        yield next_state
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_follow_prints_a_json_line_after_an_append(tmp_path: Path) -> None:
    p = write(tmp_path / "f.jsonl", [prompt("first ask")])
    with _follow(p) as next_state:
        first = next_state(0)
        assert first["latest_ask"]["text"] == "first ask" and first["counters"]["records"] == 1
        with open(p, "ab") as f:
            f.write(line(tool_call("t1", "Bash", {"command": "ls"})) + b"\n" + line(prompt("second ask")) + b"\n")
        got = next_state(3)
        assert got["latest_ask"]["text"] == "second ask"
        assert got["counters"]["tool_calls"] == 1 and got["pending_calls"][0]["id"] == "t1"


def test_follow_waits_for_a_session_that_does_not_exist_yet(tmp_path: Path) -> None:
    p = tmp_path / "new.jsonl"
    with _follow(p) as next_state:
        first = next_state(0)
        assert first["counters"]["records"] == 0
        assert "no such file" in first["sources"][0]["error"]
        write(p, [prompt("hello")])
        got = next_state(1)
        assert got["latest_ask"]["text"] == "hello" and got["sources"][0]["error"] is None
        proc = next_state.proc  # type: ignore[attr-defined]
        proc.terminate()
        proc.wait(timeout=10)
        # the wait was said on stderr, once, in one line naming the file
        assert proc.stderr.read() == f"tracetui state --follow: {p}: no such file; waiting for it (Ctrl-C to stop)\n"


def test_json_lines_that_are_no_claude_code_records_are_not_a_transcript(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "x.jsonl"
    p.write_text('{"a": 1}\n{"b": 2}\n')
    assert main(["state", "--no-cache", str(p)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("x.jsonl: not a transcript (2 JSON objects, none a Claude Code record)")
    assert len(err.splitlines()) == 1


# -- wrong options: one line naming the subcommand and its own help --------------------------


@pytest.mark.parametrize(
    ("args", "usage", "wrong"),
    [
        (["state", "--episode", "1"], "tracetui state", "--episode"),  # view/card's option
        (["state", "--max-chars", "900"], "tracetui state", "--max-chars"),
        (["view", "X", "--json"], "tracetui view", "--json"),  # state's option
        (["view", "--follow"], "tracetui view", "--follow"),
        (["card", "--json"], "tracetui card", "--json"),
        (["card", "--max-chars", "900"], "tracetui card", "--max-chars"),  # view's option
        (["hook", "install", "--bogus"], "tracetui hook install", "--bogus"),
        (["hook", "install", "stray-word"], "tracetui hook install", "stray-word"),
        (["hook", "uninstall", "--events", "Stop"], "tracetui hook uninstall", "--events"),  # install's option
        (["hook", "uninstall", "--command", "x"], "tracetui hook uninstall", "--command"),
        (["--json"], "tracetui -- --help", "--json"),  # the monitor's help, not the subcommands'
        (["--", "--episode", "1"], "tracetui -- --help", "--episode"),
    ],
)
def test_a_wrong_option_gets_the_subcommands_own_usage(args: list[str], usage: str, wrong: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2  # argparse's usage status
    out, err = capsys.readouterr()
    assert out == ""
    # one line (the project's rule for bad input), naming the command and the help that fits it
    assert err.endswith("\n") and len(err.splitlines()) == 1, err
    prog = usage if not usage.startswith("tracetui -- ") else "tracetui"
    hint = usage if usage.startswith("tracetui -- ") else f"{usage} --help"
    assert err.startswith(f"{prog}: "), err
    assert wrong in err and err.rstrip().endswith(f"(see '{hint}')"), err
    assert "{state,view,card,hook}" not in err  # not the top-level usage


@pytest.mark.parametrize(
    "args",
    [
        ["state", "--help"],
        ["view", "--help"],
        ["card", "--help"],
        ["hook", "--help"],
        ["hook", "install", "--help"],
        ["hook", "uninstall", "--help"],
    ],
)
def test_help_of_each_subcommand_is_its_own(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: tracetui {' '.join(args[:-1])} ")


def test_top_level_help_shows_both_forms(capsys: pytest.CaptureFixture[str]) -> None:
    # the monitor (no subcommand) is the main use: its usage line comes first
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tracetui [PATH|SESSION ...] [monitor options]\n       tracetui {state,view,card,hook,")
    assert "tracetui -- --help" in out


def test_help_names_every_registered_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    # the one list (cli.SUBCOMMANDS) is the registered one, and both helps print all of it
    registered = next(a for a in _build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert set(registered) == set(SUBCOMMANDS)
    assert {"export", "report", "search"} <= set(SUBCOMMANDS)
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out.splitlines()[1]
    with pytest.raises(SystemExit):
        main(["--", "--help"])
    monitor = " ".join(capsys.readouterr().out.split())
    for name in SUBCOMMANDS:
        assert name in top
    assert f"Subcommands: {', '.join(SUBCOMMANDS)}." in monitor


@pytest.mark.parametrize(("typo", "meant"), [("stat", "state"), ("veiw", "view"), ("cards", "card"), ("hooks", "hook")])
def test_a_mistyped_subcommand_is_named_not_taken_for_a_session(
    typo: str, meant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert main([typo, "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"tracetui: '{typo}' is not a subcommand, a transcript file or a session id; did you mean 'tracetui {meant}'?\n"


def test_a_session_whose_id_looks_like_a_subcommand_still_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a file named like a subcommand is a file: the monitor gets it, no hint
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "stat", [prompt("x")])
    import tracetui.cli as cli

    seen: list[list[str]] = []
    monkeypatch.setattr(cli, "_run_app", lambda argv: seen.append(argv) or 0)
    assert main(["stat"]) == 0 and seen == [["stat"]]


def test_a_session_id_prefix_near_a_subcommand_is_a_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    write(tmp_path / "cfg" / "projects" / "-w-p" / "cade0000-1111-4222-8333-444444444444.jsonl", [prompt("x")])
    import tracetui.cli as cli

    seen: list[list[str]] = []
    monkeypatch.setattr(cli, "_run_app", lambda argv: seen.append(argv) or 0)
    assert main(["cade"]) == 0 and seen == [["cade"]]  # 'cade' is close to 'card', but a session's id prefix


def test_files_of_two_sessions_are_refused_not_merged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # two sessions folded as one gave the first one's prompts and both's tokens: a wrong state
    a = write(
        tmp_path / "a.jsonl", [prompt("first task", session="sess-a"), tool_call("t1", "Read", {"file_path": "/x"}, session="sess-a")]
    )
    b = write(tmp_path / "b.jsonl", [prompt("other task", session="sess-b"), prompt("more", session="sess-b")])
    assert main(["state", "--no-cache", str(a), str(b)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"tracetui: {b}: session sess-b, not a.jsonl's session sess-a; name one session's files"), err
    # a session's own subagent file (it carries the parent's sessionId) is still welcome
    main_p = _transcript(tmp_path / "one")
    sub = tmp_path / "one" / "cli-sess" / "subagents" / "agent-asub.jsonl"
    assert main(["state", "--no-cache", "--no-subagents", str(main_p), str(sub)]) == 0


def test_plain_summary_says_how_many_tools_it_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = ["Read", "Bash", "Edit", "Grep", "Glob", "Write", "Task", "WebFetch"]
    p = write(tmp_path / "s.jsonl", [prompt("go", session="s")] + [tool_call(f"t{i}", n, {}, session="s") for i, n in enumerate(names)])
    assert main(["state", "--no-cache", str(p)]) == 0
    tools = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("tools "))
    assert tools.startswith("tools    8 calls (") and "+2 more tools)" in tools, tools


def test_a_file_named_twice_or_a_second_main_transcript_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # distinct figures (tool calls, errors) were counted twice: 30 records for a 15-record file
    main_p = _transcript(tmp_path)
    assert main(["state", "--no-cache", "--no-subagents", str(main_p), str(main_p)]) == 1
    err = capsys.readouterr().err
    assert err == f"tracetui: {main_p}: named twice (as {main_p}); its records would be counted twice\n"
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(main_p.read_bytes())  # same session id, another file
    assert main(["state", "--no-cache", "--no-subagents", str(main_p), str(copy)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"tracetui: {copy}: a main transcript, not a subagent file") and len(err.splitlines()) == 1
