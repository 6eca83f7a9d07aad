"""The hook is Claude Code's: a Codex CLI session (its rollout) is refused in one line, exit 0,
nothing printed, and the hook's help says it is for Claude Code only."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from codex_home import rollout

from tracetui.cli import main

THREAD = "0199aaaa-0000-7000-8000-000000000001"


@pytest.mark.parametrize("event", [("SessionStart", "compact"), ("SessionStart", "resume"), ("UserPromptSubmit", None)])
def test_a_codex_rollout_is_refused_in_one_line(
    event: tuple[str, str | None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    p = rollout(tmp_path / "rollout-2026-03-02T09-00-00.jsonl", THREAD)
    name, source = event
    data = {"session_id": THREAD, "transcript_path": str(p), "cwd": "/home/dev/app", "hook_event_name": name}
    if source:
        data["source"] = source
    else:
        data["prompt"] = "go on"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(data).encode())))
    code = main(["hook", "--always"])
    out, err = capsys.readouterr()
    assert (code, out) == (0, "")
    assert (
        err
        == f"tracetui hook: {p}: a Codex CLI rollout; the hook is for Claude Code sessions only (use 'tracetui card' for a Codex session)\n"
    )


def test_the_help_says_claude_code_only(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["hook", "--help"])
    assert "a Codex CLI session (its rollout) is refused" in " ".join(capsys.readouterr().out.split())
