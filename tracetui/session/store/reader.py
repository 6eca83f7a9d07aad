"""The stored session reader: a SessionReader with its ledger in the session database, saving and restoring its fold state there.

When a saved state is resumed from, and how the database is opened: store/opening.py.
"""

from __future__ import annotations

import gc
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import msgspec

from tracetui import __version__
from tracetui.ingest.files import path_text
from tracetui.ingest.session_files import subagent_files
from tracetui.ingest.tail import Tailer
from tracetui.model.secret_scan import note_prompts
from tracetui.model.session_fold import SessionFold
from tracetui.model.state import RunState
from tracetui.session.reader import SessionReader
from tracetui.session.store.calls import open_calls_only
from tracetui.session.store.codec import CacheEncodeError, fold_of, fold_rows
from tracetui.session.store.db import (
    MAX_STORE_BYTES,
    SCHEMA,
    cache_path,
    code_fingerprint,
    create_schema,
    fingerprint,
    meta_values,
    prune,
    prune_now,
    saved_fold_rows,
)
from tracetui.session.store.episodes import StoreEpisodes, restore_versions, save_episodes, without_versions
from tracetui.session.store.event_rows import SECRETS_KEY, stored_secrets
from tracetui.session.store.ledger import Store, StoreHistory, StoreLedger
from tracetui.session.store.masking import seen_in

__all__ = ["StoreReader"]

#: milliseconds the writer's thread waits for another process's write transaction
WRITE_BUSY_MS = 1000
#: milliseconds a save (on the caller's thread) and a read wait for a lock
SAVE_BUSY_MS = 200

#: files of a restored state from which the heap is frozen after the restore (``gc.freeze``)
FREEZE_SOURCES = 256

_SOURCES = "SELECT src, path, inode, size, mtime_ns, offset, line, head, fingerprint, events, history FROM sources ORDER BY src"


def _price_key(state: RunState) -> tuple[bytes, str | None]:
    last_ts = max((s.last_timestamp for s in (state.main, *state.agents) if s.last_timestamp), default=None)
    return msgspec.msgpack.encode([state.usage_buckets, last_ts, state.counters.usage_rejected]), last_ts


#: why a store could not be used, as said on stderr: once a process (a listing of thousands of
#: sessions said it once a session, seventh user trial)
_SAID: set[str] = set()


class StoreReader(SessionReader):
    """A :class:`SessionReader` whose folds write their ledgers and histories to ``store`` and
    that saves its fold state there (:meth:`save_cache`).

    ``cache_status``: ``cold`` (nothing saved), ``warm`` (resumed), ``invalid: <why>`` (a saved
    state that could not be used), ``off: <why>`` (no session database: a private temporary one
    holds the ledger, and nothing is saved).

    Pricing: the fold runs unpriced, and :meth:`snapshot` adds the cost estimate (genai-prices,
    imported only when needed) from a memo keyed by the usage buckets and the last timestamp,
    saved with the state, so a warm reopen does not import the price table.
    """

    def __init__(self, paths: list[Path] | Path, store: Store, subagents: bool = True, price: bool = True, shared: bool = True) -> None:
        self.store = store
        super().__init__(paths, subagents=subagents, price=False, sinks=store.sinks)
        self.shared = shared
        self.priced = price
        self._prices: dict[bytes, tuple[float | None, str]] = {}
        self._saved_at: tuple | None = None
        self.cache_status = "cold"

    def snapshot(self) -> RunState:
        state = self.fold.snapshot()
        if not self.priced:
            return state
        key, last_ts = _price_key(state)
        hit = self._prices.get(key)
        if hit is None:
            from tracetui.model.pricing import estimate_cost

            hit = estimate_cost(state.usage_buckets, last_ts, state.counters.usage_rejected)
            self._prices = {key: hit}  # only the latest matters
        return msgspec.structs.replace(state, cost_usd=hit[0], cost_note=hit[1])

    def _add(self, path: Path, role: str, agent_id: str | None, tool_use_id: str | None, key: str | None = None) -> int:
        src = super()._add(path, role, agent_id, tool_use_id, key)
        self.store.paths[src] = str(path)  # opened (a call's brief): the path, not its text
        return src

    def _position(self) -> tuple:
        return tuple((t.path, t.offset, t.line_no, t.inode) for t in self.tailers)

    # -- save ------------------------------------------------------------------------------
    def save_cache(self, background: bool = False) -> bool:
        """Save the fold state at the current resume point; ``True`` when written. Skipped when
        nothing was read since the last load or save, when a file is in error, when the ledger
        could not be written, or when another process holds the database's write lock or saved
        a state further on. Never raises: a failure is one line on stderr. (``background`` is
        accepted for the callers of the former cache; the state is small, so it is saved here.)"""
        try:
            return self._save()
        except CacheEncodeError as exc:
            print(f"tracetui: fold state not saved: {exc}", file=sys.stderr)
        except OSError as exc:
            print(f"tracetui: fold state not saved: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        except sqlite3.Error:
            pass  # locked by another process, or broken: the next open folds again
        return False

    def _state_rows(self) -> list[tuple[int, str, str, bytes]]:
        # the episode versions and the closed calls are rows of their own
        # and the texts of the state masked with the session's secrets (a value found once)
        with without_versions(self.fold.folds), open_calls_only(self.fold.folds), seen_in(self.fold.secrets):
            return fold_rows(self.fold)

    def _save(self) -> bool:
        pos = self._position()
        if not self.shared:
            if self.cache_status.startswith("off: ") and self._saved_at is None:
                self._saved_at = pos  # said once for this reader, and once a process for its cause
                cause = self.cache_status[5:]
                db_name = str(cache_path(self.paths, self.subagents))
                if cause.startswith(db_name):  # the folder is what cannot be used, not this one file
                    cause = f"{Path(db_name).parent}{cause[len(db_name) :]}"
                from tracetui.session.store.cache_note import said

                if cause not in _SAID and not said():  # the cache folder's own note says it already
                    _SAID.add(cause)
                    print(f"tracetui: fold cache not saved: {cause} (the sessions of this run are folded without it)", file=sys.stderr)
            return False
        if pos == self._saved_at or any(st.error for st in self.fold.sources):
            return False
        for f in self.fold.folds:
            for sink in (f.events, f.history):
                flush = getattr(sink, "flush", None)
                if flush is not None:
                    flush()
            versions = getattr(getattr(f.derive, "book", None), "versions", None)
            if isinstance(versions, StoreEpisodes):
                versions.flush()
        self.store.prepare()
        # the secrets of the prompts the fold holds whole, saved with it (the saved texts are
        # masked: a later run finds them only so)
        if self.fold.folds:
            main = self.fold.folds[0]
            note_prompts(self.fold.secrets, (("goal", main.goal), ("latest_ask", main.latest_ask)))
        state_rows = None
        if self.store.writes_apart:
            # the state is encoded while the writer's process finishes the rows (it reads no
            # sink: the fold state leaves them out)
            state_rows = self._state_rows()
        self.store.sync()
        why = self.store.broken
        if why:
            if "locked" not in why and self._saved_at != pos:
                # another process holding the lock is the normal case (it saves); a full disk,
                # a read-only or damaged database is said, once per resume point
                self._saved_at = pos
                print(f"tracetui: fold cache not saved: {cache_path(self.paths, self.subagents)}: {why}", file=sys.stderr)
            return False
        rows = []
        for src, (t, f) in enumerate(zip(self.tailers, self.fold.folds)):
            if t.inode is None:
                return False
            st = os.stat(t.path)
            if st.st_ino != t.inode:
                return False  # replaced since it was read: the next open folds it again anyway
            fp = fingerprint(t.path, t.offset)
            name = path_text(t.path)  # saved as text (valid UTF-8 for SQLite), opened as the path
            rows.append((src, name, t.inode, st.st_size, st.st_mtime_ns, t.offset, t.line_no, t.head, fp, len(f.events), len(f.history)))
        if state_rows is None:
            state_rows = self._state_rows()
        meta: dict[str, Any] = {
            "schema": SCHEMA,
            "version": __version__,
            "code": code_fingerprint(),
            "paths": [path_text(p) for p in self.paths],
            "subagents": self.subagents,
            "known": sorted(self._known),
            "prices": [(k, v[0], v[1]) for k, v in self._prices.items()],
        }
        db = cache_path(self.paths, self.subagents)
        with self.store.wlock:
            c = self.store.wconn
            self.store.synced(str(db))  # a build's rows on the disk before the state naming them
            # the secrets the writer found in the events it wrote: masked in this process's
            # outputs too (the fold's set is saved with it at the next save)
            self.fold.secrets.update(stored_secrets(c))
            # and those this process found (in the prompts) for the writer's next batches
            meta[SECRETS_KEY] = self.fold.secrets.to_cache()
            c.execute(f"PRAGMA busy_timeout={SAVE_BUSY_MS}")
            try:
                c.execute("BEGIN IMMEDIATE")
                try:
                    if self._ahead_of_me(c, rows):
                        c.execute("ROLLBACK")
                        return False
                    create_schema(c)
                    c.execute("DELETE FROM sources")
                    c.executemany("INSERT INTO sources VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
                    c.execute("DELETE FROM fold")
                    c.executemany("INSERT INTO fold(owner, name, desc, raw) VALUES (?,?,?,?)", state_rows)
                    with seen_in(self.fold.secrets):
                        save_episodes(c, self.fold.folds)
                    c.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, msgspec.msgpack.encode(v)) for k, v in meta.items()])
                    c.execute("COMMIT")
                except BaseException:
                    c.execute("ROLLBACK")
                    raise
            finally:
                c.execute(f"PRAGMA busy_timeout={WRITE_BUSY_MS}")
            try:  # the saved state into the database file, the WAL emptied (best effort)
                c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                pass
        self._saved_at = pos
        if prune_now():
            prune(db.parent, db, MAX_STORE_BYTES)
        return True

    def _ahead_of_me(self, c: sqlite3.Connection, rows: list[tuple]) -> bool:
        """Whether the state saved in the database is of the same files as they are now and
        further on than this one (another process read more since): then this one is not
        saved over it."""
        try:
            meta = meta_values(c)
            saved = c.execute("SELECT path, inode, offset, fingerprint FROM sources ORDER BY src").fetchall()
        except sqlite3.OperationalError:
            return False  # no tables yet
        if meta.get("schema") != SCHEMA or meta.get("code") != code_fingerprint() or len(saved) < len(rows):
            return False
        further = False
        for (path, inode, offset, _fp), mine in zip(saved, rows):
            if (path, inode) != (mine[1], mine[2]) or offset < mine[5] or offset > mine[3]:
                return False
            further |= offset > mine[5]
        if not further:
            return False
        real = {path_text(t.path): t.path for t in self.tailers}
        try:
            return all(fingerprint(real.get(path, path), offset) == fp for path, _i, offset, fp in saved[: len(rows)])
        except OSError:
            return False

    # -- restore ---------------------------------------------------------------------------
    def _restore(self, conn: sqlite3.Connection, meta: dict[str, Any], files: list[tuple[str, str]] | None = None) -> None:
        """Resume from the state saved in ``conn`` (``files``: :func:`listing` of the paths, when
        the caller has it). Raises ``ValueError`` (and the decoders' errors) when it is damaged."""
        conn.execute("BEGIN")  # one read snapshot: the fold state and its episodes of one save
        try:
            srcs = conn.execute(_SOURCES).fetchall()
            if not srcs:
                raise ValueError("no saved fold state")
            rows = saved_fold_rows(conn)
            gc_was = gc.isenabled()
            gc.disable()  # decoding makes many objects, all kept: the cyclic GC would only rescan them
            try:
                fold = fold_of(rows)
                restore_versions(conn, fold.folds, self.store)
                if isinstance(fold, SessionFold):  # and those the writer found after the save
                    fold.secrets.update(stored_secrets(conn))
            except BaseException:
                if gc_was:
                    gc.enable()
                raise
            if gc_was:
                if len(srcs) >= FREEZE_SOURCES:
                    # what was decoded is in the youngest generation: the next collections
                    # would traverse all of it three times over (a second of a warm reopen of
                    # 5,000 subagent files), though the fold keeps it (SessionReader.poll)
                    gc.freeze()
                gc.enable()
        finally:
            conn.execute("COMMIT")
        if not isinstance(fold, SessionFold) or len(fold.folds) != len(srcs) or len(fold.sources) != len(srcs):
            raise ValueError("corrupt store: fold and sources differ")
        fold.sinks = self.store.sinks
        real = dict(listing(self.paths, self.subagents) if files is None else files)
        tailers = []
        for f, (src, path, inode, _size, _mt, offset, line, head, _fp, n_events, n_hist) in zip(fold.folds, srcs):
            if f.src != src or f._seq != n_events:
                raise ValueError(f"corrupt store: source {src} holds {f._seq} events, {n_events} saved")
            f.on_usage = None if f.usage is fold.usage else fold.usage.add  # SessionFold._combine_usage
            f.events = StoreLedger(self.store, src, n_events)  # type: ignore[assignment]
            f.history = StoreHistory(self.store, src, n_hist)  # type: ignore[assignment]
            path = real.get(path, path)  # a saved text back to the file it names
            self.store.paths[src] = path
            t = Tailer(path)
            t.restore(offset, line, inode, head)
            tailers.append(t)
        for st in fold.sources:
            # a truncation or replacement the saving run saw is that run's news: a fresh fold of
            # the same bytes knows nothing of it, and a resumed one must say the same
            st.truncated = st.replaced = 0
            st.resets = ()
        self.fold = fold
        self.tailers = tailers
        self._listed = {t.path for t in tailers}
        self._moved = set(range(len(tailers)))  # not looked at by this process yet
        self.store.resumed()
        self._known = set(meta.get("known", ()))
        self._prices = {bytes(k): (c, n) for k, c, n in meta.get("prices", ())}
        self._saved_at = self._position()


def listing(paths: list[Path], subagents: bool) -> list[tuple[str, str]]:
    """The files a fresh fold of ``paths`` reads first, in order (the named ones, then each
    one's subagent files with ``subagents``), each as ``(text, path)``: its
    :func:`~tracetui.ingest.files.path_text` (as saved) and the path itself (as opened)."""
    files = [str(p) for p in paths]
    if subagents:
        for main in paths:
            files.extend(str(sf.path) for sf in subagent_files(Path(main), meta=False))
    return [(path_text(f), f) for f in files]
