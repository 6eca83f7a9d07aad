"""``tracetui export otlp``: fold sessions, plan their spans, send the new ones, remember them.

Each named transcript (or ``--all``: every session under the projects folder) is one session and
one trace. For each: fold it (through the session store, as ``tracetui state``), plan the spans
that are complete and not yet sent to this endpoint (tracetui/export/plan.py), send them in
batches and record each acknowledged batch (tracetui/export/sent.py). One line per session on
stdout says what was sent; an endpoint that cannot be reached is one line on stderr (the SDK
retries with backoff within its timeout first) and exit status 1. With ``--follow`` the sessions
are polled until Ctrl-C: the fold goes on while the endpoint is down, sending is tried again with
a growing pause (:data:`BACKOFF_MAX` at most), and what piled up is sent once it answers.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracetui.ingest.files import file_of
from tracetui.model.state import Anchor, RunState

__all__ = [
    "run_export",
    "export_session",
    "record_model",
    "ExportFailed",
    "follow",
    "BACKOFF_MAX",
    "POLL_SECONDS",
    "RECHECK_SECONDS",
    "PLAN_GAP_SECONDS",
]

#: the longest pause between two tries of an endpoint that does not answer, in seconds
BACKOFF_MAX = 60.0
#: how often ``--follow`` polls the sessions' files, in seconds
POLL_SECONDS = 1.0
#: seconds between two plans of a followed session that holds open spans and did not change
#: (it may have settled meanwhile)
RECHECK_SECONDS = 15.0
#: the shortest pause, in seconds, between two plans of a followed session that keeps growing:
#: a plan of a 50 MB session took about a second (most of it pricing its episodes for the
#: cost-spike anomaly), which a live session must not cost every poll
PLAN_GAP_SECONDS = 5.0
#: bytes of a record read back to find its model
_READ_MAX = 1 << 20


class ExportFailed(Exception):
    """A batch the endpoint did not take; ``sent`` spans of the session went before it."""

    def __init__(self, reason: str, sent: int, planned: int) -> None:
        super().__init__(reason)
        self.reason, self.sent, self.planned = reason, sent, planned


def _err(msg: str) -> None:
    print(f"tracetui export otlp: {msg}", file=sys.stderr, flush=True)


def _say_notes(sender: Any) -> None:
    """Say the sender's remarks (a bad OTEL variable, a partial success), one line each."""
    for note in sender.take_notes():
        _err(note)


def record_model(state: RunState) -> Callable[[int, Anchor], str | None]:
    """``model_of(src, anchor)``: the ``message.model`` of the record at ``anchor`` read back
    from its transcript, or ``None`` when it cannot be read."""
    import orjson

    def model_of(src: int, anchor: Anchor) -> str | None:
        if not 0 <= src < len(state.sources):
            return None
        try:
            with open(file_of(state.sources[src].path), "rb") as f:  # the state keeps the path's text
                f.seek(anchor.offset)
                line = f.readline(_READ_MAX)
            rec = orjson.loads(line)
        except (OSError, orjson.JSONDecodeError):
            return None
        msg = rec.get("message") if isinstance(rec, dict) else None
        model = msg.get("model") if isinstance(msg, dict) else None
        return model if isinstance(model, str) and model else None

    return model_of


def session_id_of(state: RunState, path: Path) -> str:
    """The session id: the main transcript's ``sessionId``, else its file name's stem."""
    return state.main.session_id or path.stem


def export_session(
    state: RunState, sid: str, sender: Any, ledger: Any, *, content: bool, settle: float, now: float | None = None
) -> tuple[int, int]:
    """Send the complete, not yet sent spans of ``state`` (session ``sid``) through ``sender``
    (:class:`tracetui.export.otlp.Sender`), recording each acknowledged batch in ``ledger``
    (:class:`tracetui.export.sent.SentLedger`). Returns ``(sent, held)`` span counts; raises
    :class:`ExportFailed` at the first batch the endpoint did not take."""
    from .otlp import resource, to_readable
    from .plan import plan_spans
    from .spans import ledger_keys

    plan = plan_spans(
        state,
        session_id=sid,
        content=content,
        now=time.time() if now is None else now,
        settle=settle,
        sent=ledger.keys(sid),
        model_of=record_model(state),
    )
    res = resource()
    done = 0
    for i in range(0, len(plan.spans), sender.batch):
        batch = plan.spans[i : i + sender.batch]
        if not sender.send(to_readable(sid, batch, res)):
            raise ExportFailed(sender.last_error, done, len(plan.spans))
        ledger.mark(sid, ledger_keys(batch))
        done += len(batch)
    return done, plan.held


def _targets(ns: argparse.Namespace) -> list[Path]:
    from tracetui.ingest.discover import DiscoveryError, transcript_sessions, where_sessions
    from tracetui.session.open import resolve_paths

    if ns.all:
        if ns.paths:
            raise DiscoveryError("--all exports every session; name no transcript with it")
        agent = getattr(ns, "agent", None)
        found = [s.path for s in transcript_sessions(agent=agent)]  # stray files are no sessions
        if not found:
            raise DiscoveryError(f"no sessions under {where_sessions(agent)}")  # both homes (no --agent): either may be the one meant
        return found
    return resolve_paths(ns.paths, agent=getattr(ns, "agent", None))


def _setup(ns: argparse.Namespace) -> tuple[Any, Any] | int:
    from .otlp import MissingExtra, Sender, make_exporter, parse_headers, require_sdk, shown_url, traces_endpoint
    from .sent import SentLedger

    try:
        require_sdk()
    except MissingExtra as exc:
        _err(str(exc))
        return 1
    try:
        headers = parse_headers(ns.headers) if ns.headers else None
    except ValueError as exc:
        _err(f"--headers: {exc}")
        return 2
    try:
        endpoint = traces_endpoint(ns.endpoint) if ns.endpoint else None
    except ValueError as exc:  # urlsplit: an unclosed IPv6 bracket, a bad port
        _err(f"--endpoint: not a URL ({exc}): {shown_url(ns.endpoint)}")
        return 2
    sender = Sender(make_exporter(endpoint, headers))
    try:
        ledger = SentLedger(sender.endpoint)
    except (sqlite3.Error, OSError) as exc:
        sender.close()
        _err(f"cannot open the record of what was sent: {exc}")
        return 1
    return sender, ledger


def run_export(ns: argparse.Namespace) -> int:
    """The ``tracetui export otlp`` command; returns the exit status (0: everything planned
    was sent; 1: the endpoint did not take a batch, or the extra is missing)."""
    paths = _targets(ns)  # bad names fail before the SDK is asked for
    setup = _setup(ns)
    if isinstance(setup, int):
        return setup
    sender, ledger = setup
    try:
        if ns.follow:
            follow(paths, sender, ledger, ns, threading.Event())
            return 0
        return _once(paths, sender, ledger, ns)
    except sqlite3.Error as exc:  # the record of what was sent could not be read or written
        _err(f"{ledger.path}: {exc}")
        return 1
    finally:
        ledger.close()
        sender.close()


def _once(paths: list[Path], sender: Any, ledger: Any, ns: argparse.Namespace) -> int:
    from tracetui.session.open import load_state, save_store

    for path in paths:
        reader, state = load_state([path], not ns.no_subagents, not ns.no_cache)
        save_store(reader)
        sid = session_id_of(state, path)
        try:
            sent, held = export_session(state, sid, sender, ledger, content=ns.content, settle=ns.settle)
        except ExportFailed as exc:
            _say_notes(sender)
            _err(
                f"cannot send to {sender.shown}: {exc.reason}; session {_shown(sid)}: {exc.sent} of {exc.planned} spans sent, "
                "the rest go with the next run"
            )
            return 1
        _say_notes(sender)
        print(_summary(sid, sent, held), flush=True)
    return 0


def _shown(sid: str) -> str:
    """A session id as a message shows it: its secrets masked, its control characters made
    visible (a session id is whatever the transcript wrote; the spans mask it the same way)."""
    from .spans import _mask

    return _mask(sid)


def _summary(sid: str, sent: int, held: int) -> str:
    tail = f", {held} still open (sent once complete or settled)" if held else ""
    return f"{_shown(sid)}: {sent} span{'' if sent == 1 else 's'} sent{tail}"


class _Followed:
    """One followed session: its reader, its last state, and when to plan it again."""

    __slots__ = ("path", "reader", "state", "due", "planned")

    def __init__(self, path: Path, reader: Any, state: RunState) -> None:
        self.path, self.reader, self.state, self.due = path, reader, state, 0.0
        self.planned = float("-inf")


def follow(
    paths: list[Path],
    sender: Any,
    ledger: Any,
    ns: argparse.Namespace,
    stop: threading.Event,
    backoff: float = 1.0,
    poll: float = POLL_SECONDS,
    plan_gap: float = PLAN_GAP_SECONDS,
) -> None:
    """Poll the sessions of ``paths`` until ``stop`` is set (or Ctrl-C) and send what becomes
    complete. A session is planned again when its files grew (``plan_gap`` seconds after its
    last plan at the soonest: a plan reads the whole ledger and prices every episode), and while
    it holds open spans every :data:`RECHECK_SECONDS` (it may have settled). An endpoint that fails is said once on
    stderr; sending is tried again after ``backoff`` seconds, doubling up to
    :data:`BACKOFF_MAX`, while the fold goes on."""
    from tracetui.session.open import load_state, save_store

    sessions = []
    for path in paths:
        reader, state = load_state([path], not ns.no_subagents, not ns.no_cache)
        sessions.append(_Followed(path, reader, state))
    pause, retry_at, down = backoff, 0.0, False
    try:
        while not stop.is_set():
            now = time.time()
            for s in sessions:
                if s.reader.poll():
                    s.state, s.due = s.reader.snapshot(), min(s.due, max(now, s.planned + plan_gap))
            if now >= retry_at:
                try:
                    for s in sessions:
                        if now < s.due:
                            continue
                        sid = session_id_of(s.state, s.path)
                        sent, held = export_session(s.state, sid, sender, ledger, content=ns.content, settle=ns.settle, now=now)
                        _say_notes(sender)
                        if sent:
                            print(_summary(sid, sent, held), flush=True)
                        s.planned, s.due = now, now + RECHECK_SECONDS if held else float("inf")
                except ExportFailed as exc:
                    _say_notes(sender)
                    if not down:
                        _err(f"cannot send to {sender.shown}: {exc.reason}; folding on, sending again with backoff (Ctrl-C to stop)")
                    down, retry_at, pause = True, now + pause, min(pause * 2, BACKOFF_MAX)
                else:
                    down, pause = False, backoff
            stop.wait(poll)
    finally:
        for s in sessions:
            save_store(s.reader)
