"""What the endpoint answered, checked against what OTLP/HTTP says a collector answers.

The OTLP/HTTP exporter of the SDK takes any status from 200 to 399 as success and never reads
the body, so a redirect (an auth proxy's login page, http to https) or a web server that is not
a collector would count as sent while nothing was taken. :class:`Answers` is a response hook
of the exporter's ``requests`` session: it keeps the last answer, and :meth:`Answers.refusal`
says why it is not an acknowledgement (a collector answers 2xx, with an OTLP body or none, never
a web page). A *partial success* (the body's ``partial_success.rejected_spans``) is an
acknowledgement: OTLP says the rejected spans must not be sent again, so it is said
(:meth:`Answers.rejected`) and the batch recorded.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["Answers"]

#: the most of a body kept (an OTLP answer is a few bytes; a web page is cut)
_BODY_MAX = 1 << 16


class Answers:
    """The last HTTP answer of a session: ``status`` (``None``: none yet), ``reason``,
    ``ctype`` (the content type, lower case, without parameters), ``body`` (bytes, cut) and
    ``location`` (a redirect's target). Call :meth:`reset` before each export."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.status: int | None = None
        self.reason = ""
        self.ctype = ""
        self.body = b""
        self.location = ""

    def __call__(self, resp: Any, *args: Any, **kwargs: Any) -> None:
        """The ``requests`` response hook (the response is left as it is)."""
        self.status = int(resp.status_code)
        self.reason = str(resp.reason or "")
        self.ctype = str(resp.headers.get("Content-Type", "")).split(";")[0].strip().lower()
        self.location = str(resp.headers.get("Location", ""))
        try:
            self.body = resp.content[:_BODY_MAX]
        except Exception:  # a body that cannot be read is no OTLP answer either
            self.body = b""

    def status_line(self) -> str:
        """``HTTP 503 Service Unavailable`` (empty before any answer)."""
        return "" if self.status is None else f"HTTP {self.status} {self.reason}".rstrip()

    def refusal(self) -> str | None:
        """Why the last answer, taken as success by the exporter, is not a collector's
        acknowledgement; ``None`` when it is one (or there was no answer to judge)."""
        if self.status is None:
            return None
        if not 200 <= self.status < 300:
            to = f" to {self.location}" if self.location else ""
            return f"{self.status_line()}, a redirect{to}, not a collector's answer (it answers 200 on /v1/traces)"
        if self.ctype in ("text/html", "application/xhtml+xml"):
            return f"{self.status_line()} with a web page ({self.ctype}), not an OTLP answer: is the URL the collector's?"
        return None

    def rejected(self) -> tuple[int, str] | None:
        """``(rejected spans, the collector's message)`` of a partial success, else ``None``."""
        if not self.body:
            return None
        if self.ctype == "application/json":
            try:
                part = json.loads(self.body).get("partialSuccess") or {}
                n, msg = int(part.get("rejectedSpans") or 0), str(part.get("errorMessage") or "")
            except (ValueError, AttributeError, TypeError):
                return None
        else:
            try:
                from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

                part = ExportTraceServiceResponse.FromString(self.body).partial_success
                n, msg = int(part.rejected_spans), str(part.error_message)
            except Exception:  # not an OTLP body (or no opentelemetry-proto): nothing to say
                return None
        return (n, msg) if n > 0 or msg else None
