"""The body of the ingest thread worker: tail a session's files, fold, post coalesced snapshots.

:class:`IngestLoop` never touches widgets; it only calls ``post`` (``App.post_message`` is
thread-safe). A watchdog observer on the files' folders wakes it at once on a change (new
subagent files included); a polling timeout covers filesystems without events. Snapshots are
posted at most every ``min_interval`` seconds, and a change is never held longer than that, so
an appended record shows within ~100 ms.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracetui.session.reader import SessionReader
from tracetui.tui.messages import IngestNotice, IngestProgress, SnapshotReady
from tracetui.tui.view_model import not_a_transcript

__all__ = ["IngestLoop", "make_reader", "MIN_INTERVAL", "WATCHED_POLL", "FALLBACK_POLL"]

#: seconds between two snapshots at most (toolong-style coalescing; a human sees no finer)
MIN_INTERVAL = 0.1
#: safety poll in seconds while file events arrive (a missed event costs at most this)
WATCHED_POLL = 0.5
#: poll in seconds when no file events can be had (keeps the 100 ms target without events)
FALLBACK_POLL = 0.1


def make_reader(paths: list[Path], subagents: bool = True, use_cache: bool = True) -> Any:
    """A reader for ``paths``: the persistent fold cache's when this build has one, else a
    fresh :class:`SessionReader`."""
    if use_cache:
        try:
            from tracetui.session.store import open_cached
        except ImportError:
            open_cached = None
        if open_cached is not None:
            try:
                reader = open_cached(paths, subagents=subagents)
                if reader is not None:
                    return reader
            except Exception:  # a broken cache must never stop the monitor
                pass
    return SessionReader(paths, subagents=subagents)


#: watchdog (inotify) reports opens and read-only closes too; only changes matter here
_IGNORED_EVENTS = frozenset({"opened", "closed_no_write"})


class _Handler:
    """watchdog handler: wake the loop on any change to a transcript or folder."""

    def __init__(self, wake: threading.Event) -> None:
        self.wake = wake

    def dispatch(self, event: Any) -> None:
        if getattr(event, "event_type", "") in _IGNORED_EVENTS:
            return  # our own reads open and close the files: reacting to that would never rest
        path = str(getattr(event, "src_path", ""))
        dest = str(getattr(event, "dest_path", "") or "")
        if getattr(event, "is_directory", False) or path.endswith((".jsonl", ".json")) or dest.endswith(".jsonl"):
            self.wake.set()


class IngestLoop:
    """Reads and folds session ``key`` (files ``paths``) and posts messages through ``post``.

    ``follow=False`` reads once and posts one snapshot (tests, snapshots). ``watch=False``
    skips the observer (polling only). ``clock`` is a monotonic clock in seconds.
    """

    def __init__(
        self,
        key: str,
        paths: list[Path],
        post: Callable[[Any], Any],
        subagents: bool = True,
        use_cache: bool = True,
        follow: bool = True,
        watch: bool = True,
        min_interval: float = MIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.key = key
        self.paths = [Path(p) for p in paths]
        self.post = post
        self.subagents = subagents
        self.use_cache = use_cache
        self.follow = follow
        self.watch = watch
        self.min_interval = min_interval
        self.clock = clock
        self._wake = threading.Event()
        self._stop = threading.Event()
        self.observer: Any = None
        #: ``"events"`` when a watchdog observer runs, else ``"polling"``
        self.mode = "polling"
        self.reader: Any = None
        self._errors: dict[int, str | None] = {}
        self._resets: dict[int, int] = {}
        self._not_transcript: dict[int, str] = {}
        self._last_progress = 0.0
        #: per source path: (consumed, size, lines) when last stat'ed, and its mtime then
        self._mtimes: dict[str, tuple[tuple[int, int, int], float | None]] = {}

    # -- control (any thread) ---------------------------------------------------------------
    def wake(self) -> None:
        """Poll now (e.g. after the user asked for a refresh)."""
        self._wake.set()

    def stop(self) -> None:
        """End :meth:`run` at its next wake-up."""
        self._stop.set()
        self._wake.set()

    # -- the thread -------------------------------------------------------------------------
    def _start_observer(self) -> None:
        if not self.watch:
            return
        try:
            from watchdog.observers import Observer

            obs = Observer()
            handler = _Handler(self._wake)
            dirs: set[Path] = set()
            for p in self.paths:
                d = p.parent
                if d.is_dir():
                    dirs.add(d)
            for d in sorted(dirs):
                obs.schedule(handler, str(d), recursive=True)
            if not dirs:
                return
            obs.daemon = True
            obs.start()
            self.observer = obs
            self.mode = "events"
        except Exception as exc:  # inotify limits, unsupported filesystems: poll instead
            self.post(IngestNotice(self.key, "warning", f"file events unavailable ({exc}); polling every {FALLBACK_POLL:.1f} s"))
            self.observer = None
            self.mode = "polling"

    def _progress(self, done: int, total: int) -> None:
        t = self.clock()
        if t - self._last_progress >= 0.05:
            self._last_progress = t
            self.post(IngestProgress(self.key, done, total))

    def _notices(self, state: Any) -> None:
        for i, s in enumerate(state.sources):
            old = self._errors.get(i)
            if s.error != old:
                if s.error:
                    self.post(IngestNotice(self.key, "error", f"{s.error}; still watching"))
                elif old:
                    self.post(IngestNotice(self.key, "information", f"{s.name}: readable again"))
                self._errors[i] = s.error
            n = len(s.resets)
            if n > self._resets.get(i, 0):
                self.post(IngestNotice(self.key, "warning", f"{s.name}: {s.resets[-1]}; folded again from the start"))
            self._resets[i] = n
        # a file with lines but no JSON object: said once, and again when it becomes a transcript
        bad = not_a_transcript(state)
        for i, why in bad.items():
            if self._not_transcript.get(i) != why:
                self.post(IngestNotice(self.key, "error", f"{why}; still watching: it may become one"))
        for i in self._not_transcript.keys() - bad.keys():
            s = state.sources[i]
            if not s.error:
                self.post(IngestNotice(self.key, "information", f"{s.name}: a transcript now"))
        self._not_transcript = bad

    def written(self, state: Any) -> float | None:
        """The newest modification time of ``state``'s files (seconds since the epoch), or
        ``None`` when none can be stat'ed. A file is stat'ed again only when the fold read more
        of it, so a snapshot of a session with many subagent files costs few system calls."""
        newest: float | None = None
        for s in state.sources:
            key = (s.consumed, s.size, s.lines)
            had = self._mtimes.get(s.path)
            if had is not None and had[0] == key:
                mtime = had[1]
            else:
                try:
                    mtime = os.stat(s.path).st_mtime
                except OSError:
                    mtime = None
                self._mtimes[s.path] = (key, mtime)
            if mtime is not None and (newest is None or mtime > newest):
                newest = mtime
        return newest

    def run(self, cancelled: Callable[[], bool] = lambda: False) -> None:
        """Read, fold and post until ``cancelled()`` or :meth:`stop` (the worker's body)."""
        try:
            self.reader = make_reader(self.paths, self.subagents, self.use_cache)
        except Exception as exc:
            self.post(IngestNotice(self.key, "error", f"cannot open {self.paths[0]}: {exc}"))
            return
        self.reader.progress = self._progress
        if self.follow:
            self._start_observer()
        last_post = float("-inf")
        dirty = True  # always post the first snapshot, even of an empty or missing file
        first = True
        try:
            while not (cancelled() or self._stop.is_set()):
                self._wake.clear()
                try:
                    changed = self.reader.poll()
                except Exception as exc:  # never let one bad read end the monitor
                    self.post(IngestNotice(self.key, "error", f"{self.paths[0].name}: {type(exc).__name__}: {exc}"))
                    changed = False
                dirty |= changed
                wait = WATCHED_POLL if self.mode == "events" else FALLBACK_POLL
                if dirty:
                    left = self.min_interval - (self.clock() - last_post)
                    if left <= 0 or first:
                        try:
                            state = self.reader.snapshot()
                        except Exception as exc:  # a fold bug: say it, keep tailing
                            self.post(
                                IngestNotice(self.key, "error", f"{self.paths[0].name}: the fold failed: {type(exc).__name__}: {exc}")
                            )
                            state = None
                        if state is not None:
                            self._notices(state)
                            self.post(SnapshotReady(self.key, state, self.written(state)))
                        last_post = self.clock()
                        dirty = False
                        first = False
                    else:
                        wait = min(wait, left)
                if not self.follow:
                    break
                self._wake.wait(wait)
        finally:
            if self.observer is not None:
                try:
                    self.observer.stop()
                except Exception:
                    pass
            save = getattr(self.reader, "save_cache", None)
            if save is not None:
                try:
                    save()
                except Exception:
                    pass
