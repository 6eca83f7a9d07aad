"""Text from transcripts never carries terminal control sequences to the terminal."""

import json
import subprocess
import sys

from tracetui.views.safe import safe_text

EVIL = "a\x1b]0;PWNED\x07b\x1b[31mred\x9bc\x7f\tend /tmp/\u202eexe.txt \u2067iso\u2069"
#: the bidirectional overrides and isolates a terminal would reorder text by (fourth user trial)
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c"


def test_safe_text_replaces_every_control_but_newline_and_tab() -> None:
    out = safe_text(EVIL + "\nnext")
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out and "\x7f" not in out
    assert "␛]0;PWNED␇b" in out
    assert "\tend /tmp/" in out and "next" in out
    assert len(out) == len(EVIL + "\nnext")  # one character for one: budgets stay exact
    assert not any(c in out for c in BIDI)


def test_right_to_left_text_and_emoji_joiners_are_kept() -> None:
    text = "\u05e9\u05dc\u05d5\u05dd \u200f mark \U0001f468\u200d\U0001f469"
    assert safe_text(text) == text


def _transcript(tmp_path):
    recs = [
        {
            "type": "user",
            "uuid": "u1",
            "timestamp": "2026-01-01T00:00:00Z",
            "sessionId": "s",
            "message": {"role": "user", "content": "fix it " + EVIL},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "timestamp": "2026-01-01T00:00:01Z",
            "sessionId": "s",
            "message": {
                "id": "m1",
                "model": "claude-sonnet-4-5",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "echo " + EVIL}}],
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "timestamp": "2026-01-01T00:00:02Z",
            "sessionId": "s",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True, "content": "Exit code 1\n" + EVIL}],
            },
        },
    ]
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return p


def test_headless_commands_print_no_control_characters(tmp_path) -> None:
    p = _transcript(tmp_path)
    for cmd in (["state"], ["state", "--json"], ["view"], ["card"]):
        out = subprocess.run([sys.executable, "-m", "tracetui.cli", *cmd, "--no-cache", str(p)], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert "PWNED" in out.stdout or cmd[0] == "state"
        bad = [c for c in out.stdout if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 or c in BIDI]
        assert bad == [], f"{cmd}: raw control characters {bad!r}"
