"""A session whose usage records the fold rejects (every token count a string: trial 12) has no
priced message, and ``tracetui report`` left it out without a word: its total read complete
($3.17, ``unpriced.sessions`` 0). It is listed with its cost unknown, counted among the
unpriced sessions, and the total says what it knows and what it does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_folder import two_prompt_session

from tracetui.cli import main

PRICED = "0aaa0000-0000-4000-8000-000000000001"
REJECTED = "0ccc0000-0000-4000-8000-000000000003"


def _strings(path: Path, new_ids: bool = True) -> None:
    """Every usage count of ``path``'s records written as a string, the message ids changed (a
    copy whose messages are not another session's), the session id too."""
    lines = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        msg = rec.get("message")
        if isinstance(msg, dict) and isinstance(msg.get("usage"), dict):
            msg["usage"] = {k: str(v) if isinstance(v, int) else v for k, v in msg["usage"].items()}
            if new_ids and msg.get("id"):
                msg["id"] = "rej_" + msg["id"]
            rec.pop("requestId", None)
        lines.append(json.dumps(rec).replace(PRICED, REJECTED))
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``-work-zeta/PRICED.jsonl`` and ``-work-rej/REJECTED.jsonl``, a copy of it whose every
    usage count is a string (2 API messages, 2026-03-02). Returns the projects folder."""
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    root = claude / "projects"
    orig = two_prompt_session(root / "-work-zeta", PRICED)
    rej = root / "-work-rej" / f"{REJECTED}.jsonl"
    rej.parent.mkdir(parents=True)
    rej.write_bytes(orig.read_bytes())
    _strings(rej)
    return root


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["report", *argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)


def test_the_session_is_listed_with_its_cost_unknown(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rep = _json(capsys, "session")
    rows = {r["key"]: r for r in rep["rows"]}
    assert set(rows) == {PRICED, REJECTED}
    priced, rej = rows[PRICED], rows[REJECTED]
    assert rej["sessions"] == 1 and rej["messages"] == 0 and rej["project"] == "-work-rej"
    assert rej["cost_usd"] is None and rej["cost_note"] == "usage of 2 records rejected, none left to price"
    assert rej["unpriced"] == {"sessions": 1, "messages": 0, "models": [], "rejected_records": 2}
    total = rep["total"]
    assert total["sessions"] == 2 and total["cost_usd"] is None  # not shown as complete
    assert total["known_usd"] == priced["cost_usd"] > 0 and total["unpriced"]["sessions"] == 1
    assert main(["report", "session"]) == 0
    text = capsys.readouterr().out
    (line,) = [ln for ln in text.splitlines() if ln.startswith(REJECTED)]
    assert line.endswith(" unknown")
    (total_line,) = [ln for ln in text.splitlines() if ln.startswith("total")]
    assert total_line.endswith("+ unknown (1 session unpriced)")
    assert "unknown: the usage of 2 records in 1 session was rejected" in text


@pytest.mark.parametrize("kind", ["daily", "weekly", "monthly", "project"])
def test_its_group_and_the_total_are_unknown_in_every_report(root: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    rep = _json(capsys, kind)
    total = rep["total"]
    assert total["cost_usd"] is None and total["unpriced"]["sessions"] == 1 and total["sessions"] == 2
    assert sum(r["sessions"] for r in rep["rows"]) == 2
    if kind == "project":
        rows = {r["key"]: r for r in rep["rows"]}
        assert rows["-work-rej"]["cost_usd"] is None and rows["-work-zeta"]["cost_usd"] is not None
    else:  # one day, week, month: the priced part known, the session unpriced
        (row,) = rep["rows"]
        assert row["cost_usd"] is None and row["known_usd"] == total["known_usd"] > 0 and row["unpriced"]["sessions"] == 1


def test_its_day_is_in_scope_or_not(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _json(capsys, "session", "--since", "2026-03-03")["rows"] == []
    rep = _json(capsys, "session", "--until", "2026-03-02")
    assert {r["key"] for r in rep["rows"]} == {PRICED, REJECTED}


def test_a_grown_file_adds_its_rejected_records(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rej = root / "-work-rej" / f"{REJECTED}.jsonl"
    assert _json(capsys, "session")["total"]["unpriced"]["rejected_records"] == 2
    lines = rej.read_text().splitlines()
    extra = [json.loads(ln) for ln in lines if '"usage"' in ln][-1]
    extra["message"]["id"] += "_more"
    extra["uuid"] = "0ddd0000-0000-4000-8000-00000000000d"
    with rej.open("a") as f:
        f.write(json.dumps(extra) + "\n")
    rep = _json(capsys, "session")
    assert {r["key"]: r for r in rep["rows"]}[REJECTED]["unpriced"]["rejected_records"] == 3
    assert rep["total"]["unpriced"]["rejected_records"] == 3


def test_a_session_with_some_usage_rejected_shows_its_known_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # its figure is a lower bound (`state` says "usage of 1 record rejected, not priced"): the
    # report gives the known part and counts the session unpriced
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    path = two_prompt_session(claude / "projects" / "-work-zeta", PRICED)
    lines = path.read_text().splitlines()
    last = max(i for i, ln in enumerate(lines) if '"usage"' in ln)
    rec = json.loads(lines[last])
    rec["message"]["usage"]["output_tokens"] = "12"
    lines[last] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    (row,) = _json(capsys, "session")["rows"]
    assert row["messages"] == 1 and row["cost_usd"] is None and row["known_usd"] > 0
    assert row["cost_note"] == "usage of 1 record rejected, not priced" and row["unpriced"]["sessions"] == 1
    assert main(["report", "session"]) == 0
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(PRICED)]
    assert line.endswith("+ unknown (1 session unpriced)")
