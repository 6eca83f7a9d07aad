"""An endpoint that does not take the spans: one line saying what and where, exit status 1,
nothing recorded as sent, and the next run sends it all. OTLP/HTTP says a collector answers
200 on success: a redirect or a web page is not one, whatever its status."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter", reason="the 'otlp' extra is not installed")
pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2", reason="opentelemetry-proto is not installed")

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTracePartialSuccess, ExportTraceServiceResponse  # noqa: E402
from receiver import Receiver  # noqa: E402
from session_gen import SESSION, build  # noqa: E402

from tracetui.cli import main  # noqa: E402
from tracetui.export.otlp import traces_endpoint  # noqa: E402
from tracetui.export.sent import SentLedger  # noqa: E402


@pytest.fixture(autouse=True)
def _no_otel_env(monkeypatch):
    for k in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_SERVICE_NAME"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "2")


def _export(capsys, *args):
    rc = main(["export", "otlp", *map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


def _recorded(url: str) -> set[str]:
    ledger = SentLedger(traces_endpoint(url))
    try:
        return ledger.keys(SESSION)
    finally:
        ledger.close()


@pytest.mark.parametrize(
    "answer",
    [
        (302, "text/html", b""),  # a redirect (an auth proxy's login, http to https): nothing was taken
        (307, "text/plain", b""),
        (200, "text/html; charset=utf-8", b"<html><body>Welcome to nginx!</body></html>"),  # a web server, not a collector
    ],
    ids=["302", "307", "html-page"],
)
def test_an_answer_that_is_not_a_collector_s_is_a_failure(tmp_path, capsys, answer):
    path, _ = build(tmp_path)
    with Receiver() as rx:
        rx.answer_with = answer
        rc, out, err = _export(capsys, path, "--endpoint", rx.url)
        assert rc == 1 and out == "" and len(err.splitlines()) == 1, err
        assert err.startswith(f"tracetui export otlp: cannot send to {rx.url}/v1/traces: ") and str(answer[0]) in err
        assert _recorded(rx.url) == set()
        rx.answer_with = None
        rc, out, err = _export(capsys, path, "--endpoint", rx.url)
        assert (rc, err) == (0, "") and len(rx.spans) > 20


def test_a_retried_status_is_named(tmp_path, capsys):
    path, _ = build(tmp_path)
    with Receiver() as rx:
        rx.fail_with = 503
        rc, out, err = _export(capsys, path, "--endpoint", rx.url)
        assert rc == 1 and len(err.splitlines()) == 1 and "503" in err, err
        assert _recorded(rx.url) == set()


def test_a_partial_success_is_said_and_not_sent_again(tmp_path, capsys):
    # OTLP: rejected spans must not be sent again; the rest were taken
    path, _ = build(tmp_path)
    body = ExportTraceServiceResponse(
        partial_success=ExportTracePartialSuccess(rejected_spans=2, error_message="span too old")
    ).SerializeToString()
    with Receiver() as rx:
        rx.answer_with = (200, "application/x-protobuf", body)
        rc, out, err = _export(capsys, path, "--endpoint", rx.url)
        assert rc == 0 and "spans sent" in out
        assert len(err.splitlines()) == 1 and "rejected 2" in err and "span too old" in err, err
        assert _recorded(rx.url)


def test_a_bad_otel_variable_is_one_line_of_ours(tmp_path, capsys, monkeypatch):
    path, _ = build(tmp_path)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "bogus")
    with Receiver() as rx:
        rc, out, err = _export(capsys, path, "--endpoint", rx.url)
        assert rc == 0
        assert len(err.splitlines()) == 1 and err.startswith("tracetui export otlp: ") and "bogus" in err, err


@pytest.mark.parametrize("url", ["http://[::1", "http://[zz]:4318"])
def test_an_endpoint_that_is_not_a_url_is_one_line(tmp_path, capsys, url):
    path, _ = build(tmp_path)
    rc, out, err = _export(capsys, path, "--endpoint", url)
    assert rc == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("tracetui export otlp: --endpoint: not a URL") and "Traceback" not in err


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("notaurl", "it does not start with http:// or https://"),
        ("localhost:4318", "it does not start with http:// or https://"),
        ("ftp://otel.example", "it does not start with http:// or https://"),
        ("http:///v1/traces", "it names no host"),
    ],
)
def test_an_endpoint_without_a_scheme_or_host_is_said_in_our_words(tmp_path, capsys, url, why):
    # trial 13: "notaurl" reached the exporter, and the HTTP library's "MissingSchema: Invalid URL
    # 'notaurl/v1/traces': No scheme supplied..." was the message
    path, _ = build(tmp_path)
    rc, out, err = _export(capsys, path, "--endpoint", url)
    assert rc == 2 and out == ""
    assert err == f"tracetui export otlp: --endpoint: not a URL ({why}): {url}\n", err


def _listener():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    return s


def test_an_endpoint_that_never_answers_is_said_so(tmp_path, capsys, monkeypatch):
    path, _ = build(tmp_path)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "0.5")
    s = _listener()  # takes the connection (the kernel's backlog), never answers
    try:
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
        rc, out, err = _export(capsys, path, "--endpoint", url)
    finally:
        s.close()
    assert rc == 1 and len(err.splitlines()) == 1 and "no answer within the timeout" in err, err
    assert _recorded(url) == set()


def test_a_connection_closed_without_an_answer_is_said_so(tmp_path, capsys):
    import threading

    path, _ = build(tmp_path)
    s = _listener()
    stop = threading.Event()

    def close_each():
        s.settimeout(0.1)  # so that the loop sees ``stop``
        while not stop.is_set():
            try:
                c, _ = s.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            c.close()

    t = threading.Thread(target=close_each, daemon=True)
    t.start()
    url = f"http://127.0.0.1:{s.getsockname()[1]}"
    try:
        rc, out, err = _export(capsys, path, "--endpoint", url)
    finally:
        stop.set()
        t.join()
        s.close()
    assert rc == 1 and len(err.splitlines()) == 1 and "closed without an answer" in err, err
    assert _recorded(url) == set()


def test_an_unknown_host_is_named():
    from tracetui.export.otlp import _error_text

    exc = ConnectionError(
        "HTTPConnectionPool(host='collector.example', port=4318): Max retries exceeded with url: /v1/traces "
        "(Caused by NameResolutionError(\"HTTPConnection(host='collector.example', port=4318): Failed to resolve\"))"
    )
    assert _error_text(exc) == "cannot resolve the host collector.example"


def test_a_password_in_the_endpoint_is_not_shown(tmp_path, capsys):
    from receiver import closed_port

    path, _ = build(tmp_path)
    # a URL without a scheme is refused before any send (rc 2), in our words, the password masked
    for url, code in ((f"http://otel:hunter2-pass@127.0.0.1:{closed_port()}", 1), ("hunter2-pass@no-scheme", 2)):
        rc, out, err = _export(capsys, path, "--endpoint", url)
        assert rc == code and len(err.splitlines()) == 1 and "hunter2" not in err, err
        assert "127.0.0.1" in err or "not a URL (it does not start with http:// or https://): ***@no-scheme" in err, err


def test_export_without_a_format_is_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["export"])
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == "" and len(err.splitlines()) == 1 and "a format is required: otlp" in err
