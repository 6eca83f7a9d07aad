"""Opening a session's database: resume the fold from the state saved there when valid, else fold anew.

:func:`open_cached` opens (or creates) the session's database (store/db.py) and, when the state
saved there is valid for the files as they are now, restores the fold from it and reads only the
bytes appended since. Valid means all of these hold, else the session is folded from the start
(never a wrong state):

* same schema (:data:`~tracetui.session.store.db.SCHEMA`), same tracetui version, same fold
  code (:func:`~tracetui.session.store.db.code_fingerprint`), same named paths, same
  ``subagents`` flag;
* for every saved file: same inode, size at least the saved resume offset, not rewritten in
  place (same size, other modification time), and the same fingerprint (first
  :data:`~tracetui.session.store.db.FP_BYTES` bytes and those before the resume offset);
* the subagent files discovered now start with the saved ones, in the same order;
* the database opens and its rows decode. A corrupt file is deleted and rebuilt; a database
  another process keeps locked costs this process its save, never its figures.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from tracetui import __version__
from tracetui.ingest.files import path_text
from tracetui.session.store.db import (
    SCHEMA,
    cache_path,
    code_fingerprint,
    connect,
    create_schema,
    fingerprint,
    meta_values,
    rebuild,
    remove_database,
)
from tracetui.session.store.ledger import Store
from tracetui.session.store.pool import Link
from tracetui.session.store.reader import _SOURCES, SAVE_BUSY_MS, WRITE_BUSY_MS, StoreReader, listing

__all__ = ["open_cached", "open_private"]


def _why_stale(
    conn: sqlite3.Connection, meta: dict[str, Any], paths: list[Path], subagents: bool, files: list[tuple[str, str]]
) -> str | None:
    """Why the saved state cannot be resumed from, or ``None`` when it can (``files``: the
    :func:`~tracetui.session.store.reader.listing` of ``paths``)."""
    if meta.get("schema") != SCHEMA:
        return f"store schema {meta.get('schema')} != {SCHEMA}"
    if meta.get("version") != __version__:
        return f"written by tracetui {meta.get('version')}, this is {__version__}"
    if meta.get("code") != code_fingerprint():
        return "written by other fold code (same version)"
    if meta.get("paths") != [path_text(p) for p in paths] or meta.get("subagents") != subagents:
        return "other files"
    saved = conn.execute(_SOURCES).fetchall()
    if not saved:
        return "no saved fold state"
    real = dict(files)
    for _src, path, inode, size, mtime_ns, offset, _line, _head, fp, _n, _h in saved:
        file = real.get(path, path)  # the text of the path saved, mapped back to the file
        try:
            st = os.stat(file)
        except OSError:
            return f"{path}: gone"
        if st.st_ino != inode:
            return f"{path}: replaced"
        if st.st_size < offset:
            return f"{path}: truncated"
        if st.st_size == size and st.st_mtime_ns != mtime_ns:
            # written to without growing: an edit in place, anywhere in the file (the
            # fingerprints below cover only the start and the bytes before the resume offset)
            return f"{path}: rewritten in place"
        try:
            if fingerprint(file, offset) != fp:
                return f"{path}: rewritten"
        except OSError:
            return f"{path}: unreadable"
    # the files a fresh fold would read first must be the saved ones, in the same order
    expect = [text for text, _ in files]
    names = [r[1] for r in saved]
    if expect[: len(names)] != names:
        return "subagent files changed"
    return None


def open_private(paths: list[Path], subagents: bool = True, price: bool = True) -> StoreReader:
    """A reader for ``paths`` folding from the start with its ledger and history in a private
    temporary database (deleted when the reader's connection closes): memory bounded as with
    the session store, nothing resumed from or saved (``--no-cache``)."""
    return _private([Path(p) for p in paths], subagents, price, "")


def _private(paths: list[Path], subagents: bool, price: bool, why: str) -> StoreReader:
    link = Link("", 0, connect(""))  # one connection (its database lives as long as it)
    store = Store(link, link, before_write=create_schema, mask=False)
    reader = StoreReader(paths, store, subagents=subagents, price=price, shared=False)
    reader.cache_status = f"off: {why}" if why else "off"
    return reader


def open_cached(paths: list[Path], subagents: bool = True, price: bool = True, lazy: bool = False) -> StoreReader:
    """A reader for ``paths`` with its ledger in the session database, resumed from the state
    saved there when it is valid, else folding from the start (and saving with
    :meth:`StoreReader.save_cache`). Never raises for a missing, locked, stale, foreign or
    corrupt database; ``reader.cache_status`` says which. (``lazy`` is accepted for the callers
    of the former cache: nothing of the ledger or the history is read until asked for.)"""
    paths = [Path(p) for p in paths]
    db = cache_path(paths, subagents)
    note = ""
    for attempt in (0, 1):
        try:
            rconn = connect(db, SAVE_BUSY_MS)  # the writer's connection opens at the first write
        except OSError as exc:
            return _private(paths, subagents, price, f"{db}: {exc.strerror or exc}")
        except sqlite3.DatabaseError as exc:
            if attempt == 0 and not isinstance(exc, sqlite3.OperationalError):  # not "locked"
                remove_database(db)  # not a database (or damaged beyond opening): rebuilt from the transcript
                note = f"invalid: {exc} (rebuilt)"
                continue
            return _private(paths, subagents, price, f"{db}: {exc}")
        break
    w, r = Link(str(db), WRITE_BUSY_MS), Link(str(db), SAVE_BUSY_MS, rconn)
    reader = StoreReader(paths, Store(w, r, before_write=rebuild), subagents=subagents, price=price)
    try:
        with r.lock:  # the pool closes no connection while it is read
            rconn = r.get()
            try:
                meta = meta_values(rconn)
            except sqlite3.OperationalError as exc:
                if "no such table" not in str(exc):
                    raise
                meta = {}
            if set(meta) <= {"schema"}:  # nothing saved yet
                reader.cache_status = note or "cold"
                return reader
            files = listing(paths, subagents)  # one walk of the subagent files for both
            why = _why_stale(rconn, meta, paths, subagents, files)
            if why is None:
                reader._restore(rconn, meta, files)
                reader.cache_status = "warm"
            else:
                reader.cache_status = f"invalid: {why}"
    except Exception as exc:  # a corrupt or foreign database: fold from the start, rebuild it
        reader = StoreReader(paths, Store(w, r, before_write=rebuild), subagents=subagents, price=price)
        reader.cache_status = f"invalid: {type(exc).__name__}: {str(exc)[:80]}"
    return reader
