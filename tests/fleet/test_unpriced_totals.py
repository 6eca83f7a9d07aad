"""A model without a known price in a total: the fleet's "today" and ``report``'s totals say
the known part and how many sessions are unpriced, never ``$0.00`` for the unknown and never
a bare ``unknown`` that hides what is known (README: an unknown price is "unknown")."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tracetui.cli import main
from tracetui.demo.codex_records import RolloutBuilder
from tracetui.demo.transcript import TranscriptBuilder
from tracetui.sessions import sessions_data
from tracetui.views.fleet_table import row_cells
from tracetui.views.fleet_totals import fleet_summary
from tracetui.views.format import fmt_usd_known

NOW = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC).timestamp()
PRICED = "5e5e5e5e-0000-4000-8000-000000000005"
UNPRICED = "019e7777-7777-7000-8000-000000000007"
UNPRICED_MODEL = "gpt-9-no-such-price"


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    b = TranscriptBuilder(PRICED, cwd="/work/priced", start="2026-12-01T11:50:00.000Z")
    b.prompt("price me")
    b.text("done", output=20_000)
    b.write(tmp_path / "claude" / "projects" / "-work-priced" / f"{PRICED}.jsonl")
    r = RolloutBuilder(UNPRICED, start="2026-12-01T11:51:00.000Z", model=UNPRICED_MODEL, cwd="/work/unpriced")
    r.turn("no price for me")
    r.tokens(1_000, 0, 50)
    r.write(tmp_path / "codex" / "sessions" / "2026" / "12" / "01" / f"rollout-2026-12-01T11-51-00-{UNPRICED}.jsonl")
    return tmp_path


def test_known_part_and_unknown_in_words() -> None:
    assert fmt_usd_known(56.69, 0) == "$56.69"
    assert fmt_usd_known(56.69, 1) == "$56.69 + unknown (1 session unpriced)"
    assert fmt_usd_known(0.0, 2) == "unknown (2 sessions unpriced)"


def test_fleet_today_says_what_it_knows_and_what_not(homes: Path) -> None:
    rows, fleet = sessions_data(None, NOW, use_cache=False)
    by = {r.facts.session_id: r for r in rows}
    assert set(by) == {PRICED, UNPRICED}
    priced = by[PRICED].facts.cost_usd
    assert priced is not None and priced > 0 and by[UNPRICED].facts.cost_usd is None
    assert fleet["today_usd"] is None  # not a figure: part of today has no price
    assert fleet["today_known_usd"] == pytest.approx(priced)
    assert fleet["today_unpriced"] == {"sessions": 1, "session_ids": [UNPRICED]}
    line = fleet_summary(rows, NOW)
    assert f"today ${priced:.2f} + unknown (1 session unpriced)" in line
    assert "today $0.00" not in line
    # the burn rates likewise: the priced session's rate, and the other one said unknown
    assert fleet["burn"]["5m"] == {"tokens_per_hour": 0, "usd_per_hour": 0, "known_usd_per_hour": 0, "unpriced_sessions": 0}
    for i, w in ((1, "15m"), (2, "60m")):  # both sessions wrote 9 and 10 minutes before NOW
        burn = fleet["burn"][w]
        assert burn["usd_per_hour"] is None and burn["unpriced_sessions"] == 1
        assert burn["known_usd_per_hour"] == pytest.approx(by[PRICED].rates[i].usd_per_hour) and burn["known_usd_per_hour"] > 0
    known = by[PRICED].rates[1].usd_per_hour
    assert f"15m ${known:.2f}/h + unknown (1 session unpriced)" in line


def test_fleet_today_without_unpriced_sessions_is_a_figure(homes: Path) -> None:
    next((homes / "codex").rglob("*.jsonl")).unlink()
    rows, fleet = sessions_data(None, NOW, use_cache=False)
    (row,) = rows
    assert fleet["today_usd"] == fleet["today_known_usd"] == pytest.approx(row.facts.cost_usd)
    assert fleet["today_unpriced"] == {"sessions": 0, "session_ids": []}
    assert fleet["burn"]["60m"]["usd_per_hour"] == fleet["burn"]["60m"]["known_usd_per_hour"] == pytest.approx(row.rates[2].usd_per_hour)
    assert fleet["burn"]["60m"]["unpriced_sessions"] == 0 and fleet["burn"]["60m"]["usd_per_hour"] > 0
    assert "unknown" not in fleet_summary(rows, NOW)


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    rc = main(["report", *argv])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


@pytest.mark.parametrize("kind", ["daily", "project", "session"])
def test_report_total_keeps_the_known_part(homes: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    sessions = {r["key"]: r for r in json.loads(_report(capsys, "session", "--json"))["rows"]}
    priced = sessions[PRICED]["cost_usd"]
    assert priced is not None and priced > 0 and sessions[PRICED]["known_usd"] == priced
    assert sessions[PRICED]["unpriced"] == {"sessions": 0, "messages": 0, "models": [], "rejected_records": 0}
    assert sessions[UNPRICED]["cost_usd"] is None and sessions[UNPRICED]["known_usd"] == 0
    obj = json.loads(_report(capsys, kind, "--json"))
    total = obj["total"]
    assert total["cost_usd"] is None
    assert total["known_usd"] == pytest.approx(priced)
    assert total["unpriced"] == {"sessions": 1, "messages": 1, "models": [UNPRICED_MODEL], "rejected_records": 0}
    text = _report(capsys, kind)
    (line,) = [ln for ln in text.splitlines() if ln.startswith("total")]
    assert line.endswith(f"${priced:.2f} + unknown (1 session unpriced)")
    if kind == "daily":  # the day's row is a total of two sessions too
        (day,) = obj["rows"]
        assert day["known_usd"] == pytest.approx(priced) and day["unpriced"]["sessions"] == 1
    if kind == "session":
        (row,) = [ln for ln in text.splitlines() if ln.startswith(UNPRICED)]
        assert row.endswith(" unknown")  # a session of its own priced at nothing known


def test_report_total_all_priced_is_a_figure(homes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    next((homes / "codex").rglob("*.jsonl")).unlink()
    obj = json.loads(_report(capsys, "daily", "--json"))
    total = obj["total"]
    assert total["cost_usd"] is not None and total["known_usd"] == total["cost_usd"]
    assert total["unpriced"] == {"sessions": 0, "messages": 0, "models": [], "rejected_records": 0}


MIXED = "6a6a6a6a-0000-4000-8000-000000000006"


def test_one_unpriced_model_among_priced_ones_says_the_known_part_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # trial 13: `state` said "cost unknown (no price known for …)" where `report` gave
    # "$0.01 + unknown (…)" and the fleet "?": one rule now, the known part and why the rest is not
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    b = TranscriptBuilder(MIXED, cwd="/work/mixed", start="2026-12-01T11:50:00.000Z")
    b.prompt("price part of me")
    b.text("priced", output=20_000)
    b.model = "claude-imaginary-9"
    b.text("not priced", output=20_000)
    path = b.write(tmp_path / "claude" / "projects" / "-work-mixed" / f"{MIXED}.jsonl")
    (row,) = json.loads(_report(capsys, "session", "--json"))["rows"]
    known = row["known_usd"]
    assert row["cost_usd"] is None and known > 0
    assert main(["state", str(path)]) == 0
    (cost,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("cost ")]
    assert f"${known:.2f} + unknown (no price known for claude-imaginary-9)" in cost, cost
    assert main(["state", str(path), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["cost_usd"] is None and obj["cost_known_usd"] == pytest.approx(known)
    assert main(["view", str(path)]) == 0
    assert f"cost ${known:.2f} + unknown (no price known for claude-imaginary-9)" in capsys.readouterr().out
    rows, _fleet = sessions_data(None, NOW, use_cache=False)
    (fleet_row,) = rows
    assert row_cells(fleet_row, NOW)["cost"] == f"${known:.2f}+?"
