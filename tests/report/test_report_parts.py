"""The pieces the cross-session index stands on: one walk finds what the per-session discovery
finds, and a usage book gives a message back wherever it holds it."""

from __future__ import annotations

from pathlib import Path

from report_folder import Folder

from tracetui.demo.transcript import TranscriptBuilder
from tracetui.ingest.discover import all_transcripts, list_sessions, subagent_files
from tracetui.model.usage import RECENT_IDS, UsageBook
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
    for s in list_sessions(folder.root):
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
    for i in range(RECENT_IDS + 10):
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
