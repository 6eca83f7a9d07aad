"""The fleet counts the stall the model's detector finds at ``now`` (the one the monitor and the
views list), not one more whenever the fleet's *stalled* state holds: ``tracetui sessions
--json`` and the fleet's row cells agree with :func:`~tracetui.model.anomalies.detect_anomalies`."""

from __future__ import annotations

import json
import time
from pathlib import Path

import fleet_support as fs
import pytest
from stall_support import SID, write_thrash_stalled

from tracetui.cli import main
from tracetui.model.anomalies import detect_anomalies
from tracetui.views.fleet import FleetRules
from tracetui.views.fleet_facts import session_facts
from tracetui.views.fleet_table import fleet_rows, row_cells, row_json


def _model_counts(state, now: float) -> dict[str, int]:
    """Open anomalies by severity as the model finds them at ``now`` (what the monitor lists)."""
    out = {"error": 0, "warn": 0, "info": 0}
    for a in detect_anomalies(state, now, state.episodes or None):
        if a.open:
            out[a.severity] += 1
    return out


def test_sessions_json_counts_what_the_model_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # the user trial's session (2 edit thrashes and the stall open, 1 cleared), and a failing
    # session whose Read call has been open for ten minutes: its state is "failing", and its
    # stall was not counted, though the monitor and the view list it
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    now = time.time()
    thrash = write_thrash_stalled(tmp_path / "claude", now, 1800)
    failing = fs.failing(start=fs.iso(now - 600 - 4))
    fs.write(failing, tmp_path / "claude", "-home-dev-failing", failing.session_id)
    assert main(["sessions", "--json", "--no-cache"]) == 0
    rows = {r["session_id"]: r for r in json.loads(capsys.readouterr().out)["sessions"]}
    assert rows[SID]["state"] == "stalled"
    assert rows[SID]["anomalies"] == {"error": 0, "warn": 3, "info": 0} == _model_counts(fs.state_of(thrash), now)
    r = rows[failing.session_id]
    assert r["state"] == "failing"
    path = next((tmp_path / "claude" / "projects" / "-home-dev-failing").glob("*.jsonl"))
    want = _model_counts(fs.state_of(path), now)
    assert want["warn"] == 1  # the stall
    assert r["anomalies"] == want


@pytest.mark.parametrize(
    ("quiet", "rules", "state", "cell"),
    [
        # the fleet's stall threshold set above the detector's: not "stalled", yet the stall is open
        (600, FleetRules(stall_after=900), "waiting on you", "3W"),
        # two days quiet with "ended" set later: stalled, and the detector's stall is info (ended)
        (2 * 86_400, FleetRules(ended_after=3 * 86_400), "stalled", "2W 1I"),
        # under five minutes: no stall anywhere
        (120, FleetRules(), "waiting on you", "2W"),
    ],
)
def test_fleet_row_counts_the_stall_by_the_models_rule(tmp_path: Path, quiet: float, rules: FleetRules, state: str, cell: str) -> None:
    now = 1_800_000_000.0
    p = write_thrash_stalled(tmp_path, now, quiet)
    st = fs.state_of(p)
    (row,) = fleet_rows([(session_facts(st, str(p)), p.stat().st_mtime)], now, rules)
    assert row.status.state == state
    assert row_cells(row, now)["anomalies"] == cell
    assert row_json(row, now)["anomalies"] == _model_counts(st, now)
