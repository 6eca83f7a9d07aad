"""A Codex CLI rollout is named as one, by the headless commands and by the monitor.

Before the fix the monitor showed an empty IDLE screen with an info badge, and ``tracetui
state`` said only "not a transcript (N JSON object(s), none a Claude Code record)". The rollout
here is written by the test (shapes from shared/docs/codex-format.md; nothing copied).
"""

from __future__ import annotations

import json
from pathlib import Path

from tui_support import app_for, wait_until

from tracetui.cli import main

SAYS = "an OpenAI Codex CLI rollout; tracetui reads Claude Code transcripts only (Codex support is coming)"


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


def test_state_says_the_file_is_a_codex_rollout(tmp_path: Path, capsys) -> None:
    p = _rollout(tmp_path / "rollout-2026-03-02T09-00-00-0199aaaa.jsonl")
    for cmd in ("state", "view", "card"):
        assert main([cmd, "--no-cache", str(p)]) == 1
        assert capsys.readouterr().err == f"tracetui: {p}: {SAYS}\n"


async def test_the_monitor_says_the_file_is_a_codex_rollout(tmp_path: Path) -> None:
    p = _rollout(tmp_path / "rollout.jsonl")
    app = app_for([p], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.current_view is not None and app.current_view.notice_text, 300, 0.02)
        view = app.current_view
        assert view.notice_text == f"rollout.jsonl: {SAYS}"
        assert view.query_one(".notice").display
        assert SAYS in str(view.query_one(".notice").content)
