"""Notice new sessions: Claude Code's projects folder and each project folder (one level each,
so the watch count stays the number of projects) watched by the app's one
:class:`~tracetui.session.follow.Follow`, with a slow poll besides, which also finds new Codex CLI
rollouts; the date folders of the newest Codex rollouts are watched too (a new day's folder is
found by the poll). Posts :class:`SessionsFound`."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracetui.ingest.discover import SessionInfo, is_session, list_sessions, projects_dir
from tracetui.ingest.file_ident import file_ident
from tracetui.tui.messages import SessionsFound

__all__ = ["SessionsWatch", "POLL_SECONDS", "KEY", "CODEX_FOLDERS"]

#: seconds between two listings when no file event arrives
POLL_SECONDS = 5.0
#: how many of the newest Codex date folders are watched for new rollouts
CODEX_FOLDERS = 3
#: the watcher key of the listing (no session's key: those are paths)
KEY = "\0sessions"


class SessionsWatch:
    """Posts sessions under ``root`` that are not in ``known`` (paths, or other paths to their
    files) and were modified in the last ``hours`` hours (``None``: any age, but only sessions
    that appear after the start), of ``agent`` only when given (``"claude"`` | ``"codex"``),
    Codex rollouts under ``$CODEX_HOME``.
    :meth:`attach` hands it to a :class:`~tracetui.session.follow.Follow`, whose workers run
    :meth:`step` when the folders change."""

    def __init__(
        self,
        post: Callable[[Any], Any],
        known: set[str],
        root: Path | None = None,
        hours: float | None = None,
        clock: Callable[[], float] = time.time,
        agent: str | None = None,
    ) -> None:
        self.post = post
        self.known = set(known)
        #: the files of ``known`` (a tab's path may name a listed file another way: relative,
        #: through a symlinked folder), stat'ed once
        self.known_files = {file_ident(k) for k in known} - {None}
        self.root = root or projects_dir()
        self.hours = hours
        self.clock = clock
        self.agent = agent
        self.follow: Any = None
        self._first = True
        self._projects: frozenset[Path] | None = None

    def attach(self, follow: Any) -> None:
        """Let ``follow`` (a :class:`~tracetui.session.follow.Follow`) run the listing."""
        self.follow = follow
        self._register(frozenset())

    def _register(self, projects: frozenset[Path]) -> None:
        if projects == self._projects or self.follow is None:
            return
        self._projects = projects
        globs = [(self.root, "*")] + [(d, "*.jsonl") for d in sorted(projects)]
        self.follow.watch(KEY, self.step, globs, period=POLL_SECONDS)

    def step(self) -> None:
        """List the sessions and post the new ones (on a fold worker)."""
        new = self.scan(self._first)
        self._first = False
        if new:
            self.post(SessionsFound(new))

    def scan(self, first: bool = False) -> list[SessionInfo]:
        """New sessions now (and, on the first scan, only remember what exists when ``hours``
        is ``None``)."""
        found = list_sessions(self.root, self.agent)
        # the date folders of the newest Codex rollouts: where the next one likely appears (a
        # new day's folder is found by the poll)
        codex = dict.fromkeys(s.path.parent for s in found if s.agent == "codex")  # newest first
        codex_days = frozenset(list(codex)[:CODEX_FOLDERS])
        try:
            claude = frozenset(d for d in self.root.iterdir() if d.is_dir()) if self.agent != "codex" else frozenset()
        except OSError:
            claude = frozenset()
        self._register(claude | codex_days)
        cutoff = None if self.hours is None else self.clock() - self.hours * 3600
        new = []
        for s in found:
            key = str(s.path)
            if key in self.known:
                continue
            if self.known_files and file_ident(s.path) in self.known_files:
                self.known.add(key)
                continue
            if first and self.hours is None:
                self.known.add(key)
                continue
            if cutoff is not None and s.mtime < cutoff:
                continue
            if not is_session(s):  # a stray file (empty so far, other JSON): looked at again next time
                continue
            self.known.add(key)
            new.append(s)
        return new
