"""The cross-session index keeps no secret a transcript held: every text it takes from a
transcript (working directory, project, session and thread ids, models, message ids, tool
names, timestamps, a rollout's resume state) is masked as the session store masks it, in a
fresh index, after a resumed read, and after an index of other code is rebuilt."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.demo.transcript import TranscriptBuilder
from tracetui.session.index import db as index_db
from tracetui.session.index import refresh, sync
from tracetui.session.index.db import index_path

AWS = "AKIAQ3EGRTYU7VWXZ2AB"
GITHUB = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
SLACK = "xoxb-2718281828-3141592653589-" + "aQ7wE3rT9yU1iO5pL2kJ8hG4"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
GOOGLE = "AIza" + "SyD3kL9mN2pQ5rS8tU1vW4xY7zA0bC3dE6f"
ALL = (AWS, GITHUB, SLACK, STRIPE, GOOGLE)


def _pieces(s: str) -> list[bytes]:
    """``s`` and every 12-character piece of it, as bytes."""
    return [s.encode()] + [s[i : i + 12].encode() for i in range(0, len(s) - 12, 4)]


def _leaked(cache: Path) -> list[str]:
    """The secrets of :data:`ALL` (or a 12-character piece of one) in any file of the index
    folder (the database, its WAL and shared-memory files)."""
    data = b"".join(p.read_bytes() for p in sorted(cache.glob("index/sessions.sqlite*")))
    return [s for s in ALL if any(x in data for x in _pieces(s))]


def _claude(root: Path) -> Path:
    b = TranscriptBuilder(session_id="5ec7e700-0000-4000-8000-00000000c001", cwd=f"/home/dev/{GITHUB}/app", model=f"claude-{AWS}")
    b.prompt("run the tests")
    b.tool("Bash", {"command": "pytest -q"}, "3 passed")
    b.tool_use(f"mcp__{SLACK}__deploy", {"target": "prod"})
    b.text("done")
    # an API message whose id and timestamp hold a secret (the index keys and dates by them)
    b.add({**b.records[-1], "uuid": "5ec7e700-0000-4000-8000-00000000c0ff", "timestamp": f"2026-03-02T09:09:09.000Z{STRIPE}"})
    b.records[-1]["message"] = {**b.records[-1]["message"], "id": f"msg_{GOOGLE}"}
    return b.write(root / "-home-dev-app" / f"{b.session_id}.jsonl")


def _codex(home: Path) -> tuple[Path, RolloutBuilder]:
    thread = f"0199c0de-{AWS}"
    b = RolloutBuilder(thread_id=thread, cwd=f"/work/{GITHUB}", model=f"gpt-{SLACK}")
    b.turn("fix the build").tokens(1000, 200, 50)
    b.exec("make", "ok")
    b.done("built")
    p = home / "sessions" / "2026" / "03" / "02" / "rollout-2026-03-02T09-00-00-0199c0de-0000-7000-8000-00000000d001.jsonl"
    return b.write(p), b


def test_the_index_file_holds_no_secret_of_a_transcript(tmp_path: Path) -> None:
    cache = Path(index_path()).parent.parent
    root, home = tmp_path / "projects", tmp_path / "codex"
    _claude(root)
    rollout, b = _codex(home)
    index, stats = refresh(root, codex_home=home)
    assert (stats.new, stats.errors) == (2, [])
    rows = index.conn.execute("SELECT agent, cwd, project, session FROM files ORDER BY agent").fetchall()
    assert [r[0] for r in rows] == ["claude", "codex"]
    assert rows[0][1] == "/home/dev/«redacted: github token»/app"
    assert rows[1][1:] == ("/work/«redacted: github token»", "/work/«redacted: github token»", "0199c0de-«redacted: aws access key»")
    models = {m for (m,) in index.conn.execute("SELECT model FROM msgs")}
    assert models == {"claude-«redacted: aws access key»", "gpt-«redacted: slack token»"}
    index.conn.close()
    assert _leaked(cache) == []
    # a grown rollout resumes from the saved (masked) resume state
    b.turn("and the docs").tokens(500, 0, 20).done("ok")
    rollout.write_bytes(b.data())
    index, stats = refresh(root, codex_home=home)
    assert stats.grown == 1 and stats.errors == []
    (n,) = index.conn.execute("SELECT COUNT(*) FROM msgs m JOIN files f ON f.id = m.file WHERE f.agent = 'codex'").fetchone()
    assert n == 2
    index.conn.close()
    assert _leaked(cache) == []


def test_an_index_of_other_code_is_rebuilt_without_its_old_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # an index written before masking held raw text: rebuilt, none of it stays in the file,
    # whatever this SQLite's secure_delete default is (Debian's is on, others' off)
    def open_db(path, busy_ms=None):  # type: ignore[no-untyped-def]
        conn = index_db.open_db(path, busy_ms)
        conn.execute("PRAGMA secure_delete=OFF")
        return conn

    monkeypatch.setattr(sync, "open_db", open_db)
    cache = Path(index_path()).parent.parent
    root, home = tmp_path / "projects", tmp_path / "codex"
    _claude(root)
    index, _ = refresh(root, codex_home=home)
    with index.conn:
        index.conn.execute("UPDATE files SET cwd = ?", (f"/old/{GITHUB}",))
        # more old rows than the rebuilt index has: pages a rebuild does not write again
        rows = [(10_000 + i, 1, i, 0, "prompt", None, None, f"old text {i} {GITHUB}") for i in range(2000)]
        index.conn.executemany("INSERT INTO docs VALUES (?,?,?,?,?,?,?,?)", rows)
        index.conn.execute("UPDATE meta SET value = 'other' WHERE key = 'code'")
    index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    index.conn.close()
    db = sqlite3.connect(cache / "index" / "sessions.sqlite")
    assert db.execute("SELECT cwd FROM files").fetchone() == (f"/old/{GITHUB}",)
    db.close()
    index, _ = refresh(root, codex_home=home)
    index.conn.close()
    assert _leaked(cache) == []
