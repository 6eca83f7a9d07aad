"""The fleet's state rules, written once: which session is *working*, *waiting on you*,
*stalled*, *failing*, *idle* or *ended*, from its state, its files' modification time and ``now``.

Pure: no clock, no file. :func:`session_facts` reduces a :class:`~tracetui.model.state.RunState`
to the small :class:`SessionFacts` the rules need (on a fold worker, once per snapshot);
:func:`classify` applies the rules to those facts, the newest write of the session's files
(``written``, epoch seconds) and ``now`` (epoch seconds), so the monitor re-applies them every
second at no cost and tests set every time.

*Quiet* is ``now`` minus the newest of ``written`` and the last record's timestamp (seconds; no
write and no record known: quiet for ever). A call *in flight* is a pending call made after the
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
from collections.abc import Sequence

import msgspec

from tracetui.ingest.discover import FUTURE_SKEW
from tracetui.ingest.files import path_text
from tracetui.model.anomalies import timeless_anomalies
from tracetui.model.anomaly_rules import STALL_SECONDS, context_window
from tracetui.model.state import Anchor, Event, RunState
from tracetui.model.timestamps import parse_ts
from tracetui.views.burn import minute_series
from tracetui.views.safe import cut_whole

__all__ = [
    "FleetRules",
    "InFlight",
    "SessionFacts",
    "Status",
    "STATES",
    "ATTENTION",
    "NO_PROMPT_TOOLS",
    "FAILING_KINDS",
    "TURN_END_SYSTEM",
    "session_facts",
    "classify",
    "attention_key",
    "quiet_seconds",
    "CLOCK_SKEW",
    "context_usage",
    "context_fill",
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
#: open anomalies of these kinds make a session *failing*
FAILING_KINDS = frozenset({"tool_error_streak", "api_error_streak", "tool_loop", "reread_loop"})
#: system record subtypes Claude Code writes when a turn ends (transcript-format.md §13)
TURN_END_SYSTEM = frozenset({"turn_duration", "stop_hook_summary"})
#: Codex CLI events (ledger ``metadata`` named by the payload type) that end a turn
#: (codex-format.md, "Episodes"); an interrupt is its own kind
TURN_END_METADATA = frozenset({"task_complete", "turn_aborted"})
#: ledger kinds that say nothing about the turn (skipped when finding the last record's kind)
_NEUTRAL = frozenset({"progress", "metadata", "attachment", "unknown_record", "unknown_block", "user_text", "image"})
#: last-record kinds that mean the agent is mid-turn
_MID_TURN = frozenset({"prompt", "tool_result", "thinking", "tool_use", "compaction", "compact_summary"})
#: events looked back at for the last record's kind and the turn's start
TAIL_SCAN = 400


class FleetRules(msgspec.Struct, frozen=True):
    """The thresholds of the state rules, in seconds (see the module docstring)."""

    quiet_after: float = 15.0
    stall_after: float = float(STALL_SECONDS)
    idle_after: float = 1800.0
    ended_after: float = 10800.0


class InFlight(msgspec.Struct, frozen=True):
    """A call in flight: tool name, brief (transcript text: show it through the safe-text
    rules), start (epoch seconds, ``None`` unknown), and whether it is the main thread's."""

    tool: str
    brief: str
    started: float | None
    main: bool = True


#: characters of a session's title at most (its name, else its goal: a prompt can be megabytes;
#: the table cuts it again to its column), the cut marked with ``…``
TITLE_CHARS = 200


class SessionFacts(msgspec.Struct, frozen=True):
    """What the rules and the fleet's columns need of one session, reduced from its state.

    Times are epoch seconds; ``tail`` is the kind of the main thread's last record that says
    something about the turn (``turn_end``, ``assistant_text``, ``api_error``, ``interrupt``, a
    ledger kind, or ``""``); ``failing`` the messages of open anomalies of
    :data:`FAILING_KINDS`; ``open_anomalies`` counts open anomalies (clock-free ones) by severity
    ``(info, warn, error)``; ``minutes`` the session's usage per minute (:mod:`tracetui.views.burn`,
    at most 61 entries); ``day_usd`` estimated USD per UTC day (``(day, usd)``, the last two days).
    Text fields are transcript text (unsafe until shown through the safe-text rules)."""

    key: str
    session_id: str
    project: str
    agent: str
    title: str
    last_record: float | None
    in_flight: tuple[InFlight, ...]
    tail: str
    failing: tuple[str, ...]
    open_anomalies: tuple[int, int, int]
    tokens: int
    cost_usd: float | None
    context_used: int
    context_window: int
    minutes: tuple[tuple[int, int, float], ...] = ()
    day_usd: tuple[tuple[str, float], ...] = ()
    records: int = 0
    #: what a Codex rollout that names no parent says it is (``"review"``; ``""`` for a session
    #: of its own: :attr:`tracetui.ingest.discover.SessionInfo.role`)
    role: str = ""
    #: why a child's file is a session of its own: its parent is not on disk (``"parent
    #: missing"``) or its rollouts fork from each other (``"fork cycle"``); ``""`` for a
    #: session's own transcript (:attr:`tracetui.ingest.discover.SessionInfo.orphan`)
    orphan: str = ""
    #: the UTC days of ``day_usd``'s span on which some of its tokens have no known price
    #: (``day_usd`` then holds the known part of that day)
    day_unpriced: tuple[str, ...] = ()
    #: calls pending in any of its files, those left open by earlier episodes too (``in_flight``
    #: leaves them out): what the stall rule counts (:func:`tracetui.views.fleet_table.stall_counted`)
    pending: int = 0


class Status(msgspec.Struct, frozen=True):
    """A session's state (one of :data:`STATES`), why (one line, our words), and its quiet time
    (seconds, ``math.inf`` when nothing was ever written)."""

    state: str
    reason: str
    quiet: float


def _tail(state: RunState) -> tuple[str, int, str | None]:
    """``(kind, turn_seq, turn_ts)``: the kind of the main thread's last telling record, and the
    ledger seq and timestamp of its last prompt or interrupt (``0``/``None`` when not within
    :data:`TAIL_SCAN` events)."""
    main = state.main
    led: Sequence[Event] = state.ledgers[main.src] if main.src < len(state.ledgers) else ()
    end = min(main.ledger_len, len(led))
    kind = ""
    for i in range(end - 1, max(-1, end - 1 - TAIL_SCAN), -1):
        ev = led[i]
        if ev.sidechain:
            continue
        k = ev.kind
        if k == "system":
            if ev.name in TURN_END_SYSTEM:
                k = "turn_end"
            elif ev.name == "api_error":
                k = "api_error"
            else:
                continue
        elif k == "metadata" and ev.name in TURN_END_METADATA:
            k = "turn_end"
        elif k in _NEUTRAL:
            continue
        if not kind:
            kind = k
        if k in ("prompt", "interrupt"):
            return kind, ev.seq, ev.timestamp
    return kind, 0, None


def context_usage(state: RunState, scan: int = TAIL_SCAN) -> tuple[int, Anchor | None]:
    """Tokens the main thread's last API call saw (input + cache creation + cache read) and its
    anchor; ``(0, None)`` before the first call. Looks back at most ``scan`` events."""
    main = state.main
    led: Sequence[Event] = state.ledgers[main.src] if main.src < len(state.ledgers) else ()
    end = min(main.ledger_len, len(led))
    for i in range(end - 1, max(-1, end - 1 - scan), -1):
        ev = led[i]
        if ev.usage is not None and not ev.sidechain:
            u = ev.usage
            return main.context_used or u[0] + u[2] + u[3], ev.anchor
    return 0, None


def context_fill(used: int, window: int) -> float | None:
    """The share of the context window a session holds, ``used / window`` (tokens) clamped to
    ``0..1``; ``None`` when the window is unknown (``window <= 0``). A count beyond the window
    (an assumed window too small, a hostile or torn usage record) reads as full, and a negative
    one as empty: the counts themselves are kept as they are by whoever shows this."""
    if window <= 0:
        return None
    return min(1.0, max(0.0, used / window))


def _day_usd(state: RunState) -> tuple[tuple[tuple[str, float], ...], tuple[str, ...]]:
    """``(((day, known usd), ...), days with unpriced tokens)`` of the last two UTC days the
    session has usage on: each bucket priced on its own, so a day with a model of no known
    price keeps the known part and is named as incomplete."""
    from tracetui.model.pricing import estimate_cost

    days = sorted({b.day for b in state.usage_buckets if b.day})[-2:]
    out = []
    unpriced = []
    for d in days:
        known = 0.0
        for b in state.usage_buckets:
            if b.day != d or b.tokens.total == 0:
                continue
            usd, _ = estimate_cost([b], None)
            if usd is not None:
                known += usd
            elif d not in unpriced:
                unpriced.append(d)
        out.append((d, round(known, 6)))
    return tuple(out), tuple(unpriced)


def session_facts(
    state: RunState, key: str = "", project: str = "", agent: str = "claude", role: str = "", orphan: str = ""
) -> SessionFacts:
    """The facts of ``state`` for the rules and the fleet's columns (pure; reads the last
    :data:`TAIL_SCAN` main-thread events and the last hour of usage events of each file).
    ``key`` names the session (its main path), ``project`` its project folder (shown when the
    state names no working folder; else that folder's last part), ``agent`` the agent that
    wrote it (``claude``, ``codex``), ``role`` what a rollout naming no parent says it is
    (``"review"``, from discovery: ``SessionInfo.role``), ``orphan`` why a child's file is a
    session of its own (``SessionInfo.orphan``)."""
    main = state.main
    kind, turn_seq, turn_ts = _tail(state)
    turn_t = parse_ts(turn_ts)
    calls = []
    for c in state.pending:
        is_main = c.anchor.src == main.src and not c.sidechain
        started = parse_ts(c.timestamp)
        t = started.timestamp() if started is not None else None
        if is_main:
            if c.seq <= turn_seq:
                continue  # left open by an earlier episode
        elif turn_t is not None and t is not None and t < turn_t.timestamp():
            continue
        calls.append(InFlight(c.name, c.brief, t, is_main))
    calls.sort(key=lambda c: (not c.main, -(c.started or 0.0)))
    last = None
    for st in (main, *state.agents):
        lt = parse_ts(st.newest_timestamp or st.last_timestamp)  # quiet time: from the newest
        if lt is not None and (last is None or lt > last):
            last = lt
    head, tail = timeless_anomalies(state, state.episodes or None)
    counts = [0, 0, 0]
    failing: list[tuple[bool, str]] = []
    for a in head + tail:
        if not a.open:
            continue
        counts[{"info": 0, "warn": 1}.get(a.severity, 2)] += 1
        if a.kind in FAILING_KINDS:
            failing.append((a.kind.endswith("streak"), a.message))
    used, _ = context_usage(state)
    day_usd, day_unpriced = _day_usd(state)
    model = max(main.tokens_by_model, key=lambda m: (main.tokens_by_model[m].total, m)) if main.tokens_by_model else None
    return SessionFacts(
        key=key,
        session_id=main.session_id or "",
        project=main.cwd.rstrip("/").rsplit("/", 1)[-1] if main.cwd else path_text(project),  # a folder's name: shown
        agent=state.agent if state.agent != "claude" else agent,
        title=cut_whole(main.title or (main.goal.text if main.goal is not None else ""), TITLE_CHARS),
        last_record=last.timestamp() if last is not None else None,
        in_flight=tuple(calls),
        tail=kind,
        failing=tuple(m for _, m in sorted(failing, key=lambda f: not f[0])),
        open_anomalies=(counts[0], counts[1], counts[2]),
        tokens=state.tokens.total,
        cost_usd=state.cost_usd,
        context_used=used,
        context_window=context_window(model, used, main.context_window),
        minutes=minute_series(state),
        day_usd=day_usd,
        records=state.counters.records,
        role=role,
        orphan=path_text(orphan),
        day_unpriced=day_unpriced,
        pending=len(state.pending),
    )


#: seconds a record's time may run ahead of its file's last write (or of ``now``) and still be
#: read as a time: two clocks a little apart (ingest/discover.py's rule for a file's mtime).
#: Further ahead (a record of year 9999) it is no time the session was written at, and the
#: quiet time is the files' (sixth user trial: such a session was "working, records arriving"
#: for ever)
CLOCK_SKEW = FUTURE_SKEW


def quiet_seconds(facts: SessionFacts, written: float | None, now: float) -> float:
    """Seconds since the newest of ``written`` (the files' newest mtime) and the last record
    (never negative: a time a little after ``now``, a clock apart, counts as just written; one
    more than :data:`CLOCK_SKEW` after the files' last write, or after ``now`` when that is
    unknown, is left out, and so is a last write more than that after ``now``; ``math.inf``
    when neither is known)."""
    if written is not None and written > now + CLOCK_SKEW:
        written = None  # a file stamped in the future (``touch -d``, a clock apart): no time known
    last = facts.last_record
    if last is not None and last > (written if written is not None else now) + CLOCK_SKEW:
        last = None
    newest = max((t for t in (written, last) if t is not None), default=None)
    return math.inf if newest is None else max(0.0, now - newest)


def classify(facts: SessionFacts, written: float | None, now: float, rules: FleetRules = FleetRules()) -> Status:
    """The state of a session by the rules of the module docstring (first that holds wins).
    ``written``: its files' newest mtime (epoch seconds, ``None`` unknown); ``now``: epoch seconds."""
    from tracetui.model.timestamps import fmt_span

    q = quiet_seconds(facts, written, now)
    span = fmt_span(q) if math.isfinite(q) else "ever"
    if facts.records == 0 and not math.isfinite(q):
        return Status("idle", "no record yet", q)
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
        return Status("stalled", f"{len(flight)} call(s) open, nothing written for {span}", q)
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
