"""Notice new Claude Code sessions: a watchdog observer on the projects folder and on each
project folder (one level each, so the watch count stays the number of projects), with a
polling fallback. Runs in a thread worker; posts :class:`SessionsFound`."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracetui.ingest.discover import SessionInfo, list_sessions, projects_dir
from tracetui.tui.messages import SessionsFound

__all__ = ["SessionsWatch", "POLL_SECONDS"]

#: seconds between two listings when no file event arrives
POLL_SECONDS = 5.0


#: watchdog (inotify) reports opens and read-only closes too; only changes matter here
_IGNORED_EVENTS = frozenset({"opened", "closed_no_write"})


class SessionsWatch:
    """Posts sessions under ``root`` that are not in ``known`` (paths) and were modified in the
    last ``hours`` hours (``None``: any age, but only sessions that appear after the start)."""

    def __init__(
        self,
        post: Callable[[Any], Any],
        known: set[str],
        root: Path | None = None,
        hours: float | None = None,
        clock: Callable[[], float] = time.time,
        watch: bool = True,
    ) -> None:
        self.post = post
        self.known = set(known)
        self.root = root or projects_dir()
        self.hours = hours
        self.clock = clock
        self.watch = watch
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._watched: set[Path] = set()
        self.observer: Any = None

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def _schedule(self, d: Path) -> None:
        if self.observer is None or d in self._watched:
            return
        try:
            self.observer.schedule(self, str(d), recursive=False)
            self._watched.add(d)
        except Exception:
            pass

    def dispatch(self, event: Any) -> None:
        """watchdog calls this for every event under a watched folder."""
        if getattr(event, "event_type", "") in _IGNORED_EVENTS:
            return  # our own reads open and close the files: reacting to that would never rest
        path = str(getattr(event, "src_path", ""))
        if getattr(event, "is_directory", False) or path.endswith(".jsonl"):
            self._wake.set()

    def _start(self) -> None:
        if not self.watch:
            return
        try:
            from watchdog.observers import Observer

            self.observer = Observer()
            self.observer.daemon = True
            self.observer.start()
        except Exception:
            self.observer = None

    def scan(self, first: bool = False) -> list[SessionInfo]:
        """New sessions now (and, on the first scan, only remember what exists when ``hours``
        is ``None``)."""
        found = list_sessions(self.root)
        if self.root.is_dir():
            self._schedule(self.root)
            for proj in {s.path.parent for s in found}:
                self._schedule(proj)
        cutoff = None if self.hours is None else self.clock() - self.hours * 3600
        new = []
        for s in found:
            key = str(s.path)
            if key in self.known:
                continue
            if first and self.hours is None:
                self.known.add(key)
                continue
            if cutoff is not None and s.mtime < cutoff:
                continue
            self.known.add(key)
            new.append(s)
        return new

    def run(self, cancelled: Callable[[], bool] = lambda: False) -> None:
        self._start()
        first = True
        try:
            while not (cancelled() or self._stop.is_set()):
                self._wake.clear()
                new = self.scan(first)
                first = False
                if new:
                    self.post(SessionsFound(new))
                self._wake.wait(POLL_SECONDS)
                time.sleep(0.2)  # let a burst of events (a session's first lines) settle
        finally:
            if self.observer is not None:
                try:
                    self.observer.stop()
                except Exception:
                    pass
