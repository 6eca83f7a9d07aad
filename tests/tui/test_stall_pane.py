"""The Anomalies pane of a stalled session: its title counts what the fleet row and the view
count, and every open anomaly it counts is a badge of its own or in its "+N more" line (user
trial: "3 open" over two badges and a cleared one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from stall_support import write_thrash_stalled
from tui_support import app_for, wait_for_state

from tracetui.tui.widgets.anomalies import AnomalyBadges
from tracetui.views.fleet_facts import session_facts
from tracetui.views.fleet_table import fleet_rows, row_json
from tracetui.views.worker import render_worker_view

NOW = 1_800_000_000.0


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 45)])
async def test_the_pane_lists_every_open_anomaly_it_counts_with_the_stall(tmp_path: Path, size: tuple[int, int]) -> None:
    path = write_thrash_stalled(tmp_path, NOW, 1800)
    app = app_for([path], tmp_path, now=NOW)
    async with app.run_test(size=size) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        st = view.state
        (row,) = fleet_rows([(session_facts(st, str(path)), path.stat().st_mtime)], NOW)
        fleet_open = sum(row_json(row, NOW)["anomalies"].values())
        assert fleet_open == 3
        assert "ANOMALIES (3 open, 1 cleared)" in render_worker_view(st, now=NOW).splitlines()
        pane = view.query_one(AnomalyBadges)
        assert pane.border_title == "Anomalies (3 open, 1 cleared)"
        badges = [str(b.content) for b in pane.query(".badge")]
        listed_open = [b for b in badges if not b.startswith(" ✓ cleared ")]
        more = [str(s.content) for s in pane.query(".anomaly-more")]
        m = re.fullmatch(r"\+(\d+) more(?: anomalies)? \((\d+) open, (\d+) cleared\)", more[0]) if more else None
        assert not more or m, more  # every size here has room for the counts
        more_open = int(m.group(2)) if m else 0
        assert len(listed_open) + more_open == 3
        if not more:
            assert any(b.startswith(" ⚠ stall no new record for 30m") for b in listed_open), badges
