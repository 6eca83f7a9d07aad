"""``tracetui report`` and ``tracetui search`` through the command line: the table and the JSON
against the recount, search anchors, masked secrets, terminal safety, one-line errors."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from report_folder import SECRET, UNPRICED, Folder, recount

from tracetui.cli import main
from tracetui.demo.transcript import TranscriptBuilder
from tracetui.report import parse_day


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_report_json_is_one_object_matching_the_recount(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _run(capsys, "report", "daily", "--json")
    assert rc == 0 and err == ""
    obj = json.loads(out)
    want = recount(folder.root, "daily")
    assert [r["key"] for r in obj["rows"]] == sorted(want)
    for row in obj["rows"]:
        w = want[row["key"]]
        assert row["messages"] == w["messages"]
        assert row["tokens"] == {
            "input": w["input"],
            "output": w["output"],
            "cache_read": w["cache_read"],
            "cache_creation": w["cache_creation"],
            "total": w["input"] + w["output"] + w["cache_read"] + w["cache_creation"],
        }
        assert (row["cost_usd"] is None) == (w["usd"] is None)
    assert obj["total"]["messages"] == sum(w["messages"] for w in want.values())
    assert obj["total"]["cost_usd"] is None and UNPRICED in obj["total"]["cost_note"]
    assert "estimate" in obj["cost_label"]


def test_report_table_is_aligned_and_says_estimate(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "report", "session", "--project", "beta")
    assert rc == 0
    lines = out.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith("SESSION"))
    body = lines[head : lines.index("", head)]
    # figures right-aligned: every row of the table ends at the same column
    assert len({len(ln) for ln in body}) == 1
    assert [ln.split()[0] for ln in body[1:-2]] == ["b1", "b2"]
    assert body[-1].startswith("total")
    assert "unknown" in body[1]  # b1 used a model without a price
    assert "$0.00" not in body[1]
    assert any(ln.startswith("COST: estimated USD") for ln in lines)
    assert any(UNPRICED in ln and ln.startswith("unknown:") for ln in lines)


def test_report_since_relative_days(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "report", "monthly", "--since", "0d", "--json")
    assert rc == 0
    assert json.loads(out)["rows"] == []  # the folder's days are all in the past
    rc, out, _ = _run(capsys, "report", "monthly", "--since", "0d")
    assert rc == 0 and out.startswith("no API messages from ")


def test_parse_day() -> None:
    today = date(2026, 11, 8)
    assert parse_day("7d", today) == "2026-11-01"
    assert parse_day("0d", today) == "2026-11-08"
    assert parse_day("2026-11-01", today) == "2026-11-01"
    for bad in ("yesterday", "2026-13-01", "2026-1-1", "-3d", "7", ""):
        with pytest.raises(Exception, match="not a date"):
            parse_day(bad, today)


@pytest.mark.parametrize(
    "argv, names",
    [
        (("report", "daily", "--since", "last week"), "--since"),
        (("report", "daily", "--until", "2026-02-30"), "--until"),
        (("report", "hourly"), "kind"),
        (("report",), "kind"),
        (("report", "daily", "--since", "2026-03-05", "--until", "2026-03-01"), "--since"),
        (("search", "x", "--limit", "0"), "--limit"),
        (("search", "x", "--limit", "9223372036854775808"), "--limit"),  # past SQLite's INTEGER
        (("search",), "TEXT"),
        (("search", "   "), "TEXT"),
    ],
)
def test_bad_arguments_are_one_line(folder: Folder, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], names: str) -> None:
    try:
        rc = main(list(argv))
    except SystemExit as exc:
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and names in err, err
    assert "Traceback" not in err


def test_search_finds_a_prompt_and_a_tool_call_with_their_anchors(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "search", "deploy", "key", "--json")
    assert rc == 0
    hits = json.loads(out)["results"]
    assert [(h["kind"], h["anchor"]) for h in hits] == [("prompt", f"{folder.b1}:{folder.b1_prompt_line}")]
    assert hits[0]["session"] == "b1" and hits[0]["project"] == "-work-beta" and hits[0]["agent"] == "claude"
    rc, out, _ = _run(capsys, "search", "kubectl", "rollout", "--json")
    hits = json.loads(out)["results"]
    assert [(h["kind"], h["name"], h["anchor"]) for h in hits] == [("tool_use", "Bash", f"{folder.b1}:{folder.b1_bash_line}")]
    assert folder.b1.read_bytes().split(b"\n")[folder.b1_bash_line - 1].count(b"kubectl rollout") == 1
    rc, out, _ = _run(capsys, "search", "ERROR")  # the subagent's Grep call
    assert rc == 0 and "agent-0abc.jsonl:" in out and "tool Grep" in out


def test_search_never_returns_a_secret(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (("search", "deploy"), ("search", "deploy", "--json"), ("search", SECRET), ("search", SECRET[:20])):
        rc, out, err = _run(capsys, *argv)
        assert rc == 0
        assert SECRET[:16] not in out and SECRET[-20:] not in out
    rc, out, _ = _run(capsys, "search", SECRET, "--json")
    assert json.loads(out)["results"] == []


def test_search_masks_the_trial_shapes_of_secrets(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    # a MySQL -pPASSWORD, a .pgpass line written by echo, an AWS secret key set (eighth user trial)
    from trial_secrets import AWS_SECRET, MYSQL_PW, PG_PW, SHAPES, leaked, shapes_session

    shapes_session(folder.root)
    for words, want in (("mysql", "-p«redacted: database password»"), ("pgpass", "admin:«redacted: database password»")):
        rc, out, _ = _run(capsys, "search", words)
        assert rc == 0 and want in out and leaked(out, SHAPES) == [], out
    for secret in (MYSQL_PW, "p" + MYSQL_PW, PG_PW, AWS_SECRET[:13]):
        rc, out, _ = _run(capsys, "search", secret, "--json")
        assert rc == 0 and json.loads(out)["results"] == [], out


@pytest.mark.parametrize("grown", [False, True], ids=["one-read", "grown"])
def test_search_masks_a_secret_found_once_wherever_it_comes_again(folder: Folder, capsys: pytest.CaptureFixture[str], grown: bool) -> None:
    # the goal gives a key and a password with what tells them; later calls and a prompt hold them
    # alone (eighth user trial); grown: the later part read from the index's resume point
    from trial_secrets import AWS_PLAIN, PASSWORD, RECURRING, leaked, recurring_session

    if grown:
        recurring_session(folder.root, later=False)
        assert _run(capsys, "search", "login")[0] == 0
    recurring_session(folder.root)
    rc, out, _ = _run(capsys, "search", "check-key")
    assert rc == 0 and "echo «redacted: password or secret» | ./check-key" in out, out
    rc, out, _ = _run(capsys, "search", "rotate")
    assert rc == 0 and "./rotate «redacted: password or secret»" in out and leaked(out, RECURRING) == [], out
    for secret in (AWS_PLAIN, PASSWORD):
        rc, out, _ = _run(capsys, "search", secret, "--json")
        assert rc == 0 and json.loads(out)["results"] == [], out
    from tracetui.session.index.db import index_path

    data = b"".join(p.read_bytes() for p in Path(index_path()).parent.glob("sessions.sqlite*"))
    assert [x for x in RECURRING if x[:12].encode() in data] == []  # the index keeps digests only


def test_search_output_is_terminal_safe(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    b = TranscriptBuilder(session_id="evil", cwd="/work/evil", start="2026-03-12T09:00:00.000Z")
    b.prompt("retitle \x1b]0;pwned\x07 the window \x1b[31mred\x1b[0m and \x9b2J")
    b.write_session(folder.root / "-work-evil")
    for argv in (("search", "retitle"), ("search", "retitle", "--json")):
        rc, out, _ = _run(capsys, *argv)
        assert rc == 0 and "retitle" in out
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out


def test_search_updates_the_index_and_limits(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "search", "tag", "--json")
    assert json.loads(out)["results"] == []
    folder.grow()  # b2's second prompt: "now tag the release"
    rc, out, _ = _run(capsys, "search", "tag", "--json")
    (hit,) = json.loads(out)["results"]
    assert hit["kind"] == "prompt" and hit["text"] == "now tag the release" and hit["session"] == "b2"
    rc, out, _ = _run(capsys, "search", "step", "--json", "--limit", "2")
    obj = json.loads(out)
    assert len(obj["results"]) == 2 and obj["more"] is True  # the cut is said (seventh user trial)
    rc, out, _ = _run(capsys, "search", "step", "--limit", "2")
    assert out.startswith("the first 2 matches (more not shown: --limit 2 cut the list) for 'step'")
    rc, out, _ = _run(capsys, "search", "step", "--json", "--limit", "1000")
    assert json.loads(out)["more"] is False


def test_report_until_today_relative(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    today = datetime.now(UTC).date()
    rc, out, _ = _run(capsys, "report", "daily", "--until", "1d", "--json")
    obj = json.loads(out)
    assert obj["until"] == (today - timedelta(days=1)).isoformat()
    assert obj["total"]["messages"] == sum(w["messages"] for w in recount(folder.root, "daily").values())


def test_report_masks_secrets_and_controls_in_names(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    cwd = f"/work/\x1b]0;pwned\x07/{SECRET}"
    b = TranscriptBuilder(session_id="named", cwd=cwd, start="2026-03-12T09:00:00.000Z")
    b.prompt("hello")
    b.text("hi")
    b.write_session(folder.root / f"-work-\x1b[31m-{SECRET[:40]}")
    for kind in ("project", "session"):
        for argv in (("report", kind), ("report", kind, "--json")):
            rc, out, _ = _run(capsys, *argv)
            assert rc == 0
            assert kind == "project" or "named" in out
            assert "\x1b" not in out and "\x07" not in out
            assert SECRET[:20] not in out


def test_report_rows_stay_one_line_with_line_breaks_in_names(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    # a fresh-user trial: a newline in a transcript's file name split its row in two (ESC and BEL
    # were replaced, LF and CR were printed raw); the cwd and the project folder too
    b = TranscriptBuilder(session_id="split\nFAKE ROW\r\tend", cwd="/work/a\nb", start="2026-03-12T09:00:00.000Z")
    b.prompt("hello")
    b.text("hi")
    b.write_session(folder.root / "-work-a\nb")
    for kind in ("project", "session"):
        rc, out, _ = _run(capsys, "report", kind)
        assert rc == 0
        lines = out.splitlines()
        assert not any(ln.startswith(("FAKE ROW", "b ", "b\t")) for ln in lines), out
        row = next(ln for ln in lines if ("split" in ln if kind == "session" else "/work/a" in ln))
        assert "\r" not in row and "\t" not in row
        assert ("split\u240aFAKE ROW\u240d\u2409end" if kind == "session" else "/work/a\u240ab") in row


def test_a_report_from_a_day_on_says_it_runs_to_the_last_record(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    # seventh user trial: "from 2026-12-01 to today" listed 2099-01-01 and 9999-12-31 (records
    # stamped in the future): without --until the range has no end but the records'
    rc, out, _ = _run(capsys, "report", "daily", "--since", "2020-01-01")
    assert rc == 0 and "from 2020-01-01 to the last record (UTC days)" in out.splitlines()[0]


def test_report_and_search_with_no_transcript_name_the_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # trial 13: in an empty HOME, "no API messages (0 transcript files indexed)" and "no prompt or
    # tool call matches 'foo'" named no folder, where `sessions` and `state` do
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    where = f"{tmp_path / 'claude' / 'projects'} or {tmp_path / 'codex'}"
    note = f"note: no transcript files under {where}, so nothing is indexed."
    rc, out, _ = _run(capsys, "report", "daily")
    assert rc == 0 and out.splitlines() == ["no API messages (0 transcript files indexed)", note], out
    rc, out, _ = _run(capsys, "report", "daily", "--json")
    assert rc == 0 and json.loads(out)["notes"] == [note]
    rc, out, err = _run(capsys, "search", "foo")
    assert rc == 0 and out == "no prompt or tool call matches 'foo'\n" and err == f"tracetui search: {note}\n", err
