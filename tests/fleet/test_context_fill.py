"""The context fill the fleet and ``tracetui sessions --json`` give: ``fill`` stays in ``0..1``
whatever the counts say, and the counts it comes from are kept beside it as counted."""

from __future__ import annotations

import json
import time
from pathlib import Path

import fleet_support as fs
import pytest

from tracetui.cli import main
from tracetui.views.fleet_facts import context_fill
from tracetui.views.fleet_table import fleet_rows, row_cells, row_json


def test_the_share_is_clamped_and_none_without_a_window() -> None:
    assert context_fill(50_000, 200_000) == 0.25
    assert context_fill(1_500_000, 1_000_000) == 1.0
    assert context_fill(-40, 200_000) == 0.0
    assert context_fill(10, 0) is None


def _facts(tmp_path: Path, used: int, window: int):
    b = fs.working(sid="7777aaaa-0000-4000-8000-000000000007")
    p = fs.write(b, tmp_path, "-home-dev-p", b.session_id)
    from tracetui.views.fleet_facts import session_facts

    facts = session_facts(fs.state_of(p), str(p), "p")
    import msgspec

    return msgspec.structs.replace(facts, context_used=used, context_window=window)


@pytest.mark.parametrize(("used", "cell", "fill"), [(1_250_000, "100%", 1.0), (-5_000, "0%", 0.0), (58_000, "29%", 0.29)])
def test_row_cell_and_json_stay_in_range_and_keep_the_counts(tmp_path: Path, used: int, cell: str, fill: float) -> None:
    facts = _facts(tmp_path, used, 200_000 if used < 1_000_000 else 1_000_000)
    (row,) = fleet_rows([(facts, facts.last_record)], (facts.last_record or 0) + 5)
    assert row_cells(row, 0)["context"] == cell
    ctx = row_json(row, 0)["context"]
    assert ctx["fill"] == fill
    assert ctx["used"] == used and ctx["window"] == facts.context_window  # the counts as counted


def test_sessions_json_of_a_session_past_its_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # its last API call saw 1.3M tokens: more than the largest window assumed for its model (1M)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    b = fs.working(sid="8888aaaa-0000-4000-8000-000000000008", start=fs.iso(time.time() - 600))
    last = next(r for r in reversed(b.records) if r.get("type") == "assistant")
    last["message"]["usage"]["cache_read_input_tokens"] = 1_300_000
    fs.write(b, tmp_path / "claude", "-home-dev-big", b.session_id)
    assert main(["sessions", "--json", "--no-cache"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["sessions"]
    ctx = row["context"]
    assert ctx["used"] > ctx["window"] == 1_000_000
    assert ctx["fill"] == 1.0
