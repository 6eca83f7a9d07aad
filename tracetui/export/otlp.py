"""Span descriptions to OpenTelemetry spans, and sending them over OTLP/HTTP.

Needs the optional extra ``otlp`` (``opentelemetry-sdk``, ``opentelemetry-exporter-otlp-proto-
http``): :func:`require_sdk` raises :class:`MissingExtra` naming it when they are not installed.
Spans are built as ``ReadableSpan`` s directly (no tracer, no clock): their ids and times are
the ones :mod:`tracetui.export.spans` derived. :class:`Sender` sends them in batches through an
``OTLPSpanExporter`` (which reads the standard ``OTEL_EXPORTER_OTLP_*`` variables: endpoint,
headers, timeout, compression, certificates) and says after each batch whether the collector
took it; the SDK's own log lines are kept and summed up in one line (:attr:`Sender.last_error`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from tracetui import __version__

from . import INSTALL_HINT
from .spans import SCHEMA_URL, SpanSpec, span_id, trace_id

__all__ = [
    "shown_url",
    "MissingExtra",
    "require_sdk",
    "to_readable",
    "resource",
    "Sender",
    "make_exporter",
    "traces_endpoint",
    "parse_headers",
]

#: the loggers whose records the SDK writes on a failed export (kept, never printed)
_LOGGERS = ("opentelemetry.exporter", "opentelemetry.sdk", "opentelemetry.exporter.otlp.common", "opentelemetry.util")


class MissingExtra(Exception):
    """The OpenTelemetry packages are not installed; the message is one line naming the extra."""


def require_sdk() -> None:
    """Raise :class:`MissingExtra` unless the SDK and the OTLP/HTTP exporter import."""
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter  # noqa: F401
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError as exc:
        raise MissingExtra(
            f"the OpenTelemetry export needs the 'otlp' extra ({exc.name or 'opentelemetry'} is missing): {INSTALL_HINT}"
        ) from None


def resource(service: str | None = None) -> Any:
    """The resource of every exported span: ``service.name`` (``$OTEL_SERVICE_NAME``, else
    ``tracetui``), ``service.version``, and ``$OTEL_RESOURCE_ATTRIBUTES``."""
    import os

    from opentelemetry.sdk.resources import Resource

    attrs: dict[str, Any] = {"service.version": __version__}
    name = service or os.environ.get("OTEL_SERVICE_NAME")
    attrs["service.name"] = name or "tracetui"
    return Resource.create(attrs)


def to_readable(session_id: str, specs: Sequence[SpanSpec], res: Any) -> list[Any]:
    """``specs`` of session ``session_id`` as SDK ``ReadableSpan`` s (ids from
    :func:`~tracetui.export.spans.trace_id` / :func:`~tracetui.export.spans.span_id`; each
    key of ``links`` a link to that span of the same trace)."""
    from opentelemetry import trace as api
    from opentelemetry.sdk.trace import Event, ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import Link
    from opentelemetry.trace.status import Status, StatusCode

    scope = InstrumentationScope("tracetui", __version__, SCHEMA_URL)
    tid = trace_id(session_id)
    flags = api.TraceFlags(api.TraceFlags.SAMPLED)
    kinds = {"internal": api.SpanKind.INTERNAL, "client": api.SpanKind.CLIENT}
    codes = {"unset": StatusCode.UNSET, "ok": StatusCode.OK, "error": StatusCode.ERROR}
    out = []
    for s in specs:
        ctx = api.SpanContext(tid, span_id(session_id, s.key), is_remote=False, trace_flags=flags)
        parent = api.SpanContext(tid, span_id(session_id, s.parent), is_remote=False, trace_flags=flags) if s.parent else None
        status = Status(codes[s.status], s.status_message or None) if s.status == "error" else Status(codes[s.status])
        events = [Event(e.name, dict(e.attributes), e.time_ns) for e in s.events]
        links = [Link(api.SpanContext(tid, span_id(session_id, k), is_remote=False, trace_flags=flags)) for k in s.links]
        out.append(
            ReadableSpan(
                s.name,
                context=ctx,
                parent=parent,
                resource=res,
                attributes=dict(s.attributes),
                events=events,
                links=links,
                kind=kinds[s.kind],
                status=status,
                start_time=s.start_ns,
                end_time=s.end_ns,
                instrumentation_scope=scope,
            )
        )
    return out


#: the user info of a URL (``user:pass@`` after the scheme, if any, before the host)
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)?[^/@?#]*@")


#: the user info of any URL in a text
_URL_USERINFO = re.compile(r"(://)[^/@\s'\"]*@")


def shown_url(url: str) -> str:
    """``url`` as messages show it: a password or user in it (``https://user:pass@host``) as
    ``***``, and any secret in it (a token in the query) masked."""
    from tracetui.views.safe import redacted, safe_text

    url = _USERINFO.sub(r"\1***@", url, count=1)
    return safe_text(redacted(url)[0])


def traces_endpoint(url: str) -> str:
    """``--endpoint`` as the exporter's URL: like ``OTEL_EXPORTER_OTLP_ENDPOINT``, a base URL
    gets ``/v1/traces`` at the end of its path (a query or fragment stays after it); a URL whose
    path ends in it already is kept. Raises ``ValueError`` (what is wrong, in words) for a URL
    that is not ``http://`` or ``https://`` with a host (``notaurl`` reached the exporter, whose
    HTTP library then spoke of a ``MissingSchema``), or that ``urlsplit`` refuses."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError("it does not start with http:// or https://")
    if not parts.hostname:
        raise ValueError("it names no host")
    path = parts.path.rstrip("/")
    if not path.endswith("/v1/traces"):
        path += "/v1/traces"
    return urlunsplit(parts._replace(path=path))


def parse_headers(text: str) -> dict[str, str]:
    """``K=V,K2=V2`` (the ``OTEL_EXPORTER_OTLP_HEADERS`` form, values URL-encoded) as a dict.
    Raises ``ValueError`` naming the first part that is not ``K=V``."""
    from urllib.parse import unquote

    out: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        k, eq, v = part.partition("=")
        if not eq or not k.strip():
            raise ValueError(f"not K=V: {part.strip()!r}")
        out[unquote(k.strip()).lower()] = unquote(v.strip())
    return out


#: the SDK's variables naming a credential provider that makes the exporter's session itself
_CREDENTIAL_VARS = ("OTEL_PYTHON_EXPORTER_OTLP_HTTP_CREDENTIAL_PROVIDER", "OTEL_PYTHON_EXPORTER_OTLP_HTTP_TRACES_CREDENTIAL_PROVIDER")


def make_exporter(endpoint: str | None = None, headers: dict[str, str] | None = None, timeout: float | None = None) -> Any:
    """An ``OTLPSpanExporter``: ``endpoint`` (``None``: ``$OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``,
    else ``$OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces``, else ``http://localhost:4318/v1/traces``),
    ``headers`` over the ones of ``$OTEL_EXPORTER_OTLP_HEADERS``, ``timeout`` seconds per export
    with its retries (``None``: ``$OTEL_EXPORTER_OTLP_TIMEOUT`` or 10). Its ``requests`` session
    carries an :class:`~tracetui.export.answers.Answers` hook (``tracetui_answers``; none when a
    credential provider variable makes the session); what the SDK logged while reading its
    variables (a bad timeout, compression, headers) is kept, one line each, in
    ``tracetui_notes``."""
    import os

    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    from .answers import Answers

    session, answers = None, None
    if not any(os.environ.get(v) for v in _CREDENTIAL_VARS):
        import requests

        session, answers = requests.Session(), Answers()
        session.hooks["response"].append(answers)
    keep = _Keep()
    saved = _capture(keep)
    try:
        exporter = OTLPSpanExporter(endpoint=endpoint, headers=headers, timeout=timeout, session=session)
    finally:
        _release(keep, saved)
    exporter.tracetui_answers = answers
    exporter.tracetui_notes = [r.getMessage().split("\n")[0][:300] for r in keep.records]
    return exporter


def _capture(handler: logging.Handler) -> dict[str, bool]:
    """Route the SDK's loggers to ``handler`` only; returns what :func:`_release` restores."""
    saved: dict[str, bool] = {}
    for name in _LOGGERS:
        lg = logging.getLogger(name)
        saved[name] = lg.propagate
        lg.addHandler(handler)
        lg.propagate = False
    return saved


def _release(handler: logging.Handler, saved: dict[str, bool]) -> None:
    for name, was in saved.items():
        lg = logging.getLogger(name)
        lg.removeHandler(handler)
        lg.propagate = was


class _Keep(logging.Handler):
    """Keeps the records of the SDK's loggers (of one send) instead of printing them."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.records) < 64:
            self.records.append(record)


def _reason(records: list[logging.LogRecord]) -> str:
    """A short reason from the SDK's log records of a failed send: the newest error it names
    (``connection refused``, ``timed out``, ``cannot resolve the host …``, ``connection closed
    without an answer``, else the error's class and first line), else the newest record's first
    line."""
    for record in reversed(records):
        for a in record.args if isinstance(record.args, tuple) else ():
            if isinstance(a, BaseException):
                return _error_text(a)
    if not records:
        return "no answer"
    text = records[-1].getMessage().split("\n")[0][:200].rstrip(".")
    if "due to timeout" in text:  # the one try took the whole timeout: no answer came
        return "no answer within the timeout ($OTEL_EXPORTER_OTLP_TIMEOUT, default 10 s)"
    return text


def _error_text(exc: BaseException) -> str:
    text = str(exc).split("\n")[0]
    low = text.lower()
    if "refused" in low:
        return "connection refused"
    if "nameresolution" in low or "name or service not known" in low or "nodename nor servname" in low or "getaddrinfo" in low:
        m = re.search(r"host='([^']*)'", text)
        return f"cannot resolve the host {m.group(1)}" if m else "cannot resolve the host"
    if "timed out" in low or "timeout" in low:
        return "timed out"
    if "connection aborted" in low or "reset by peer" in low or "remotedisconnected" in low:
        return "the connection was closed without an answer"
    return f"{type(exc).__name__}: {text[:160]}"


class Sender:
    """Sends span batches through ``exporter`` and tells which went through.

    The SDK's log records on failure are caught (:attr:`last_error` sums up the last one) so the
    terminal sees one line from the caller, never the SDK's warnings or a traceback."""

    def __init__(self, exporter: Any, batch: int = 512) -> None:
        self.exporter = exporter
        self.batch = batch
        self.endpoint: str = getattr(exporter, "_endpoint", "") or "?"
        #: the endpoint as messages show it (:func:`shown_url`)
        self.shown = shown_url(self.endpoint)
        self.last_error = ""
        #: one-line remarks to say (the SDK's about its variables, a partial success), taken
        #: by :meth:`take_notes`
        self.notes: list[str] = [f"OpenTelemetry exporter: {n}" for n in getattr(exporter, "tracetui_notes", ())]
        self._answers = getattr(exporter, "tracetui_answers", None)
        self._keep = _Keep()
        self._propagate = _capture(self._keep)

    def send(self, spans: Sequence[Any]) -> bool:
        """Export ``spans`` (ReadableSpans, at most :attr:`batch` of them); ``True`` when the
        endpoint acknowledged them. Never raises for a network error."""
        from opentelemetry.sdk.trace.export import SpanExportResult

        self._keep.records = []
        ans = self._answers
        if ans is not None:
            ans.reset()
        try:
            ok = self.exporter.export(list(spans)) == SpanExportResult.SUCCESS
        except Exception as exc:  # an exporter must not raise; one that does is a failed batch
            self.last_error = self._scrub(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            return False
        if not ok:
            self.last_error = self._scrub(_reason(self._keep.records))
            if ans is not None and ans.status is not None:  # the status the endpoint last gave
                gave_up = "timeout" in self.last_error or "retries" in self.last_error
                self.last_error = ans.status_line() + (", still so when the timeout ran out" if gave_up else "")
            return False
        if ans is not None:
            why = ans.refusal()
            if why is not None:
                self.last_error = why
                return False
            rejected = ans.rejected()
            if rejected is not None:
                n, msg = rejected
                said = f": {msg[:200]}" if msg else ""
                self.notes.append(f"{self.shown} rejected {n} of {len(spans)} spans{said} (OTLP: not to be sent again)")
        return True

    def _scrub(self, reason: str) -> str:
        """``reason`` with the endpoint as shown (:func:`shown_url`), any other URL's user info
        as ``***`` and its secrets masked."""
        from tracetui.views.safe import redacted, safe_text

        return safe_text(redacted(_URL_USERINFO.sub(r"\1***@", reason.replace(self.endpoint, self.shown)))[0])

    def take_notes(self) -> list[str]:
        """The remarks gathered since the last call (see :attr:`notes`), cleared."""
        out, self.notes = self.notes, []
        return out

    def close(self) -> None:
        try:
            self.exporter.shutdown()
        except Exception:
            pass
        _release(self._keep, self._propagate)
