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


def test_the_traces_path_goes_before_the_query() -> None:
    # found by the third tester: `--endpoint http://h:1?token=…` became `http://h:1?token=…/v1/traces`
    from tracetui.export.otlp import shown_url, traces_endpoint

    assert traces_endpoint("http://127.0.0.1:4318") == "http://127.0.0.1:4318/v1/traces"
    assert traces_endpoint("http://127.0.0.1:4318/") == "http://127.0.0.1:4318/v1/traces"
    assert traces_endpoint("https://otel.example/v1/traces") == "https://otel.example/v1/traces"
    assert traces_endpoint("https://otel.example/base/?token=abc") == "https://otel.example/base/v1/traces?token=abc"
    url = traces_endpoint(f"http://admin:S3cr3tPassw0rd@127.0.0.1:1?token={TOKEN}")
    assert url == f"http://admin:S3cr3tPassw0rd@127.0.0.1:1/v1/traces?token={TOKEN}"
    shown = shown_url(url)
    assert "S3cr3tPassw0rd" not in shown and TOKEN not in shown
