"""The argument parser class of every ``tracetui`` command line: errors are one line.

The project's rule for bad input is one line that says what and where, never more (README,
"What must always hold"). argparse prints its whole usage block before the error; this parser
prints only ``tracetui view: unrecognized arguments: --json (see 'tracetui view --help')``
on stderr and exits with argparse's status 2. ``--help`` still prints the full usage.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

__all__ = ["OneLineParser", "int_at_least", "add_source_args", "add_agent_arg", "AGENT_CHOICES"]

#: the values of ``--agent`` (the same as ``tracetui.ingest.agents.AGENTS``, which this bottom
#: layer cannot import; a test keeps them equal)
AGENT_CHOICES = ("claude", "codex")


#: the largest whole number an option takes: SQLite's INTEGER (a ``LIMIT``) holds no more
INT_MAX = (1 << 63) - 1


def int_at_least(minimum: int, why: str = "", maximum: int | None = None, why_most: str = "") -> Callable[[str], int]:
    """An argparse ``type``: a whole number of at least ``minimum`` and at most ``maximum``
    (``None``: :data:`INT_MAX`). Raises ``argparse.ArgumentTypeError`` (``not a number: 'x'``;
    ``must be at least N (why): n``; ``must be at most M (why_most): n``), one message for every
    value out of range."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if n < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{f' ({why})' if why else ''}: {n}")
        if maximum is not None and n > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}{f' ({why_most})' if why_most else ''}: {n}")
        if n > INT_MAX:
            raise argparse.ArgumentTypeError(f"must be at most {INT_MAX}: {text}")
        return n

    return parse


class OneLineParser(argparse.ArgumentParser):
    """An ``argparse.ArgumentParser`` whose :meth:`error` prints one line naming the command and
    pointing at its help (``help_hint``, default ``'<prog> --help'``). Raises ``SystemExit(2)``
    like argparse."""

    def __init__(self, *args, help_hint: str | None = None, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.help_hint = help_hint

    def error(self, message: str) -> NoReturn:
        hint = self.help_hint or f"{self.prog} --help"
        self.exit(2, f"{self.prog}: {message} (see '{hint}')\n")


def add_agent_arg(p: argparse.ArgumentParser) -> None:
    """``--agent claude|codex``: only that agent's sessions (``ns.agent``, ``None`` for both)."""
    p.add_argument(
        "--agent",
        choices=AGENT_CHOICES,
        default=None,
        help="only this agent's sessions: claude (Claude Code) or codex (OpenAI Codex CLI) (default: both)",
    )


def add_source_args(p: argparse.ArgumentParser) -> None:
    """The source arguments shared by ``state``, ``view`` and ``card``."""
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH|SESSION",
        help=(
            "transcript or rollout files (.jsonl), or a session id / Codex thread id or a prefix of one, looked up under"
            " <claude dir>/projects ($CLAUDE_CONFIG_DIR or ~/.claude) and the Codex CLI's sessions and archived_sessions"
            " ($CODEX_HOME or ~/.codex) (default: the newest session of either agent)"
        ),
    )
    add_agent_arg(p)
    p.add_argument("--no-subagents", action="store_true", help="fold only the named files, not the subagent transcripts found beside them")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="fold from scratch: neither read nor write the persistent fold cache ($TRACETUI_CACHE_DIR or the user cache folder)",
    )
