"""What the fleet screen shows, kept for the whole app: each session's
:class:`~tracetui.views.fleet_facts.SessionFacts`, computed off the UI thread (which never folds,
prices or reads a ledger for it), and the states at ``now``.

Every session view's sink hands its snapshots here too (:meth:`FleetFeed.snapshot`, on a fold
worker; the feed's own thread computes their facts a moment later); sessions in the fleet's
window that have no tab are followed by the feed itself (:meth:`FleetFeed.follow_window`, with a
sink of its own). :meth:`FleetFeed.tick` classifies every session at ``now`` (cheap: pure rules
over the facts) and tells ``on_turn`` of sessions that turned *waiting on you* or *failing* since
the previous tick (the app rings the bell)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.message import Message

from tracetui.ingest.codex_discover import rollout_role
from tracetui.ingest.discover import orphan_of
from tracetui.ingest.file_ident import file_ident, file_stat
from tracetui.ingest.files import path_text
from tracetui.model.state import RunState
from tracetui.views.fleet_copies import FileOf, one_per_session
from tracetui.views.fleet_facts import SessionFacts, session_facts
from tracetui.views.fleet_table import Budgets, FleetRow, fleet_rows

__all__ = ["FleetFeed", "FleetChanged", "ALERT_STATES", "DELAY", "alert", "alert_texts"]

#: seconds a new state waits before its facts are computed (newer states of the session replace it)
DELAY = 0.25
#: states a session turning into rings the bell
ALERT_STATES = frozenset({"waiting on you", "failing"})


class FleetChanged(Message):
    """New facts arrived (posted to the fleet screen from a worker; coalesced)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FleetChanged)


class _FleetSink:
    """The sink of a session the feed follows without a tab: snapshots only."""

    def __init__(self, feed: FleetFeed, key: str, project: str, agent: str) -> None:
        self.feed, self.key, self.project, self.agent = feed, key, project, agent

    def snapshot(self, state: RunState, written: float | None) -> None:
        self.feed.snapshot(self.key, state, written, self.project, self.agent)

    def progress(self, done: int, total: int) -> None:
        pass

    def notice(self, level: str, text: str) -> None:
        pass


class FleetFeed:
    """The facts of every session (thread-safe), the states at the last tick, and who to tell.

    ``settings``: the app's :class:`~tracetui.tui.settings.Settings` (rules, budgets, window)."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        #: the newest state of each session whose facts are not computed yet, and the thread
        #: that computes them (:meth:`snapshot`)
        self._cond = threading.Condition()
        self._todo: dict[str, tuple[RunState, float | None, str, str]] = {}
        self._thread: threading.Thread | None = None
        self._stopped = False
        self._facts: dict[str, tuple[SessionFacts, float | None]] = {}
        #: each key's file as last stat'ed: ``((st_dev, st_ino) or None, size)`` (one row per
        #: session: :mod:`tracetui.views.fleet_copies`)
        self._files: dict[str, tuple[tuple[int, int] | None, int]] = {}
        self._states: dict[str, str] = {}
        #: bumps whenever facts change (the screen redraws when it moved)
        self.version = 0
        #: the fleet screen shown, told of new facts (set and cleared by the screen)
        self.screen: Any = None
        #: called with the rows that turned waiting on you or failing at a tick
        self.on_turn: Callable[[list[FleetRow]], Any] | None = None
        #: sessions the feed follows itself (no tab), by key; ``discovered`` once it listed its window
        self.followed: set[str] = set()
        self.discovered = False
        self.rows: list[FleetRow] = []
        self._rates: dict = {}  # fleet_rows' cache of burn rates
        #: every session id found on disk, in the window or not (the fleet screen's listing sets
        #: it): those a command line's prefix is looked up among, which the Session column's
        #: prefixes must not start (views/fleet_table.py ``id_chars``, as ``tracetui sessions``)
        self.known_ids: tuple[str, ...] = ()

    @property
    def budgets(self) -> Budgets:
        s = self.settings
        return Budgets(getattr(s, "budget_usd", None), getattr(s, "budget_usd_day", None))

    # -- any thread ----------------------------------------------------------------------------
    def snapshot(self, key: str, state: RunState, written: float | None, project: str = "", agent: str = "claude") -> None:
        """A new state of session ``key`` (a fold worker's sink calls it): its facts are computed
        on the feed's own thread :data:`DELAY` seconds later, the newest state of each session
        only. Computed at once on the worker, they took the GIL from the UI thread while it drew
        the same snapshot (append → state in the app: 23 ms median instead of 12 on 100k events)."""
        with self._cond:
            self._todo[key] = (state, written, project, agent)
            if self._thread is None and not self._stopped:
                self._thread = threading.Thread(target=self._run, name="tracetui-fleet", daemon=True)
                self._thread.start()
            self._cond.notify()

    def compute(self, key: str, state: RunState, written: float | None, project: str = "", agent: str = "claude") -> None:
        """Compute and keep the facts of ``state`` now (the caller's thread); tell the screen."""
        try:
            role = rollout_role(Path(key)) if state.agent == "codex" else ""  # read once per file (cached)
            orphan = orphan_of(Path(key))
            # the id the command line finds a Claude Code session by: its file's name (a copy
            # keeps its records' sessionId), as ``tracetui sessions`` shows it
            sid = path_text(Path(key).stem) if state.agent != "codex" and not orphan else ""
            facts = session_facts(state, key, project or Path(key).parent.name, agent, role, orphan, sid)
        except Exception:  # a fleet bug must not stop the session's own view
            return
        ident, size = file_stat(key)
        with self._lock:
            self._facts[key] = (facts, written)
            self._files[key] = (ident, size)
            self.version += 1
        screen = self.screen
        if screen is not None:
            screen.post_message(FleetChanged())

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._todo and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    return
            time.sleep(DELAY)  # snapshots that come meanwhile replace the queued ones
            with self._cond:
                todo, self._todo = self._todo, {}
            for key, (state, written, project, agent) in todo.items():
                self.compute(key, state, written, project, agent)

    def stop(self) -> None:
        """End the feed's thread (queued states are dropped)."""
        with self._cond:
            self._stopped = True
            self._todo.clear()
            self._cond.notify_all()

    def pairs(self) -> list[tuple[SessionFacts, float | None]]:
        """``(facts, written)`` of every session in the window, one pair a session: of the
        files it holds of one session (a tab's path and the same file found under the projects
        folder, a copy elsewhere), the one :func:`~tracetui.views.fleet_copies.one_per_session`
        takes."""
        with self._lock:
            pairs = list(self._facts.values())
            files = {k: FileOf(ident, size, k not in self.followed) for k, (ident, size) in self._files.items()}
        return one_per_session(pairs, files)

    def keys(self) -> set[str]:
        """The keys whose facts are computed (every file of a session, its copies too)."""
        with self._lock:
            return set(self._facts)

    def follow_window(self, follow: Any, infos: list, open_keys: set[str], subagents: bool = True, use_cache: bool = True) -> None:
        """Follow the sessions of ``infos`` (:class:`~tracetui.ingest.discover.SessionInfo`) that
        have no tab (not in ``open_keys``) and are not followed yet, through ``follow``: matched
        as files (``(st_dev, st_ino)``), as a tab's path can name a listed file another way
        (relative, through a symlinked folder), which its tab reads already. A copy of a
        session (another file) is followed: the fleet's rows keep one of them (:meth:`pairs`)."""
        self.discovered = True
        with self._lock:  # the fleet screen's listing thread and the UI thread both call it
            infos = [i for i in infos if str(i.path) not in open_keys and str(i.path) not in self.followed]
            known = open_keys | self.followed
            idents = {self._files[k][0] if k in self._files else None for k in known}
        # the files of the keys known (those with facts were stat'ed when computed)
        idents |= {file_ident(k) for k in known if k not in self._files}
        idents.discard(None)
        infos = [i for i in infos if file_ident(i.path) not in idents]
        with self._lock:
            infos = [i for i in infos if str(i.path) not in self.followed]
            self.followed.update(str(i.path) for i in infos)
        for info in infos:
            key = str(info.path)
            sink = _FleetSink(self, key, info.project, getattr(info, "agent", "claude"))
            follow.open(key, [Path(info.path)], sink, subagents=subagents, use_cache=use_cache)

    # -- the UI thread -------------------------------------------------------------------------
    def tick(self, now: float) -> list[FleetRow]:
        """Every session's row at ``now``, sorted by attention; ``on_turn`` hears of those that
        turned waiting on you or failing since the previous tick (a session seen for the first
        time turns nothing)."""
        s = self.settings
        rows = fleet_rows(self.pairs(), now, s.fleet_rules, self.budgets, self._rates)
        turned = []
        for r in rows:
            k = r.facts.key
            was = self._states.get(k)
            if was is not None and was != r.status.state and r.status.state in ALERT_STATES:
                turned.append(r)
            self._states[k] = r.status.state
        self.rows = rows
        if turned and self.on_turn is not None:
            self.on_turn(turned)
        return rows


def alert(app: Any, rows: list[FleetRow]) -> None:
    """Sessions that turned waiting on you or failing at one refresh: the terminal bell (unless
    ``settings.bell`` is off) and one notification per state (:func:`alert_texts`), however many
    sessions turned (a first fleet screen stacked dozens of them over the table)."""
    if app.settings.bell:
        app.bell()
    for text in alert_texts(rows):
        app.notify(text, title="Fleet", markup=False, timeout=6)


def alert_texts(rows: list[FleetRow], names: int = 3) -> list[str]:
    """The notifications for ``rows`` turned at one refresh, one per state in the order the rows
    are (safe text): ``project: title: waiting on you`` for one session, else ``3 sessions
    waiting on you: a, b, c…`` naming the first ``names`` of them (``…``: more not named)."""
    from tracetui.views.fleet_table import one_line

    def name(r: FleetRow) -> str:
        return one_line(r.facts.title, 40) or r.facts.session_id[:8]

    by_state: dict[str, list[FleetRow]] = {}
    for r in rows:
        by_state.setdefault(r.status.state, []).append(r)
    out = []
    for state, group in by_state.items():
        if len(group) == 1:
            r = group[0]
            out.append(f"{one_line(r.facts.project, 24)}: {name(r)}: {state}")
        else:
            more = "…" if len(group) > names else ""
            out.append(f"{len(group)} sessions {state}: {', '.join(name(r) for r in group[:names])}{more}")
    return out
