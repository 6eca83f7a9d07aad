"""``tracetui export otlp`` end to end against a real OTLP/HTTP receiver on 127.0.0.1: the spans,
their parents, names and attributes as a collector decodes them; exactly once across re-runs and
an appended transcript; an unreachable or refusing endpoint is one line and loses nothing."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime, timedelta

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter", reason="the 'otlp' extra is not installed")
pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2", reason="opentelemetry-proto is not installed")

from receiver import Receiver, closed_port  # noqa: E402
from session_gen import AGENT, SESSION, build  # noqa: E402

from tracetui.cli import main  # noqa: E402
from tracetui.export.spans import span_id, trace_id  # noqa: E402

# the span kinds and status codes of the OTLP protobuf
INTERNAL, CLIENT = 1, 3
STATUS_ERROR = 2


@pytest.fixture(autouse=True)
def _no_otel_env(monkeypatch):
    for k in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_SERVICE_NAME"):
        monkeypatch.delenv(k, raising=False)


def _export(capsys, *args):
    rc = main(["export", "otlp", *map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_export_sends_the_tree_once(tmp_path, capsys):
    path, _ = build(tmp_path)
    with Receiver() as rx:
        rc, out, err = _export(capsys, path, "--endpoint", rx.url)
        assert (rc, err) == (0, "")
        assert out.startswith(f"{SESSION}: ") and "spans sent" in out
        spans = list(rx.spans)
        by_id = {s["span_id"]: s for s in spans}
        assert len(by_id) == len(spans) > 20
        assert {s["trace_id"] for s in spans} == {f"{trace_id(SESSION):032x}"}
        assert spans[0]["resource"]["service.name"] == "tracetui" and spans[0]["scope"] == "tracetui"

        def one(name):
            found = [s for s in spans if s["name"] == name]
            assert len(found) == 1, name
            return found[0]

        root = one("invoke_agent Claude Code")
        assert root["parent"] is None and root["span_id"] == f"{span_id(SESSION, 'session'):016x}"
        assert root["attributes"]["gen_ai.conversation.id"] == SESSION
        assert root["attributes"]["gen_ai.provider.name"] == "anthropic"
        ep1, ep2 = one("episode 1"), one("episode 2")
        assert ep1["parent"] == ep2["parent"] == root["span_id"]
        task = one("execute_tool Task")
        assert task["parent"] == ep1["span_id"]
        sub = one("invoke_agent Explore")
        assert sub["parent"] == task["span_id"] and sub["attributes"]["gen_ai.agent.id"] == AGENT
        assert one("execute_tool Read")["parent"] == sub["span_id"]
        failed = [s for s in spans if s["name"] == "execute_tool Bash" and s["status"] == STATUS_ERROR]
        assert len(failed) == 3 and all(s["parent"] == ep1["span_id"] for s in failed)
        assert all(s["attributes"]["gen_ai.tool.call.id"].startswith("toolu_") for s in failed)
        chats = [s for s in spans if s["name"].startswith("chat ")]
        assert chats and all(s["kind"] == CLIENT and s["attributes"]["gen_ai.operation.name"] == "chat" for s in chats)
        assert all(s["parent"] in (ep1["span_id"], ep2["span_id"], sub["span_id"]) for s in chats)
        a = chats[0]["attributes"]
        assert a["gen_ai.usage.input_tokens"] == (
            a["tracetui.usage.uncached_input_tokens"]
            + a["gen_ai.usage.cache_read.input_tokens"]
            + a["gen_ai.usage.cache_creation.input_tokens"]
        )
        streak = [e for e in ep1["events"] if e["attributes"]["tracetui.anomaly.kind"] == "tool_error_streak"]
        assert len(streak) == 1 and streak[0]["attributes"]["tracetui.anomaly.severity"] == "error"
        assert all(s["attributes"]["tracetui.anchor"] for s in spans)
        assert all("gen_ai.input.messages" not in s["attributes"] for s in spans)  # no --content
        # times from the records: the session began at its first record
        assert root["start"] == int(datetime(2026, 3, 2, 9, tzinfo=UTC).timestamp()) * 10**9

        # a second export adds none
        requests = rx.count
        rc, out, err = _export(capsys, path, "--endpoint", rx.url)
        assert (rc, err) == (0, "") and f"{SESSION}: 0 spans sent" in out
        assert rx.count == requests and len(rx.spans) == len(spans)


def test_appended_transcript_sends_only_what_is_new(tmp_path, capsys):
    start = (datetime.now(UTC) - timedelta(seconds=90)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    path, _ = build(tmp_path, second_prompt=False, start=start)
    first = path.read_bytes()
    with Receiver() as rx:
        rc, out, _ = _export(capsys, path, "--endpoint", rx.url)  # live: the open episode waits
        assert rc == 0 and "still open" in out
        n1 = len(rx.spans)
        assert "episode 1" not in {s["name"] for s in rx.spans}
        full, _ = build(tmp_path / "full", start=start)
        data = full.read_bytes()
        assert data.startswith(first)
        with path.open("ab") as f:  # the session goes on
            f.write(data[len(first) :])
        rc, out, _ = _export(capsys, path, "--endpoint", rx.url)
        assert rc == 0
        names = [s["name"] for s in rx.spans[n1:]]
        assert "episode 1" in names and "execute_tool Task" not in names
        rc, out, _ = _export(capsys, path, "--endpoint", rx.url, "--settle", "0")  # now the rest
        assert rc == 0 and "still open" not in out
        ids = [s["span_id"] for s in rx.spans]
        assert len(ids) == len(set(ids))  # nothing twice
    # nothing lost: a fresh export of the whole session elsewhere gives the same spans
    with Receiver() as other:
        assert _export(capsys, full, "--endpoint", other.url, "--settle", "0")[0] == 0
        assert sorted(s["span_id"] for s in other.spans) == sorted(ids)


def test_a_resumed_session_goes_as_a_revision_never_the_same_span_twice(tmp_path, capsys):
    path, _ = build(tmp_path, second_prompt=False)
    first = path.read_bytes()
    full, _ = build(tmp_path / "full")
    with Receiver() as rx:
        assert _export(capsys, path, "--endpoint", rx.url, "--settle", "0")[0] == 0  # settled: the session span goes
        root = next(s for s in rx.spans if s["name"] == "invoke_agent Claude Code")
        n1 = len(rx.spans)
        with path.open("ab") as f:  # the session resumes
            f.write(full.read_bytes()[len(first) :])
        rc, out, _ = _export(capsys, path, "--endpoint", rx.url, "--settle", "0")
        assert rc == 0
        new = rx.spans[n1:]
        ids = [s["span_id"] for s in rx.spans]
        assert len(ids) == len(set(ids))  # no span id twice
        rev = [s for s in new if s["name"] == "invoke_agent Claude Code"]
        assert len(rev) == 1 and rev[0]["parent"] == root["span_id"] and rev[0]["links"] == [root["span_id"]]
        assert rev[0]["end"] > root["end"] and rev[0]["attributes"]["tracetui.revision.of"] == "session"
        assert rev[0]["attributes"]["gen_ai.usage.output_tokens"] > root["attributes"]["gen_ai.usage.output_tokens"]
        assert "episode 2" in {s["name"] for s in new}
        # and a restart with nothing new sends nothing
        rc, out, _ = _export(capsys, path, "--endpoint", rx.url, "--settle", "0")
        assert rc == 0 and f"{SESSION}: 0 spans sent" in out


def test_credentials_moved_from_the_url_to_headers_send_nothing_again(tmp_path, capsys):
    # eighth user trial: the record of what went was kept by the URL with its user:pass
    from tracetui.export.sent import sent_path

    path, _ = build(tmp_path)
    with Receiver() as rx:
        with_creds = rx.url.replace("http://", "http://bench-user:s3cr3t-Pass-value@")
        rc, out, err = _export(capsys, path, "--endpoint", with_creds, "--settle", "0")
        assert (rc, err) == (0, "") and len(rx.spans) > 20
        n = len(rx.spans)
        rc, out, err = _export(
            capsys, path, "--endpoint", rx.url, "--headers", "authorization=Basic YmVuY2gtdXNlcjpzM2NyM3Q=", "--settle", "0"
        )
        assert (rc, err) == (0, "") and len(rx.spans) == n and ": 0 spans sent" in out
    data = b"".join(p.read_bytes() for p in sent_path().parent.iterdir())
    assert b"s3cr3t-Pass-value" not in data and b"bench-user" not in data


def test_unreachable_endpoint_is_one_line_and_loses_nothing(tmp_path, capsys, monkeypatch):
    path, _ = build(tmp_path)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "0.5")  # the SDK's first backoff (1 s) is past it: one try
    rc, out, err = _export(capsys, path, "--endpoint", f"http://127.0.0.1:{closed_port()}")
    assert rc == 1 and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("tracetui export otlp: cannot send to http://127.0.0.1:") and "the rest go with the next run" in err
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TIMEOUT")
    with Receiver() as rx:  # nothing was marked sent: all of it goes now
        assert _export(capsys, path, "--endpoint", rx.url)[0] == 0
        assert len(rx.spans) > 20


def test_refusing_endpoint_is_one_line(tmp_path, capsys):
    path, _ = build(tmp_path)
    with Receiver() as rx:
        rx.fail_with = 400
        rc, out, err = _export(capsys, path, "--endpoint", rx.url)
        assert rc == 1 and len(err.splitlines()) == 1 and "400" in err
        rx.fail_with = None
        assert _export(capsys, path, "--endpoint", rx.url)[0] == 0 and len(rx.spans) > 20


def test_follow_sends_as_the_session_grows_and_resumes_after_an_outage(tmp_path, capsys):
    import argparse

    from tracetui.export import command
    from tracetui.export.otlp import Sender, make_exporter, traces_endpoint
    from tracetui.export.sent import SentLedger

    start = (datetime.now(UTC) - timedelta(seconds=90)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    path, _ = build(tmp_path, second_prompt=False, start=start)
    first = path.read_bytes()
    full, _ = build(tmp_path / "full", start=start)
    ns = argparse.Namespace(no_subagents=False, no_cache=False, content=False, settle=300.0)
    with Receiver() as rx:
        rx.fail_with = 503  # down at first
        # the SDK retries the 503 within its timeout, then says it failed; follow() tries again
        sender = Sender(make_exporter(traces_endpoint(rx.url), timeout=0.5))
        ledger = SentLedger(sender.endpoint)
        stop = threading.Event()
        t = threading.Thread(
            target=command.follow, args=([path], sender, ledger, ns, stop), kwargs={"backoff": 0.05, "poll": 0.02, "plan_gap": 0}
        )
        t.start()
        try:
            assert rx.wait_requests(1)
            rx.fail_with = None  # back up: what piled up goes
            with rx._cond:
                assert rx._cond.wait_for(lambda: rx.spans, 30)
            n1 = len(rx.spans)
            with path.open("ab") as f:
                f.write(full.read_bytes()[len(first) :])
            with rx._cond:
                assert rx._cond.wait_for(lambda: any(s["name"] == "episode 1" for s in rx.spans), 30)
        finally:
            stop.set()
            t.join()
            ledger.close()
            sender.close()
        assert len(rx.spans) > n1
        ids = [s["span_id"] for s in rx.spans]
        assert len(ids) == len(set(ids))
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "folding on, sending again with backoff" in err and "Traceback" not in err


#: the ways to install the extra the message names: the README's checkout, pipx, pip
_WAYS = (".venv/bin/pip install -e '.[otlp]'", "pipx inject tracetui opentelemetry-sdk", "pip install 'tracetui[otlp]'")


def test_missing_extra_is_one_line(tmp_path, capsys, monkeypatch):
    import sys

    path, _ = build(tmp_path)
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)
    rc, out, err = _export(capsys, path)
    assert rc == 1 and out == ""
    assert len(err.splitlines()) == 1 and all(way in err for way in _WAYS)


def test_bad_headers_are_one_line(tmp_path, capsys):
    path, _ = build(tmp_path)
    rc, _, err = _export(capsys, path, "--headers", "novalue")
    assert rc == 2 and len(err.splitlines()) == 1 and "--headers" in err


def test_all_exports_every_session(tmp_path, capsys, monkeypatch):
    from tracetui.demo.transcript import TranscriptBuilder

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    proj = tmp_path / "claude" / "projects" / "-home-dev-shop-api"
    build(proj)
    other = TranscriptBuilder(session_id="0e7a0c1e-0000-4000-8000-00000000e702")
    other.prompt("hello")
    other.tick(1).text("Hi.")
    other.write_session(proj)
    with Receiver() as rx:
        rc, out, err = _export(capsys, "--all", "--endpoint", rx.url, "--settle", "0")
        assert (rc, err) == (0, "") and len(out.splitlines()) == 2
        assert len({s["trace_id"] for s in rx.spans}) == 2
    assert _export(capsys, "--all", "x")[0] == 1  # --all names no transcript


def test_all_with_no_session_names_both_homes(tmp_path, capsys, monkeypatch):
    # a fresh-user trial: with neither folder readable, the line named the Claude Code one only
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-none"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-none"))
    rc, _, err = _export(capsys, "--all", "--settle", "0")
    assert rc == 1 and err.count("\n") == 1
    assert str(tmp_path / "claude-none" / "projects") in err and str(tmp_path / "codex-none") in err


@pytest.mark.parametrize("stamp", ["9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00Z"])
def test_a_record_stamped_outside_what_otlp_carries_stops_no_export(tmp_path, capsys, stamp):
    # an OTLP time is an unsigned 64-bit count of ns (1970 to 2554): a record of year 9999 made
    # the encoder raise, said as the endpoint's failure, and every session after it went unsent
    path, _ = build(tmp_path)
    lines = path.read_bytes().split(b"\n")
    lines[3] = re.sub(rb'"timestamp":"[^"]*"', f'"timestamp":"{stamp}"'.encode(), lines[3], count=1)
    path.write_bytes(b"\n".join(lines))
    with Receiver() as rx:
        rc, out, err = _export(capsys, path, "--endpoint", rx.url)
        assert (rc, err) == (0, "")
        spans = list(rx.spans)
        assert spans and all(0 <= s["start"] <= s["end"] < 1 << 64 for s in spans)
