"""``tracetui view`` and ``tracetui card``: the worker view and the trace-as-state card on stdout.

Registered by ``tracetui/cli.py`` through ``register_view(sub)`` / ``register_card(sub)``; both take
the same source arguments and give the same one-line errors as ``tracetui state``.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from tracetui.args import int_at_least
from tracetui.views.safe import export_text, state_secrets

__all__ = ["register_view", "register_card"]


def _episode_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--episode",
        type=int,
        metavar="N",
        default=None,
        help="compile as of the end of episode N: an episode is one human prompt and the work up to the next (1-based; default: the whole session)",
    )


#: the smallest ``--max-chars`` accepted: below it the view's own head (watermark, file names)
#: and foot lines cannot fit whole, so shortening could no longer say what it left out
MIN_MAX_CHARS = 800


_max_chars = int_at_least(MIN_MAX_CHARS, "the view's header and watermark alone need that much")


def _load(ns: argparse.Namespace):
    from tracetui.session.open import load_state, resolve_paths, save_store

    paths = resolve_paths(ns.paths, agent=ns.agent)
    reader, state = load_state(paths, not ns.no_subagents, not ns.no_cache)
    save_store(reader)
    return state


#: the wall clock the commands read (epoch seconds); a test sets a frozen one
clock = time.time


def _now(ns: argparse.Namespace) -> float | None:
    """The clock for the views' time-based parts (ages, the stall: the views read no clock), so
    a session is judged stalled here exactly when ``sessions`` and the monitor count and list it;
    ``None`` as of a past episode (``--episode``), whose calls open then are not running now."""
    return clock() if ns.episode is None else None


def _emit(text: str, state: Any = None) -> int:
    """Print ``text`` (a view of ``state``) with its secrets masked, the session's too."""
    sys.stdout.write(export_text(text, seen=state_secrets(state)) + "\n")
    return 0


def _cmd_view(ns: argparse.Namespace) -> int:
    from tracetui.views.worker import render_worker_view

    state = _load(ns)
    try:
        text = render_worker_view(state, episode=ns.episode, now=_now(ns), max_chars=ns.max_chars)
    except ValueError as exc:
        print(f"tracetui: {exc}", file=sys.stderr)
        return 1
    return _emit(text, state)


def _cmd_card(ns: argparse.Namespace) -> int:
    from tracetui.views.card import render_card

    state = _load(ns)
    try:
        text = render_card(state, episode=ns.episode, now=_now(ns))
    except ValueError as exc:
        print(f"tracetui: {exc}", file=sys.stderr)
        return 1
    return _emit(text, state)


def register_view(sub) -> None:
    """Add the ``view`` subcommand to the ``tracetui`` subparsers ``sub``."""
    from tracetui.args import add_source_args
    from tracetui.views.worker import DEFAULT_MAX_CHARS

    p = sub.add_parser(
        "view",
        help="print the worker view: compact text to paste into a fresh prompt",
        description="Print the worker view of a session: goal, latest ask, what the agent does now, calls in flight, "
        "anomalies, counters, files, key facts, recent failures and episodes, each line ending with the "
        "file:line it comes from. Lists it shortens say how many items they left out.",
    )
    add_source_args(p)
    _episode_arg(p)
    p.add_argument(
        "--max-chars",
        type=_max_chars,
        default=DEFAULT_MAX_CHARS,
        metavar="N",
        help=f"size limit in characters, at least {MIN_MAX_CHARS} (default {DEFAULT_MAX_CHARS})",
    )
    p.set_defaults(func=_cmd_view)


def register_card(sub) -> None:
    """Add the ``card`` subcommand to the ``tracetui`` subparsers ``sub``."""
    from tracetui.args import add_source_args
    from tracetui.views.card import CARD_MAX_TOKENS

    p = sub.add_parser(
        "card",
        help=f"print the state card to paste into a fresh prompt (at most ~{CARD_MAX_TOKENS} tokens)",
        description=f"Print the trace-as-state card: the task condition (goal, criteria, the sub-goal now), the "
        f"facts established (each with its file:line), the hypotheses ruled out, what is still open, and a "
        f"closing disclaimer; at most ~{CARD_MAX_TOKENS} tokens, for a fresh prompt.",
    )
    add_source_args(p)
    _episode_arg(p)
    p.set_defaults(func=_cmd_card)
