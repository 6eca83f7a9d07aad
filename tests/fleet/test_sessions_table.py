"""``tracetui sessions``'s text table: columns padded to the terminal cells their text takes."""

from __future__ import annotations

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
