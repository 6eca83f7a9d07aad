"""Bring the cross-session index up to date with the transcripts under the projects folder and
the Codex CLI's rollouts (``$CODEX_HOME`` ``sessions/`` and ``archived_sessions/``, child rollouts
filed under their parent's session: ingest/session_files.py ``codex_transcripts``).

:func:`open_index` opens (or builds) the index and :func:`update` reads what changed:

* a file whose inode, size and modification time are the saved ones is not opened;
* a file that grew (same inode, at least the saved resume offset, the same fingerprint of its
  first bytes and of those before the resume offset: store/db.py ``fingerprint``) is read from
  its resume point (session/index/scan.py; a rollout's with the Codex fold's resume state the
  index saved: its cumulative token base and replay state);
* any other changed file (truncated, replaced, rewritten in place) is read again from the
  start, its old rows deleted; a file gone from the folder has its rows deleted.

Files are read outside any transaction, then written in short batches: a file's rows in the
transaction that moves its resume point, and only when its saved row is still the one the read
started from (another process may have indexed the file meanwhile: its rows are the same, and
are not written twice). The ``messages`` and ``buckets`` rows of the message ids a batch
touched are recomputed in the same transaction (session/index/messages.py).

A database that is corrupt is deleted and built again; one of another schema, tracetui version
or fold code is emptied and built again; one another process keeps locked longer than the busy
timeout is left alone and a private temporary index is built instead (the figures are the
same, only slower). None of them is a traceback.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tracetui import __version__
from tracetui.ingest.codex_discover import codex_dir
from tracetui.ingest.discover import is_session_file, projects_dir
from tracetui.ingest.files import open_regular, path_text
from tracetui.ingest.session_files import TranscriptFile, all_transcripts, codex_transcripts
from tracetui.session.index.db import INDEX_SCHEMA, create_schema, drop_all, has_fts5, index_code, index_path, open_db
from tracetui.session.index.masks import mask_folded, masked_text
from tracetui.session.index.messages import settle
from tracetui.session.store.db import fingerprint, remove_database

if TYPE_CHECKING:
    from tracetui.session.index.scan import Folded, Resume

__all__ = ["Index", "UpdateStats", "open_index", "update", "refresh", "AGENT"]

#: the agent a Claude Code transcript's rows are filed under (a rollout's are filed under
#: ``"codex"``: the agent is the one whose fold its first record chose, session/index/scan.py)
AGENT = "claude"
#: files, and rows, written per transaction at most (a cold build commits as it goes)
COMMIT_FILES = 200
COMMIT_ROWS = 50_000

_FILES = "SELECT id, path, inode, size, mtime_ns, offset, line, head, fingerprint, sidechain, agent, resume, session, project, role, secrets FROM files"


@dataclass
class Index:
    """An open index: its connection, whether it has FTS5, and ``note``: why it is not the
    shared one (``""`` when it is)."""

    conn: sqlite3.Connection
    fts: bool
    note: str = ""


@dataclass
class UpdateStats:
    """One :func:`update`: files found, files read (``grown`` from their resume point, ``redone``
    from the start), files dropped (gone), and the files that could not be read (one line each)."""

    files: int = 0
    grown: int = 0
    redone: int = 0
    new: int = 0
    dropped: int = 0
    errors: list[str] = field(default_factory=list)
    #: the folders looked in, in words (``~/.claude/projects or ~/.codex``): what a report or a
    #: search that found no file names
    looked_in: str = ""


def _meta_ok(conn: sqlite3.Connection, fts: bool) -> bool:
    """Whether the tables were written by this schema, version and code, with (or without) the
    FTS5 table as this SQLite can have it."""
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
    except sqlite3.OperationalError:
        return False
    return (
        meta.get("schema") == str(INDEX_SCHEMA)
        and meta.get("version") == __version__
        and meta.get("code") == index_code()
        and meta.get("fts") == str(int(fts))
    )


def _prepare(conn: sqlite3.Connection) -> bool:
    """Make the tables ready (emptied when written by another schema or code); returns whether
    FTS5 is there. Raises ``sqlite3.Error``."""
    fts = has_fts5(conn)
    if _meta_ok(conn, fts):
        return fts
    conn.execute("BEGIN IMMEDIATE")
    try:
        if not _meta_ok(conn, fts):
            drop_all(conn)
            create_schema(conn, fts)
            conn.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                [("schema", str(INDEX_SCHEMA)), ("version", __version__), ("code", index_code()), ("fts", str(int(fts)))],
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return fts


def _private(why: str) -> Index:
    conn = open_db("")
    return Index(conn, _prepare(conn), why)


def open_index(path: Path | None = None) -> Index:
    """The index at ``path`` (default :func:`~tracetui.session.index.db.index_path`), ready to
    update. Never raises for a missing, locked, foreign or corrupt database: a corrupt one is
    deleted and made anew, and when the file can't be used a private temporary index is
    returned (``Index.note`` says why)."""
    db = path or index_path()
    for attempt in (0, 1):
        try:
            conn = open_db(db)
        except OSError as exc:
            return _private(f"{db}: {exc.strerror or exc}")
        except sqlite3.OperationalError as exc:
            return _private(f"{db}: {exc}")
        except sqlite3.DatabaseError:
            if attempt == 0:
                remove_database(db)
                continue
            return _private(f"{db}: not a database")
        try:
            return Index(conn, _prepare(conn))
        except sqlite3.OperationalError as exc:
            conn.close()
            return _private(f"{db}: {exc}")
        except sqlite3.DatabaseError:
            conn.close()
            if attempt == 0:
                remove_database(db)  # damaged: a cache of the transcripts, built again
                continue
            return _private(f"{db}: not a database")
    return _private(f"{db}: not a database")  # pragma: no cover - the loop returns


def _delete_file_rows(conn: sqlite3.Connection, fid: int, fts: bool) -> list[str]:
    """Delete a file's messages and documents; returns the message ids it had."""
    had = [r[0] for r in conn.execute("SELECT msg FROM msgs WHERE file = ?", (fid,))]
    if fts:
        conn.execute(
            "INSERT INTO docs_fts(docs_fts, rowid, text, name) SELECT 'delete', id, text, name FROM docs WHERE file = ?",
            (fid,),
        )
    conn.execute("DELETE FROM docs WHERE file = ?", (fid,))
    conn.execute("DELETE FROM msgs WHERE file = ?", (fid,))
    return had


def _write(
    conn: sqlite3.Connection,
    fts: bool,
    fid: int | None,
    path: str,
    tf_project: str,
    tf_session: str | None,
    role: str,
    r: Folded,
    base: tuple | None,
    redo: bool,
    touched: set[str],
) -> None:
    """Write one file's read (inside a transaction): its files row, messages and documents;
    the message ids whose rows changed are added to ``touched``."""
    if fid is not None:
        now = conn.execute("SELECT offset, size, mtime_ns, inode FROM files WHERE id = ?", (fid,)).fetchone()
        if now != base:
            return  # indexed by another process since this one read the row
        if redo:
            touched.update(_delete_file_rows(conn, fid, fts))
    elif conn.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone() is not None:
        return  # indexed by another process meanwhile
    fp = r.fingerprint
    session = masked_text(tf_session or r.session_id or Path(path).stem)
    tf_project = masked_text(tf_project)
    if fid is None:
        cur = conn.execute(
            "INSERT INTO files(path, inode, size, mtime_ns, offset, line, head, fingerprint, project, session, agent, role, cwd,"
            " first_ts, last_ts, sidechain, malformed, resume, secrets, rejected, rejected_day)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (path, r.inode, r.size, r.mtime_ns, r.offset, r.line, r.head, fp, tf_project, session, r.agent, role, r.cwd,
             r.first_ts, r.last_ts, r.sidechain, r.malformed, r.resume, r.secrets, r.rejected, r.rejected_day),
        )  # fmt: skip
        fid = int(cur.lastrowid or 0)
    else:
        # a grown file keeps what its earlier part said (first timestamp, session, cwd when none since)
        conn.execute(
            "UPDATE files SET inode=?, size=?, mtime_ns=?, offset=?, line=?, head=?, fingerprint=?, project=?, session=?, agent=?, resume=?, role=?, secrets=?,"
            " cwd=COALESCE(?, CASE WHEN ? THEN NULL ELSE cwd END), first_ts=CASE WHEN ? THEN ? ELSE COALESCE(first_ts, ?) END,"
            " last_ts=COALESCE(?, CASE WHEN ? THEN NULL ELSE last_ts END), sidechain=?, malformed=CASE WHEN ? THEN ? ELSE malformed + ? END,"
            " rejected=CASE WHEN ? THEN ? ELSE rejected + ? END, rejected_day=COALESCE(?, CASE WHEN ? THEN NULL ELSE rejected_day END)"
            " WHERE id=?",
            (r.inode, r.size, r.mtime_ns, r.offset, r.line, r.head, fp, tf_project, session, r.agent, r.resume, role, r.secrets, r.cwd, redo, redo,
             r.first_ts, r.first_ts, r.last_ts, redo, r.sidechain, redo, r.malformed, r.malformed, redo, r.rejected, r.rejected,
             r.rejected_day, redo, fid),
        )  # fmt: skip
    if r.msgs:
        conn.executemany("INSERT OR REPLACE INTO msgs VALUES (?,?,?,?,?,?,?,?,?)", [(fid, *m) for m in r.msgs])
        touched.update(m[0] for m in r.msgs)
    if r.docs:
        start = conn.execute("SELECT COALESCE(MAX(id), 0) FROM docs").fetchone()[0] + 1
        rows = [(start + i, fid, *d) for i, d in enumerate(r.docs)]
        conn.executemany("INSERT INTO docs VALUES (?,?,?,?,?,?,?,?)", rows)
        if fts:
            conn.executemany("INSERT INTO docs_fts(rowid, text, name) VALUES (?,?,?)", [(x[0], x[7], x[5] or "") for x in rows])


def _relabel(row: tuple, tf: TranscriptFile) -> tuple | None:
    """``(session, project, role, file id)`` when ``tf``, an unchanged file, is filed under
    another session, project or role than its saved row says (a child rollout whose parent's
    rollout appeared or went, say: session_files.py ``codex_transcripts``), else ``None``. A file
    whose layout names no session (a 2.0.x ``agent-*.jsonl`` sibling) keeps what its records said."""
    if tf.session_id is None:
        return None
    label = (masked_text(tf.session_id), masked_text(tf.project), tf.role)
    return None if label == tuple(row[12:15]) else (*label, row[0])


def _plan(row: tuple | None, st: os.stat_result, path: str | Path) -> tuple[str, Resume | None]:
    """``("same" | "grow" | "redo" | "new", resume)`` for a file (``path``, opened) and its saved row."""
    if row is None:
        return "new", None
    _id, _p, inode, size, mtime_ns, offset, line, head, fp, sidechain, agent, state = row[:12]
    if (inode, size, mtime_ns) == (st.st_ino, st.st_size, st.st_mtime_ns):
        return "same", None
    if inode != st.st_ino or st.st_size < offset or (st.st_size == size and st.st_mtime_ns != mtime_ns):
        return "redo", None
    if agent != AGENT and state is None:
        return "redo", None  # a rollout whose fold state was not saved goes on from nothing
    try:
        if fingerprint(path, offset) != fp:
            return "redo", None
    except OSError:
        return "redo", None
    from tracetui.session.index.scan import Resume

    return "grow", Resume(offset, line, inode, head, None if sidechain is None else bool(sidechain), codex=state)


def _stray(tf: TranscriptFile) -> bool:
    """Whether ``tf`` is a main file that is no session by the rule every session list follows
    (discover.py :func:`~tracetui.ingest.discover.is_session_file`: its first line no transcript
    record), and so is not indexed: a stray file holding copies of another session's records
    would otherwise take that session's messages (the earliest file has them). A file that
    cannot be opened is not one: its read says why (``UpdateStats.errors``). A file that grew
    keeps its first line, so only a new or rewritten file is judged (one read of its first line)."""
    if tf.role != "main" or is_session_file(tf.path, tf.agent):
        return False
    try:
        with open_regular(tf.path):
            pass
    except OSError:
        return False
    return True


def _all_files(root: Path | None, codex_home: Path | None) -> list[TranscriptFile]:
    """The Claude Code transcripts under ``root`` and the rollouts under ``codex_home``, each
    path once (a file found in both layouts is filed as the projects folder has it)."""
    files = all_transcripts(root)
    have = {tf.path for tf in files}
    files += [tf for tf in codex_transcripts(codex_home) if tf.path not in have]
    return files


def update(
    index: Index, root: Path | None = None, progress: Callable[[int, int], None] | None = None, codex_home: Path | None = None
) -> UpdateStats:
    """Read into ``index`` what changed under ``root`` (default: the projects folder) and
    ``codex_home`` (default: ``$CODEX_HOME`` or ``~/.codex``) since the last update (see the
    module docstring). ``progress(done, total)`` is called per file read. Raises
    ``sqlite3.OperationalError`` when the database stays locked past its busy timeout
    (:func:`refresh` turns that into a private index)."""
    conn, fts = index.conn, index.fts
    files = _all_files(root, codex_home)
    saved = {r[1]: r for r in conn.execute(_FILES)}
    stats = UpdateStats(files=len(files), looked_in=f"{path_text(root or projects_dir())} or {path_text(codex_home or codex_dir())}")
    seen: set[str] = set()
    todo = []
    relabel = []
    for tf in files:
        path = path_text(tf.path)  # the row's key and what is shown; tf.path is what is opened
        try:
            st = os.stat(tf.path)
        except OSError as exc:
            seen.add(path)
            stats.errors.append(f"{path}: {exc.strerror or exc}")
            continue
        kind, resume = _plan(saved.get(path), st, tf.path)
        if kind in ("new", "redo") and _stray(tf):
            continue  # no session (``tracetui sessions`` leaves it out too): rows it had are dropped below
        seen.add(path)
        if kind != "same":
            todo.append((tf, path, kind, resume))
        elif (label := _relabel(saved[path], tf)) is not None:
            relabel.append(label)
    if relabel:  # an unchanged file filed under another session now (its parent rollout appeared or went)
        with _writing(conn):
            conn.executemany("UPDATE files SET session = ?, project = ?, role = ? WHERE id = ?", relabel)
    gone = [r[0] for p, r in saved.items() if p not in seen]
    if gone:
        with _writing(conn):
            touched: set[str] = set()
            for fid in gone:
                touched.update(_delete_file_rows(conn, fid, fts))
                conn.execute("DELETE FROM files WHERE id = ?", (fid,))
            settle(conn, touched)
        stats.dropped = len(gone)
    if todo:  # the fold's modules, only when a file is to be read (a warm report reads none)
        from tracetui.session.index.scan import fold_file
    # files are read outside any transaction and written in short ones: another process's
    # report waits for a batch's inserts at most, never for the reading
    batch: list[tuple] = []
    rows = 0
    for n, (tf, path, kind, resume) in enumerate(todo, 1):
        row = saved.get(path)
        if resume is not None and row is not None:
            resume.secrets = row[15]  # the secrets found before the resume point (digests)
        if resume is not None and row is not None and resume.codex is None:
            resume.msgs = conn.execute(
                "SELECT msg, day, model, input, output, cache_creation, cache_read, cache_write_1h FROM msgs WHERE file = ?", (row[0],)
            ).fetchall()
        r = fold_file(str(tf.path), resume)
        if r.reset and resume is not None:  # changed under the read, or a resume state of other code: from the start
            kind, r = "redo", fold_file(str(tf.path), None)
        if not r.error and not r.reset:
            try:
                r.fingerprint = fingerprint(str(tf.path), r.offset)
            except OSError as exc:
                r.error = f"{path}: {exc.strerror or exc}"
        if r.error or r.reset:
            stats.errors.append(r.error or f"{path}: changed while read")
            continue
        batch.append((tf, path, kind, row, mask_folded(r)))
        rows += len(r.msgs) + len(r.docs)
        name = {"new": "new", "grow": "grown", "redo": "redone"}[kind]
        setattr(stats, name, getattr(stats, name) + 1)
        if len(batch) >= COMMIT_FILES or rows >= COMMIT_ROWS:
            _flush(conn, fts, batch)
            batch, rows = [], 0
        if progress is not None:
            progress(n, len(todo))
    if batch:
        _flush(conn, fts, batch)
    return stats


@contextmanager
def _writing(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (``BEGIN IMMEDIATE``), rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _flush(conn: sqlite3.Connection, fts: bool, batch: list[tuple]) -> None:
    with _writing(conn):
        touched: set[str] = set()
        for tf, path, kind, row, r in batch:
            base = (row[5], row[3], row[4], row[2]) if row is not None else None
            _write(conn, fts, row[0] if row else None, path, tf.project, tf.session_id, tf.role, r, base, kind == "redo", touched)
        settle(conn, touched)


def refresh(
    root: Path | None = None,
    path: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    codex_home: Path | None = None,
) -> tuple[Index, UpdateStats]:
    """Open the index (``path``, default the cache folder's) and update it from ``root`` and
    ``codex_home`` (as for :func:`update`); when
    the shared index is locked by another process past the busy timeout, or damaged beyond
    rebuilding, a private temporary index is built instead (``Index.note`` says why).
    ``progress`` as for :func:`update`. Never raises for the database; ``OSError`` only as a file's read error in the stats."""
    index = open_index(path)
    try:
        return index, update(index, root, progress, codex_home)
    except sqlite3.OperationalError as exc:
        why = f"{path or index_path()}: {exc}"
    except sqlite3.DatabaseError as exc:
        why = f"{path or index_path()}: {exc}"
        index.conn.close()
        remove_database(path or index_path())
        index = open_index(path)
        try:
            return index, update(index, root, progress, codex_home)
        except sqlite3.DatabaseError:
            pass
    index.conn.close()
    private = _private(why)
    return private, update(private, root, progress, codex_home)
