"""``tracetui sessions [--all] [--hours N] [--agent A] [--json]``: the fleet's columns, headless.

One row per session of either agent (Claude Code's projects folder, the Codex home) active in the last ``--hours`` hours (``--all``:
every session), sorted by what needs attention (:mod:`tracetui.views.fleet`), as a table or
one JSON object (:func:`tracetui.views.fleet_table.row_json` per session, and the fleet's
totals). Each session is folded through the store like ``tracetui state``; one that cannot be
read is one line on stderr and left out.
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tracetui.args import add_agent_arg

__all__ = ["register_sessions", "sessions_data", "render_table"]


#: the column a state's rule starts at in the help's list of states (``"  " + 15 + " "``)
_RULE_AT = 18


class _WrapFormatter(argparse.HelpFormatter):
    """argparse's formatter, its text wrapped line by line to the help's width, as every
    other command's: a line of the description or the epilog is filled, and a line of the
    epilog's list of states (it starts with spaces) goes on under its rule (:data:`_RULE_AT`)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for line in text.splitlines():
            hang = indent + (" " * _RULE_AT if line.startswith("  ") else "")
            out.append(textwrap.fill(line, width, initial_indent=indent, subsequent_indent=hang))
        return "\n".join(out)


def _positive(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(x) and x > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number: {text}")
    return x


def register_sessions(sub: Any) -> None:
    """Add the ``sessions`` subcommand to the ``tracetui`` subparsers ``sub``."""
    from tracetui.views.fleet import rules_help

    rules = "\n".join(f"  {state:{_RULE_AT - 3}} {rule}" for state, rule in rules_help())
    p = sub.add_parser(
        "sessions",
        help="list the sessions with their state, call in flight, anomalies, tokens and cost",
        description="List the sessions active in the last --hours hours (default 24; --all: every session) with the"
        " fleet's columns: project, title or goal, agent, state, call in flight, open anomalies by severity,"
        " tokens and estimated cost of the session and of the last hour, context fill, and the session id (its first"
        " 8 characters, more where another session's id starts with them: a prefix state, view and card take)."
        " Sorted by what needs"
        " attention: waiting on you, failing, stalled, working, idle, ended.",
        epilog="states, in the order of attention (a session is in the first whose rule holds, ended checked before all):\n" + rules,
        formatter_class=_WrapFormatter,
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="every session, whatever its age: Claude Code's under <claude dir>/projects and the Codex CLI's under $CODEX_HOME (~/.codex)",
    )
    add_agent_arg(p)
    p.add_argument(
        "--hours", type=_positive, default=None, metavar="N", help="sessions whose files were written in the last N hours (default 24)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object: the sessions and the fleet's totals")
    p.add_argument(
        "--budget-usd", type=_positive, default=None, metavar="USD", help="a budget per session: said when crossed, and when it will be"
    )
    p.add_argument(
        "--budget-usd-day", type=_positive, default=None, metavar="USD", help="a budget for all sessions' spend on the current UTC day"
    )
    p.add_argument("--no-subagents", action="store_true", help="fold only the main transcripts")
    p.add_argument("--no-cache", action="store_true", help="fold from scratch: neither read nor write the persistent fold cache")
    p.set_defaults(func=_cmd_sessions)


def sessions_data(
    hours: float | None,
    now: float,
    subagents: bool = True,
    use_cache: bool = True,
    budgets: Any = None,
    warn: Any = None,
    agent: str | None = None,
    found: Sequence[Any] | None = None,
) -> tuple[list, dict]:
    """``(rows, fleet)``: the :class:`~tracetui.views.fleet_table.FleetRow` of each session of
    either agent (``agent``, ``"claude"`` | ``"codex"``: of that one; discover.py ``list_sessions``; one a session: :func:`~tracetui.views.fleet_copies.one_per_session`) written in the last ``hours`` hours (``None``: all) at ``now`` (epoch
    seconds), sorted by attention, and :func:`~tracetui.views.fleet_totals.fleet_json`.
    ``warn(line)`` hears of a session that could not be read (default: stderr). ``found``: the
    sessions listed already (``list_sessions()`` of both agents; default: listed here)."""
    from tracetui.ingest.discover import is_session, list_sessions
    from tracetui.ingest.file_ident import file_stat
    from tracetui.session.open import load_state, save_store
    from tracetui.session.user_settings import load_user_settings
    from tracetui.views.fleet import FleetRules
    from tracetui.views.fleet_copies import FileOf, one_per_session
    from tracetui.views.fleet_facts import session_facts
    from tracetui.views.fleet_table import Budgets, fleet_rows
    from tracetui.views.fleet_totals import fleet_json

    us = load_user_settings()
    for line in us.warnings:
        (warn or _warn)(line)
    budgets = budgets or Budgets()
    budgets = Budgets(
        budgets.session if budgets.session is not None else us.budget_usd,
        budgets.day if budgets.day is not None else us.budget_usd_day,
    )
    cutoff = None if hours is None else now - hours * 3600
    pairs = []
    unreadable: list[str] = []
    for info in list_sessions() if found is None else found:
        if (agent is not None and info.agent != agent) or (cutoff is not None and info.mtime < cutoff):
            continue
        if not is_session(info):  # a stray file is no session; one that cannot be read is said
            why = _unreadable(info.path)
            if why is not None:
                unreadable.append(why)
            continue
        try:
            reader, state = load_state([info.path], subagents, use_cache)
        except Exception as exc:  # one unreadable session must not hide the others
            (warn or _warn)(f"{info.path}: {exc}")
            continue
        pairs.append((session_facts(state, str(info.path), info.project, info.agent, info.role, info.orphan, info.session_id), info.mtime))
        try:
            save_store(reader)
        except Exception:
            pass
    if unreadable:
        n = len(unreadable)
        (warn or _warn)(
            f"note: {n} transcript file{'s' if n != 1 else ''} could not be read and {'are' if n != 1 else 'is'} left out ({unreadable[0]})."
        )
    # one row a session, as in the monitor's fleet: a copy of a transcript under another
    # project folder (the same session id) or a second path to one file is not a second session
    files = {facts.key: FileOf(*file_stat(facts.key), False) for facts, _ in pairs}
    rows = fleet_rows(one_per_session(pairs, files), now, FleetRules(**us.fleet), budgets=budgets)
    return rows, fleet_json(rows, now, budgets)


def _unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be read (one line), or ``None`` when it can."""
    from tracetui.session.reader import describe_os_error

    try:
        with open(path, "rb") as f:
            f.read(1)
    except OSError as exc:
        return describe_os_error(path, exc)
    return None


def _warn(line: str) -> None:
    print(f"tracetui sessions: {line}", file=sys.stderr)


def render_table(rows: list, fleet_line: str, now: float, known: Sequence[str] = ()) -> str:
    """The rows as a text table, columns padded to the cells they take, with the fleet's line
    under it. The session column shows each id's prefix that names it alone among the rows'
    and ``known`` ids (every session id a command line's prefix is looked up among):
    :func:`~tracetui.views.fleet_table.id_chars`."""
    from rich.cells import cell_len

    from tracetui.views.fleet_table import COLUMNS, id_chars, row_cells

    n = id_chars([r.facts.session_id for r in rows], known)
    cells = [row_cells(r, now, session_chars=n[r.facts.session_id]) for r in rows]
    heads = [h for _, h in COLUMNS]
    widths = [max([cell_len(h)] + [cell_len(c[k]) for c in cells]) for (k, _), h in zip(COLUMNS, heads)]

    def pad(text: str, w: int) -> str:  # in terminal cells: a CJK character takes two
        return text + " " * (w - cell_len(text))

    lines = ["  ".join(pad(h, w) for h, w in zip(heads, widths)).rstrip()]
    for c in cells:
        lines.append("  ".join(pad(c[k], w) for (k, _), w in zip(COLUMNS, widths)).rstrip())
    lines.append("")
    lines.append(fleet_line)
    return "\n".join(lines)


def _cmd_sessions(ns: argparse.Namespace) -> int:
    import orjson

    from tracetui.ingest.discover import list_sessions, projects_dir, where_sessions
    from tracetui.model.state import one_line_name
    from tracetui.views.fleet_table import Budgets, row_json
    from tracetui.views.fleet_totals import fleet_summary
    from tracetui.views.safe import json_safe, redact_json, safe_text

    if ns.all and ns.hours is not None:
        _warn("--hours and --all exclude each other (--all lists every session, whatever its age)")
        return 2
    hours = None if ns.all else (ns.hours or 24.0)
    now = time.time()
    budgets = Budgets(ns.budget_usd, ns.budget_usd_day)
    found = list_sessions()  # every session: the rows', and those a prefix is looked up among (state ID, view ID)
    rows, fleet = sessions_data(hours, now, not ns.no_subagents, not ns.no_cache, budgets, agent=ns.agent, found=found)
    if ns.json:
        obj, _ = redact_json(
            {"now": now, "hours": hours, "projects": str(projects_dir()), "fleet": fleet, "sessions": [row_json(r, now) for r in rows]}
        )
        text = orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode()
        sys.stdout.write(json_safe(text) + "\n")
        return 0
    if not rows:
        when = "" if hours is None else f" active in the last {hours:g} hours"
        # the folders looked in, as every name is printed: on one line, no control character
        print(f"no session{when} under {safe_text(one_line_name(where_sessions(ns.agent)))}")
        return 0
    print(render_table(rows, fleet_summary(rows, now, budgets), now, [s.session_id for s in found]))
    return 0
