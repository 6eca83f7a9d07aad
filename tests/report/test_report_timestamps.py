"""``report`` takes first and last only from timestamps that parse: a record whose timestamp
field holds something else (``not-a-time``, a cut-off text) is never shown as a date."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracetui.cli import main
from tracetui.demo.codex_records import RolloutBuilder
from tracetui.demo.transcript import TranscriptBuilder

SID = "33333333-0000-4000-8000-000000000003"
THREAD = "0199dddd-0000-7000-8000-000000000004"


def _restamp(data: bytes, stamps: dict[int, str]) -> bytes:
    lines = [json.loads(ln) for ln in data.splitlines()]
    for i, ts in stamps.items():
        lines[i]["timestamp"] = ts
    return b"".join(json.dumps(ln).encode() + b"\n" for ln in lines)


def test_report_first_and_last_are_timestamps_that_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    b = TranscriptBuilder(session_id=SID)
    b.prompt("Fix the parser")
    b.tick(1).text("Looking.")
    b.tick(1).text("Done.")
    data = b.data()
    good = [json.loads(ln)["timestamp"] for ln in data.splitlines()]
    path = tmp_path / "claude" / "projects" / "-home-dev-web" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(_restamp(data, {0: "[trimmed for fix", len(good) - 1: "not-a-time"}))
    r = RolloutBuilder(THREAD)
    r.turn("Add a test")
    r.tokens(1_000, 0, 10).say("Added.").done()
    rollout = r.write(tmp_path / "codex" / "sessions" / "2026" / "03" / "02" / f"rollout-2026-03-02T09-00-00-{THREAD}.jsonl")
    rdata = rollout.read_bytes()
    rgood = [json.loads(ln)["timestamp"] for ln in rdata.splitlines()]
    rollout.write_bytes(_restamp(rdata, {len(rgood) - 1: "not-a-time"}))

    assert main(["report", "session", "--json"]) == 0
    rows = {row["key"][:8]: row for row in json.loads(capsys.readouterr().out)["rows"]}
    claude, codex = rows[SID[:8]], rows[THREAD[:8]]
    assert (claude["first_timestamp"], claude["last_timestamp"]) == (good[1], good[-2])
    assert (codex["first_timestamp"], codex["last_timestamp"]) == (rgood[0], rgood[-2])
    assert main(["report", "session"]) == 0
    out = capsys.readouterr().out
    assert "not-a-time" not in out and "[trimmed" not in out
