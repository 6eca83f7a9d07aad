"""A Codex CLI rollout is folded as one (issue 11), by the headless commands and by the monitor;
a file of JSON lines that is neither agent's transcript is still refused in one line.

Before issue 11 a rollout was refused ("an OpenAI Codex CLI rollout; tracetui reads Claude Code
transcripts only"): that refusal is gone for Codex. The rollout here is written by the test
(shapes from shared/docs/codex-format.md; nothing copied).
"""

from __future__ import annotations

import json
from pathlib import Path

from tui_support import app_for, wait_until

from tracetui.cli import main


def _rollout(path: Path) -> Path:
    t = "2026-03-02T09:00:00.000Z"
    lines = [
        {
            "timestamp": t,
            "type": "session_meta",
            "payload": {
                "id": "0199aaaa-0000-7000-8000-000000000001",
                "cwd": "/home/dev/app",
                "originator": "codex_cli_rs",
                "cli_version": "0.120.0",
            },
        },
        {"timestamp": t, "type": "turn_context", "payload": {"turn_id": "t1", "cwd": "/home/dev/app", "model": "gpt-5-codex"}},
        {"timestamp": t, "type": "event_msg", "payload": {"type": "user_message", "message": "Fix the failing test"}},
        {
            "timestamp": t,
            "type": "response_item",
            "payload": {"type": "function_call", "name": "shell", "arguments": '{"command": ["pytest"]}', "call_id": "c1"},
        },
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_state_folds_a_codex_rollout(tmp_path: Path, capsys) -> None:
    p = _rollout(tmp_path / "rollout-2026-03-02T09-00-00-0199aaaa.jsonl")
    assert main(["state", "--no-cache", "--json", str(p)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["agent"] == "codex"
    assert out["counters"]["records"] == 4 and out["counters"]["user_prompts"] == 1
    assert out["goal"]["text"] == "Fix the failing test"
    assert [c["name"] for c in out["pending_calls"]] == ["shell"]
    for cmd in ("view", "card"):
        assert main([cmd, "--no-cache", str(p)]) == 0
        assert "Fix the failing test" in capsys.readouterr().out


def test_other_json_lines_are_still_refused(tmp_path: Path, capsys) -> None:
    p = tmp_path / "other.jsonl"
    p.write_text('{"timestamp": "2026-03-02T09:00:00.000Z", "type": "session_meta", "payload": "x"}\n{"kind": 1}\n')
    assert main(["state", "--no-cache", str(p)]) == 1
    assert capsys.readouterr().err == f"tracetui: {p}: not a transcript (2 JSON objects, none a Claude Code record)\n"


async def test_the_monitor_shows_a_codex_rollout(tmp_path: Path) -> None:
    p = _rollout(tmp_path / "rollout.jsonl")
    app = app_for([p], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.state is not None, 300, 0.02)
        view = app.current_view
        assert view.state.agent == "codex"
        assert view.state.counters.user_prompts == 1
        assert "not a transcript" not in view.notice_text and "rollout;" not in view.notice_text


def test_a_rollout_without_a_thread_id_is_named_and_not_folded(tmp_path: Path, capsys) -> None:
    p = tmp_path / "broken.jsonl"
    t = "2026-03-02T09:00:00.000Z"
    p.write_text(
        json.dumps({"timestamp": t, "type": "session_meta", "payload": {"cwd": "/x"}})
        + "\n"
        + json.dumps({"timestamp": t, "type": "event_msg", "payload": {"type": "user_message", "message": "hi"}})
        + "\n"
    )
    assert main(["state", "--no-cache", str(p)]) == 1
    err = capsys.readouterr().err
    assert (
        err
        == f"tracetui: {p}: an OpenAI Codex CLI rollout without a thread id in its first line (a session_meta payload with an id); not folded\n"
    )
