"""``tracetui sessions``'s text table: columns padded to the terminal cells their text takes."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import fleet_support as fs
import pytest

from tracetui.cli import main


def test_sessions_table_pads_wide_characters_to_their_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from rich.cells import cell_len

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    now = time.time()
    for sid, ask in (
        ("aaaa0000-0000-4000-8000-00000000000a", "修复登录页面的错误"),
        ("bbbb0000-0000-4000-8000-00000000000b", "Fix the login page"),
    ):
        b = fs.builder(sid, start=fs.iso(now - 600))
        b.prompt(ask)
        b.tick(1).text("Done.")
        fs.write(b, tmp_path / "claude", "-home-dev-web", sid)
    assert main(["sessions", "--no-cache"]) == 0
    head, *rows = capsys.readouterr().out.splitlines()[:3]
    at = cell_len(head[: head.index("Agent")])
    for row in rows:  # the agent column starts at the same cell on every line
        assert cell_len(row[: row.index("claude")]) == at, row


def _twins(root: Path, ids: tuple[str, ...], now: float) -> None:
    """Sessions of the same project, title and time, one per id."""
    for sid in ids:
        b = fs.builder(sid, start=fs.iso(now - 600))
        b.prompt("Fix the login page")
        b.tick(1).text("Done.")
        fs.write(b, root, "-home-dev-web", sid)


def test_twin_rows_are_told_apart_by_a_session_id_the_cli_takes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    ids = ("aaaa0000-0000-4000-8000-00000000000a", "bbbb0000-0000-4000-8000-00000000000b")
    _twins(tmp_path / "claude", ids, time.time())
    assert main(["sessions", "--no-cache"]) == 0
    head, *rows = capsys.readouterr().out.splitlines()[:3]
    assert head.split()[-1] == "Session"
    shown = sorted(row.split()[-1] for row in rows)
    assert shown == ["aaaa0000", "bbbb0000"]
    for prefix, sid in zip(shown, ids):  # each names its session on the command line
        assert main(["state", prefix, "--json", "--no-cache"]) == 0
        assert f'"session_id": "{sid}"' in capsys.readouterr().out


def test_ids_sharing_their_first_characters_are_shown_until_they_differ(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    now = time.time()
    ids = ("0199c0de-0000-7000-8000-00000000d001", "0199c0de-0000-7000-9000-00000000d002")
    _twins(tmp_path / "claude", ids, now)
    old = "0199c0de-0000-7000-8000-00000000e003"  # older than the window: not listed, but a prefix finds it too
    _twins(tmp_path / "claude", (old,), now)
    past = now - 3 * 86400
    os.utime(tmp_path / "claude" / "projects" / "-home-dev-web" / f"{old}.jsonl", (past, past))
    assert main(["sessions", "--no-cache"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:3]
    assert sorted(row.split()[-1] for row in rows) == ["0199c0de-0000-7000-8000-00000000d", "0199c0de-0000-7000-9"]
    assert main(["state", "0199c0de-0000-7000-8000-00000000d", "--json", "--no-cache"]) == 0
    assert f'"session_id": "{ids[0]}"' in capsys.readouterr().out


def test_id_chars() -> None:
    from tracetui.views.fleet_table import ID_CHARS, id_chars

    assert id_chars([]) == {}
    assert id_chars(["abcdefghij", "zzzzzzzzzz"]) == {"abcdefghij": ID_CHARS, "zzzzzzzzzz": ID_CHARS}
    assert id_chars(["abcdefghij"], ["abcdefghXY"]) == {"abcdefghij": 9}
    assert "abc"[: id_chars(["abc"], ["abcdefghij"])["abc"]] == "abc"  # named whole: an exact id wins


def test_a_copied_file_is_shown_by_the_id_of_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """A copy of a session under another file name keeps its records' sessionId; the command line
    finds it by its file's name, so that is the id the column shows (the original shows its own)."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    sid = "cccc0000-0000-4000-8000-00000000000c"
    _twins(tmp_path / "claude", (sid,), time.time())
    folder = tmp_path / "claude" / "projects" / "-home-dev-web"
    copy = "dddd0000-0000-4000-8000-00000000000d"
    (folder / f"{copy}.jsonl").write_bytes((folder / f"{sid}.jsonl").read_bytes())
    assert main(["sessions", "--no-cache"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:3]
    assert sorted(row.split()[-1] for row in rows) == ["cccc0000", "dddd0000"]
    assert main(["state", "dddd0000", "--no-cache"]) == 0
    assert f"{copy}.jsonl" in capsys.readouterr().out


def test_a_session_in_two_project_folders_is_named_by_the_id_its_row_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Trial 12: ``sessions`` showed the id of a session copied into another project folder,
    and ``state``/``view``/``card`` refused it (the whole id too) as being in two folders. The
    row is read from one of the files (the largest); the id names that one."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    sid = "cccc0000-0000-4000-8000-00000000000c"
    now = time.time()
    _twins(tmp_path / "claude", (sid,), now)  # under -home-dev-web
    b = fs.builder(sid, start=fs.iso(now - 600))
    b.prompt("Fix the login page")
    b.tick(1).text("Done.")
    b.tick(1).prompt("And the sign-up page")
    longer = fs.write(b, tmp_path / "claude", "-home-dev-web-copy", sid)
    assert main(["sessions", "--no-cache", "--json"]) == 0
    assert [r["key"] for r in json.loads(capsys.readouterr().out)["sessions"]] == [str(longer)]
    assert main(["sessions", "--no-cache"]) == 0
    shown = capsys.readouterr().out.splitlines()[1].split()[-1]
    assert sid.startswith(shown)
    for ident in (shown, sid):
        assert main(["state", ident, "--json", "--no-cache"]) == 0
        assert json.loads(capsys.readouterr().out)["counters"]["user_prompts"] == 2  # the row's file
        for cmd in ("view", "card"):
            assert main([cmd, ident, "--no-cache"]) == 0
            assert "And the sign-up page" in capsys.readouterr().out
