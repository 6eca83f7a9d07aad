"""A real OTLP/HTTP trace receiver on 127.0.0.1 for the tests: ``http.server`` in a thread,
each POST to ``/v1/traces`` decoded as an ``ExportTraceServiceRequest`` (opentelemetry-proto).

``spans`` lists every span received (dicts: name, ids as hex, parent, kind, status, attributes,
events, times); ``requests`` is set at each request (a :class:`threading.Event` per count is
not needed: :meth:`wait_requests` waits on a condition). ``fail_with`` makes it answer that HTTP
status instead (nothing recorded); ``answer_with`` = ``(status, content type, body)`` makes it
answer that after decoding (a proxy's page, a partial success), recording nothing either."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse


def _value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


def _attrs(kvs: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in kvs}


class Receiver:
    """Start with ``with Receiver() as rx:``; ``rx.url`` is the base URL (no path)."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.resources: list[dict[str, Any]] = []
        self.count = 0
        self.fail_with: int | None = None
        self.answer_with: tuple[int, str, bytes] | None = None
        self._cond = threading.Condition()
        rx = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                # what a request brought is recorded before the answer goes: the exporter returns
                # once it has the answer, and a test reads these right after (recorded after it,
                # a loaded machine's test read them before this thread had: a flaky test)
                if self.path != "/v1/traces" or rx.fail_with is not None:
                    with rx._cond:
                        rx.count += 1
                        rx._cond.notify_all()
                    self.send_response(404 if self.path != "/v1/traces" else rx.fail_with)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                req = ExportTraceServiceRequest.FromString(body)
                got = []
                for rs in req.resource_spans:
                    res = _attrs(rs.resource.attributes)
                    for ss in rs.scope_spans:
                        for s in ss.spans:
                            got.append(
                                {
                                    "name": s.name,
                                    "trace_id": s.trace_id.hex(),
                                    "span_id": s.span_id.hex(),
                                    "parent": s.parent_span_id.hex() or None,
                                    "kind": s.kind,
                                    "status": s.status.code,
                                    "status_message": s.status.message,
                                    "attributes": _attrs(s.attributes),
                                    "events": [
                                        {"name": e.name, "time": e.time_unix_nano, "attributes": _attrs(e.attributes)} for e in s.events
                                    ],
                                    "links": [ln.span_id.hex() for ln in s.links],
                                    "start": s.start_time_unix_nano,
                                    "end": s.end_time_unix_nano,
                                    "scope": ss.scope.name,
                                    "resource": res,
                                }
                            )
                if rx.answer_with is not None:
                    status, ctype, page = rx.answer_with
                    with rx._cond:
                        rx.count += 1
                        rx._cond.notify_all()
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(page)))
                    self.end_headers()
                    self.wfile.write(page)
                    return
                out = ExportTraceServiceResponse().SerializeToString()
                with rx._cond:
                    rx.spans.extend(got)
                    rx.count += 1
                    rx._cond.notify_all()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: Any) -> None:  # quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def wait_requests(self, n: int, timeout: float = 30.0) -> bool:
        """Wait until at least ``n`` requests were answered; ``False`` after ``timeout`` seconds."""
        with self._cond:
            return self._cond.wait_for(lambda: self.count >= n, timeout)

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
