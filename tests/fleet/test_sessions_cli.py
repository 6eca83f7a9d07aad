"""``tracetui sessions``: the fleet's columns as a table and as JSON, from a generated projects folder."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import fleet_support as fs
import pytest

from tracetui.cli import main


@pytest.fixture
def projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """One session per state builder, their records ending 15 to 10 minutes ago (file times
    likewise); an old session 30 h ago. Returns session id -> builder name."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    now = time.time()
    ids = {}
    for i, name in enumerate(fs.ALL):
        sid = f"{i}{i}{i}{i}aaaa-0000-4000-8000-00000000000{i}"
        b = getattr(fs, name)(sid=sid, start=fs.iso(now - 900 + i * 60))
        fs.write(b, tmp_path / "claude", f"-home-dev-p{i}", sid)
        ids[sid] = name
    old = fs.working(sid="9999bbbb-0000-4000-8000-000000000009", start=fs.iso(now - 30 * 3600))
    fs.write(old, tmp_path / "claude", "-home-dev-old", old.session_id)
    return ids


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["sessions", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_lists_the_window_sorted_by_attention(projects: dict[str, str], capsys) -> None:
    code, out, err = run(capsys, "--json", "--no-cache")
    assert code == 0, err
    obj = json.loads(out)
    rows = obj["sessions"]
    assert {r["session_id"] for r in rows} == set(projects)  # the 30 h old one is outside 24 h
    by = {projects[r["session_id"]]: r for r in rows}
    assert by["turn_ended"]["state"] == "waiting on you"
    assert by["failing"]["state"] == "failing"
    assert by["permission"]["state"] == "stalled"  # a Bash call open for over 5 minutes
    assert by["stalled"]["state"] == "stalled"
    assert by["interrupted"]["state"] == "idle"
    states = [r["state"] for r in rows]
    order = ["waiting on you", "failing", "stalled", "working", "idle", "ended"]
    assert states == sorted(states, key=order.index)
    r = by["permission"]
    assert r["in_flight"][0]["tool"] == "Bash" and r["in_flight"][0]["brief"].startswith("./deploy.sh")
    assert r["anomalies"]["warn"] >= 1  # the stall
    assert r["tokens"] > 0 and r["cost_usd"] > 0
    assert r["last_hour"]["tokens"] == r["tokens"]  # the whole session is within the hour
    assert set(r["burn"]) == {"5m", "15m", "60m"}
    assert 0 < r["context"]["fill"] < 1
    assert by["failing"]["anomalies"]["error"] >= 1
    fleet = obj["fleet"]
    assert fleet["sessions"] == len(rows) and sum(fleet["states"].values()) == len(rows)
    # today's spend: every session's cost, less what fell on yesterday (UTC) when run after
    # midnight; nothing at all in the first quarter of an hour of a day, when every record (15 to
    # 10 minutes old) is yesterday's
    assert 0 <= fleet["today_usd"] <= sum(x["cost_usd"] for x in rows) + 1e-6
    if time.time() % 86400 > 900 + 60:  # (the fixture's first record ~900 s before the run)
        assert fleet["today_usd"] > 0


def test_all_and_hours(projects: dict[str, str], capsys) -> None:
    code, out, _ = run(capsys, "--json", "--no-cache", "--all")
    assert code == 0 and len(json.loads(out)["sessions"]) == len(projects) + 1
    code, out, _ = run(capsys, "--json", "--no-cache", "--hours", "0.2")
    ids = {r["session_id"] for r in json.loads(out)["sessions"]}
    assert ids and ids < set(projects)  # only the ones written in the last 12 minutes
    code, _, err = run(capsys, "--all", "--hours", "2")
    assert code == 2 and "exclude each other" in err


def test_budgets(projects: dict[str, str], capsys) -> None:
    code, out, _ = run(capsys, "--json", "--no-cache", "--budget-usd", "0.000001", "--budget-usd-day", "1000")
    obj = json.loads(out)
    r = obj["sessions"][0]
    assert r["budget"]["crossed"] and "crossed" in r["budget"]["text"]
    assert r["anomalies"]["error"] >= 1
    day = obj["fleet"]["budget_day"]
    assert not day["crossed"] and day["usd"] == 1000


def test_table(projects: dict[str, str], capsys) -> None:
    code, out, _ = run(capsys, "--no-cache")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["State", "Project", "Title"]
    assert lines[1].startswith("waiting on you")
    assert "Deploy the staging build" in out and "Bash(./deploy.sh staging)" in out
    assert any(x.startswith("burn 5m $") and "15m $" in x for x in lines) and "today $" in lines[-1]


def test_transcript_text_is_made_safe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    b = fs.builder("aaaa0000-0000-4000-8000-00000000000a", start=fs.iso(time.time() - 60))
    b.prompt("Fix \x1b]52;c;ZXZpbA==\x07 the \x9b31m parser")
    b.tick(1).tool_use("Bash", {"command": "echo \x1b[2J"})
    fs.write(b, tmp_path / "claude", "-p", b.session_id)
    code, out, _ = run(capsys, "--no-cache")
    assert code == 0 and "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    code, out, _ = run(capsys, "--no-cache", "--json")
    assert "\x1b" not in out and "\x9b" not in out
    assert json.loads(out)["sessions"][0]["title"].startswith("Fix \x1b]52")  # the JSON value is kept, escaped


def test_a_title_is_cut_in_the_json_as_in_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # a pasted prompt is the goal: its session's listing carried all of it (50 MB, user trial)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    b = fs.builder("aaaa0000-0000-4000-8000-00000000000b", start=fs.iso(time.time() - 60))
    b.prompt("huge prompt start " + "A" * 20_000)
    fs.write(b, tmp_path / "claude", "-p", b.session_id)
    code, out, _ = run(capsys, "--no-cache", "--json")
    title = json.loads(out)["sessions"][0]["title"]
    assert code == 0 and title.startswith("huge prompt start AAA") and title.endswith("\u2026") and len(title) <= 200
    assert len(out) < 10_000


def test_a_session_that_cannot_be_read_is_said_not_left_out_silently(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # report and search say so; sessions listed the others without a word (sixth user trial)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    for sid in ("aaaa0000-0000-4000-8000-00000000000c", "aaaa0000-0000-4000-8000-00000000000d"):
        b = fs.builder(sid, start=fs.iso(time.time() - 60))
        b.prompt("hello")
        fs.write(b, tmp_path / "claude", "-p", b.session_id)
    locked = next((tmp_path / "claude").rglob("*0d.jsonl"))
    real_open, real_os_open = open, os.open

    def no_read(path, *a, **k):  # as a file without read permission (this may run as root)
        if str(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **k)

    def no_os_read(path, *a, **k):
        if str(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_os_open(path, *a, **k)

    monkeypatch.setattr("builtins.open", no_read)
    monkeypatch.setattr(os, "open", no_os_read)
    code, out, err = run(capsys, "--no-cache")
    assert code == 0 and "hello" in out
    assert "note: 1 transcript file could not be read and is left out" in err and "permission denied" in err


def test_empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex\nnone"))
    code, out, _ = run(capsys)
    assert code == 0 and out.startswith("no session active in the last 24 hours")
    # both folders looked in (the Codex home was left out), each name on the line's one line
    assert str(tmp_path / "none" / "projects") in out and str(tmp_path / "codex\u240anone") in out and out.count("\n") == 1


def test_help_documents_the_rules(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["sessions", "--help"])
    out = capsys.readouterr().out
    for state in ("waiting on you", "failing", "stalled", "working", "idle", "ended"):
        assert f"  {state}" in out


def test_help_lists_the_session_column_and_json_rows_carry_the_path(projects: dict[str, str], tmp_path: Path, capsys) -> None:
    # trial 12: the help's list of columns left out the Session column; a JSON row named its
    # file as `key` only
    with pytest.raises(SystemExit):
        main(["sessions", "--help"])
    assert "context fill, and the session id" in " ".join(capsys.readouterr().out.split())
    _, out, _ = run(capsys, "--json", "--no-cache")
    for row in json.loads(out)["sessions"]:
        path = Path(row["path"])
        assert path.is_file() and path.stem == row["session_id"] and row["key"] == row["path"]


def test_a_copy_under_another_project_folder_is_one_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # the same session id in two project folders (a copied folder): the monitor's fleet shows
    # one row, and so does the listing, whose totals would count its messages twice otherwise
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    b = fs.working(sid="cccc0000-0000-4000-8000-00000000000c", start=fs.iso(time.time() - 120))
    first = fs.write(b, tmp_path / "claude", "-home-dev-a", b.session_id)
    copy = fs.write(b, tmp_path / "claude", "-home-dev-b", b.session_id)
    assert first != copy and first.read_bytes() == copy.read_bytes()
    code, out, _ = run(capsys, "--no-cache", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["sessions"]) == 1 and data["fleet"]["sessions"] == 1
    alone = tmp_path / "alone"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(alone))
    fs.write(b, alone, "-home-dev-a", b.session_id)
    _, out_alone, _ = run(capsys, "--no-cache", "--json")
    assert json.loads(out_alone)["fleet"]["burn"] == data["fleet"]["burn"]
