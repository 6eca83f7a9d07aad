"""``tracetui export``: the folded state sent on to other tools; ``tracetui export otlp`` sends
it as OpenTelemetry traces over OTLP/HTTP (tracetui/export/command.py).

Registered by ``tracetui/cli.py`` through :func:`register_export`. The OpenTelemetry packages
are the optional extra ``otlp``; this module imports none of them, so ``--help`` and the
one-line error naming the extra work without it.
"""

from __future__ import annotations

import argparse

__all__ = ["register_export", "INSTALL_HINT"]

#: how the ``otlp`` extra is installed, said wherever it is missing: in a checkout set up per the
#: README (``.venv``, editable), and for an installed tracetui (pipx, pip)
INSTALL_HINT = (
    "in a checkout set up per the README, .venv/bin/pip install -e '.[otlp]'; for an installed tracetui,"
    " pipx inject tracetui opentelemetry-sdk opentelemetry-exporter-otlp-proto-http, or pip install 'tracetui[otlp]'"
)


def _settle(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if v < 0 or v != v:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds: {text}")
    return v


def register_export(sub) -> None:
    """Add ``export`` (with its one format, ``otlp``) to the ``tracetui`` subparsers ``sub``."""
    from tracetui.args import add_source_args

    from .plan import DEFAULT_SETTLE

    p = sub.add_parser(
        "export",
        help="send the folded state to other tools (otlp: OpenTelemetry traces)",
        description="Send the folded state of sessions to other tools. 'tracetui export otlp --help' for the options.",
    )
    formats = p.add_subparsers(dest="format", parser_class=type(p), metavar="{otlp}")
    # no format named: one line, as every other missing argument (fourth user trial: the help)
    p.set_defaults(func=lambda ns: p.error("a format is required: otlp"))
    o = formats.add_parser(
        "otlp",
        help="send sessions as OpenTelemetry traces over OTLP/HTTP (GenAI semantic conventions)",
        description=(
            "Send each session as one OpenTelemetry trace over OTLP/HTTP, following the GenAI semantic conventions: "
            "an invoke_agent span for the session and for each subagent, a span per episode, a chat span per API message "
            "with its usage, an execute_tool span per tool call, anomalies as span events; every span with the file:line "
            "it comes from, timed by the records' timestamps. What was sent is remembered per endpoint: a re-run sends "
            "only what is new. A span goes once complete (an episode when the next prompt closed it and no call of it is "
            "open, or the episode after it is closed too); the rest when the session settles (see --settle). A sent span is never sent again: what changes after "
            "it went (an episode's new version, a resumed session's end and totals, a late result) goes as a revision, "
            "a span of the same name under the one it revises and linked to it (tracetui.revision.of). The standard "
            "OTEL_EXPORTER_OTLP_* variables apply (endpoint, headers, timeout, compression, certificates). Needs the 'otlp' extra: "
            + INSTALL_HINT
            + "."
        ),
    )
    add_source_args(o)
    o.add_argument(
        "--all",
        action="store_true",
        help="every session: Claude Code's under <claude dir>/projects and the Codex CLI's under $CODEX_HOME (~/.codex)"
        " (--agent: one agent's; with --follow: those there when it starts)",
    )
    o.add_argument("--follow", action="store_true", help="keep running: fold what the sessions append and send it, until Ctrl-C")
    o.add_argument(
        "--endpoint",
        metavar="URL",
        default=None,
        help="the collector's OTLP/HTTP base URL (default $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or $OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318); /v1/traces is added",
    )
    o.add_argument(
        "--headers",
        metavar="K=V,...",
        default=None,
        help="request headers, as $OTEL_EXPORTER_OTLP_HEADERS (e.g. an API key); they add to it",
    )
    o.add_argument(
        "--content",
        action="store_true",
        help="also send the prompts, tool inputs and results (excerpts, secrets masked); off by default",
    )
    o.add_argument(
        "--settle",
        type=_settle,
        metavar="SECONDS",
        default=DEFAULT_SETTLE,
        help=f"send what is still open (the last episode, the session span, calls without a result) once the session has had no record for SECONDS (default {DEFAULT_SETTLE:g}); 0 sends it now",
    )

    def run(ns: argparse.Namespace) -> int:
        from .command import run_export

        return run_export(ns)

    o.set_defaults(func=run)
