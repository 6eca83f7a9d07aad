"""The session database: where it lives, its schema, and how a connection is opened.

One SQLite file per session (the main transcript named by the user plus its subagent files)
under ``platformdirs.user_cache_dir("tracetui")/store`` (``$TRACETUI_CACHE_DIR`` overrides the
folder), created 0700 with the database 0600. WAL mode and ``synchronous=NORMAL``: readers never
wait for the writer, and a commit costs no fsync (a crash can lose the last commits, never
corrupt the file; the store is a cache of the transcript, rebuilt from it when in doubt). A
build from the start writes with ``synchronous=OFF`` (its checkpoints wait for no disk: a
quarter of a 500 MB first open) until its save, which syncs the file first: before that the
database holds no state to resume from, and an OS crash that damaged it costs a rebuild.

Tables (``SCHEMA`` is their version; a database of another version is emptied and rebuilt):

* ``meta(key, value)``: ``schema``, ``version`` (tracetui's), ``code`` (the fold code's
  fingerprint), ``paths`` and ``subagents`` (what was named), ``known`` (files seen),
  ``prices`` (the cost memo), as msgpack values;
  (every path as its text, ingest/files.py ``path_text``: valid UTF-8 whatever the name's bytes);
* ``sources``: per file its path (its text, mapped back to the file through the listing on a
  resume: store/reader.py), inode, size, modification time, resume offset and line, the
  held head bytes, the head/tail fingerprint, and how many events and history snapshots of it
  the saved state covers;
* ``events``: the ledger, one row per event (``id`` is ``src << 40 | seq``; canonical UUIDs
  as their 16 bytes, a usage as a msgpack array; store/event_rows.py ``event_row``), indexed by
  the tool_use id of its ``tool_use`` events (a closed call is found again there, store/calls.py);
* ``history``: the per-prompt :class:`~tracetui.model.state.AgentState` snapshots (store/history.py);
* ``episodes``: every version of every episode (zlib-compressed msgpack, with its lifecycle,
  status and count of errors a retry resolved as columns, and its position in the book's
  versions: the fold state leaves them out, a fold writes them as it makes them and reads them
  back when asked for, store/episodes.py);
* ``episode_keys``: per file, the index, version and resolved flag of every saved episode
  version by position, and the positions in (index, version) order, as packed arrays written
  with the save (a reopen reads one row, not every version's; store/episodes.py);
* ``fold``: the compact fold state at the resume point (store/codec.py), one row per attribute
  of the session fold (owner -1) and of each file fold (owner = its source).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import msgspec

from tracetui.ingest.private import FILE_MODE, private_dir

__all__ = [
    "SCHEMA",
    "remove_database",
    "FP_BYTES",
    "saved_fold_rows",
    "MAX_STORE_BYTES",
    "cache_dir",
    "cache_path",
    "connect",
    "code_fingerprint",
    "fingerprint",
    "create_schema",
    "meta_values",
    "rebuild",
    "prune",
    "SRC_SHIFT",
]

#: version of the tables below; bump it when they change
SCHEMA = 7
#: bytes hashed at the start of a file and before its resume offset (the fingerprint)
FP_BYTES = 4096
#: the store folder is pruned (least recently written sessions first) above this many bytes
MAX_STORE_BYTES = 4 << 30
#: bytes the WAL file is cut back to after a checkpoint
WAL_LIMIT = 16 << 20
#: an event's row id is ``src << SRC_SHIFT | seq``: ordered by source then sequence, no index
SRC_SHIFT = 40

_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS sources(src INTEGER PRIMARY KEY, path TEXT, inode INTEGER, size INTEGER, mtime_ns INTEGER,"
    " offset INTEGER, line INTEGER, head BLOB, fingerprint BLOB, events INTEGER, history INTEGER)",
    "CREATE TABLE IF NOT EXISTS events(id INTEGER PRIMARY KEY, kind TEXT, line INTEGER, offset INTEGER, uuid TEXT,"
    " block INTEGER, tool_use_id TEXT, message_id TEXT, sha256 BLOB, excerpt TEXT, status TEXT, name TEXT,"
    " parent_uuid TEXT, timestamp TEXT, is_error INTEGER, sidechain INTEGER, usage BLOB)",
    # a closed tool call is found again by its tool_use event (store/calls.py)
    "CREATE INDEX IF NOT EXISTS events_tool_use ON events(tool_use_id) WHERE kind = 'tool_use'",
    "CREATE TABLE IF NOT EXISTS history(src INTEGER, idx INTEGER, state BLOB, PRIMARY KEY(src, idx)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS episodes(src INTEGER, idx INTEGER, version INTEGER, lifecycle TEXT, status TEXT,"
    " made_at INTEGER, pos INTEGER, episode BLOB, resolved INTEGER, PRIMARY KEY(src, idx, version)) WITHOUT ROWID",
    # one row per saved position (the open episodes' NULL aside): a reopen counts them here
    "CREATE UNIQUE INDEX IF NOT EXISTS episodes_pos ON episodes(src, pos)",
    "CREATE TABLE IF NOT EXISTS episode_keys(src INTEGER PRIMARY KEY, n INTEGER, idx BLOB, ver BLOB, resolved BLOB, ord BLOB)",
    "CREATE TABLE IF NOT EXISTS fold(part INTEGER PRIMARY KEY, owner INTEGER, name TEXT, desc TEXT, raw BLOB)",
)
#: every table, in the order a rebuild empties them
TABLES = ("meta", "sources", "events", "history", "episodes", "episode_keys", "fold")


def cache_dir() -> Path:
    """``$TRACETUI_CACHE_DIR`` if set, else ``platformdirs.user_cache_dir("tracetui")``."""
    env = os.environ.get("TRACETUI_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("tracetui"))


def _session_key(paths: list[Path], subagents: bool) -> str:
    names = [str(Path(p).resolve()) for p in paths]
    return hashlib.sha256("\0".join([*names, str(subagents)]).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def cache_path(paths: list[Path], subagents: bool = True) -> Path:
    """The database file of this list of named files (it may not exist yet)."""
    return cache_dir() / "store" / f"{_session_key(paths, subagents)}.sqlite"


#: saves of a process between two prunes of the store folder: a prune reads every database's
#: size, so one per save made a listing of 5,000 sessions quadratic (9 of its 12 s cold for
#: 1,000, sixth user trial); the folder may run past its cap by what the saves between write
PRUNE_EVERY = 100
_saves = 0


def prune_now() -> bool:
    """Whether this save of the process prunes the store folder: its first, then one in
    :data:`PRUNE_EVERY`."""
    global _saves
    _saves += 1
    return _saves % PRUNE_EVERY == 1


def prune(folder: Path, keep: Path, max_bytes: int) -> None:
    """Delete the least recently written session databases (with their WAL and shared-memory
    files) while ``folder`` holds more than ``max_bytes``; never ``keep``. Errors are ignored
    (a database another process has open lives on until it closes it)."""
    try:
        groups: dict[Path, list[tuple[os.stat_result, Path]]] = {}
        for p in folder.iterdir():
            base = p.with_name(p.name.split(".sqlite")[0] + ".sqlite") if ".sqlite" in p.name else None
            if base is not None:
                groups.setdefault(base, []).append((p.stat(), p))
    except OSError:
        return
    total = sum(st.st_size for g in groups.values() for st, _ in g)
    for base, g in sorted(groups.items(), key=lambda kv: max(st.st_mtime for st, _ in kv[1])):
        if total <= max_bytes:
            break
        if base == keep:
            continue
        for st, p in g:
            try:
                p.unlink()
                total -= st.st_size
            except OSError:
                pass


def connect(path: Path | str, busy_ms: int = 100) -> sqlite3.Connection:
    """A connection to the database at ``path`` (created 0600 in a 0700 folder when missing;
    ``""`` a private temporary database), in WAL mode, autocommit (transactions are explicit:
    ``BEGIN IMMEDIATE`` to write). ``busy_ms``: how long a statement waits for a lock held by
    another connection before ``sqlite3.OperationalError`` ("database is locked").
    Raises ``sqlite3.Error`` or ``OSError``."""
    if path != "":
        p = Path(path)
        private_dir(p.parent)  # the database holds transcript text (ingest/private.py)
        if not p.exists():
            os.close(os.open(p, os.O_CREAT | os.O_WRONLY, FILE_MODE))
    conn = sqlite3.connect(str(path), timeout=busy_ms / 1000, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
        if path != "":
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
        conn.execute("PRAGMA synchronous=NORMAL")
    except BaseException:
        conn.close()
        raise
    return conn


#: a saved value at least this long is read in pieces (sqlite3 would assemble it whole, then
#: copy it into a bytes: two copies at once of the largest part of a warm reopen)
BLOB_PIECES = 1 << 20
_PIECE = 1 << 18


def saved_fold_rows(conn: sqlite3.Connection) -> Iterator[tuple[int, str, str, bytes | bytearray]]:
    """The ``fold`` table's ``(owner, name, desc, raw)`` rows in order, each long ``raw`` read
    with incremental blob I/O into a ``bytearray`` of its size. Raises ``sqlite3.Error``."""
    rows = conn.execute(
        "SELECT part, owner, name, desc, CASE WHEN length(raw) < ? THEN raw END, length(raw) FROM fold ORDER BY part", (BLOB_PIECES,)
    )
    for part, owner, name, desc, raw, n in rows:
        if raw is None and n is not None:
            buf = bytearray(n)
            view = memoryview(buf)
            with conn.blobopen("fold", "raw", part, readonly=True) as blob:
                for o in range(0, n, _PIECE):
                    view[o : o + _PIECE] = blob.read(_PIECE)
            view.release()
            raw = buf
        yield owner, name, desc, raw


def create_schema(conn: sqlite3.Connection) -> None:
    """Create the tables that are missing (call inside a write transaction)."""
    for sql in _TABLES:
        conn.execute(sql)


def meta_values(conn: sqlite3.Connection) -> dict[str, Any]:
    """The ``meta`` table of ``conn``'s database, each value decoded. Raises ``sqlite3.Error``
    (no table, a locked or broken file) and ``msgspec.DecodeError`` (a value not msgpack)."""
    return {k: msgspec.msgpack.decode(v) for k, v in conn.execute("SELECT key, value FROM meta")}


def rebuild(conn: sqlite3.Connection) -> None:
    """Make the database ready for a fold from the start (the writer's first transaction, in the
    store's writer process too: here, so that process imports no reader or fold): tables of
    another schema (or unreadable ones) are dropped and made anew; with the right schema, only
    the saved state goes (it is not this fold's), not the rows another process folding the same
    bytes may be writing (they are the same rows)."""
    try:
        schema = meta_values(conn).get("schema")
    except (sqlite3.Error, msgspec.DecodeError):
        schema = None
    if schema != SCHEMA:
        for t in TABLES:
            conn.execute(f"DROP TABLE IF EXISTS {t}")
        create_schema(conn)
    else:
        conn.execute("DELETE FROM fold")
        conn.execute("DELETE FROM sources")
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (msgspec.msgpack.encode(SCHEMA),))


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 over the source of the modules whose code decides the fold's state and how it is
    stored (``tracetui/ingest``, ``tracetui/model``, ``tracetui/session``): a database written by
    other code (an upgrade, a development change that keeps the version string) is not resumed
    from. ``"?"`` when the sources can't be read (then the version check alone applies)."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    try:
        for sub in ("ingest", "model", "session", "session/store"):
            for f in sorted((root / sub).glob("*.py")):
                h.update(f.name.encode())
                h.update(f.read_bytes())
    except OSError:
        return "?"
    return h.hexdigest()[:32]


def fingerprint(path: str | os.PathLike[str], offset: int) -> bytes:
    """SHA-256 over the first and the last :data:`FP_BYTES` bytes before ``offset`` of the
    file at ``path``. Raises ``OSError`` (``NotRegularFile`` for a FIFO or device, never opened)."""
    from tracetui.ingest.files import open_regular

    h = hashlib.sha256()
    with open_regular(path) as f:  # a file replaced by a FIFO must not block
        h.update(f.read(min(FP_BYTES, offset)))
        if offset > FP_BYTES:
            start = max(FP_BYTES, offset - FP_BYTES)
            f.seek(start)
            h.update(f.read(offset - start))
    return h.digest()


def remove_database(db: Path) -> None:
    """Delete the SQLite database ``db`` with its WAL and shared-memory files (those missing are
    no error); other ``OSError`` is raised."""
    for p in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        try:
            p.unlink()
        except FileNotFoundError:
            pass
