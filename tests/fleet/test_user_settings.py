"""The settings file (session/user_settings.py): read, applied under the options, and a bad
entry is one line that names the file and the key, the rest still applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracetui.session.user_settings import load_user_settings
from tracetui.tui.main import build_settings


def _file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    p = tmp_path / "settings.toml"
    p.write_text(text, encoding="utf-8")
    monkeypatch.setenv("TRACETUI_CONFIG", str(p))
    return p


def test_missing_file_is_no_error(tmp_path: Path) -> None:
    us = load_user_settings(tmp_path / "none.toml")
    assert us.warnings == [] and us.bell is None and us.budget_usd is None and us.fleet == {}


def test_a_settings_file_named_by_the_variable_and_missing_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_CONFIG", str(tmp_path / "typo.toml"))
    us = load_user_settings()
    assert us.warnings == [f"settings file {tmp_path / 'typo.toml'} ($TRACETUI_CONFIG): no such file; using the defaults"]


@pytest.mark.parametrize("what", ["fifo", "device", "folder", "huge"])
def test_a_settings_file_that_is_no_regular_file_or_too_big_is_one_line(tmp_path: Path, what: str) -> None:
    """Fifth user trial: $TRACETUI_CONFIG=/dev/zero filled the memory, a FIFO hung the open."""
    import os

    p = {"fifo": tmp_path / "fifo", "device": Path("/dev/zero"), "folder": tmp_path, "huge": tmp_path / "big.toml"}[what]
    if what == "fifo":
        os.mkfifo(p)
    elif what == "huge":
        p.write_text("# " + "x" * (2 << 20) + "\nbell = true\n")
    us = load_user_settings(p)
    assert len(us.warnings) == 1 and str(p) in us.warnings[0] and us.warnings[0].endswith("using the defaults")
    assert us.bell is None


def test_values_reach_the_monitor_and_options_win(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _file(tmp_path, monkeypatch, "bell = false\nbudget_usd = 5\nbudget_usd_day = 40.5\n[fleet]\nstall_after = 600\n")
    s = build_settings(["--demo"])
    assert (s.bell, s.budget_usd, s.budget_usd_day, s.fleet_rules.stall_after) == (False, 5.0, 40.5, 600.0)
    assert s.fleet_rules.quiet_after == 15.0 and s.warnings == []
    s = build_settings(["--demo", "--budget-usd", "2", "--budget-usd-day", "9"])
    assert (s.budget_usd, s.budget_usd_day) == (2.0, 9.0)


def test_bad_entries_are_left_out_with_one_line_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _file(tmp_path, monkeypatch, 'bell = "no"\nbudget_usd = -3\ncolour = 1\nbudget_usd_day = 7\n[fleet]\nnap = 3\nidle_after = 0\n')
    us = load_user_settings()
    assert us.budget_usd_day == 7.0 and us.bell is None and us.budget_usd is None and us.fleet == {}
    assert len(us.warnings) == 5
    assert all(w.startswith(f"settings file {p}: ") and "\n" not in w for w in us.warnings)
    assert any("'colour'" in w for w in us.warnings) and any("[fleet] has no key 'nap'" in w for w in us.warnings)
    assert build_settings(["--demo"]).warnings == us.warnings


@pytest.mark.parametrize(
    ("fleet", "left_out"),
    [
        ("idle_after = 3600\nended_after = 600\n", "idle_after and ended_after"),
        ("ended_after = 600\n", "ended_after"),  # below the default idle_after (1800 s)
        ("idle_after = 20000\n", "idle_after"),  # above the default ended_after (10800 s)
    ],
)
def test_ended_after_below_idle_after_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fleet: str, left_out: str) -> None:
    """Trial 11: ``ended_after < idle_after`` was taken silently (no session could be idle)."""
    p = _file(tmp_path, monkeypatch, "[fleet]\nstall_after = 600\n" + fleet)
    us = load_user_settings()
    assert len(us.warnings) == 1 and us.warnings[0].startswith(f"settings file {p}: [fleet] ended_after (")
    assert us.warnings[0].endswith(f"; {left_out} left out") and "\n" not in us.warnings[0]
    assert us.fleet == {"stall_after": 600.0}  # the rest of the file still applies
    rules = build_settings(["--demo"]).fleet_rules
    assert rules.idle_after <= rules.ended_after


def test_the_settings_line_of_a_big_file_has_separators(tmp_path: Path) -> None:
    p = tmp_path / "big.toml"
    p.write_text("# " + "x" * 5_003_399 + "\n")
    assert load_user_settings(p).warnings == [f"settings file {p}: 5,003,402 bytes, more than 1,048,576; using the defaults"]


def test_a_file_that_is_not_toml_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _file(tmp_path, monkeypatch, "bell = \n[[[")
    us = load_user_settings()
    assert len(us.warnings) == 1 and us.warnings[0].startswith(f"settings file {p}: not TOML")
    assert us.bell is None


def test_sessions_command_takes_the_budgets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.sessions import sessions_data

    _file(tmp_path, monkeypatch, "budget_usd_day = 12.5\n")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    _, fleet = sessions_data(24.0, 1_800_000_000.0)
    assert "12.5" in repr(fleet)
