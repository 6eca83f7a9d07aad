"""One watcher thread for every followed session: file events or a poll interval, coalesced.

toolong's pattern: a single thread waits on file events (a watchdog observer, inotify on Linux)
or on a poll interval, whichever comes first, and hands the keys of what may have changed to
``notify`` in one call, at most every ``min_interval`` seconds (events that arrive meanwhile are
merged into the next call). With events, every key is also handed over every ``safety_poll``
seconds (a missed event costs at most that); without them (``events=False``, inotify limits,
filesystems without events) every ``fallback_poll`` seconds.

Only changes wake it: the observer asks the kernel for modify, create, move and delete events,
not for opens and read-only closes, so the readers' own reads cost no event at all.

What a key's events named is kept for its reader (:meth:`Watcher.take`): a session of thousands
of files reads the few that were written, not all of them at each event; a key notified for any
other reason (its poll due, a wake, just added) is said to have changed anywhere.
"""

from __future__ import annotations

import fnmatch
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

__all__ = ["Watcher", "MIN_INTERVAL", "SAFETY_POLL", "FALLBACK_POLL", "SLOW_POLL"]

#: seconds between two notifications at most (a human sees no finer; keeps a burst to one fold)
MIN_INTERVAL = 0.1
#: seconds between two notifications of every key while file events arrive
SAFETY_POLL = 10.0
#: seconds between two notifications of the preferred key (:meth:`Watcher.prefer`, the
#: session on screen) when no file events can be had
FALLBACK_POLL = 0.25
#: seconds between two notifications of every other key when no file events can be had
SLOW_POLL = 2.0


def _event_filter() -> list[type] | None:
    """The watchdog event classes that mean a change (``None``: an old watchdog, every event)."""
    try:
        from watchdog import events as ev
    except ImportError:
        return None
    names = ("FileModifiedEvent", "FileCreatedEvent", "FileMovedEvent", "FileDeletedEvent", "DirCreatedEvent", "DirMovedEvent")
    return [getattr(ev, n) for n in names if hasattr(ev, n)]


#: watchdog (inotify) reports opens and read-only closes when asked for every event
_IGNORED_EVENTS = frozenset({"opened", "closed_no_write"})


class Watcher:
    """Tells ``notify(keys)`` (called on the watcher's own thread; it must be quick) which
    registered keys may have changed.

    A key names files, folder trees and name patterns (:meth:`add`); a change to one of them
    marks the key, and every key is marked once per its poll period anyway. ``events=False``:
    polling only. ``clock``: monotonic seconds. :attr:`mode` is ``"events"`` once the observer
    runs, else ``"polling"``; :attr:`problem` says why events are unavailable, if they are.
    """

    def __init__(
        self,
        notify: Callable[[set[str]], Any],
        *,
        events: bool = True,
        min_interval: float = MIN_INTERVAL,
        safety_poll: float = SAFETY_POLL,
        fallback_poll: float = FALLBACK_POLL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.notify = notify
        self.events = events
        self.min_interval = min_interval
        self.safety_poll = safety_poll
        self.fallback_poll = fallback_poll
        self.clock = clock
        self.mode = "polling"
        self.problem: str | None = None
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._keys: dict[str, _Spec] = {}
        #: the indexes an event is matched with: file → keys, tree root → keys, folder → (pattern, key)
        self._files: dict[Path, set[str]] = {}
        self._trees: dict[Path, set[str]] = {}
        self._globs: dict[Path, set[tuple[str, str]]] = {}
        #: when each key is polled next (monotonic seconds), events or not
        self._due: dict[str, float] = {}
        self._dirty: set[str] = set()
        #: per key, the paths (``str(Path)``) its file events named since :meth:`take`;
        #: ``None``: anything may have changed (its poll was due, a wake, a new key)
        self._hints: dict[str, set[str] | None] = {}
        #: folder → whether it is watched with its tree (``True``) or alone
        self._scheduled: dict[Path, bool] = {}
        #: trees that did not exist when asked for: scheduled once they appear
        self._missing: set[Path] = set()
        #: polled every ``fallback_poll`` seconds without events (the others every SLOW_POLL)
        self._preferred: str | None = None
        self._observer: Any = None
        self._thread: threading.Thread | None = None

    # -- registration (any thread) ------------------------------------------------------------
    def add(
        self,
        key: str,
        files: Iterable[Path] = (),
        trees: Iterable[Path] = (),
        globs: Iterable[tuple[Path, str]] = (),
        period: float | None = None,
    ) -> None:
        """Watch for ``key`` (replacing what it watched) and mark it changed: a change to one of
        ``files``, anywhere under one of ``trees`` (a folder that may not exist yet), or to a
        name matching ``pattern`` (``fnmatch``) directly in a ``(folder, pattern)`` of ``globs``.
        ``period``: seconds between two polls of this key at least (default: the watcher's)."""
        self.remove(key)
        spec = _Spec(tuple(Path(f) for f in files), tuple(Path(t) for t in trees), tuple((Path(d), g) for d, g in globs), period)
        with self._lock:
            self._keys[key] = spec
            for f in spec.files:
                self._files.setdefault(f, set()).add(key)
            for t in spec.trees:
                self._trees.setdefault(t, set()).add(key)
            for d, g in spec.globs:
                self._globs.setdefault(d, set()).add((g, key))
            self._due[key] = self.clock() + self._period(key)
            self._dirty.add(key)
            self._hints[key] = None
        self._schedule_spec(spec)
        self._wake.set()

    def remove(self, key: str) -> None:
        """Stop watching for ``key`` (the observer's watches stay: they are cheap and shared)."""
        with self._lock:
            spec = self._keys.pop(key, None)
            self._dirty.discard(key)
            self._due.pop(key, None)
            self._hints.pop(key, None)
            if spec is None:
                return
            for f in spec.files:
                _discard(self._files, f, key)
            for t in spec.trees:
                _discard(self._trees, t, key)
            for d, g in spec.globs:
                _discard(self._globs, d, (g, key))

    def prefer(self, key: str | None) -> None:
        """Poll ``key`` every ``fallback_poll`` seconds when there are no file events (the
        others every :data:`SLOW_POLL`): the session on screen keeps its latency."""
        with self._lock:
            self._preferred = key
            if key in self._due:
                self._due[key] = min(self._due[key], self.clock() + self._period(key))
        self._wake.set()

    def wake(self, key: str | None = None) -> None:
        """Notify ``key`` (every key when ``None``) at once, as if its files changed."""
        with self._lock:
            keys = list(self._keys) if key is None else [key]
            self._dirty.update(keys)
            for k in keys:
                self._hints[k] = None
        self._wake.set()

    def whole(self, key: str | None = None) -> None:
        """Say that anything of ``key`` (every key when ``None``) may have changed: its next
        :meth:`take` is ``None`` (for a caller that polls it itself)."""
        with self._lock:
            for k in list(self._keys) if key is None else [key]:
                self._hints[k] = None

    def take(self, key: str) -> frozenset[str] | None:
        """The paths (``str(Path)``) file events named for ``key`` since the last call, then
        forgotten; ``None`` when anything may have changed (its poll was due, a wake, a new
        key, or nothing was recorded): the caller looks at every file then."""
        with self._lock:
            got = self._hints.pop(key, None)
        return frozenset(got) if got is not None else None

    # -- the thread ---------------------------------------------------------------------------
    def start(self) -> None:
        """Start the observer (when ``events``) and the watcher thread (a daemon)."""
        if self.events:
            self._start_observer()
        self._thread = threading.Thread(target=self._run, name="tracetui-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 2.0) -> None:
        """End the thread and the observer; waits up to ``timeout`` seconds for the thread."""
        self._stop.set()
        self._wake.set()
        obs, self._observer = self._observer, None
        if obs is not None:
            try:
                obs.stop()
            except Exception:
                pass
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout)

    def _start_observer(self) -> None:
        try:
            from watchdog.observers import Observer

            obs = Observer()
            obs.daemon = True
            obs.start()
        except Exception as exc:  # no inotify, its limits: poll instead
            self.problem = f"file events unavailable ({exc}); polling every {self.fallback_poll:g} s"
            return
        self._observer = obs
        self.mode = "events"
        with self._lock:
            specs = list(self._keys.values())
        for spec in specs:
            self._schedule_spec(spec)

    def _schedule_spec(self, spec: _Spec) -> None:
        for f in spec.files:
            self._schedule(f.parent, False)
        for d, _g in spec.globs:
            self._schedule(d, False)
        for t in spec.trees:
            self._schedule(t.parent, False)  # sees the tree's folder appear
            if not self._schedule(t, True):
                with self._lock:
                    self._missing.add(t)

    def _schedule(self, d: Path, recursive: bool) -> bool:
        """Watch folder ``d``; ``False`` when it does not exist (or events are off)."""
        obs = self._observer
        if obs is None:
            return False
        had = self._scheduled.get(d)
        if had is not None and (had or not recursive):
            return True
        if not d.is_dir():
            return False
        try:
            flt = _event_filter()
            kw = {"event_filter": flt} if flt is not None else {}
            obs.schedule(self, str(d), recursive=recursive, **kw)
            self._scheduled[d] = recursive
            return True
        except Exception as exc:  # a watch limit reached: this folder is polled
            self.problem = f"file events unavailable for {d} ({exc}); polling every {self.fallback_poll:g} s"
            return False

    def dispatch(self, event: Any) -> None:
        """watchdog calls this (on its own thread) for every event under a watched folder."""
        if getattr(event, "event_type", "") in _IGNORED_EVENTS:
            return
        hit: set[str] = set()
        with self._lock:
            paths = []
            for raw in (getattr(event, "src_path", ""), getattr(event, "dest_path", "") or ""):
                if not raw:
                    continue
                p = Path(raw if isinstance(raw, str) else raw.decode(errors="replace"))
                paths.append(str(p))
                hit.update(self._files.get(p, ()))
                for g, key in self._globs.get(p.parent, ()):
                    if fnmatch.fnmatchcase(p.name, g):
                        hit.add(key)
                for d in (p, *p.parents):
                    hit.update(self._trees.get(d, ()))
            if not hit:
                return
            self._dirty |= hit
            for key in hit:
                if key not in self._hints:
                    self._hints[key] = set(paths)
                else:
                    h = self._hints[key]
                    if h is not None:
                        h.update(paths)
        self._wake.set()

    def _period(self, key: str | None = None) -> float:
        if self.mode == "events" and self.problem is None:
            base = self.safety_poll
        elif key is None or key == self._preferred:
            base = self.fallback_poll
        else:
            base = max(self.fallback_poll, SLOW_POLL)
        spec = self._keys.get(key) if key is not None else None
        return max(base, spec.period) if spec is not None and spec.period is not None else base

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                next_due = min(self._due.values(), default=self.clock() + self._period())
            self._wake.wait(max(0.0, next_due - self.clock()))
            if self._stop.is_set():
                break
            self._wake.clear()
            now = self.clock()
            with self._lock:
                dirty, self._dirty = self._dirty, set()
                for k, due in self._due.items():
                    if due <= now:
                        dirty.add(k)
                        self._hints[k] = None  # the periodic look: at every file
                for k in dirty:
                    if k in self._due:
                        self._due[k] = now + self._period(k)
                appeared = [t for t in self._missing if t.is_dir()]
            for t in appeared:
                if self._schedule(t, True):
                    with self._lock:
                        self._missing.discard(t)
            if dirty:
                try:
                    self.notify(dirty)
                except Exception:  # a broken receiver must not end the watching
                    pass
                # coalesce: what changes in the next min_interval goes into one notification
                self._stop.wait(self.min_interval)


class _Spec:
    """What one key watches (see :meth:`Watcher.add`)."""

    __slots__ = ("files", "trees", "globs", "period")

    def __init__(self, files: tuple[Path, ...], trees: tuple[Path, ...], globs: tuple[tuple[Path, str], ...], period: float | None) -> None:
        self.files = files
        self.trees = trees
        self.globs = globs
        self.period = period


def _discard(index: dict[Any, set[Any]], k: Any, v: Any) -> None:
    got = index.get(k)
    if got is not None:
        got.discard(v)
        if not got:
            del index[k]
