"""``tracetui hook``: feed the trace-as-state card back into Claude Code through its hooks.

:mod:`tracetui.hook.run` answers a hook call (what it prints and when: its input and errors in
:mod:`~tracetui.hook.protocol`, the gate in :mod:`~tracetui.hook.gate`, the framed card in
:mod:`~tracetui.hook.compose`, the fold cache in :mod:`~tracetui.hook.cache`),
:mod:`tracetui.hook.install` edits Claude Code's settings; this module registers the subcommand.
"""

from __future__ import annotations

import argparse
import functools
from typing import Any

from tracetui.args import int_at_least
from tracetui.hook.install import cmd_install, install_hooks, merge_settings, remove_from_settings, settings_path, uninstall_hooks
from tracetui.hook.run import DEFAULT_GATE, EVENTS, GATES, MAX_CHARS, MIN_HOOK_CHARS, HookError, HookSkip, run_hook, run_mode

__all__ = [
    "register_hook",
    "run_hook",
    "HookError",
    "HookSkip",
    "MAX_CHARS",
    "GATES",
    "install_hooks",
    "uninstall_hooks",
    "merge_settings",
    "remove_from_settings",
    "settings_path",
]


def _cmd_hook(ns: argparse.Namespace) -> int:
    action = getattr(ns, "hook_action", None)
    if action in ("install", "uninstall"):
        return cmd_install(ns, action)
    import gc

    gc_was = gc.isenabled()
    gc.disable()  # the hook keeps what it builds until it exits: the cyclic GC only costs time
    try:
        return run_mode(ns)
    finally:
        if gc_was:
            gc.enable()


# -- argparse -----------------------------------------------------------------------------
class _ArgError(Exception):
    pass


def register_hook(sub: Any) -> None:
    """Add the ``hook`` subcommand (run, ``install``, ``uninstall``) to the CLI's subparsers.

    In run mode an argument error must not break the session either (Claude Code blocks the
    prompt when a UserPromptSubmit hook exits 2, argparse's error status), so the run parser
    records errors and unknown arguments instead of exiting; the command reports them in one
    line on stderr and exits 0.
    """
    ph = sub.add_parser(
        "hook",
        help="Claude Code hook (Claude Code only, not Codex CLI): give the model the state card after a compaction, resume or clear (install it with 'hook install')",
        description=(
            "Run by Claude Code as a SessionStart/UserPromptSubmit hook: reads the hook input JSON on stdin and prints"
            " the state card (added to the model's context) after a compaction, resume or clear, and on a prompt only"
            " when the gate opens. Never fails the session: errors are one line on stderr, exit 0."
            " For Claude Code only: a Codex CLI session (its rollout) is refused in one line; use 'tracetui card' for it."
            " 'tracetui hook install' adds it to Claude Code's settings.json."
        ),
    )
    ph.add_argument(
        "--gate",
        default=None,
        metavar="LIST",
        help=f"when a prompt (UserPromptSubmit) gets the card: comma list of {', '.join(GATES)} (a compaction, or a newly opened warning, since the last card), or none (default: $TRACETUI_HOOK_GATE or {DEFAULT_GATE})",
    )
    ph.add_argument("--always", action="store_true", help="no gate: print the card on every UserPromptSubmit")
    ph.add_argument("--no-cache", action="store_true", help="bypass the persistent fold cache")
    ph.add_argument(
        "--max-chars",
        # above the most: refused, not cut to it without a word (trial 13)
        type=int_at_least(MIN_HOOK_CHARS, maximum=MAX_CHARS, why_most="Claude Code shows longer hook output only as a preview"),
        default=MAX_CHARS,
        metavar="N",
        help=f"output cap in characters (default and most: {MAX_CHARS})",
    )
    hs = ph.add_subparsers(dest="hook_action")
    for name in ("install", "uninstall"):
        pi = hs.add_parser(
            name,
            help="add the hook to Claude Code's settings.json" if name == "install" else "remove the hook from Claude Code's settings.json",
        )
        scope = pi.add_mutually_exclusive_group()
        scope.add_argument(
            "--project",
            action="store_true",
            help="<dir>/.claude/settings.local.json, this machine's own project settings (the default)",
        )
        scope.add_argument(
            "--shared",
            action="store_true",
            help="<dir>/.claude/settings.json, the project settings shared through git (the entry names this machine's path)",
        )
        scope.add_argument("--user", action="store_true", help="<claude dir>/settings.json ($CLAUDE_CONFIG_DIR or ~/.claude)")
        pi.add_argument("--dir", default=None, help="the project folder (default: the current folder)")
        pi.add_argument("--dry-run", action="store_true", help="print the change as a diff; write nothing")
        if name == "install":
            pi.add_argument("--events", nargs="+", default=None, metavar="EVENT", help=f"events to hook (default: {' '.join(EVENTS)})")
            pi.add_argument(
                "--command", default=None, help="the command Claude Code runs (default: this tracetui's absolute path, then 'hook')"
            )
    ph.set_defaults(func=_cmd_hook)

    orig_parse = ph.parse_known_args
    # run mode keeps its unknown arguments (reported, then ignored) even when the CLI's parser
    # class (tracetui.cli.SubcommandParser) makes them an error: the base class's own parsing
    lenient_parse = functools.partial(argparse.ArgumentParser.parse_known_args, ph)
    orig_error = ph.error

    def error(message: str):  # type: ignore[no-untyped-def]
        raise _ArgError(message)

    def parse_known_args(args=None, namespace=None):  # type: ignore[no-untyped-def]
        args = list(args or [])
        if args and args[0] in ("install", "uninstall", "-h", "--help"):
            ph.error = orig_error  # type: ignore[method-assign]
            return orig_parse(args, namespace)
        ph.error = error  # type: ignore[method-assign]
        try:
            ns, extra = lenient_parse(args, namespace)
        except _ArgError as exc:
            ns = namespace if namespace is not None else argparse.Namespace()
            ns.hook_error = str(exc)
            ns.func = _cmd_hook
            return ns, []
        ns.hook_extra = extra
        return ns, []

    ph.parse_known_args = parse_known_args  # type: ignore[method-assign]
