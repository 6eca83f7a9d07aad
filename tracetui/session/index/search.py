"""Search the prompts and tool calls of every indexed session (SQLite FTS5, else ``LIKE``).

The text searched is what the index keeps: each prompt's text (Claude Code's human prompts,
Codex's ``event_msg user_message``) and each tool call's name and input excerpt (a Codex
``function_call``, ``custom_tool_call`` or ``local_shell_call`` too), masked before they were written (session/index/scan.py), so a secret the
transcript held can neither be found nor given out.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

__all__ = ["Hit", "search", "fts_query"]


@dataclass
class Hit:
    """One match: the transcript file and 1-based line it comes from, the kind (``prompt`` or
    ``tool_use``), the tool's name (a prompt's form: ``text``, ``slash``, ``bash``), the
    record's timestamp, the session, project (a Claude Code project folder, a rollout's working
    folder) and agent (``claude`` | ``codex``), and the indexed text."""

    path: str
    line: int
    kind: str
    name: str | None
    timestamp: str | None
    session: str
    project: str
    agent: str
    text: str

    @property
    def anchor(self) -> str:
        return f"{self.path}:{self.line}"


def fts_query(text: str) -> str:
    """``text`` as an FTS5 query matching every one of its words (each a quoted string, so
    FTS5's operators and punctuation in ``text`` are taken literally); ``""`` for no word."""
    words = text.split()
    return " ".join('"' + w.replace('"', '""') + '"' for w in words)


_COLS = "d.text, d.kind, d.name, d.timestamp, d.line, f.path, f.session, f.project, f.agent"


def search(conn: sqlite3.Connection, text: str, fts: bool, limit: int = 20, agent: str | None = None) -> list[Hit]:
    """The prompts and tool calls holding every word of ``text`` (FTS5: whole words, prefix
    with ``word*`` not offered; ``LIKE``: substrings, case-insensitive for ASCII), best first
    (FTS5's bm25 rank, then the newest), at most ``limit``; with ``agent`` (``"claude"`` |
    ``"codex"``), only that agent's files. Raises ``sqlite3.Error``."""
    q = fts_query(text)
    if not q:
        return []
    only = " AND f.agent = ?" if agent else ""
    narrow: tuple[object, ...] = (agent,) if agent else ()
    if fts:
        sql = (
            f"SELECT {_COLS} FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid JOIN files f ON f.id = d.file"
            f" WHERE docs_fts MATCH ?{only} ORDER BY bm25(docs_fts), d.timestamp DESC, f.path, d.line LIMIT ?"
        )
        rows = conn.execute(sql, (q, *narrow, limit)).fetchall()
    else:
        words = text.split()
        cond = " AND ".join("(d.text LIKE ? ESCAPE '\\' OR d.name LIKE ? ESCAPE '\\')" for _ in words)
        args: list[object] = []
        for w in words:
            pat = "%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            args += [pat, pat]
        sql = (
            f"SELECT {_COLS} FROM docs d JOIN files f ON f.id = d.file WHERE {cond}{only} ORDER BY d.timestamp DESC, f.path, d.line LIMIT ?"
        )
        rows = conn.execute(sql, (*args, *narrow, limit)).fetchall()
    return [Hit(r[5], r[4], r[1], r[2], r[3], r[6], r[7], r[8], r[0]) for r in rows]
