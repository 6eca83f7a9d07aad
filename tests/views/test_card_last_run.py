"""The card's "last run" line gives the last test run's own figures: a count the last run's
summary does not give is not taken from an older run (second user trial: a passing go run was
shown with "failed_tests 1" of an earlier failing one)."""

from __future__ import annotations

from tracetui.demo.transcript import TranscriptBuilder
from tracetui.model.session_fold import fold_bytes
from tracetui.views.card import render_card


def _card(*outputs: str) -> str:
    b = TranscriptBuilder()
    b.prompt("make the tests pass")
    for out in outputs:
        b.tool("Bash", {"command": "go test ./..."}, out)
    return render_card(fold_bytes(b.data()), now=0)


def _last_run_line(card: str) -> str:
    return next(line for line in card.splitlines() if "last run:" in line)


def test_a_count_only_an_older_run_gave_is_left_out() -> None:
    failing = "--- FAIL: TestParse (0.00s)\nFAIL\tgithub.com/x/app/parser\t0.01s\nok  \tgithub.com/x/app/cli\t0.02s"
    passing = "ok  \tgithub.com/x/app/parser\t0.01s"
    line = _last_run_line(_card(failing, passing))
    assert "go last run: failed 0, passed 1" in line, line
    assert "failed_tests" not in line
    assert "(2 runs seen)" in line


def test_a_failing_last_run_keeps_its_own_counts() -> None:
    failing = "--- FAIL: TestParse (0.00s)\nFAIL\tgithub.com/x/app/parser\t0.01s"
    line = _last_run_line(_card("ok  \tgithub.com/x/app/parser\t0.01s", failing))
    assert "failed 1, failed_tests 1, passed 0" in line, line
