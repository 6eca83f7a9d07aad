"""The pieces the cross-session index stands on: one walk finds what the per-session discovery
finds, and a usage book gives a message back wherever it holds it."""

from __future__ import annotations

from pathlib import Path

from report_folder import CLAUDE_FILES, CODEX_FILES, Folder

from tracetui.demo.transcript import TranscriptBuilder
from tracetui.ingest.discover import list_sessions
from tracetui.ingest.session_files import all_transcripts, subagent_files
from tracetui.model.usage import PACK_BATCH, RECENT_IDS, UsageBook
from tracetui.session.index.search import fts_query


def test_all_transcripts_is_list_sessions_and_subagent_files(folder: Folder, tmp_path: Path) -> None:
    # a 2.0.x layout too: the subagent file beside the main one
    b = TranscriptBuilder(session_id="old", cwd="/work/old")
    task = b.tool_use("Task", {"description": "d", "prompt": "p"})
    sub = b.subagent("0ld", task)
    sub.prompt("p")
    sub.text("ok")
    b.write_session(folder.root / "-work-old", nested=False)
    (folder.root / "-work-old" / "notes.txt").write_text("not a transcript")
    found = {(str(t.path), t.project, t.session_id, t.role) for t in all_transcripts(folder.root)}
    want = set()
    for s in list_sessions(folder.root, agent="claude"):
        want.add((str(s.path), s.project, s.session_id, "main"))
        for sf in subagent_files(s.path):
            nested = sf.path.parent.name == "subagents"
            want.add((str(sf.path), s.project, s.session_id if nested else None, "subagent"))
    assert found == want
    assert all_transcripts(tmp_path / "missing") == []


def test_usage_book_message_from_the_packed_part() -> None:
    book = UsageBook()
    book.add("first", "m1", (1, 2, 3, 4, 0), "2026-03-01")
    book.add("first", "m2", (1, 5, 3, 4, 0), "")
    for i in range(RECENT_IDS + PACK_BATCH + 10):
        book.add(f"id{i}", "m3", (1, 1, 1, 1, 0), "2026-03-02")
    assert "first" not in book.by_id  # packed
    assert book.message("first") == ((1, 5, 3, 4, 0), "m1", "2026-03-01")
    assert book.message(f"id{RECENT_IDS}") == ((1, 1, 1, 1, 0), "m3", "2026-03-02")
    assert book.message("never") is None


def test_fts_query_takes_operators_literally() -> None:
    assert fts_query('fix "the" bug OR') == '"fix" """the""" "bug" "OR"'
    assert fts_query("   ") == ""


def test_search_without_fts5_falls_back_to_like(folder: Folder, tmp_path: Path, monkeypatch) -> None:
    from tracetui.session.index import refresh, search
    from tracetui.session.index import sync as index_sync
    from tracetui.views.report import render_hits

    monkeypatch.setattr(index_sync, "has_fts5", lambda conn: False)
    index, _ = refresh(folder.root, tmp_path / "nofts.sqlite")
    assert not index.fts
    assert index.conn.execute("SELECT name FROM sqlite_master WHERE name = 'docs_fts'").fetchall() == []
    hits = search(index.conn, "kubectl rollout", index.fts)
    assert [(h.kind, h.name, h.line) for h in hits] == [("tool_use", "Bash", folder.b1_bash_line)]
    assert search(index.conn, "50%_", index.fts) == []  # LIKE's wildcards are taken literally
    assert "no FTS5" in render_hits("kubectl", hits, index.fts)


def test_index_built_without_fts5_is_rebuilt_with_it(folder: Folder, tmp_path: Path, monkeypatch) -> None:
    from tracetui.session.index import refresh, search
    from tracetui.session.index import sync as index_sync

    db = tmp_path / "idx.sqlite"
    with monkeypatch.context() as m:
        m.setattr(index_sync, "has_fts5", lambda conn: False)
        index, _ = refresh(folder.root, db)
        assert not index.fts
        index.conn.close()
    index, stats = refresh(folder.root, db)
    assert index.fts and stats.new == CLAUDE_FILES + CODEX_FILES
    assert [h.name for h in search(index.conn, "kubectl", index.fts)] == ["Bash"]


def test_a_file_indexed_by_another_process_meanwhile_is_written_once(folder: Folder, tmp_path: Path, monkeypatch) -> None:
    """Two processes updating one index: the one that read a file's row before the other wrote
    it does not write its own read over it (no document or message twice)."""
    from tracetui.session.index import open_index, refresh, update
    from tracetui.session.index import scan as index_scan

    db = tmp_path / "idx.sqlite"
    refresh(folder.root, db)
    folder.grow()
    real = index_scan.fold_file
    other = open_index(db)

    inside = []

    def fold_then_other_writes(path, resume=None):
        r = real(path, resume)
        if not inside:
            inside.append(path)
            update(other, folder.root)  # the other process reads and writes the grown file first
        return r

    monkeypatch.setattr(index_scan, "fold_file", fold_then_other_writes)
    mine = open_index(db)
    stats = update(mine, folder.root)
    assert stats.grown == 1
    docs = mine.conn.execute("SELECT file, line, block, kind, COUNT(*) FROM docs GROUP BY 1, 2, 3, 4 HAVING COUNT(*) > 1").fetchall()
    assert docs == []
    monkeypatch.setattr(index_scan, "fold_file", real)
    fresh = open_index(tmp_path / "fresh.sqlite")
    update(fresh, folder.root)
    q = "SELECT f.path, m.msg, m.day, m.band, m.input, m.output FROM messages m JOIN files f ON f.id = m.file ORDER BY 2"
    assert mine.conn.execute(q).fetchall() == fresh.conn.execute(q).fetchall()
    q = "SELECT f.path, d.line, d.kind, d.text FROM docs d JOIN files f ON f.id = d.file ORDER BY 1, 2, 3"
    assert mine.conn.execute(q).fetchall() == fresh.conn.execute(q).fetchall()


def test_a_file_gone_while_indexed_is_one_error(folder: Folder, tmp_path: Path, monkeypatch) -> None:
    from tracetui.session.index import open_index, update
    from tracetui.session.index import scan as index_scan

    real = index_scan.fold_file

    def fold_then_gone(path, resume=None):
        r = real(path, resume)
        if path.endswith("b2.jsonl"):
            Path(path).unlink()
        return r

    monkeypatch.setattr(index_scan, "fold_file", fold_then_gone)
    stats = update(open_index(tmp_path / "idx.sqlite"), folder.root)
    assert len(stats.errors) == 1 and "b2.jsonl" in stats.errors[0]
    assert stats.new == CLAUDE_FILES + CODEX_FILES - 1


def test_messages_without_any_id_are_not_merged_across_files(tmp_path: Path) -> None:
    import json

    from tracetui.session.index import build_report, open_index, update

    def rec(sid: str, out: int) -> bytes:
        usage = {"input_tokens": 3, "output_tokens": out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        r = {
            "type": "assistant",
            "timestamp": "2026-03-02T10:00:00.000Z",
            "sessionId": sid,
            "message": {"model": "claude-opus-4-6", "role": "assistant", "content": [{"type": "text", "text": "x"}], "usage": usage},
        }
        return json.dumps(r).encode() + b"\n"

    root = tmp_path / "projects"
    (root / "-p").mkdir(parents=True)
    a, b = root / "-p" / "a.jsonl", root / "-p" / "b.jsonl"
    a.write_bytes(rec("a", 10))
    b.write_bytes(rec("b", 20))  # the same offset, no message id, request id or uuid
    index = open_index(tmp_path / "idx.sqlite")
    update(index, root)
    with a.open("ab") as f:
        f.write(rec("a", 40))  # grown: a second message without an id, at another offset
    update(index, root)
    rep = build_report(index.conn, "session")
    assert {g.key: (g.messages, g.tokens.output) for g in rep.rows} == {"a": (2, 50), "b": (1, 20)}
