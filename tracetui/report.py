"""``tracetui report`` and ``tracetui search``: questions across every session, answered from the
cross-session index (tracetui/session/index), which each run first brings up to date (only
files that changed since are read).

Registered by ``tracetui/cli.py`` through ``register_report(sub)`` and ``register_search(sub)``.
Bad arguments are one line naming the argument; the output passes the views' safety rule
(views/safe.py: secrets masked, no raw control character reaches the terminal).
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import sys
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from tracetui.args import add_agent_arg, int_at_least

__all__ = ["register_report", "register_search", "parse_day"]

_DAYS_BACK = re.compile(r"(\d{1,5})d")


def parse_day(text: str, today: date) -> str:
    """A ``--since``/``--until`` value as a UTC day ``YYYY-MM-DD``: a date as given, or ``Nd``,
    the day N days before ``today`` (``0d`` is today). Raises ``argparse.ArgumentTypeError``
    (one line) for anything else."""
    m = _DAYS_BACK.fullmatch(text.strip())
    if m:
        return (today - timedelta(days=int(m.group(1)))).isoformat()
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD) nor a number of days back (7d): {text!r}")


def _day_arg(text: str) -> str:
    return parse_day(text, datetime.now(UTC).date())


def _emit_json(obj: Any, redact: bool = True) -> None:
    """``obj`` as indented JSON on stdout, terminal-safe; with ``redact`` every string's secrets
    masked (without: the view masked its transcript strings already)."""
    import orjson

    from tracetui.views.safe import json_safe, redact_json

    if redact:
        obj, _ = redact_json(obj)
    sys.stdout.write(json_safe(orjson.dumps(obj, option=orjson.OPT_INDENT_2)) + "\n")


def _index_notes(index: Any, stats: Any) -> list[str]:
    from tracetui.session.store.cache_note import said

    notes = []
    if not stats.files and stats.looked_in:  # say where: an empty result names the folders
        notes.append(f"note: no transcript files under {stats.looked_in}, so nothing is indexed.")
    if index.note and not said():  # the cache folder's note on stderr says why already
        notes.append(f"note: the shared index could not be used ({index.note}); a private one was built for this run.")
    if stats.errors:
        n = len(stats.errors)
        notes.append(
            f"note: {n} transcript file{'s' if n != 1 else ''} could not be read and {'are' if n != 1 else 'is'} left out ({stats.errors[0]})."
        )
    return notes


def _index_error(cmd: str, exc: Exception) -> int:
    from tracetui.session.index import index_path

    print(f"tracetui {cmd}: the index {index_path()} could not be read ({exc}); delete it to have it built again", file=sys.stderr)
    return 1


#: files to read above which a run on a terminal says it is indexing (a first run, say)
SAY_INDEXING = 50


def _progress() -> Callable[[int, int], None]:
    """A progress callback saying once, on a terminal's stderr, that many files are being read."""
    said = False

    def progress(done: int, total: int) -> None:
        nonlocal said
        if not said and total >= SAY_INDEXING and sys.stderr.isatty():
            said = True
            print(f"tracetui: indexing {total:,} transcript files (done once; later runs read only what changed)", file=sys.stderr)

    return progress


def _cmd_report(ns: argparse.Namespace) -> int:
    from tracetui.session.index import build_report, refresh
    from tracetui.views.report import render_report, report_json
    from tracetui.views.safe import safe_text

    if ns.since and ns.until and ns.since > ns.until:
        print(f"tracetui report: --since {ns.since} is after --until {ns.until}", file=sys.stderr)
        return 2
    index, stats = refresh(progress=_progress())
    try:
        rep = build_report(index.conn, ns.kind, ns.since, ns.until, ns.project, ns.agent)
    except sqlite3.Error as exc:
        return _index_error("report", exc)
    rep.notes += _index_notes(index, stats)
    # the views mask the transcript's strings of a report (a session id, a folder) themselves
    if ns.json:
        _emit_json(report_json(rep), redact=False)
    else:
        sys.stdout.write(safe_text(render_report(rep)) + "\n")
    return 0


def _cmd_search(ns: argparse.Namespace) -> int:
    from tracetui.session.index import refresh, search
    from tracetui.views.report import hits_json, render_hits
    from tracetui.views.safe import export_text

    text = " ".join(ns.text)
    if not text.split():
        print("tracetui search: TEXT is empty; give a word to look for", file=sys.stderr)
        return 2
    index, stats = refresh(progress=_progress())
    for note in _index_notes(index, stats):
        print(f"tracetui search: {note}", file=sys.stderr)
    try:
        # one more than asked for: whether the list is cut there is said (seventh user trial:
        # "20 matches" when there were 992)
        hits = search(index.conn, text, index.fts, ns.limit + 1, ns.agent)
    except sqlite3.Error as exc:
        return _index_error("search", exc)
    more = len(hits) > ns.limit
    hits = hits[: ns.limit]
    if ns.json:
        _emit_json(hits_json(text, hits, index.fts, more))
    else:
        sys.stdout.write(export_text(render_hits(text, hits, index.fts, more, ns.limit)) + "\n")
    return 0


def register_report(sub: Any) -> None:
    """Add the ``report`` subcommand to the ``tracetui`` subparsers ``sub``."""
    from tracetui.session.index.query import KINDS

    p = sub.add_parser(
        "report",
        help="tokens and estimated cost across every session, per day, week, month, project or session",
        description=(
            "Exact tokens per kind (input, output, cache read, cache write) and the estimated cost (genai-prices, each API "
            "message priced at its own day and tier; a model without a known price shows 'unknown', never $0.00) over every "
            "Claude Code session under <claude dir>/projects, each API message counted once across every file (under the file that "
            "has it earliest; a session left with none, a copy's, is listed with 0 and a note), and every "
            "OpenAI Codex CLI session under $CODEX_HOME (~/.codex) sessions/ and archived_sessions/ (each response counted once "
            "from its cumulative token totals, a child rollout's replayed copy of its parent's history not counted). Answered from the "
            "cross-session index in the cache folder ($TRACETUI_CACHE_DIR or the user cache folder), which each run brings up "
            "to date by reading only what changed. Weeks are ISO weeks (2026-W45); days are UTC."
        ),
    )
    p.add_argument("kind", choices=KINDS, help="how to group: " + ", ".join(KINDS))
    p.add_argument("--since", type=_day_arg, metavar="D", help="from this UTC day on: YYYY-MM-DD, or Nd for N days ago (7d; 0d is today)")
    p.add_argument("--until", type=_day_arg, metavar="D", help="up to this UTC day, included: YYYY-MM-DD or Nd")
    p.add_argument("--project", metavar="P", help="only sessions whose project folder or working directory contains P")
    add_agent_arg(p)
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(func=_cmd_report)


def register_search(sub: Any) -> None:
    """Add the ``search`` subcommand to the ``tracetui`` subparsers ``sub``."""
    p = sub.add_parser(
        "search",
        help="find prompts and tool calls across every session, with their file:line",
        description=(
            "Find the prompts and the tool calls (name and input excerpt) holding every word of TEXT, across every session "
            "under <claude dir>/projects and every Codex CLI rollout under $CODEX_HOME (~/.codex), each with the file:line it "
            "comes from. Whole words, with SQLite FTS5 (where this "
            "Python's SQLite lacks FTS5, substrings with LIKE instead, and the output says so). Secrets are masked before "
            "anything is indexed, so none can be found or printed."
        ),
    )
    p.add_argument("text", nargs="+", metavar="TEXT", help="the words to look for (all of them must match)")
    add_agent_arg(p)
    p.add_argument("--json", action="store_true", help="print the matches as one JSON object")
    p.add_argument("--limit", type=int_at_least(1), default=20, metavar="N", help="at most N matches, best first (default 20)")
    p.set_defaults(func=_cmd_search)
