"""The fleet's state rules, written once: which session is *working*, *waiting on you*, *stalled*, *failing*, *idle* or *ended*.

Pure: no clock, no file. The rules read a session's :class:`~tracetui.views.fleet_facts.SessionFacts`
(reduced from its :class:`~tracetui.model.state.RunState` on a fold worker, once per snapshot:
:func:`~tracetui.views.fleet_facts.session_facts`); :func:`classify` applies them to those facts,
the newest write of the session's files (``written``, epoch seconds) and ``now`` (epoch seconds),
so the monitor re-applies them every second at no cost and tests set every time.

*Quiet* is ``now`` minus the newest of ``written`` and the last record's timestamp (seconds; no
write and no record known: quiet for ever); a last write more than :data:`RECORD_LAG` after the
last record is not the session's (:func:`copied`: a copy, a touch) and the last record's time
alone counts. A call *in flight* is a pending call made after the
main thread's last prompt or interrupt (calls left open by an earlier episode are not running).
The rules, first that holds wins (thresholds are :class:`FleetRules`, all in seconds):

1. **ended**: quiet for at least ``ended_after`` (3 h). Claude Code writes no end marker; a
   session nobody wrote to for three hours is over for the day's purposes.
2. **waiting on you** (a prompt): a call in flight of a tool that can ask for permission (any
   tool but :data:`NO_PROMPT_TOOLS`) started at least ``quiet_after`` (15 s) ago, and the files
   quiet for at least ``quiet_after`` but less than ``stall_after``: Claude Code writes progress
   records while a command runs, so silence with a call open is most likely a permission prompt.
3. **waiting on you** (the turn ended): no call in flight, and the main thread's last record
   ends the turn (``system/turn_duration`` or ``stop_hook_summary``; Codex CLI's
   ``task_complete`` or ``turn_aborted``), or is assistant text or an
   API error with the files quiet for ``quiet_after``; no prompt came since, and quiet for less
   than ``idle_after`` (30 min; then the user has left it: *idle*).
4. **failing**: an open tool-error streak, API-error streak, tool loop or re-read loop
   (:mod:`tracetui.model.anomalies`; they clear at the next success, window or prompt).
5. **stalled**: calls in flight and quiet for at least ``stall_after`` (300 s, the stall
   detector's :data:`~tracetui.model.anomalies.STALL_SECONDS`).
6. **working**: records arriving (quiet for less than ``quiet_after``), or mid-turn (a call in
   flight, or the last record a prompt, a tool result, thinking or a compaction) and quiet for
   less than ``stall_after``.
7. **idle**: anything else (an interrupted turn, a session with no record).

:data:`ATTENTION` orders the states for sorting: waiting on you, failing, stalled, working,
idle, ended.
"""

from __future__ import annotations

import math

import msgspec

from tracetui.ingest.discover import FUTURE_SKEW
from tracetui.session.user_settings import FLEET_DEFAULTS
from tracetui.views.fleet_facts import SessionFacts
from tracetui.views.format import plural

__all__ = [
    "FleetRules",
    "Status",
    "STATES",
    "ATTENTION",
    "NO_PROMPT_TOOLS",
    "classify",
    "attention_key",
    "quiet_seconds",
    "CLOCK_SKEW",
    "RECORD_LAG",
    "LIVE_WINDOW",
    "copied",
    "rules_help",
]

#: the states, in attention order (what needs the user first)
STATES = ("waiting on you", "failing", "stalled", "working", "idle", "ended")
#: state → its rank when sorting by attention (0 first)
ATTENTION = {s: i for i, s in enumerate(STATES)}

#: tools that never ask for permission (read-only, or bookkeeping; a subagent writes its own
#: file while it runs): a call of these open in a quiet session is not a prompt
NO_PROMPT_TOOLS = frozenset(
    {"Read", "Glob", "Grep", "LS", "TodoWrite", "Task", "Agent", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "NotebookRead"}
    # Codex CLI's plan and subagent tools, and input to a process already running
    | {"update_plan", "spawn_agent", "wait_agent", "close_agent", "send_input", "write_stdin"}
)
#: last-record kinds that mean the agent is mid-turn
_MID_TURN = frozenset({"prompt", "tool_result", "thinking", "tool_use", "compaction", "compact_summary"})


class FleetRules(msgspec.Struct, frozen=True):
    """The thresholds of the state rules, in seconds (see the module docstring)."""

    quiet_after: float = FLEET_DEFAULTS["quiet_after"]
    stall_after: float = FLEET_DEFAULTS["stall_after"]
    idle_after: float = FLEET_DEFAULTS["idle_after"]
    ended_after: float = FLEET_DEFAULTS["ended_after"]


class Status(msgspec.Struct, frozen=True):
    """A session's state (one of :data:`STATES`), why (one line, our words), and its quiet time
    (seconds, ``math.inf`` when nothing was ever written)."""

    state: str
    reason: str
    quiet: float


#: seconds a record's time may run ahead of its file's last write (or of ``now``) and still be
#: read as a time: two clocks a little apart (ingest/discover.py's rule for a file's mtime).
#: Further ahead (a record of year 9999) it is no time the session was written at, and the
#: quiet time is the files' (sixth user trial: such a session was "working, records arriving"
#: for ever)
CLOCK_SKEW = FUTURE_SKEW


def past_clock(t: float | None, now: float | None) -> bool:
    """Record time ``t`` is more than :data:`CLOCK_SKEW` after ``now`` (both epoch seconds;
    ``False`` when either is unknown): no time the session was written at (a record of year
    2099), so no age and no duration is built on it."""
    return t is not None and now is not None and t > now + CLOCK_SKEW


#: seconds since the session's files were last written within which the monitor shows it as
#: live (else "idle 3h"; tui/format.py ``is_live``). Claude Code appends a record for every API
#: message, tool call and result, and progress records while a tool runs; ten minutes without a
#: write is twice the stall detector's threshold (``tracetui.model.anomalies.STALL_SECONDS``,
#: 300 s), so a stalled call is flagged as a stall first and the session called idle only later.
LIVE_WINDOW = 600.0
#: seconds the files' last write may run after the newest record's time and still be a write of
#: the session: Claude Code and Codex CLI stamp each record as they append it (and append
#: progress records while a tool runs), so a last write further after every record (a
#: transcript copied or touched, its records months old) says nothing of when the session was
#: written (a fresh-user trial: a copy read as waiting on you, a permission prompt open 279
#: days). :data:`LIVE_WINDOW`, with the records' clock and the file system's (a mounted folder)
#: up to :data:`CLOCK_SKEW` apart
RECORD_LAG = LIVE_WINDOW + CLOCK_SKEW


def copied(written: float | None, last_record: float | None) -> bool:
    """The files' newest mtime ``written`` is more than :data:`RECORD_LAG` after the newest
    record's time ``last_record`` (both epoch seconds; ``False`` when either is unknown): the
    write is no write of the session (a copy, a touch), whose time is its last record's."""
    return written is not None and last_record is not None and written - last_record > RECORD_LAG


def quiet_seconds(facts: SessionFacts, written: float | None, now: float) -> float:
    """Seconds since the newest of ``written`` (the files' newest mtime) and the last record
    (never negative: a time a little after ``now``, a clock apart, counts as just written; one
    more than :data:`CLOCK_SKEW` after the files' last write, or after ``now`` when that is
    unknown, is left out, and so is a last write more than that after ``now``, or more than
    :data:`RECORD_LAG` after the last record (:func:`copied`); ``math.inf`` when neither is
    known)."""
    if written is not None and written > now + CLOCK_SKEW:
        written = None  # a file stamped in the future (``touch -d``, a clock apart): no time known
    last = facts.last_record
    if last is not None and last > (written if written is not None else now) + CLOCK_SKEW:
        last = None
    if copied(written, last):
        written = None  # a copy of the session, written when it was copied: the records' time
    newest = max((t for t in (written, last) if t is not None), default=None)
    return math.inf if newest is None else max(0.0, now - newest)


def classify(facts: SessionFacts, written: float | None, now: float, rules: FleetRules = FleetRules()) -> Status:
    """The state of a session by the rules of the module docstring (first that holds wins).
    ``written``: its files' newest mtime (epoch seconds, ``None`` unknown); ``now``: epoch seconds.
    A write that is no write of the session (:func:`copied`) is named in the reason."""
    from tracetui.model.timestamps import fmt_span

    status = _classify(facts, written, now, rules)
    if written is not None and written <= now + CLOCK_SKEW and copied(written, facts.last_record):
        ago = fmt_span(max(0.0, now - written))
        reason = f"{status.reason} (by its records; the files were modified {ago} ago: a copy?)"
        return Status(status.state, reason, status.quiet)
    return status


def _classify(facts: SessionFacts, written: float | None, now: float, rules: FleetRules) -> Status:
    from tracetui.model.timestamps import fmt_span

    q = quiet_seconds(facts, written, now)
    if not math.isfinite(q):  # no time the session was written at is known
        if facts.records == 0:
            return Status("idle", "no record yet", q)
        future = written is not None and written > now + CLOCK_SKEW
        why = "its files modified in the future" if future else "its files' time unknown"
        return Status("ended", f"no time of writing known: no record has a time, {why}", q)
    span = fmt_span(q)
    if q >= rules.ended_after:
        return Status("ended", f"nothing written for {span}", q)
    flight = facts.in_flight
    if rules.quiet_after <= q < rules.stall_after:
        for c in flight:
            if c.tool not in NO_PROMPT_TOOLS and (c.started is None or now - c.started >= rules.quiet_after):
                age = fmt_span(max(0.0, now - c.started)) if c.started is not None else span
                return Status("waiting on you", f"{c.tool} has no result for {age}, files quiet for {span}: a permission prompt?", q)
    if not flight and q < rules.idle_after:
        if facts.tail == "turn_end" or (facts.tail in ("assistant_text", "api_error") and q >= rules.quiet_after):
            why = "the turn ended on an API error" if facts.tail == "api_error" else "the turn ended"
            return Status("waiting on you", f"{why} {span} ago, no prompt since", q)
    if facts.failing:
        return Status("failing", facts.failing[0], q)
    if flight and q >= rules.stall_after:
        return Status("stalled", f"{plural(len(flight), 'call')} open, nothing written for {span}", q)
    if q < rules.quiet_after:
        return Status("working", "records arriving", q)
    if (flight or facts.tail in _MID_TURN) and q < rules.stall_after:
        return Status("working", f"mid-turn, last write {span} ago", q)
    return Status("idle", f"last write {span} ago", q)


def attention_key(status: Status, facts: SessionFacts) -> tuple[int, float, str]:
    """The sort key of a row: the attention order of its state; within *waiting on you* and
    *stalled* the longest quiet first, within *idle* and *ended* the most recent first (those
    write nothing, so their order holds from second to second); *working* and *failing* ones by
    key (they write all the time: by quiet they would swap places on every record); then the
    key (a stable order)."""
    state = status.state
    q = status.quiet if math.isfinite(status.quiet) else 1e18
    second = -q if state in ("waiting on you", "stalled") else q if state in ("idle", "ended") else 0.0
    return (ATTENTION.get(state, len(STATES)), second, facts.key)


def rules_help(rules: FleetRules = FleetRules()) -> tuple[tuple[str, str], ...]:
    """``(state, rule)`` pairs as the monitor's help and ``tracetui sessions --help`` show them,
    with ``rules``' thresholds, in attention order."""
    from tracetui.model.anomaly_rules import API_ERROR_STREAK, TOOL_ERROR_STREAK
    from tracetui.model.timestamps import fmt_span as f

    q, st, idle, end = f(rules.quiet_after), f(rules.stall_after), f(rules.idle_after), f(rules.ended_after)
    return (
        (
            "waiting on you",
            f"a call that can ask for permission (not Read, Grep, Task, ...) has had no result for {q} while the files are quiet"
            f" (for less than {st}), or the turn ended (turn_duration or stop-hook record, or assistant text then {q} of quiet)"
            f" and no prompt came since (for less than {idle})",
        ),
        (
            "failing",
            f"an open error streak ({TOOL_ERROR_STREAK} failing tool results, or {API_ERROR_STREAK} API errors, in a row)"
            " or an open tool loop or re-read loop",
        ),
        ("stalled", f"calls in flight and nothing written for {st}"),
        (
            "working",
            f"records arriving (a write less than {q} ago), or mid-turn (a call in flight, a prompt or result last) for up to {st}",
        ),
        ("idle", "none of the others: an interrupted turn, a turn over long ago, a session with no record"),
        ("ended", f"nothing written for {end}"),
    )
