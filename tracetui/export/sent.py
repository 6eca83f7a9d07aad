"""What was exported, remembered: one SQLite database beside the session stores.

``<cache dir>/export/otlp.sqlite`` (``$TRACETUI_CACHE_DIR`` or the user cache folder, as the
session store, ``tracetui.session.store.cache_dir``), created 0600 in a 0700 folder. One table,
``sent(endpoint, session, key)``: the span and span-event keys (``tracetui.export.spans``) that
an OTLP endpoint acknowledged for a session, and for a span that may still change the version
it went at (``rev:<version>:<key>``, tracetui/export/revise.py). A key is written only after the exporter reported
success, in the transaction of that batch, so a run that stops anywhere (a crash, Ctrl-C, an
unreachable collector) sends again at most the batch whose answer it did not record, and never
skips one it did not send. Kept per endpoint: exporting to a second collector sends it all.

The endpoint is kept as ``sha256:`` and the SHA-256 of its URL without its credentials
(:func:`endpoint_identity`: no user info, no query parameter that is a credential), never the URL
itself: a URL may carry credentials (``https://user:token@host``, ``?api_key=...``), and this file
outlives the run. So the same collector is the same endpoint whatever credentials reach it: moved
from the URL to ``--headers`` (or rotated), they send nothing again. A row an older version wrote
under the plain URL, or under the digest of the whole URL, is moved to the digest on the first
open for that endpoint (``PRAGMA secure_delete`` overwrites the freed bytes).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from tracetui.session.store.db import cache_dir, connect

__all__ = ["SentLedger", "sent_path", "endpoint_key", "endpoint_identity"]

_TABLE = "CREATE TABLE IF NOT EXISTS sent(endpoint TEXT, session TEXT, key TEXT, PRIMARY KEY(endpoint, session, key)) WITHOUT ROWID"


#: a query parameter's name that says it is a credential (``api_key``, ``token``, ``sig``...)
_CREDENTIAL_NAME = re.compile(r"key|token|secret|pass|pwd|auth|sig|cred", re.IGNORECASE)


def endpoint_identity(endpoint: str) -> str:
    """The collector ``endpoint`` (a URL) names, without the credentials it may carry: the scheme
    and host lower-cased, the port, the path, and the query parameters but those whose name says
    a credential (:data:`_CREDENTIAL_NAME`) or whose value holds a secret the detectors find
    (``tracetui.ingest.secrets``); no user info, no fragment. ``endpoint`` as it is when it is no
    URL with a host."""
    from tracetui.ingest.secrets import redact

    try:
        parts = urlsplit(endpoint)
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is no number
        return endpoint
    if not host:
        return endpoint
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _CREDENTIAL_NAME.search(k) and not redact(v)[1]]
    return urlunsplit((parts.scheme.lower(), netloc, parts.path, urlencode(query), ""))


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def endpoint_key(endpoint: str) -> str:
    """What the ledger keeps for ``endpoint`` (a URL): ``"sha256:"`` and 64 hex digits, of
    :func:`endpoint_identity` (the URL without its credentials)."""
    return _digest(endpoint_identity(endpoint))


def sent_path() -> Path:
    """The database file (it may not exist yet)."""
    return cache_dir() / "export" / "otlp.sqlite"


class SentLedger:
    """The keys exported to ``endpoint``, per session. Raises ``sqlite3.Error`` or ``OSError``
    when the database cannot be opened or written (the caller says so in one line)."""

    def __init__(self, endpoint: str, path: Path | None = None) -> None:
        #: the endpoint as the rows name it (the digest of its URL without credentials: see the
        #: module's docstring)
        self.endpoint = endpoint_key(endpoint)
        self.path = path or sent_path()
        self._conn = connect(self.path, busy_ms=5000)
        # an acknowledged batch must survive a power cut too, or it would be sent again
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute("PRAGMA secure_delete=ON")
        self._conn.execute(_TABLE)
        for old in (endpoint, _digest(endpoint)):
            if old != self.endpoint:
                self._move(old)

    def _move(self, old: str) -> None:
        """Rename the rows kept under ``old`` (the plain URL, or the digest of the whole URL,
        credentials included, that older versions kept) to :attr:`endpoint`."""
        conn = self._conn
        if conn.execute("SELECT 1 FROM sent WHERE endpoint = ? LIMIT 1", (old,)).fetchone() is None:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("UPDATE OR IGNORE sent SET endpoint = ? WHERE endpoint = ?", (self.endpoint, old))
            conn.execute("DELETE FROM sent WHERE endpoint = ?", (old,))
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
