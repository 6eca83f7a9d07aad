"""What `export otlp` prints about a session names it masked: a session id is whatever the
transcript wrote (found by the third tester: a token in a sessionId went to the terminal raw)."""

from __future__ import annotations

from tracetui.export.command import _summary

TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"


def test_the_summary_line_masks_the_session_id() -> None:
    line = _summary(f"sess-{TOKEN}", 4, 1)
    assert TOKEN not in line and "redacted" in line
    assert line.endswith(": 4 spans sent, 1 still open (sent once complete or settled)")


def test_the_summary_line_shows_controls_as_symbols() -> None:
    line = _summary("s\x1b]0;PWNED\x07", 1, 0)
    assert "\x1b" not in line and "\x07" not in line and "␛" in line
