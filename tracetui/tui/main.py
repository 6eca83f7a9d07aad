"""``tracetui [PATH|SESSION ...] [--demo] [--all [--hours N]]``: arguments → settings → the app."""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tracetui.args import OneLineParser, add_agent_arg
from tracetui.ingest.files import path_text
from tracetui.tui.settings import MAX_TABS, SessionSpec, Settings

__all__ = ["run_app", "build_settings", "parser", "UsageError"]


#: ``--all`` without ``--hours``: sessions active in the last day
DEFAULT_HOURS = 24.0
#: ``--demo-speed``'s default: the bundled demo replayed 3 times as fast as it was recorded
DEMO_SPEED = 3.0


class UsageError(ValueError):
    """Arguments that parse but make no sense together (``--hours`` without ``--all``, a
    negative ``--hours``); the message is one line naming the option."""


def parser(subcommands: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The app's arguments (the headless subcommands have their own, in :mod:`tracetui.cli`);
    ``subcommands``: their names, which the description lists (``tracetui.cli.SUBCOMMANDS``)."""
    named = f" Subcommands: {', '.join(subcommands)}." if subcommands else " Subcommands: tracetui --help."
    p = OneLineParser(
        prog="tracetui",
        help_hint="tracetui -- --help",
        description=(
            "A terminal live monitor for Claude Code and OpenAI Codex CLI sessions (found under $CLAUDE_CONFIG_DIR or"
            " ~/.claude, and $CODEX_HOME or ~/.codex)." + named
        ),
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH|SESSION",
        help="transcript or rollout files, session ids or Codex thread ids (one tab each; default: the newest session of either agent)",
    )
    add_agent_arg(p)
    p.add_argument("--demo", action="store_true", help="play the bundled demo session")
    p.add_argument("--all", action="store_true", help="one tab per session active in the last --hours hours")
    p.add_argument("--hours", type=float, default=None, metavar="N", help="with --all: sessions modified in the last N hours (default 24)")
    p.add_argument("--no-subagents", action="store_true", help="fold only the named files")
    p.add_argument("--no-cache", action="store_true", help="bypass the persistent fold cache")
    p.add_argument("--poll", action="store_true", help="poll files instead of using file events")
    p.add_argument("--export-dir", type=Path, metavar="DIR", help="where copied cards and views are also written")
    p.add_argument("--theme", metavar="NAME", help="a Textual theme (textual-dark, textual-light, nord, gruvbox, …; ctrl+p lists them)")
    p.add_argument(
        "--demo-speed", type=float, default=DEMO_SPEED, metavar="X", help=f"demo pace: X times as fast as recorded (default {DEMO_SPEED:g})"
    )
    p.add_argument(
        "--budget-usd",
        type=float,
        default=None,
        metavar="USD",
        help="a budget per session (the fleet says when it is crossed, and when it will be)",
    )
    p.add_argument(
        "--budget-usd-day", type=float, default=None, metavar="USD", help="a budget for all sessions' spend on the current UTC day"
    )
    p.add_argument("--no-bell", action="store_true", help="no terminal bell when a session turns waiting on you or failing")
    p.epilog = (
        "Settings file: $TRACETUI_CONFIG or settings.toml in the user config folder (~/.config/tracetui on Linux):"
        " bell, budget_usd, budget_usd_day and [fleet] quiet_after, stall_after, idle_after, ended_after (seconds);"
        " the options win over it."
    )
    return p


def build_settings(argv: Sequence[str], now: float | None = None, subcommands: Sequence[str] = ()) -> Settings:
    """Settings for ``argv``. Raises ``DiscoveryError`` for a session id that matches nothing,
    :class:`UsageError` for options that make no sense (``--hours`` without ``--all``, an
    ``--hours`` or ``--demo-speed`` that is not a positive number, a ``--theme`` Textual does
    not have)."""
    import math

    from tracetui.ingest.codex_discover import rollout_meta
    from tracetui.ingest.discover import is_session, list_sessions, newest_session, one_of_copies, resolve_target, where_sessions
    from tracetui.ingest.file_ident import file_ident

    ns = parser(subcommands).parse_args(list(argv))
    if ns.hours is None:
        ns.hours = DEFAULT_HOURS
    elif not ns.all:
        raise UsageError("--hours only applies with --all (one tab per session active in the last N hours)")
    if not (math.isfinite(ns.hours) and ns.hours > 0):
        raise UsageError(f"--hours must be a positive number of hours, not {ns.hours:g}")
    if not (math.isfinite(ns.demo_speed) and ns.demo_speed > 0):
        raise UsageError(f"--demo-speed must be a positive factor, not {ns.demo_speed:g}")
    for opt, v in (("--budget-usd", ns.budget_usd), ("--budget-usd-day", ns.budget_usd_day)):
        if v is not None and not (math.isfinite(v) and v > 0):
            raise UsageError(f"{opt} must be a positive number of USD, not {v:g}")
    if ns.theme is not None:
        from textual.theme import BUILTIN_THEMES  # the themes the app has (it adds none)

        if ns.theme not in BUILTIN_THEMES:
            raise UsageError(f"--theme {ns.theme!r} is not a theme; themes: {', '.join(sorted(BUILTIN_THEMES))}")
    from tracetui.session.user_settings import load_user_settings
    from tracetui.views.fleet import FleetRules

    us = load_user_settings()  # the options win over the settings file
    s = Settings(
        subagents=not ns.no_subagents,
        use_cache=not ns.no_cache,
        watch=not ns.poll,
        export_dir=ns.export_dir,
        demo_speed=1 / ns.demo_speed,  # the factor the recorded gaps are multiplied by
        theme=ns.theme,
        agent=ns.agent,
        fleet_first=ns.all,
        fleet_hours=ns.hours,
        budget_usd=ns.budget_usd if ns.budget_usd is not None else us.budget_usd,
        budget_usd_day=ns.budget_usd_day if ns.budget_usd_day is not None else us.budget_usd_day,
        bell=not ns.no_bell and us.bell is not False,
        fleet_rules=FleetRules(**us.fleet),
        warnings=list(us.warnings),
    )
    now = time.time() if now is None else now
    if ns.paths:
        from tracetui.tui.format import file_label

        for a in ns.paths:
            p = resolve_target(a, agent=ns.agent)
            _refuse_special(p)
            meta = rollout_meta(p)  # a rollout's name starts "rollout-<time>": its thread id says which
            s.sessions.append(SessionSpec((p,), meta.thread_id[:8] if meta else file_label(path_text(p.stem))))
    if ns.all:
        s.all_hours = ns.hours
        cutoff = now - ns.hours * 3600
        # the sessions named are matched as files: a relative path, or one through a symlinked
        # folder, names a listed file another way (eighth user trial: two tabs, two fleet rows)
        have = {sp.key for sp in s.sessions}
        have_files = {file_ident(sp.paths[0]) for sp in s.sessions} - {None}
        listed = [i for i in list_sessions(agent=ns.agent) if i.mtime >= cutoff]
        # a session in several project folders (a copy) is one tab, of the file its fleet row
        # and `state ID` read (trial 12: 7 tabs for a fleet of 6 rows)
        copies: dict[str, list] = {}
        for info in listed:
            if info.agent == "claude":
                copies.setdefault(info.session_id, []).append(info)
        copied = {id(i) for c in copies.values() if len(c) > 1 for i in c} - {id(one_of_copies(c)) for c in copies.values()}
        for info in listed:
            if str(info.path) in have or id(info) in copied:
                continue
            if have_files and file_ident(info.path) in have_files:
                continue
            if is_session(info):  # a stray file is no session
                s.sessions.append(SessionSpec((info.path,), f"{info.project[-16:]}/{info.session_id[:8]}"))
        if len(s.sessions) > MAX_TABS:  # the named ones first, then the newest (list_sessions' order)
            n = len(s.sessions)
            del s.sessions[MAX_TABS:]
            s.warnings.append(
                f"--all: {n} sessions were active in the last {ns.hours:g} hours; the {MAX_TABS} most recent are open in tabs."
                " Name another by its id, or narrow --hours."
            )
        if not s.sessions and not ns.demo:
            s.demo = True
            s.demo_reason = (
                f"No session was active in the last {ns.hours:g} hours under {where_sessions(ns.agent)}: playing the bundled demo."
            )
    if ns.demo:
        s.demo = True
        s.demo_reason = s.demo_reason or "Playing the bundled demo session (written by tracetui itself)."
    if not s.sessions and not s.demo:
        newest = newest_session(agent=ns.agent)
        if newest is None:
            s.demo = True
            s.demo_reason = f"No sessions under {where_sessions(ns.agent)}: playing the bundled demo instead."
        else:
            s.sessions.append(SessionSpec((newest.path,), newest.session_id[:8]))
    return s


def _is_terminal(stream) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):  # a closed or odd stream is no terminal
        return False


def _refuse_special(p: Path) -> None:
    """Raise ``DiscoveryError`` for a named path that is a FIFO, socket or device, in the line
    ``state`` says it (``PATH: a FIFO (named pipe), not a transcript file``): it is never
    opened, so a tab would only ever say "still watching"; for a file that cannot be opened
    (``PATH: permission denied``, :func:`~tracetui.session.reader.describe_os_error`); and for a
    file whose first line is no record (``PATH: not a transcript (...)``). A file not there yet,
    or empty, is waited for."""
    import stat

    from tracetui.ingest.discover import DiscoveryError
    from tracetui.ingest.files import file_kind

    try:
        st = p.stat()
    except OSError:
        return
    mode = st.st_mode
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise DiscoveryError(f"{p}: {file_kind(mode)}, not a transcript file")
    if stat.S_ISREG(mode) and st.st_size > 0:
        from tracetui.ingest.files import open_regular
        from tracetui.ingest.first_line import opens_a_transcript
        from tracetui.session.reader import describe_os_error

        try:  # a file that cannot be read is said so, as ``state`` says it (permission denied)
            open_regular(p).close()
        except OSError as exc:
            raise DiscoveryError(describe_os_error(p, exc)) from None
        if not opens_a_transcript(p):
            # as ``state`` refuses it (fifth user trial: /etc/passwd was a tab of 24 malformed
            # lines); an empty file is a session not written yet, and is waited for
            raise DiscoveryError(f"{p}: not a transcript (its first line is not a Claude Code record or a Codex session_meta)")


def run_app(argv: Sequence[str], subcommands: Sequence[str] = ()) -> int:
    """Run the app for ``argv`` (``subcommands``: the names its help lists); returns the exit code. Errors are one line on stderr: bad
    arguments (1 for a session that matches nothing, 2 for options), and stdout that is not a
    terminal (2; the headless subcommands are for pipes)."""
    from tracetui.ingest.discover import DiscoveryError

    try:
        settings = build_settings(argv, subcommands=subcommands)
    except DiscoveryError as exc:
        print(f"tracetui: {exc}", file=sys.stderr)
        return 1
    except UsageError as exc:
        print(f"tracetui: {exc} (tracetui -- --help lists the options)", file=sys.stderr)
        return 2
    if not _is_terminal(sys.stdout):
        # the app would write its escape codes into a pipe or a file
        print(
            "tracetui: stdout is not a terminal, so the monitor cannot run; for text use `tracetui state`, `tracetui view` or `tracetui card` [PATH|SESSION]",
            file=sys.stderr,
        )
        return 2
    from tracetui.tui.app import make_app

    app = make_app(settings)
    hangup = _on_hangup(lambda: app.replay.stop() if app.replay is not None else None, stop=app.hang_up)
    try:
        app.run()
    except KeyboardInterrupt:  # Ctrl-C, or the terminal went away outside the app's loop (_on_hangup)
        pass
    finally:
        if app.replay is not None:
            app.replay.stop()  # the demo's temporary session folder goes, also on a hang-up
        _restore(hangup)
    if app.hung_up:
        # nothing is left to do for a terminal that went away: the process ends here, without
        # the interpreter's teardown of the heap (~2 s after the first open of a 200 MB session)
        # or a wait for a thread still running
        _end_now(int(app.return_code or 0))
    return int(app.return_code or 0)


def _end_now(code: int) -> None:
    """End the process with ``code`` at once (stdio flushed as far as it can be)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


#: seconds a hung-up process is given to end by itself before it is ended (:func:`_on_hangup`):
#: the app's exit in order takes ~0.2 s; a loop held by a long draw (the first state of a 200 MB
#: session: ~2 s) is not waited for
HANGUP_GRACE = 0.5


def _on_hangup(
    cleanup: Callable[[], object] = lambda: None, end: Callable[[int], object] = os._exit, stop: Callable[[], object] | None = None
) -> object:
    """Make SIGHUP (the terminal went away) end the app (the default would end the process at
    once, leaving the demo's temporary session folder behind). While an asyncio loop runs in
    the main thread (the app's), ``stop`` is called on it (``TraceApp.hang_up``: the app exits
    in order, its stores not saved); elsewhere, or without ``stop``, a ``KeyboardInterrupt`` is
    raised, as Ctrl-C does. (An interrupt raised inside the app's loop landed at any point of
    its code: at the end of a long first read it was swallowed, and the process ended by the
    last resort, seconds later.) A process still alive :data:`HANGUP_GRACE` seconds later (a
    worker thread still runs: the fourth user trial found a monitor whose terminal was gone
    burning a core for 40 minutes) runs ``cleanup`` and is ended by ``end(129)`` (128 +
    SIGHUP). Returns the handler it replaced."""
    import asyncio
    import signal

    if not hasattr(signal, "SIGHUP"):
        return None

    def last_resort() -> None:
        try:
            cleanup()
        finally:
            end(128 + signal.SIGHUP)

    def hung_up(signum: int, frame: object) -> None:
        timer = threading.Timer(HANGUP_GRACE, last_resort)
        timer.daemon = True
        timer.start()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if stop is None or loop is None:
            raise KeyboardInterrupt
        # the handler runs between two bytecodes of the loop's thread: the stop is queued, as
        # asyncio queues its own signal handlers (call_soon_threadsafe is safe here)
        loop.call_soon_threadsafe(stop)

    try:
        return signal.signal(signal.SIGHUP, hung_up)
    except ValueError:  # not the main thread (a test running the app in a thread)
        return None


def _restore(old: object) -> None:
    import signal

    if old is not None and hasattr(signal, "SIGHUP"):
        try:
            signal.signal(signal.SIGHUP, old)  # type: ignore[arg-type]
        except (ValueError, TypeError):
            pass
