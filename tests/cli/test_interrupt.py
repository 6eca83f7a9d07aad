"""Ctrl-C during a headless command: one line on stderr, exit status 130, never a traceback.

Before the fix each of these printed a ``KeyboardInterrupt`` traceback (``state --follow``
exited 0 when the interrupt came inside its loop, with a traceback when it came earlier). A
real SIGINT is sent to a ``state --follow`` subprocess once it printed its first state; for the
one-shot commands the interrupt is raised by SIGINT at a known point of their work (the fold),
in a subprocess, so the test does not depend on how fast the machine is.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tui_support import small_session

#: seconds before a command that should have ended counts as hung
HUNG = 60

#: runs tracetui.cli.main(argv) with SIGINT delivered to the process when the fold starts
_INTERRUPT_IN_FOLD = """
import os, signal, sys
import tracetui.session.reader as reader
real = reader.SessionReader.poll
def poll(self, *a, **k):
    os.kill(os.getpid(), signal.SIGINT)
    return real(self, *a, **k)
reader.SessionReader.poll = poll
from tracetui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _sigint_default() -> None:
    """In the child: SIGINT as a terminal delivers it. A shell that starts the suite in the
    background leaves SIGINT ignored, and Python keeps an inherited SIG_IGN."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, CLAUDE_CONFIG_DIR=str(tmp_path / "claude"), XDG_CACHE_HOME=str(tmp_path / "cache"))


def test_ctrl_c_ends_state_follow_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tracetui.cli", "state", str(path), "--follow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
        preexec_fn=_sigint_default,
    )
    try:
        assert proc.stdout.readline().startswith("{")  # following now
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=HUNG)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert err == "tracetui: interrupted\n"


@pytest.mark.parametrize("cmd", [["state"], ["state", "--json"], ["view"], ["card"], ["state", "--follow"]])
def test_ctrl_c_during_the_fold_is_one_line(tmp_path: Path, cmd: list[str]) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    res = subprocess.run(
        [sys.executable, "-c", _INTERRUPT_IN_FOLD, *cmd, "--no-cache" if "--follow" not in cmd else "--no-subagents", str(path)],
        capture_output=True,
        text=True,
        timeout=HUNG,
        env=_env(tmp_path),
        preexec_fn=_sigint_default,
    )
    assert res.returncode == 130, res.stderr
    assert res.stderr == "tracetui: interrupted\n"


def test_ctrl_c_during_hook_install_is_one_line(tmp_path: Path) -> None:
    code = """
import os, signal, sys
import tracetui.hook.install as install
real = install.read_settings
def read_settings(*a, **k):
    os.kill(os.getpid(), signal.SIGINT)
    return real(*a, **k)
install.read_settings = read_settings
from tracetui.cli import main
sys.exit(main(sys.argv[1:]))
"""
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True)
    (proj / ".claude" / "settings.json").write_text("{}\n")
    res = subprocess.run(
        [sys.executable, "-c", code, "hook", "install"],
        capture_output=True,
        text=True,
        timeout=HUNG,
        env=_env(tmp_path),
        cwd=proj,
        preexec_fn=_sigint_default,
    )
    assert res.returncode == 130, res.stderr
    assert res.stderr == "tracetui: interrupted\n"
