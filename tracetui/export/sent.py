"""What was exported, remembered: one SQLite database beside the session stores.

``<cache dir>/export/otlp.sqlite`` (``$TRACETUI_CACHE_DIR`` or the user cache folder, as the
session store, ``tracetui.session.store.cache_dir``), created 0600 in a 0700 folder. One table,
``sent(endpoint, session, key)``: the span and span-event keys (``tracetui.export.spans``) that
an OTLP endpoint acknowledged for a session, and for a span that may still change the version
it went at (``rev:<version>:<key>``, tracetui/export/revise.py). A key is written only after the exporter reported
success, in the transaction of that batch, so a run that stops anywhere (a crash, Ctrl-C, an
unreachable collector) sends again at most the batch whose answer it did not record, and never
skips one it did not send. Kept per endpoint: exporting to a second collector sends it all.

The endpoint is kept as ``sha256:`` and the SHA-256 of its URL, never the URL itself: a URL may
carry credentials (``https://user:token@host``, ``?api_key=...``), and this file outlives the
run. A row an older version wrote under the plain URL is moved to its digest on the first open
for that endpoint (``PRAGMA secure_delete`` overwrites the freed bytes).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from tracetui.session.store.db import cache_dir, connect

__all__ = ["SentLedger", "sent_path", "endpoint_key"]

_TABLE = "CREATE TABLE IF NOT EXISTS sent(endpoint TEXT, session TEXT, key TEXT, PRIMARY KEY(endpoint, session, key)) WITHOUT ROWID"


def endpoint_key(endpoint: str) -> str:
    """What the ledger keeps for ``endpoint`` (a URL): ``"sha256:"`` and 64 hex digits."""
    return "sha256:" + hashlib.sha256(endpoint.encode("utf-8", "surrogatepass")).hexdigest()


def sent_path() -> Path:
    """The database file (it may not exist yet)."""
    return cache_dir() / "export" / "otlp.sqlite"


class SentLedger:
    """The keys exported to ``endpoint``, per session. Raises ``sqlite3.Error`` or ``OSError``
    when the database cannot be opened or written (the caller says so in one line)."""

    def __init__(self, endpoint: str, path: Path | None = None) -> None:
        #: the endpoint as the rows name it (its digest: see the module's docstring)
        self.endpoint = endpoint_key(endpoint)
        self.path = path or sent_path()
        self._conn = connect(self.path, busy_ms=5000)
        # an acknowledged batch must survive a power cut too, or it would be sent again
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute("PRAGMA secure_delete=ON")
        self._conn.execute(_TABLE)
        self._move_plain(endpoint)

    def _move_plain(self, endpoint: str) -> None:
        """Rename the rows kept under the plain URL ``endpoint`` to its digest."""
        conn = self._conn
        if conn.execute("SELECT 1 FROM sent WHERE endpoint = ? LIMIT 1", (endpoint,)).fetchone() is None:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("UPDATE OR IGNORE sent SET endpoint = ? WHERE endpoint = ?", (self.endpoint, endpoint))
            conn.execute("DELETE FROM sent WHERE endpoint = ?", (endpoint,))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def keys(self, session: str) -> set[str]:
        """Every key of ``session`` already exported to this endpoint."""
        rows = self._conn.execute("SELECT key FROM sent WHERE endpoint = ? AND session = ?", (self.endpoint, session))
        return {k for (k,) in rows}

    def mark(self, session: str, keys: Iterable[str]) -> None:
        """Record ``keys`` of ``session`` as exported (one transaction; repeats are ignored)."""
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT OR IGNORE INTO sent(endpoint, session, key) VALUES (?, ?, ?)", ((self.endpoint, session, k) for k in keys)
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        try:
            self._conn.close()
        except sqlite3.Error:
            pass
