"""Read a session's files incrementally and fold them: the bridge from bytes to ``RunState``.

:class:`SessionReader` owns one :class:`~tracetui.ingest.tail.Tailer` per file and a
:class:`~tracetui.model.session_fold.SessionFold`. :meth:`SessionReader.poll` reads what was appended
since the last call (discovering new subagent files), and is safe to call from a worker thread;
:meth:`SessionReader.snapshot` returns the combined frozen state.
"""

from __future__ import annotations

import gc
import os
import stat
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from tracetui.ingest.decode import Quarantined, bom_length, decode_line
from tracetui.ingest.files import NotRegularFile, file_kind, path_text
from tracetui.ingest.foreign import foreign_format, foreign_message
from tracetui.ingest.session_files import subagent_files
from tracetui.ingest.tail import Tailer
from tracetui.model.codex_fold import CodexFold
from tracetui.model.numbers import fmt_bytes_exact, plural
from tracetui.model.session_fold import SessionFold
from tracetui.model.state import RunState
from tracetui.session.derive_proc import DeriveProcess, usable

__all__ = ["SessionReader", "TranscriptError", "describe_os_error"]


#: bytes read by one poll above which the heap is frozen afterwards (``gc.freeze``, see
#: :meth:`SessionReader.poll`): a big read leaves ~100k tracked objects the fold keeps, which
#: the next collections would traverse for nothing (~10 % of a cold ``tracetui state``)
FREEZE_BYTES = 16 << 20


#: what :func:`describe_os_error` calls a symlink whose target does not exist
DANGLING = "a dangling symlink"


class TranscriptError(Exception):
    """A file can't be folded as a transcript; the message is one line naming the file."""


def describe_os_error(path: str | Path, exc: OSError) -> str:
    """A one-line description of an OSError for ``path`` (no traceback), the path as
    :func:`~tracetui.ingest.files.path_text` writes it."""
    if isinstance(exc, FileNotFoundError):
        try:
            link = os.readlink(path)  # a dangling link: it is there, what it names is not
        except OSError:
            return f"{path_text(path)}: no such file"
        return f"{path_text(path)}: {DANGLING} to {path_text(link)}, which does not exist"
    path = path_text(path)
    if isinstance(exc, PermissionError):
        return f"{path}: permission denied"
    if isinstance(exc, IsADirectoryError):
        return f"{path}: is a directory, not a transcript file"
    if isinstance(exc, NotRegularFile):
        return f"{path}: {exc.kind}, not a transcript file"
    return f"{path}: {exc.strerror or exc}"


class SessionReader:
    """The files of one session, read incrementally into one :class:`SessionFold`.

    ``paths`` are the files named by the user: the first is the main transcript; with
    ``subagents=True`` the subagent files of each are discovered too, now and on every poll.
    ``progress(done_bytes, total_bytes)`` is called between chunks of a long first read.
    ``sinks``: where the folds keep their ledgers and histories (:class:`SessionFold`; lists
    when ``None``, the session store's when given). With ``derive_process`` a long read of a
    file runs the fold's derive hook in a second process (``session/derive_proc.py``); a poll
    whose derive process failed raises ``DeriveProcessError`` (fold again without it).
    """

    def __init__(
        self,
        paths: list[Path] | Path,
        subagents: bool = True,
        price: bool = True,
        sinks: Callable[[int], tuple[Any, ...]] | None = None,
        derive_process: bool = False,
    ) -> None:
        self.derive_process = derive_process
        if isinstance(paths, (str, Path)):
            paths = [Path(paths)]
        self.paths = [Path(p) for p in paths]
        self.subagents = subagents
        self.fold = SessionFold(price=price, sinks=sinks)
        self.tailers: list[Tailer] = []
        self._known: set[str] = set()  # path_text of each file's resolved path
        #: the subagent files :meth:`discover` has taken (``str(path)``): not examined again
        self._listed: set[str] = set()
        #: the sources that moved at their last look, or were never looked at (``poll``'s ``spread``)
        self._moved: set[int] = set()
        self._turn = 0
        self._index: tuple[int, int, dict[str, int]] = (0, 0, {})
        for i, p in enumerate(self.paths):
            self._add(p, "main" if i == 0 else "file", None, None)
        self.progress: Callable[[int, int], None] | None = None

    def _add(self, path: Path, role: str, agent_id: str | None, tool_use_id: str | None, key: str | None = None) -> int:
        """Register file ``path``; ``key``: its resolved path's text, when the caller has it."""
        self._known.add(key if key is not None else path_text(path.resolve() if path.exists() else path))
        # the state keeps the path's text (it is encoded, stored and shown); the tailer opens the path
        src = self.fold.add_source(path_text(path), path_text(path.name), role, agent_id, tool_use_id)
        self.tailers.append(Tailer(str(path)))
        self._listed.add(str(path))
        self._moved.add(src)
        return src

    def discover(self) -> int:
        """Register subagent files that appeared since the last call; returns how many. A file
        taken once is not looked at again (``subagent_files``'s ``known``): with nothing new,
        a call costs a ``stat`` per folder of the session's subagent files."""
        if not self.subagents:
            return 0
        added = 0
        folders: dict[str, str] = {}
        for main in list(self.paths):
            for sf in subagent_files(main, known=self._listed):
                self._listed.add(str(sf.path))
                key = _resolved(sf.path, folders)
                if key in self._known:  # a file named as a path too
                    continue
                self._add(sf.path, "subagent", sf.agent_id, sf.tool_use_id, key)
                added += 1
        return added

    def poll(self, final: bool = True, only: Collection[str] | None = None, spread: int = 1) -> bool:
        """Read every file's new bytes and fold them; ``True`` when anything changed.

        With ``final`` (the default), a complete JSON object at end of file without its newline
        counts as a record; otherwise it is held like any torn line. I/O errors are recorded in
        the source's status (``error``), never raised.

        ``only``: the paths (``str(Path)``) a file watcher saw written (``Watcher.take``): only
        those of the session's files are read, the others are as they were; one that is none of
        them (a folder, a new file) has new subagent files looked for, and a ``.jsonl`` still
        unknown then makes the poll a whole one. ``spread`` (a whole poll): a file that had not
        moved at its last look is looked at one poll in ``spread`` (in turn), the named files and
        those that moved at every poll, so that a session of thousands of files done long ago
        costs a few hundred ``stat`` a poll; a file written again is read at most ``spread``
        polls late (sooner by the watcher's events).
        """
        n0 = len(self.tailers)
        if only is None:
            changed = self.discover() > 0
            picks: Sequence[int] = self._spread(spread)
        else:
            index = self._paths()
            changed = any(p not in index for p in only) and self.discover() > 0
            index = self._paths()
            if any(p not in index and p.endswith(".jsonl") for p in only):
                picks = self._spread(spread)  # a file the watcher names otherwise than the reader
            else:
                picks = sorted({index[p] for p in only if p in index} | set(range(n0, len(self.tailers))))
        # the fold keeps what it builds (ledger, calls, history), so the cyclic GC would only
        # re-scan live objects while a big read runs: pause it (performance-notes.md, ~13 % at 500 MB)
        gc_was_on = gc.isenabled()
        gc.disable()
        tailers = self.tailers
        before = sum(tailers[src].offset for src in picks)
        moved = self._moved
        try:
            for src in picks:
                t = self.tailers[src]
                try:
                    if self._poll_one(src, t, final):
                        changed = True
                        moved.add(src)
                    else:
                        moved.discard(src)
                except OSError as exc:
                    msg = describe_os_error(t.path, exc)
                    st = self.fold.sources[src]
                    if st.error != msg:
                        changed = True
                    moved.add(src)  # looked at again at every poll until it reads
                    self.fold.set_io(src, st.size, t.offset, t.line_no, t.pending_bytes, msg)
        finally:
            if gc_was_on and sum(tailers[src].offset for src in picks) - before >= FREEZE_BYTES:
                # everything allocated while the GC was paused is still in its youngest
                # generation: the next collection would traverse all of it (then again in the
                # older ones), though the fold keeps it. Move it out of the collector's reach,
                # as the TUI does after a big first fold (refcounting still frees what dies).
                gc.freeze()
            if gc_was_on:
                gc.enable()
        return changed

    def _spread(self, spread: int) -> Sequence[int]:
        """The sources a whole poll looks at (``poll``'s ``spread``)."""
        n = len(self.tailers)
        if spread <= 1:
            return range(n)
        turn = self._turn % spread
        self._turn += 1
        named, moved = len(self.paths), self._moved
        return [src for src in range(n) if src < named or src % spread == turn or src in moved]

    def _paths(self) -> dict[str, int]:
        """Each file's path (its tailer's) to its source index."""
        key = (id(self.tailers), len(self.tailers))
        if self._index[:2] != key:
            self._index = (*key, {t.path: src for src, t in enumerate(self.tailers)})
        return self._index[2]

    def _poll_one(self, src: int, t: Tailer, final: bool) -> bool:
        before = (t.offset, t.pending_bytes, self.fold.sources[src].error)
        reset = t.check()
        if reset is not None:
            self.fold.reset_source(src, reset.reason, reset.detail)
        feed = self.fold.feed_line
        total = t.size
        lines = t.lines()
        if self.fold.undecided(src):
            # the file's first record decides which agent's fold reads it (SessionFold.feed_line)
            for line_no, offset, buf in lines:
                feed(src, line_no, offset, buf)
                if not self.fold.undecided(src):
                    break
        fold = self.fold.folds[src]
        feed_file = fold.feed_line  # the same, one call less per line
        proc = None
        if self.derive_process and usable(fold, total - t.offset):
            try:
                proc = DeriveProcess(fold, self.fold.secrets, src)
            except OSError:
                proc = None  # no fork: the hook stays in process
        try:
            for line_no, offset, buf in lines:
                feed_file(line_no, offset, buf)
                if self.progress is not None and line_no % 2048 == 0:
                    self.progress(offset, total)
        except OSError:
            if proc is not None:  # what was folded before the error stays, derived as well
                proc.finish(fold)
            raise
        except BaseException:
            if proc is not None:
                proc.abort(fold)
            raise
        if proc is not None:
            proc.finish(fold)
        if final and t.held:
            # the complete records at the start of a line without newline count; a bad part
            # after them stays held (so the result does not depend on when the reads happened)
            # a byte order mark opening the file is not part of its first record (FileFold.feed_line)
            bom = bom_length(t.offset, t.held)
            items = decode_line(memoryview(t.held)[bom:])
            n = 0
            while n < len(items) and not isinstance(items[n][1], Quarantined):
                n += 1
            if n:
                end = bom + items[n][0] if n < len(items) else len(t.held)
                feed(src, t.line_no + 1, t.offset, memoryview(t.held)[:end])
                t.consume_held(end)
        # a file that grew while it was read: its size is at least what was read of it (the
        # size was taken when the read began; "86,771,919 of 80,729,644 bytes", user trial)
        self.fold.set_io(src, max(t.size, t.offset + t.pending_bytes), t.offset, t.line_no, t.pending_bytes, None)
        return reset is not None or (t.offset, t.pending_bytes, None) != before

    def snapshot(self) -> RunState:
        """The combined state of everything read so far."""
        return self.fold.snapshot()

    def check_transcript(self) -> None:
        """Raise :class:`TranscriptError` when a named file is missing, unreadable, empty, holds
        no transcript record at all, or belongs to another session than the first file (call
        after a :meth:`poll`)."""
        for src, p in enumerate(self.paths):
            st = self.fold.sources[src]
            if st.error:
                raise TranscriptError(st.error)
            f = self.fold.folds[src]
            if st.size == 0:
                raise TranscriptError(f"{path_text(p)}: empty file, not a transcript")
            if f.counters.records == 0:
                if f.malformed:
                    raise TranscriptError(f"{path_text(p)}: not a transcript ({plural(f.malformed, 'line')}, none a JSON object)")
                if st.pending_bytes:
                    raise TranscriptError(f"{path_text(p)}: not a transcript (no complete JSON line in {fmt_bytes_exact(st.size)})")
                raise TranscriptError(f"{path_text(p)}: not a transcript (no records)")
            if f.counters.unknown_records == f.counters.records:
                # JSON lines, but not one of a Claude Code record type (user, assistant, …)
                what = foreign_format(u.type for u in f.unknown)
                if what is not None:
                    raise TranscriptError(foreign_message(path_text(p), what))
                n = f.counters.records
                raise TranscriptError(f"{path_text(p)}: not a transcript ({plural(n, 'JSON object')}, none a Claude Code record)")
        # the named files are one session's: its transcript, then its subagent files, which carry
        # the parent's sessionId (transcript-format.md §2). Files of another session would be
        # folded as part of this one: its prompts uncounted, its figures mixed in.
        main_sid = self.fold.folds[0].session_id if self.fold.folds else None
        seen: dict[Path, Path] = {}
        for src, p in enumerate(self.paths):
            key = p.resolve()
            if key in seen:
                raise TranscriptError(f"{path_text(p)}: named twice (as {path_text(seen[key])}); its records would be counted twice")
            seen[key] = p
            if src == 0:
                continue
            f = self.fold.folds[src]
            if isinstance(f, CodexFold):
                if f.parent_id is None:  # a second main rollout: counted again, its prompts not at all
                    raise TranscriptError(f"{path_text(p)}: a main rollout, not a subagent rollout (its session_meta names no parent)")
                continue  # a child rollout is its own thread (its parent's id is in its session_meta)
            sid = f.session_id
            if main_sid and sid and sid != main_sid:
                raise TranscriptError(
                    f"{path_text(p)}: session {sid}, not {path_text(self.paths[0].name)}'s session {main_sid}; "
                    "name one session's files (its transcript first, then its subagent files)"
                )
            if not f.sidechain_file:
                # a second main transcript (a copy of the first, say): its records would be
                # counted again, its prompts not at all
                raise TranscriptError(
                    f"{path_text(p)}: a main transcript, not a subagent file (its records are not sidechain records); "
                    "name one session's transcript once, then its subagent files"
                )


def _resolved(p: Path, folders: dict[str, str]) -> str:
    """:func:`~tracetui.ingest.files.path_text` of ``p.resolve()``: of a file that is no
    symbolic link, its folder's real path (each folder resolved once a call: ``folders``) and
    its name, one ``lstat`` instead of one a component of the path."""
    d, name = os.path.split(str(p))
    if not name or name in (".", "..") or os.path.islink(p):
        return path_text(p.resolve())
    real = folders.get(d)
    if real is None:
        real = folders[d] = os.path.realpath(d or ".")
    return path_text(os.path.join(real, name))


def open_paths(paths: list[Path]) -> list[Path]:
    """Check that each path names a readable regular file; raises :class:`TranscriptError`
    (one line: ``"PATH: a FIFO (named pipe), not a transcript file"``). Nothing is opened."""
    for p in paths:
        try:
            st = os.stat(p)
        except OSError as exc:
            raise TranscriptError(describe_os_error(p, exc)) from None
        if not stat.S_ISREG(st.st_mode):
            raise TranscriptError(f"{path_text(p)}: {file_kind(st.st_mode)}, not a transcript file")
        if not os.access(p, os.R_OK):
            raise TranscriptError(f"{path_text(p)}: permission denied")
        if st.st_size == 0:
            raise TranscriptError(f"{path_text(p)}: empty file, not a transcript")
    return paths
