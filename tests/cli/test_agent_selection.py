"""Which session a command and the monitor open when both agents have sessions: the newest of
either, a Codex thread id (prefix) like a session id, ``--agent`` narrowing, ``--all`` listing both.

The assertions are on which files are chosen and on one-line errors, never on a Codex fold's
figures. Rollouts are written by the tests (tests/codex_home.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from codex_home import day, rollout
from tui_support import FROZEN_NOW, small_session

from tracetui.args import AGENT_CHOICES
from tracetui.cli import main
from tracetui.ingest.agents import AGENTS
from tracetui.session.open import resolve_paths
from tracetui.tui.main import build_settings

THREAD = "0199aaaa-0000-7000-8000-000000000001"
CHILD = "0199bbbb-0000-7000-8000-000000000002"
ARCHIVED = "0199cccc-0000-7000-8000-000000000003"
SID = "22222222-0000-4000-8000-000000000002"


@pytest.fixture
def both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A Claude Code session (an hour old) and a newer Codex rollout with a child, and an
    archived rollout (two hours old)."""
    home, claude = tmp_path / "codex", tmp_path / "claude"
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    cl = claude / "projects" / "-home-dev-web" / f"{SID}.jsonl"
    small_session(cl)
    os.utime(cl, (FROZEN_NOW - 3600, FROZEN_NOW - 3600))
    cx = rollout(day(home, "2026-03-02") / f"rollout-2026-03-02T09-00-00-{THREAD}.jsonl", THREAD, mtime=FROZEN_NOW - 60)
    rollout(day(home, "2026-03-02") / f"rollout-2026-03-02T09-10-00-{CHILD}.jsonl", CHILD, parent=THREAD, mtime=FROZEN_NOW - 30)
    old = rollout(home / "archived_sessions" / f"rollout-2026-01-01T08-00-00-{ARCHIVED}.jsonl", ARCHIVED, mtime=FROZEN_NOW - 7200)
    return {"claude": cl, "codex": cx, "archived": old}


def test_agent_choices_are_the_agents() -> None:
    assert AGENT_CHOICES == AGENTS


def test_commands_open_the_newest_session_of_either_agent(both: dict[str, Path]) -> None:
    assert resolve_paths([]) == [both["codex"]]
    assert resolve_paths([], agent="claude") == [both["claude"]]
    assert resolve_paths(["0199aa"]) == [both["codex"]]
    assert resolve_paths(["0199cc"]) == [both["archived"]]
    assert resolve_paths(["2222"], agent="claude") == [both["claude"]]


def test_agent_claude_folds_the_claude_session(both: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["state", "--agent", "claude", "--no-cache"]) == 0
    assert "Fix the parser" in capsys.readouterr().out
    assert main(["state", "--agent", "claude", "--no-cache", "--json"]) == 0
    assert f"{SID}.jsonl" in capsys.readouterr().out


@pytest.mark.parametrize("cmd", ["state", "view", "card"])
def test_agent_narrows_the_id_lookup(cmd: str, both: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([cmd, "--no-cache", "--agent", "codex", "2222"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tracetui: no session matches '2222' under ") and err.count("\n") == 1
    assert str(both["codex"].parents[4]) in err and "projects" not in err


@pytest.mark.parametrize("cmd", ["state", "view", "card"])
def test_a_named_file_of_the_other_agent_is_one_line(cmd: str, both: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([cmd, "--no-cache", "--agent", "claude", str(both["codex"])]) == 1
    assert capsys.readouterr().err == f"tracetui: {both['codex']}: a Codex CLI rollout, not a Claude Code transcript (--agent claude)\n"
    assert main([cmd, "--no-cache", "--agent", "codex", str(both["claude"])]) == 1
    assert capsys.readouterr().err == (
        f"tracetui: {both['claude']}: not a Codex CLI rollout (its first record is no session_meta) (--agent codex)\n"
    )


def test_a_bad_agent_is_one_line(both: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["state", "--agent", "gemini"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--agent: invalid choice: 'gemini'" in err and err.count("\n") == 1


def test_a_file_of_neither_agent_is_still_not_a_transcript(
    tmp_path: Path, both: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "notes.jsonl"
    junk.write_text('{"hello": "world"}\n')
    assert main(["state", "--no-cache", str(junk)]) == 1
    assert capsys.readouterr().err == f"tracetui: {junk}: not a transcript (1 JSON object, none a Claude Code record)\n"


def test_the_monitor_opens_the_newest_of_either_agent(both: dict[str, Path]) -> None:
    s = build_settings([])
    assert [(sp.paths[0], sp.label) for sp in s.sessions] == [(both["codex"], THREAD[:8])]
    s = build_settings(["--agent", "claude"])
    assert [sp.paths[0] for sp in s.sessions] == [both["claude"]]
    # a rollout named by its path is labelled by its thread id, not "rollout-"
    s = build_settings([str(both["codex"]), "2222"])
    assert [(sp.paths[0], sp.label) for sp in s.sessions] == [(both["codex"], THREAD[:8]), (both["claude"], SID[:8])]
    assert build_settings(["--agent", "codex"]).agent == "codex"


def test_all_lists_both_agents_and_agent_narrows_it(both: dict[str, Path]) -> None:
    s = build_settings(["--all", "--hours", "3"], now=FROZEN_NOW)
    assert [sp.paths[0] for sp in s.sessions] == [both["codex"], both["claude"], both["archived"]]
    s = build_settings(["--all", "--hours", "1.5", "--agent", "codex"], now=FROZEN_NOW)
    assert [sp.paths[0] for sp in s.sessions] == [both["codex"]]
    s = build_settings(["--all", "--agent", "claude"], now=FROZEN_NOW)
    assert [sp.paths[0] for sp in s.sessions] == [both["claude"]]


def test_no_session_of_the_agent_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "nocodex"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "noclaude"))
    assert main(["state", "--agent", "codex"]) == 1
    assert capsys.readouterr().err == f"tracetui: no sessions under {tmp_path / 'nocodex'}; name a transcript file\n"
    s = build_settings([])
    assert s.demo and str(tmp_path / "nocodex") in s.demo_reason and str(tmp_path / "noclaude" / "projects") in s.demo_reason


def test_state_names_the_agent_of_a_codex_session(both: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["state", "--no-cache"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"session  {THREAD}  (Codex CLI, {both['codex'].name}, 1 subagent file)"
    assert main(["state", "--agent", "claude", "--no-cache"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(f"  ({SID}.jsonl, 0 subagent files)")  # Claude Code's line as it was


@pytest.mark.parametrize(
    "data",
    [b"", bytes(range(256)) * 4, b"\x00\x01\x02\n{}\n", b"not json at all\n", b"[1, 2, 3]\n", b"\n\n"],
    ids=["empty", "binary", "nul-bytes", "text", "json-array", "blank-lines"],
)
def test_a_stray_newest_file_is_no_session_when_none_is_named(
    data: bytes, both: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    stray = both["claude"].with_name("bin.jsonl")
    stray.write_bytes(data)
    os.utime(stray, (FROZEN_NOW, FROZEN_NOW))  # newer than every real session
    assert resolve_paths([]) == [both["codex"]]
    assert resolve_paths([], agent="claude") == [both["claude"]]
    assert [sp.paths[0] for sp in build_settings([]).sessions] == [both["codex"]]
    assert stray not in [sp.paths[0] for sp in build_settings(["--all", "--hours", "3"], now=FROZEN_NOW).sessions]
    assert main(["state", "--agent", "claude", "--no-cache"]) == 0
    assert "Fix the parser" in capsys.readouterr().out
    # named, it keeps its one-line error
    assert main(["state", "--no-cache", str(stray)]) == 1
    err = capsys.readouterr().err
    assert str(stray) in err and err.count("\n") == 1


@pytest.mark.parametrize("agent", ["claude", "codex", None])
def test_sessions_agent_keeps_one_agents_sessions(
    agent: str | None, both: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    (tmp_path / "no-settings.toml").write_text("")  # an empty settings file: no note on stderr
    assert main(["sessions", "--all", "--json", "--no-cache", *(["--agent", agent] if agent else [])]) == 0
    out = capsys.readouterr()
    got = {(s["agent"], s["key"]) for s in json.loads(out.out)["sessions"]}
    want = {("claude", str(both["claude"])), ("codex", str(both["codex"])), ("codex", str(both["archived"]))}
    assert got == {w for w in want if agent in (None, w[0])}, out.err


def test_export_all_takes_the_agent_too(both: dict[str, Path]) -> None:
    import argparse

    from tracetui.export.command import _targets

    assert _targets(argparse.Namespace(all=True, paths=[], agent="claude")) == [both["claude"]]
    assert set(_targets(argparse.Namespace(all=True, paths=[], agent="codex"))) == {both["codex"], both["archived"]}
    assert _targets(argparse.Namespace(all=False, paths=[THREAD[:8]], agent="codex")) == [both["codex"]]


def test_sessions_help_wraps_and_names_both_homes(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    for argv in (["sessions", "--help"], ["export", "otlp", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        out = capsys.readouterr().out
        assert max(len(line) for line in out.splitlines()) <= 80, argv
        assert "every session under the projects folder" not in out
        assert "$CODEX_HOME" in " ".join(out.split()) and "--agent" in out
