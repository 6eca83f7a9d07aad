"""``tracetui view`` and ``tracetui card`` judge the stall at the commands' clock, as
``sessions`` and the monitor do, and list it: the same open count on every surface (user trial:
the view said 2 open where the fleet and the monitor counted 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from stall_support import write_thrash_stalled

import tracetui.commands
from tracetui.cli import main
from tracetui.session.reader import SessionReader
from tracetui.views.card import render_card

NOW = 1_800_000_000.0


@pytest.fixture
def stalled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session, its last record 30 minutes before the commands' frozen clock."""
    monkeypatch.setattr(tracetui.commands, "clock", lambda: NOW)
    return write_thrash_stalled(tmp_path, NOW, 1800)


def _run(capsys, *argv: str) -> str:
    assert main([*argv, "--no-cache"]) == 0
    return capsys.readouterr().out


def test_view_counts_and_lists_the_stall(stalled: Path, capsys) -> None:
    out = _run(capsys, "view", str(stalled))
    lines = out.splitlines()
    assert "ANOMALIES (3 open, 1 cleared)" in lines
    assert any(x.startswith("  WARN stall: no new record for 30m") for x in lines), out
    assert sum(1 for x in lines if x.startswith("  WARN ")) == 3
    # as of a past episode the clock is not that episode's: no stall judged against it
    past = _run(capsys, "view", str(stalled), "--episode", "1")
    assert "stall" not in past and "ANOMALIES (1 open, 0 cleared)" in past.splitlines()  # old.py then still open


def test_card_lists_the_stall_among_the_open_items(stalled: Path, capsys) -> None:
    out = _run(capsys, "card", str(stalled))
    assert "open anomaly stall: no new record for 30m" in out
    assert "also open, not task state: 2 anomalies (edit_thrash 2)" in out
    r = SessionReader([stalled])
    r.poll()
    st = r.snapshot()
    assert "stall" not in render_card(st)  # no clock given, none judged (the hook's card)
    assert "open anomaly stall:" in render_card(st, now=NOW)
