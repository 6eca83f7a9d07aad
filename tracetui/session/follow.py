"""Follow many sessions at once: one watcher, a bounded pool of fold workers, coalesced snapshots.

:class:`Follow` keeps one :class:`~tracetui.ingest.watch.Watcher` for every session it follows
and ``workers`` threads that poll and snapshot the sessions the watcher marks changed, the
preferred one (the tab on screen) first, then in the order they were opened. A session is
polled by one worker at a time, however many changes arrive meanwhile (they are merged), so the
number of sessions costs memory, never threads. What comes out goes to each session's
:class:`FollowSink` (called on a worker thread): whole snapshots, read progress, notices.

:meth:`Follow.stop` ends the threads, then saves every session's store (``reader.save_cache``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from tracetui.ingest.files import file_of
from tracetui.ingest.foreign import foreign_format, foreign_message
from tracetui.ingest.session_files import subagent_places
from tracetui.ingest.watch import FALLBACK_POLL, MIN_INTERVAL, SAFETY_POLL, Watcher
from tracetui.model.numbers import fmt_bytes_exact, plural
from tracetui.model.state import RunState
from tracetui.session.reader import SessionReader

__all__ = ["Follow", "Followed", "FollowSink", "make_reader", "not_a_transcript", "WORKERS"]

#: fold worker threads: the machine's cores at most, two at least (a long first fold of one
#: session must not hold every other session back)
WORKERS = max(2, min(4, os.cpu_count() or 2))
#: files a poll of a session looks at, about, when no file event says which were written (the
#: poll due, or no events): the files that did not move at their last look are looked at in
#: turn, so many (``SessionReader.poll``'s ``spread``); a session of 5,000 subagent files done
#: long ago cost 5,000 ``stat`` a poll (a fresh-user trial: the monitor idle at 15 % CPU)
LOOKS_PER_POLL = 512


class FollowSink(Protocol):
    """Where one followed session's news goes (called on a fold worker thread; be quick)."""

    def snapshot(self, state: RunState, written: float | None) -> None:
        """A new whole state; ``written``: the newest mtime of its files (epoch seconds) or ``None``."""

    def progress(self, done: int, total: int) -> None:
        """A long first read: ``done`` of ``total`` bytes folded."""

    def notice(self, level: str, text: str) -> None:
        """``level`` ``information`` / ``warning`` / ``error``; ``text`` one line naming the file."""


def make_reader(paths: list[Path], subagents: bool = True, use_cache: bool = True) -> Any:
    """A reader for ``paths``: resumed from the store when ``use_cache`` (a broken store never
    stops the monitor: a fresh :class:`SessionReader` then)."""
    if use_cache:
        try:
            from tracetui.session.store import open_cached

            reader = open_cached(paths, subagents=subagents)
            if reader is not None:
                return reader
        except Exception:
            pass
    return SessionReader(paths, subagents=subagents)


def not_a_transcript(state: RunState) -> dict[int, str]:
    """The named files (main, or another given path) that hold lines but no transcript record
    yet, by source index, each with a one-line reason: ``"t.txt: not a transcript (2 lines,
    none a JSON object)"``, or what other tool's file it is (``"r.jsonl: an OpenAI Codex CLI
    rollout; …"``). The headless commands refuse such a file (``SessionReader.check_transcript``);
    the monitor says so and keeps watching. Missing or unreadable files are not listed
    (``SourceStatus.error`` says those)."""
    agents = {a.src: a for a in (state.main, *state.agents)}
    out: dict[int, str] = {}
    for i, s in enumerate(state.sources):
        if s.role not in ("main", "file") or s.error or s.size == 0:
            continue
        a = agents.get(i)
        records = a.counters.records if a is not None else 0
        if a is not None and records > 0 and a.counters.unknown_records == records:
            what = foreign_format(u.type for u in a.unknown)  # another tool's file (a Codex rollout)
            if what is not None:
                out[i] = foreign_message(s.name, what)
        elif records > 0:
            continue
        elif s.malformed:
            out[i] = f"{s.name}: not a transcript ({plural(s.malformed, 'line')}, none a JSON object)"
        elif s.pending_bytes:
            out[i] = f"{s.name}: not a transcript yet (no complete line in {fmt_bytes_exact(s.pending_bytes)})"
    return out


class _Stopped(Exception):
    """Raised from a reader's progress callback to end a long read when the follow stops."""


class Followed:
    """One followed session: its reader (made on a worker at the first poll) and what was said.

    :attr:`mode` is the watcher's (``"events"`` or ``"polling"``); :attr:`loaded` is set once
    the first snapshot was handed to the sink."""

    def __init__(self, follow: Follow, key: str, paths: list[Path], sink: FollowSink, subagents: bool, use_cache: bool) -> None:
        self.follow = follow
        self.key = key
        self.paths = [Path(p) for p in paths]
        self.sink = sink
        self.subagents = subagents
        self.use_cache = use_cache
        self.reader: Any = None
        self.loaded = threading.Event()
        self.closed = False
        #: a poll was cut short by :meth:`Follow.stop`: the reader's state is not saved
        self.cut = False
        self._errors: dict[int, str | None] = {}
        self._resets: dict[int, int] = {}
        self._not_transcript: dict[int, str] = {}
        self._mtimes: dict[str, tuple[tuple[int, int, int], float | None]] = {}
        self._last_progress = 0.0

    @property
    def mode(self) -> str:
        return self.follow.mode

    def wake(self) -> None:
        """Poll this session now."""
        self.follow.wake(self.key)

    # -- on a worker thread ---------------------------------------------------------------------
    def _progress(self, done: int, total: int) -> None:
        if self.follow.stopping:
            raise _Stopped
        t = time.monotonic()
        if t - self._last_progress >= 0.05:
            self._last_progress = t
            self.sink.progress(done, total)

    def step(self) -> None:
        """Poll the files once; hand a snapshot to the sink when anything changed (always the
        first time, even of an empty or missing file)."""
        first = self.reader is None
        if first:
            try:
                self.reader = make_reader(self.paths, self.subagents, self.use_cache)
            except Exception as exc:
                self.sink.notice("error", f"cannot open {self.paths[0]}: {exc}")
                self.closed = True
                return
            self.reader.progress = self._progress
        try:
            watcher = self.follow.watcher
            if first:
                if watcher is not None:
                    watcher.take(self.key)  # what events named so far: this poll reads every file
                changed = self.reader.poll()
            else:
                only = watcher.take(self.key) if watcher is not None else None
                spread = max(1, len(getattr(self.reader, "tailers", ())) // LOOKS_PER_POLL)
                changed = self.reader.poll(only=only, spread=spread)
        except _Stopped:
            self.cut = True
            return
        except Exception as exc:  # never let one bad read end the monitor
            self.sink.notice("error", f"{self.paths[0].name}: {type(exc).__name__}: {exc}")
            changed = False
        if not (changed or first):
            return
        try:
            state = self.reader.snapshot()
        except Exception as exc:  # a fold bug: say it, keep tailing
            self.sink.notice("error", f"{self.paths[0].name}: the fold failed: {type(exc).__name__}: {exc}")
            return
        self._notices(state)
        self.sink.snapshot(state, self.written(state))
        self.loaded.set()

    def _notices(self, state: RunState) -> None:
        say = self.sink.notice
        for i, s in enumerate(state.sources):
            old = self._errors.get(i)
            if s.error != old:
                if s.error:
                    say("error", f"{s.error}; still watching")
                elif old:
                    say("information", f"{s.name}: readable again")
                self._errors[i] = s.error
            n = len(s.resets)
            if n > self._resets.get(i, 0):
                say("warning", f"{s.name}: {s.resets[-1]}; folded again from the start")
            self._resets[i] = n
        # a file with lines but no transcript record: said once, and again when that changes
        bad = not_a_transcript(state)
        for i, why in bad.items():
            if self._not_transcript.get(i) != why:
                say("error", why if "tracetui reads Claude Code" in why else f"{why}; still watching: it may become one")
        for i in self._not_transcript.keys() - bad.keys():
            if not state.sources[i].error:
                say("information", f"{state.sources[i].name}: a transcript now")
        self._not_transcript = bad

    def written(self, state: RunState) -> float | None:
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
                    mtime = os.stat(file_of(s.path)).st_mtime  # the state keeps the path's text
                except OSError:
                    mtime = None
                self._mtimes[s.path] = (key, mtime)
            if mtime is not None and (newest is None or mtime > newest):
                newest = mtime
        return newest

    def save(self) -> None:
        """Save the reader's store (a reader opened without one has nothing to save)."""
        save = getattr(self.reader, "save_cache", None)
        if save is not None and not self.cut:
            save()


class _Task:
    """A job of :meth:`Follow.watch`: not a session, nothing to save."""

    def __init__(self, key: str, step: Callable[[], Any]) -> None:
        self.key = key
        self.step = step
        self.closed = False
        self.cut = False

    def save(self) -> None:
        pass


class Follow:
    """Follows sessions: :meth:`open` one, :meth:`prefer` the one on screen, :meth:`stop` at the end.

    ``follow=False`` polls each opened session once (tests, snapshots). ``events=False``: no
    file events, polling only. ``workers``: fold threads. ``safety_poll`` / ``fallback_poll``:
    see :class:`~tracetui.ingest.watch.Watcher`.
    """

    def __init__(
        self,
        *,
        follow: bool = True,
        events: bool = True,
        workers: int = WORKERS,
        min_interval: float = MIN_INTERVAL,
        safety_poll: float = SAFETY_POLL,
        fallback_poll: float = FALLBACK_POLL,
    ) -> None:
        self.following = follow
        self.stopping = False
        self._cond = threading.Condition()
        self._sessions: dict[str, Followed | _Task] = {}
        self._dirty: dict[str, None] = {}  # insertion-ordered set
        self._busy: set[str] = set()
        self._preferred: str | None = None
        self.watcher: Watcher | None = None
        if follow:
            self.watcher = Watcher(
                self._changed, events=events, min_interval=min_interval, safety_poll=safety_poll, fallback_poll=fallback_poll
            )
            self.watcher.start()
        self._threads = [threading.Thread(target=self._work, name=f"tracetui-fold-{i}", daemon=True) for i in range(max(1, workers))]
        for t in self._threads:
            t.start()

    @property
    def mode(self) -> str:
        """``"events"`` when file events wake the follow, else ``"polling"``."""
        return self.watcher.mode if self.watcher is not None else "polling"

    @property
    def problem(self) -> str | None:
        """Why file events are unavailable (polling instead), or ``None``."""
        return self.watcher.problem if self.watcher is not None else None

    def open(self, key: str, paths: list[Path], sink: FollowSink, *, subagents: bool = True, use_cache: bool = True) -> Followed:
        """Follow session ``key`` (files ``paths``; the first is the main transcript); its first
        poll is queued at once. Returns its handle. Opening a key again replaces the old one."""
        s = Followed(self, key, paths, sink, subagents, use_cache)
        with self._cond:
            self._sessions[key] = s
            self._dirty[key] = None
            self._cond.notify()
        if self.watcher is not None:
            trees: list[Path] = []
            globs: list[tuple[Path, str]] = []
            if subagents:
                for main in s.paths:
                    t, g = subagent_places(main)
                    trees += t
                    globs += g
            self.watcher.add(key, s.paths, trees, globs)
        return s

    def watch(self, key: str, step: Callable[[], Any], globs: list[tuple[Path, str]], period: float | None = None) -> None:
        """Run ``step()`` on a fold worker when a name matching one of ``globs`` changes (see
        :meth:`Watcher.add`), at the start, and every ``period`` seconds at least (e.g. the list
        of sessions). Calling it again for ``key`` replaces what it watches."""
        with self._cond:
            if not isinstance(self._sessions.get(key), _Task):
                self._sessions[key] = _Task(key, step)
                self._dirty[key] = None
                self._cond.notify()
        if self.watcher is not None:
            self.watcher.add(key, globs=globs, period=period)

    def close(self, key: str) -> None:
        """Stop following ``key`` (its store is saved by :meth:`stop` like the others')."""
        if self.watcher is not None:
            self.watcher.remove(key)
        with self._cond:
            s = self._sessions.get(key)
            if s is not None:
                s.closed = True
            self._dirty.pop(key, None)

    def prefer(self, key: str | None) -> None:
        """Poll ``key`` before the others whenever it is due (the session on screen)."""
        with self._cond:
            self._preferred = key
        if self.watcher is not None:
            self.watcher.prefer(key)

    def wake(self, key: str | None = None) -> None:
        """Poll ``key`` (every session when ``None``) now, every file of it."""
        if self.watcher is not None:
            self.watcher.whole(key)  # not only what file events named (Watcher.take)
        self._changed(set(self._sessions) if key is None else {key})

    def sessions(self) -> list[Followed]:
        """The sessions followed, in the order they were opened."""
        with self._cond:
            return [s for s in self._sessions.values() if isinstance(s, Followed)]

    def _changed(self, keys: set[str]) -> None:
        with self._cond:
            for k in keys:
                s = self._sessions.get(k)
                if s is not None and not s.closed:
                    self._dirty[k] = None
            self._cond.notify_all()

    def _next(self) -> Followed | _Task | None:
        """The next session to poll (waits for one); ``None`` once stopping."""
        with self._cond:
            while True:
                if self.stopping:
                    return None
                pick = None
                p = self._preferred
                if p is not None and p in self._dirty and p not in self._busy:
                    pick = p
                else:
                    pick = next((k for k in self._dirty if k not in self._busy), None)
                if pick is not None:
                    del self._dirty[pick]
                    self._busy.add(pick)
                    return self._sessions[pick]
                self._cond.wait()

    def _work(self) -> None:
        while True:
            s = self._next()
            if s is None:
                return
            try:
                if not s.closed:
                    s.step()
            except Exception:  # a sink that failed (the app closing): the next change tries again
                pass
            finally:
                with self._cond:
                    self._busy.discard(s.key)
                    if s.key in self._dirty:
                        self._cond.notify()

    def idle(self) -> bool:
        """Nothing queued and nothing being polled (for tests and benchmarks)."""
        with self._cond:
            return not self._dirty and not self._busy

    def stop(self, timeout: float = 10.0, on_error: Callable[[Followed, Exception], Any] | None = None, save: bool = True) -> None:
        """End the watcher and the workers (a long first read is cut short), then save every
        session's store. ``timeout``: seconds to wait for the workers; a session still being
        polled then is not saved. ``on_error(session, exc)`` hears of a failed save. ``save``
        false: no store is saved (the terminal went away: the process ends at once; a store
        left unsaved costs a refold at the next open, never a wrong figure)."""
        with self._cond:
            self.stopping = True
            self._cond.notify_all()
        if self.watcher is not None:
            self.watcher.stop()
        end = time.monotonic() + timeout
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(max(0.0, end - time.monotonic()))
        if not save:
            return
        with self._cond:
            busy = set(self._busy)
            todo = [s for s in self._sessions.values() if isinstance(s, Followed) and s.key not in busy]
        for s in todo:
            try:
                s.save()
            except Exception as exc:
                if on_error is not None:
                    on_error(s, exc)
