"""The cross-session index database: where it lives, its schema, how it is opened.

One SQLite file, ``<cache folder>/index/sessions.sqlite`` (the cache folder of the session
store, store/db.py: ``$TRACETUI_CACHE_DIR`` or ``platformdirs.user_cache_dir("tracetui")``),
0600 in a 0700 folder, WAL mode (store/db.py ``connect``). It is a cache of the transcripts:
a database of another schema, tracetui version or fold code is emptied and built again, and a
corrupt one is deleted and built again.

Tables:

* ``meta(key, value)``: ``schema``, ``version``, ``code`` (:func:`index_code`), ``fts`` (whether
  the FTS5 table is there);
* ``files``: one row per transcript file: path (its text, ingest/files.py ``path_text``: the
  key; the walk's listing gives the file to read), inode, size, modification time (ns), resume
  offset and line, the head key (ingest/tail.py) and fingerprint (store/db.py) that tell a
  grown file from a rewritten one, its project folder, session id, agent (``"claude"`` or
  ``"codex"``: the agent whose fold its first record chose), role, working directory, first and
  last record timestamps, whether its records are sidechain records, its malformed lines, its
  records whose usage the fold rejected (a token count of another type or out of range:
  ``Counters.usage_rejected``) and the UTC day they are reported on (the day of the file's last
  record when the last of them was read), and for a rollout the Codex fold's resume state
  (model/codex_fold.py ``resume_state``, JSON);
* ``msgs``: per file and API message id, the message's UTC day, model and tokens as the fold's
  :class:`~tracetui.model.usage.UsageBook` of that file holds them (the max of each field over
  its records);
* ``messages``: every API message once across every file, as session/index/messages.py
  computes it from ``msgs`` (the file it is filed under, its day, model, price band, tokens);
* ``buckets``: the ``messages`` summed per file, day, model and price band (message count and
  tokens), what a report groups (a few rows a file instead of one a message);
* ``docs`` and ``docs_fts`` (FTS5, external content): the prompts and tool calls of each file,
  their text masked (ingest/secrets.py) before it is written;
* ``costs``: the cost estimates already computed, keyed by the priced buckets (a warm report
  does not import the price table).
"""

from __future__ import annotations

import hashlib
import sqlite3
from functools import lru_cache
from pathlib import Path

from tracetui.session.store.db import cache_dir, code_fingerprint, connect

__all__ = ["BUSY_MS", "INDEX_SCHEMA", "index_code", "index_path", "open_db", "create_schema", "drop_all", "has_fts5"]

#: version of the tables below; bump it when they change
INDEX_SCHEMA = 5
#: milliseconds a write waits for another process's write transaction before the index is
#: given up for this run (a private temporary index is built instead)
BUSY_MS = 2000

_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS files(id INTEGER PRIMARY KEY, path TEXT UNIQUE, inode INTEGER, size INTEGER, mtime_ns INTEGER,"
    " offset INTEGER, line INTEGER, head BLOB, fingerprint BLOB, project TEXT, session TEXT, agent TEXT, role TEXT, cwd TEXT,"
    " first_ts TEXT, last_ts TEXT, sidechain INTEGER, malformed INTEGER, resume BLOB, secrets BLOB, rejected INTEGER DEFAULT 0,"
    " rejected_day TEXT)",
    "CREATE TABLE IF NOT EXISTS msgs(file INTEGER, msg TEXT, day TEXT, model TEXT, input INTEGER, output INTEGER,"
    " cache_creation INTEGER, cache_read INTEGER, cache_write_1h INTEGER, PRIMARY KEY(file, msg)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS msgs_msg ON msgs(msg)",
    "CREATE TABLE IF NOT EXISTS messages(msg TEXT PRIMARY KEY, file INTEGER, day TEXT, model TEXT, band INTEGER, input INTEGER,"
    " output INTEGER, cache_creation INTEGER, cache_read INTEGER, cache_write_1h INTEGER) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS buckets(file INTEGER, day TEXT, model TEXT, band INTEGER, messages INTEGER, input INTEGER,"
    " output INTEGER, cache_creation INTEGER, cache_read INTEGER, cache_write_1h INTEGER, PRIMARY KEY(file, day, model, band))"
    " WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS docs(id INTEGER PRIMARY KEY, file INTEGER, line INTEGER, block INTEGER, kind TEXT, name TEXT,"
    " timestamp TEXT, text TEXT)",
    "CREATE INDEX IF NOT EXISTS docs_file ON docs(file)",
    "CREATE TABLE IF NOT EXISTS costs(key BLOB PRIMARY KEY, usd REAL, note TEXT) WITHOUT ROWID",
)
_FTS = "CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(text, name, content='docs', content_rowid='id')"
TABLES = ("meta", "files", "msgs", "messages", "buckets", "docs", "costs", "docs_fts")


@lru_cache(maxsize=1)
def index_code() -> str:
    """The fingerprint of the code whose output the index holds: the fold's
    (store/db.py :func:`~tracetui.session.store.db.code_fingerprint`) and this package's
    sources; an index written by other code is built again."""
    h = hashlib.sha256(code_fingerprint().encode())
    try:
        for f in sorted(Path(__file__).resolve().parent.glob("*.py")):
            h.update(f.name.encode())
            h.update(f.read_bytes())
    except OSError:
        pass
    return h.hexdigest()[:32]


def has_fts5(conn: sqlite3.Connection) -> bool:
    """Whether this Python's SQLite has the FTS5 extension (``tracetui search`` falls back to
    ``LIKE`` without it)."""
    try:
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp._fts5_probe USING fts5(x)")
        conn.execute("DROP TABLE temp._fts5_probe")
    except sqlite3.OperationalError:
        return False
    return True


def index_path() -> Path:
    """The index database file (it may not exist yet)."""
    return cache_dir() / "index" / "sessions.sqlite"


def open_db(path: Path | str, busy_ms: int | None = None) -> sqlite3.Connection:
    """A connection to the index at ``path`` (``""``: a private temporary one), created 0600 in
    a 0700 folder, waiting ``busy_ms`` (default :data:`BUSY_MS`) for a lock. Raises
    ``sqlite3.Error`` or ``OSError``."""
    return connect(path, BUSY_MS if busy_ms is None else busy_ms)


def create_schema(conn: sqlite3.Connection, fts: bool) -> None:
    """Create the missing tables (inside a write transaction); ``fts``: with the FTS5 table."""
    for sql in _TABLES:
        conn.execute(sql)
    if fts:
        conn.execute(_FTS)


def drop_all(conn: sqlite3.Connection) -> None:
    """Drop every index table (inside a write transaction), their pages overwritten with
    zeros: an index of older code may hold text that is masked now."""
    conn.execute("PRAGMA secure_delete=ON")
    for t in TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {t}")
