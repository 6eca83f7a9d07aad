"""What the fleet's state rules read of a session: its :class:`SessionFacts`, reduced from its state.

Pure: no clock, no file. :func:`session_facts` reduces a :class:`~tracetui.model.state.RunState`
to the small :class:`SessionFacts` the rules need (on a fold worker, once per snapshot); the rules
(:mod:`tracetui.views.fleet`) apply to them, the newest write of the session's files and ``now``.
A call *in flight* is a pending call made after the main thread's last prompt or interrupt
(calls left open by an earlier episode are not running).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from tracetui.ingest.files import path_text
from tracetui.model.anomalies import timeless_anomalies
from tracetui.model.anomaly_rules import context_window
from tracetui.model.state import Anchor, Event, RunState
from tracetui.model.timestamps import parse_ts
from tracetui.views.burn import minute_series
from tracetui.views.safe import cut_whole
from tracetui.views.text import known_part

__all__ = [
    "InFlight",
    "SessionFacts",
    "FAILING_KINDS",
    "TURN_END_SYSTEM",
    "session_facts",
    "newest_record",
    "context_usage",
    "context_fill",
]

#: open anomalies of these kinds make a session *failing*
FAILING_KINDS = frozenset({"tool_error_streak", "api_error_streak", "tool_loop", "reread_loop"})
#: system record subtypes Claude Code writes when a turn ends (transcript-format.md §13)
TURN_END_SYSTEM = frozenset({"turn_duration", "stop_hook_summary"})
#: Codex CLI events (ledger ``metadata`` named by the payload type) that end a turn
#: (codex-format.md, "Episodes"); an interrupt is its own kind
TURN_END_METADATA = frozenset({"task_complete", "turn_aborted"})
#: ledger kinds that say nothing about the turn (skipped when finding the last record's kind)
_NEUTRAL = frozenset({"progress", "metadata", "attachment", "unknown_record", "unknown_block", "user_text", "image"})
#: events looked back at for the last record's kind and the turn's start
TAIL_SCAN = 400


class InFlight(msgspec.Struct, frozen=True):
    """A call in flight: tool name, brief (transcript text: show it through the safe-text
    rules), start (epoch seconds, ``None`` unknown), and whether it is the main thread's."""

    tool: str
    brief: str
    started: float | None
    main: bool = True


def newest_record(state: RunState) -> float | None:
    """The newest record time of the session, its main thread's and its subagents' (epoch
    seconds; ``None`` when no record has a time): what its quiet time and liveness run from
    beside its files' last write (views/fleet.py ``copied``)."""
    last = None
    for st in (state.main, *state.agents):
        lt = parse_ts(st.newest_timestamp or st.last_timestamp)
        if lt is not None and (last is None or lt > last):
            last = lt
    return last.timestamp() if last is not None else None


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
    #: with ``cost_usd`` ``None``: the USD of its messages that have a known price
    #: (:func:`tracetui.views.text.known_part`), the part the Cost cell shows before ``+?``
    known_usd: float = 0.0


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
    state: RunState,
    key: str = "",
    project: str = "",
    agent: str = "claude",
    role: str = "",
    orphan: str = "",
    session_id: str = "",
) -> SessionFacts:
    """The facts of ``state`` for the rules and the fleet's columns (pure; reads the last
    :data:`TAIL_SCAN` main-thread events and the last hour of usage events of each file).
    ``key`` names the session (its main path), ``project`` its project folder (shown when the
    state names no working folder; else that folder's last part), ``agent`` the agent that
    wrote it (``claude``, ``codex``), ``role`` what a rollout naming no parent says it is
    (``"review"``, from discovery: ``SessionInfo.role``), ``orphan`` why a child's file is a
    session of its own (``SessionInfo.orphan``), ``session_id`` the id the command line looks
    the session up by (``SessionInfo.session_id``: a Claude Code file's name, which a copied
    or renamed file does not share with its records; the records' id when not given)."""
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
        session_id=session_id or main.session_id or "",
        project=main.cwd.rstrip("/").rsplit("/", 1)[-1] if main.cwd else path_text(project),  # a folder's name: shown
        agent=state.agent if state.agent != "claude" else agent,
        title=cut_whole(main.title or (main.goal.text if main.goal is not None else ""), TITLE_CHARS),
        last_record=newest_record(state),
        in_flight=tuple(calls),
        tail=kind,
        failing=tuple(m for _, m in sorted(failing, key=lambda f: not f[0])),
        open_anomalies=(counts[0], counts[1], counts[2]),
        tokens=state.tokens.total,
        cost_usd=state.cost_usd,
        known_usd=known_part(state),
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
