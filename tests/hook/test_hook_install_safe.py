"""``tracetui hook install``/``uninstall`` print the command and paths they were given through the
one sanitiser (:func:`tracetui.views.safe.safe_text`): no raw control character reaches the
terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracetui.cli import main
from tracetui.views.safe import has_controls

HOSTILE = "x\x1b]0;T\x07 hook"


@pytest.mark.parametrize("dry_run", [True, False])
def test_install_lines_are_terminal_safe(tmp_path: Path, capsys: pytest.CaptureFixture[str], dry_run: bool) -> None:
    args = ["hook", "install", "--dir", str(tmp_path), "--command", HOSTILE] + (["--dry-run"] if dry_run else [])
    assert main(args) == 0
    out = capsys.readouterr()
    assert "(command: x␛]0;T␇ hook)" in out.out
    assert not has_controls(out.out.replace("\n", "")) and not has_controls(out.err.replace("\n", "")), out
    if not dry_run:
        # the file holds the command as given (JSON escapes it); a second dry run prints its diff
        assert main([*args, "--dry-run", "--events", "UserPromptSubmit"]) == 0
        again = capsys.readouterr().out
        assert not has_controls(again.replace("\n", "")), again
