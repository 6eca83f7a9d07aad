"""What the app is asked to show and how: built by :func:`tracetui.tui.main.run_app` or tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tracetui.views.fleet import FleetRules

__all__ = ["SessionSpec", "Settings", "MAX_TABS"]


#: tabs ``--all`` opens at most, the most recent sessions (a tab holds its session's state:
#: ~1 MB each; 1,400 sessions took 1.4 GB and minutes, sixth user trial); the number left out
#: is said in a note, and a session that starts later is announced, not opened, once this many are
MAX_TABS = 100


@dataclass(frozen=True)
class SessionSpec:
    """One tab: the files of one session (the first is the main transcript) and its label."""

    paths: tuple[Path, ...]
    label: str = ""
    demo: bool = False

    @property
    def key(self) -> str:
        """A stable id for the tab: the main transcript's path."""
        return str(self.paths[0])


@dataclass
class Settings:
    """App settings.

    * ``sessions``: one tab each; empty means "nothing to show" (the app says so).
    * ``demo``: play the bundled demo (a :class:`~tracetui.demo.replay.DemoReplay` is started
      by the app and its session added as the first tab); ``demo_reason`` is told to the user.
    * ``clock``: seconds since the epoch; tests freeze it so ages are deterministic.
    * ``follow``: keep tailing (``False``: read once, for tests and snapshots).
    * ``watch``: use file events (``False``: polling only).
    * ``export_dir``: where copied texts are also written (default: ``exports`` in the cache folder, tui/export.py ``export_dir``).
    * ``agent``: ``--agent``, the one agent whose sessions are listed and noticed (``None``: both).
    * ``theme``: a Textual theme name (``textual-dark``, ``textual-light``, ``nord``, …).
    * ``clipboard_cap``: bytes of UTF-8 text sent through OSC 52 at most (terminals and tmux
      drop longer sequences; the whole text is always in the export file).
    * The fleet (tracetui/tui/screens/fleet.py): ``fleet_first`` makes it the first screen
      (``--all``); ``fleet_hours``: sessions written in the last that many hours are in it
      besides the open tabs; ``fleet_rules``: the state rules' thresholds in seconds
      (:class:`tracetui.views.fleet.FleetRules`); ``budget_usd`` (per session) and
      ``budget_usd_day`` (all sessions, the current UTC day): optional budgets in USD
      (``--budget-usd``, ``--budget-usd-day``); ``bell``: ring the terminal bell when a session
      turns waiting on you or failing (``--no-bell`` turns it off).
    """

    sessions: list[SessionSpec] = field(default_factory=list)
    demo: bool = False
    demo_reason: str = ""
    #: lines about what the settings file could not give (told to the user at start)
    warnings: list[str] = field(default_factory=list)
    #: the factor the demo's recorded gaps are multiplied by (``--demo-speed X`` gives 1 / X)
    demo_speed: float = 1 / 3
    subagents: bool = True
    use_cache: bool = True
    follow: bool = True
    watch: bool = True
    clock: Callable[[], float] = time.time
    export_dir: Path | None = None
    clipboard_cap: int = 100_000
    tick_seconds: float = 1.0
    all_hours: float | None = None
    projects_root: Path | None = None
    #: the demo replay's projects folder (set by the app with ``demo``): the session switcher
    #: lists its session beside those under ``projects_root`` (trial 12: it replaced them)
    demo_root: Path | None = None
    theme: str | None = None
    #: ``--agent``: list and open only this agent's sessions (``"claude"`` | ``"codex"``; ``None``: both)
    agent: str | None = None
    fleet_first: bool = False
    fleet_hours: float = 24.0
    fleet_rules: FleetRules = field(default_factory=FleetRules)
    budget_usd: float | None = None
    budget_usd_day: float | None = None
    bell: bool = True
