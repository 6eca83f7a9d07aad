"""Command line: ``tracetui [PATH|SESSION ...]`` opens the app; subcommands are headless.

Subcommands: :data:`SUBCOMMANDS` (each registered in ``_build_parser``). Every error is one line on stderr naming
what and where, with a non-zero exit; never a traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tracetui import __version__
from tracetui.args import OneLineParser, add_source_args
from tracetui.session.open import load_state, resolve_paths, save_store

__all__ = ["main", "SubcommandParser"]

#: every subcommand, in the order ``_build_parser`` registers them (the monitor's help lists them too)
SUBCOMMANDS = ("state", "view", "card", "hook", "sessions", "export", "report", "search")


class _SafeStream:
    """A text stream whose writes pass the one terminal-safety rule
    (:func:`tracetui.views.safe.safe_text`): error lines name files and sessions, and a file
    name can hold ``ESC ] 0`` or ``ESC ] 52``. Everything else is the wrapped stream's."""

    def __init__(self, stream) -> None:  # type: ignore[no-untyped-def]
        self._stream = stream

    def write(self, text: str) -> int:
        from tracetui.model.state import one_line_name
        from tracetui.views.safe import safe_text

        if text.startswith("tracetui") and "\n" in text.rstrip("\n"):
            # a line of ours (``tracetui: PATH: why``) is one line: a newline in a name it quotes
            # is shown as its control picture (seventh user trial: one error became four lines)
            body = text.rstrip("\n")
            text = one_line_name(body) + text[len(body) :]
        return self._stream.write(safe_text(text))

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._stream, name)


def _safe_stderr() -> None:
    """Route ``sys.stderr`` (every error line of the CLI, the hook and the monitor's start-up)
    through :class:`_SafeStream`, once."""
    if not isinstance(sys.stderr, _SafeStream) and sys.stderr is not None:
        sys.stderr = _SafeStream(sys.stderr)  # type: ignore[assignment]


def _err(msg: str) -> None:
    print(f"tracetui: {msg}", file=sys.stderr)


def _cmd_state(ns: argparse.Namespace) -> int:
    import orjson

    from tracetui.session.reader import TranscriptError
    from tracetui.views.state_json import state_summary, state_to_json

    redact = not getattr(ns, "no_redact", False)
    if not redact and not ns.json and not ns.follow:
        # the summary is a view: it masks its secrets whatever is asked (README: --json [--no-redact])
        _err("state: --no-redact applies to --json and --follow only (the summary always masks secrets)")
        return 2
    if ns.follow:
        # a new session starts empty, or not yet created: follow waits for it, and every
        # state line says what is wrong with a source (``sources[].error``) meanwhile
        from tracetui.ingest.files import path_text
        from tracetui.session.reader import SessionReader

        paths = resolve_paths(ns.paths, check=False, agent=ns.agent)
        if any(p.is_dir() for p in paths):
            raise TranscriptError(f"{path_text(next(p for p in paths if p.is_dir()))}: is a directory, not a transcript file")
        reader = SessionReader(paths, subagents=not ns.no_subagents)
        reader.poll()
        state = reader.snapshot()
    else:
        paths = resolve_paths(ns.paths, agent=ns.agent)
        # the session store keeps masked text only (it never holds a secret): the raw text
        # --no-redact asks for comes from a private fold that neither reads nor writes it
        reader, state = load_state(paths, not ns.no_subagents, use_cache=redact and not ns.no_cache)

    def as_json(state, option: int = 0) -> bytes:
        obj = state_to_json(state)
        if redact:
            from tracetui.ingest.secrets import summary
            from tracetui.views.safe import redact_json, state_secrets

            obj, kinds = redact_json(obj, state_secrets(state))
            assert isinstance(obj, dict)
            obj["secrets_redacted"] = {"count": len(kinds), "summary": summary(kinds)}
        return orjson.dumps(obj, option=option)

    if ns.follow:
        out = sys.stdout
        last = None
        said: set[str] = set()
        # runs until Ctrl-C, which main() turns into one line and exit status 130
        while True:
            line = as_json(state)
            if line != last:
                out.write(_json_safe(line) + "\n")
                out.flush()
                last = line
            for st in state.sources:
                # a source that can't be read is in every JSON line (sources[].error); the
                # terminal hears of it once, on stderr, so a wrong path is not a silent wait
                if st.error and st.error not in said:
                    said.add(st.error)
                    print(f"tracetui state --follow: {st.error}; waiting for it (Ctrl-C to stop)", file=sys.stderr, flush=True)
            while not reader.poll():
                time.sleep(0.05)
            state = reader.snapshot()
    if ns.json:
        sys.stdout.write(_json_safe(as_json(state, orjson.OPT_INDENT_2)) + "\n")
    else:
        print(state_summary(state))
    save_store(reader)
    return 0


def _json_safe(data: bytes) -> str:
    """orjson output with DEL and C1 controls escaped (orjson escapes only C0)."""
    from tracetui.views.safe import json_safe

    return json_safe(data)


class SubcommandParser(OneLineParser):
    """The parser class of every subcommand (and of theirs, e.g. ``hook install``): an argument
    it does not know is its own error, named with its own command (``tracetui view: ...``) in
    one line and argparse's exit status 2, not left to the top-level parser, which names only
    the subcommands. Raises ``SystemExit(2)`` through :meth:`error` like any argparse error."""

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def]
        ns, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return ns, extras


def _build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="tracetui",
        description=(
            "A terminal live monitor for Claude Code sessions ($CLAUDE_CONFIG_DIR or ~/.claude) and OpenAI\n"
            "Codex CLI sessions ($CODEX_HOME or ~/.codex); the subcommands print the same state without\n"
            "the app. 'tracetui COMMAND --help' gives each one's options (--agent claude|codex: one agent's sessions only)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "the live monitor (no subcommand):\n"
            "  tracetui                      the newest session of either agent (the bundled demo when there is none)\n"
            "  tracetui PATH|SESSION ...     one tab per transcript file, session id or Codex thread id (prefix)\n"
            "  tracetui --all [--hours N]    one tab per session active in the last N hours\n"
            "  tracetui --demo               play the bundled demo session\n"
            "  tracetui -- --help            every option of the monitor"
        ),
    )
    p.add_argument("--version", action="version", version=f"tracetui {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=SubcommandParser)
    ps = sub.add_parser(
        "state",
        help="fold a transcript and print its state",
        description=(
            "Fold the transcript(s) and print a summary of the run: goal, latest ask, counters, tools,"
            " tokens, estimated cost, files, sources. --json prints the full state as one JSON object."
        ),
    )
    add_source_args(ps)
    ps.add_argument("--json", action="store_true", help="print the full state as one JSON object")
    ps.add_argument(
        "--follow",
        action="store_true",
        help="keep running: print the full state as one JSON line each time it changes, until Ctrl-C (waits for a file not created yet)",
    )
    ps.add_argument(
        "--no-redact",
        action="store_true",
        help="with --json: keep secrets (API keys, tokens, passwords) as the transcript holds them, folded from the transcript "
        "without the session store (which holds masked text only), as --no-cache does; by default they are masked in place",
    )
    ps.set_defaults(func=_cmd_state)
    for name, mod in (
        ("view", "tracetui.commands"),
        ("card", "tracetui.commands"),
        ("hook", "tracetui.hook"),
        ("sessions", "tracetui.sessions"),
        ("export", "tracetui.export"),
        ("report", "tracetui.report"),
        ("search", "tracetui.report"),
    ):
        _register_optional(sub, name, mod)
    # set after add_subparsers, which derives the subcommands' "tracetui state" from the usage, and
    # after registration: the usage names every subcommand registered, never a list kept by hand
    p.usage = f"tracetui [PATH|SESSION ...] [monitor options]\n       tracetui {{{','.join(sub.choices)}}} [options]"
    return p


def _register_optional(sub, name: str, module: str) -> None:
    """Subcommands that live in their own modules register themselves through ``register(sub)``."""
    import importlib

    try:
        mod = importlib.import_module(module)
    except ImportError:
        return
    reg: Callable | None = getattr(mod, f"register_{name}", None)
    if reg is not None:
        reg(sub)


def _mistyped(arg: str) -> str | None:
    """The subcommand ``arg`` nearly spells (``stat`` → ``state``), when ``arg`` is also no file,
    path and no session id (prefix) under the projects folder; else ``None``. Without this the
    monitor takes ``tracetui stat --json`` for a session id and rejects ``--json``."""
    import difflib
    import os

    if arg.startswith("-") or os.sep in arg or arg.endswith(".jsonl") or Path(arg).expanduser().exists():
        return None
    close = difflib.get_close_matches(arg, SUBCOMMANDS, n=1, cutoff=0.6)
    if not close:
        return None
    from tracetui.ingest.discover import list_sessions

    if any(s.session_id.startswith(arg) for s in list_sessions()):
        return None
    return close[0]


def _run_app(argv: list[str]) -> int:
    try:
        from tracetui.tui.main import run_app
    except ImportError:
        _err("the app is not available in this build; use 'tracetui state PATH'")
        return 2
    return run_app(argv, SUBCOMMANDS)


def _uses_cache(ns: argparse.Namespace) -> bool:
    """Whether the subcommand ``ns`` asks for reads or writes the cache folder and works without
    it: ``state`` (not with --no-cache, --no-redact or --follow), ``view``, ``card`` and
    ``sessions`` (not with --no-cache) through the fold store, ``report`` and ``search``
    through the index. (``export`` needs its record of what was sent and says so itself; the
    hook writes its own lines.)"""
    cmd = ns.command
    if cmd in ("report", "search"):
        return True
    if cmd == "state":
        return not (ns.no_cache or ns.no_redact or ns.follow)
    return cmd in ("view", "card", "sessions") and not getattr(ns, "no_cache", False)


#: the exit status after Ctrl-C (128 + SIGINT, as shells report a process ended by it)
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tracetui`` console script; returns the exit code. Ctrl-C at any
    point of a command is one line on stderr and :data:`EXIT_INTERRUPTED`, never a traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        try:
            _err("interrupted")
        except (OSError, ValueError, KeyboardInterrupt):
            pass
        return EXIT_INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    from tracetui.ingest.discover import DiscoveryError
    from tracetui.session.reader import TranscriptError

    _safe_stderr()
    from tracetui.ingest import secret_detectors
    from tracetui.session.secret_rules import cached_rules

    secret_detectors.set_source(cached_rules)  # read once, when a text is first masked
    from tracetui.model.pricing import set_rate_store
    from tracetui.session.price_rates import FileRates

    set_rate_store(FileRates())  # prices from the rates an earlier run kept, when it did
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--"]:  # "tracetui -- --help": the monitor's own options
        return _run_app(argv[1:])
    if not argv or (argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help", "--version")):
        meant = _mistyped(argv[0]) if argv else None
        if meant:
            _err(f"'{argv[0]}' is not a subcommand, a transcript file or a session id; did you mean 'tracetui {meant}'?")
            return 2
        return _run_app(argv)
    parser = _build_parser()
    ns = parser.parse_args(argv)
    if not getattr(ns, "func", None):
        parser.print_help()
        return 2
    if _uses_cache(ns):
        from tracetui.session.store.cache_note import note_unusable_cache

        note_unusable_cache()  # the same line from every command (a user trial: some said it, some not)
    try:
        return int(ns.func(ns) or 0)
    except (DiscoveryError, TranscriptError) as exc:
        _err(str(exc))
        return 1
    except BrokenPipeError:
        return 0
    except OSError as exc:
        _err(f"{getattr(exc, 'filename', '') or ''}: {exc.strerror or exc}")
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
