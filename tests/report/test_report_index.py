"""The cross-session index (tracetui/session/index) against an independent recount of a generated
projects folder: tokens per kind, messages, models and estimated cost per day, week, month,
project and session; incremental updates; a locked, corrupt or foreign index."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from report_folder import CLAUDE_FILES, CODEX_FILES, CODEX_UNPRICED, UNPRICED, Folder, recount

from tracetui.demo.codex_records import CODEX_MODEL
from tracetui.session.index import KINDS, build_report, open_index, refresh, update
from tracetui.session.index import db as index_db


def _as_dict(rep) -> dict[str, dict]:
    out = {}
    for g in rep.rows:
        t = g.tokens
        out[g.key] = {
            "messages": g.messages,
            "input": t.input,
            "output": t.output,
            "cache_creation": t.cache_creation,
            "cache_read": t.cache_read,
            "models": set(g.models),
            "usd": g.cost_usd,
        }
    return out


def _check(root: Path, conn: sqlite3.Connection, kind: str, **kw) -> None:
    want = recount(root, kind, **kw)
    got = _as_dict(build_report(conn, kind, **kw))
    assert set(got) == set(want)
    for k, w in want.items():
        g = got[k]
        assert {x: g[x] for x in g if x != "usd"} == {x: w[x] for x in w if x != "usd"}, k
        if w["usd"] is None:
            assert g["usd"] is None, k
        else:
            assert g["usd"] == pytest.approx(w["usd"], abs=1e-5), k


def _same_as_fresh(conn: sqlite3.Connection, root: Path, db: Path) -> None:
    """The index's rows are those of an index built from the files as they are now, at once."""
    fresh = open_index(db)
    update(fresh, root)
    for q in (
        "SELECT f.path, m.msg, m.day, m.model, m.input, m.output, m.cache_creation, m.cache_read FROM msgs m JOIN files f ON f.id = m.file ORDER BY 1, 2",
        "SELECT f.path, m.msg, m.day, m.model, m.band, m.input, m.output, m.cache_creation, m.cache_read FROM messages m JOIN files f ON f.id = m.file ORDER BY 2",
        "SELECT f.path, b.day, b.model, b.band, b.messages, b.input, b.output, b.cache_creation, b.cache_read, b.cache_write_1h"
        " FROM buckets b JOIN files f ON f.id = b.file ORDER BY 1, 2, 3, 4",
        "SELECT f.path, d.line, d.kind, d.name, d.text FROM docs d JOIN files f ON f.id = d.file ORDER BY 1, 2, 3",
        "SELECT path, session, first_ts, last_ts, malformed, sidechain FROM files ORDER BY path",
    ):
        assert conn.execute(q).fetchall() == fresh.conn.execute(q).fetchall(), q
    fresh.conn.close()


@pytest.mark.parametrize("kind", KINDS)
def test_report_matches_recount(folder: Folder, kind: str) -> None:
    index, stats = refresh(folder.root)
    assert stats.errors == [] and index.note == ""
    _check(folder.root, index.conn, kind)


def test_message_repeated_in_two_files_counts_once_under_the_first(folder: Folder) -> None:
    index, _ = refresh(folder.root)
    rows = {g.key: g for g in build_report(index.conn, "session").rows}
    want = recount(folder.root, "session")
    # a2 copies a1's two API messages and adds one of its own
    assert rows["a1"].messages == want["a1"]["messages"] == 2
    assert rows["a2"].messages == want["a2"]["messages"] == 1
    rep = build_report(index.conn, "daily")
    assert rep.total.messages == sum(w["messages"] for w in want.values())


def test_unpriced_model_is_unknown_never_zero(folder: Folder) -> None:
    index, _ = refresh(folder.root)
    rep = build_report(index.conn, "daily")
    day = next(g for g in rep.rows if UNPRICED in g.models)
    assert day.cost_usd is None and UNPRICED in day.cost_note
    assert rep.total.cost_usd is None
    codex_day = next(g for g in rep.rows if CODEX_UNPRICED in g.models)
    assert codex_day.cost_usd is None and CODEX_UNPRICED in codex_day.cost_note
    priced = [g for g in rep.rows if not {UNPRICED, CODEX_UNPRICED} & set(g.models)]
    assert priced and all(g.cost_usd is not None and g.cost_usd > 0 for g in priced)
    assert any(CODEX_MODEL in g.models for g in priced)  # OpenAI's price of the Codex model


def test_since_until_and_project_filters(folder: Folder) -> None:
    index, _ = refresh(folder.root)
    _check(folder.root, index.conn, "daily", since="2026-03-03", until="2026-03-11")
    rep = build_report(index.conn, "session", project="beta")
    assert {g.key for g in rep.rows} == {"b1", "b2"}
    assert {g.project for g in rep.rows} == {"-work-beta"}
    assert (
        build_report(index.conn, "daily", project="/work/gamma").total.messages
        == recount(folder.root, "project")["-work-gamma"]["messages"]
    )


def test_warm_update_reads_nothing(folder: Folder) -> None:
    refresh(folder.root)
    index, stats = refresh(folder.root)
    assert (stats.new, stats.grown, stats.redone, stats.dropped) == (0, 0, 0, 0)
    assert stats.files == CLAUDE_FILES + CODEX_FILES  # Claude: five main files and one subagent file
    _check(folder.root, index.conn, "daily")


def test_grown_file_is_folded_from_its_resume_point(folder: Folder, tmp_path: Path) -> None:
    refresh(folder.root)
    folder.grow()
    index, stats = refresh(folder.root)
    assert (stats.grown, stats.redone, stats.new) == (1, 0, 0)
    for kind in ("daily", "session"):
        _check(folder.root, index.conn, kind)
    _same_as_fresh(index.conn, folder.root, tmp_path / "fresh.sqlite")


def test_truncated_and_deleted_files_are_redone(folder: Folder, tmp_path: Path) -> None:
    refresh(folder.root)
    folder.truncate()
    index, stats = refresh(folder.root)
    assert stats.redone == 1
    _check(folder.root, index.conn, "daily")
    _same_as_fresh(index.conn, folder.root, tmp_path / "fresh1.sqlite")
    # a1 goes: its messages, repeated in a2, are a2's now
    (folder.root / "-work-alpha" / "a1.jsonl").unlink()
    index, stats = refresh(folder.root)
    assert stats.dropped == 1
    _check(folder.root, index.conn, "session")
    assert {g.key: g.messages for g in build_report(index.conn, "session").rows}["a2"] == 3
    _same_as_fresh(index.conn, folder.root, tmp_path / "fresh2.sqlite")


def test_replaced_file_is_redone(folder: Folder, tmp_path: Path) -> None:
    refresh(folder.root)
    data = folder.b2.read_bytes()
    tmp = folder.b2.with_name("new.tmp")
    tmp.write_bytes(data.replace(b"release notes", b"changelog entry"))
    tmp.replace(folder.b2)
    index, stats = refresh(folder.root)
    assert stats.redone == 1
    _check(folder.root, index.conn, "daily")
    _same_as_fresh(index.conn, folder.root, tmp_path / "fresh.sqlite")


def test_corrupt_index_is_rebuilt(folder: Folder, tmp_path: Path) -> None:
    db = tmp_path / "idx" / "sessions.sqlite"
    refresh(folder.root, db)
    db.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    index, stats = refresh(folder.root, db)
    assert index.note == "" and stats.new == CLAUDE_FILES + CODEX_FILES
    _check(folder.root, index.conn, "project")


def test_index_of_another_schema_is_emptied(folder: Folder, tmp_path: Path) -> None:
    db = tmp_path / "sessions.sqlite"
    index, _ = refresh(folder.root, db)
    index.conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    index.conn.close()
    index, stats = refresh(folder.root, db)
    assert stats.new == CLAUDE_FILES + CODEX_FILES
    _check(folder.root, index.conn, "daily")


def test_locked_index_gives_a_private_one(folder: Folder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "sessions.sqlite"
    refresh(folder.root, db)
    folder.grow()
    monkeypatch.setattr(index_db, "BUSY_MS", 20)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process writing, for longer than the busy timeout
    try:
        index, stats = refresh(folder.root, db)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "locked" in index.note
    _check(folder.root, index.conn, "daily")


def test_index_file_is_private(folder: Folder) -> None:
    index, _ = refresh(folder.root)
    p = index_db.index_path()
    assert p.exists()
    assert p.stat().st_mode & 0o777 == 0o600
    assert p.parent.stat().st_mode & 0o777 == 0o700


def test_costs_are_memoised_in_the_index(folder: Folder, monkeypatch: pytest.MonkeyPatch) -> None:
    index, _ = refresh(folder.root)
    first = {k: build_report(index.conn, k) for k in KINDS}
    import tracetui.model.pricing as pricing

    def no_pricing(*_a, **_k):
        raise AssertionError("priced again")

    monkeypatch.setattr(pricing, "estimate_cost", no_pricing)
    index.conn.close()
    index, _ = refresh(folder.root)
    for k in KINDS:
        again = build_report(index.conn, k)
        assert [(g.key, g.cost_usd, g.cost_note) for g in again.rows] == [(g.key, g.cost_usd, g.cost_note) for g in first[k].rows]
        assert (again.total.cost_usd, again.total.cost_note) == (first[k].total.cost_usd, first[k].total.cost_note)
