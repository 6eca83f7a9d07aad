"""The worker view (``tracetui view``): compact text a developer pastes into a fresh prompt.

A pure function of :class:`~tracetui.model.state.RunState` (no I/O, no clock): sections GOAL,
LATEST ASK, NOW, IN FLIGHT, ANOMALIES, COUNTERS, FILES, KEY FACTS, RECENT FAILURES, EPISODES,
and a WATERMARK line saying what the view covers. Every section is always there: one with
nothing in it says ``none`` and why. Every line that states a fact ends with its anchor
(``@ file:line``); anything shortened says so (``+12 more files``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tracetui.model.anomalies import Anomaly, stall_anomalies
from tracetui.model.anomaly_rules import STALL_SECONDS
from tracetui.model.episodes import Episode
from tracetui.model.state import RunState, one_line_name, unknown_text
from tracetui.model.timestamps import parse_ts
from tracetui.views.anomaly_memo import timeless_of
from tracetui.views.derived import (
    _derived_of,
    _ruled_out_total,
    agent_session,
    current_episodes,
    episode_cost,
    key_aggregates,
    no_goal_item,
    recent_failures,
    rel_path,
    retry_fixes,
    under,
)
from tracetui.views.fleet import past_clock
from tracetui.views.format import fmt_count, fmt_usd, plural
from tracetui.views.text import (
    Item,
    Section,
    as_datetime,
    episode_count,
    fit,
    fmt_duration,
    fmt_n,
    one_line,
    quote,
    session_cost_text,
    short_names,
    state_as_of,
)

__all__ = [
    "render_worker_view",
    "DEFAULT_MAX_CHARS",
    "key_aggregates",
    "current_episodes",
    "recent_failures",
    "retry_fixes",
    "episode_cost",
    "watermark",
    "SEVERITY_ORDER",
    "rel_path",
    "no_goal_item",
]

#: the default size of the worker view, in characters (issue 3 §4)
DEFAULT_MAX_CHARS = 6000
#: items offered per list before fitting (more are counted in the ``+N more`` line)
OFFER = 60
SEVERITY_ORDER = {"error": 0, "warn": 1, "info": 2}


#: what a key's values are taken from, where that is narrower than the key says: an exit code
#: fact is extracted from failed shell calls only (model/derive.py), so its "last" is the last
#: *failing* command's code, and a sum of codes means nothing
_AGG_SCOPE = {"cmd.exit_code": "failing commands only"}
_NO_SUM = frozenset({"cmd.exit_code"})


def _agg_line(state: RunState, src: int, agg: Any) -> Item:
    where = "" if src == state.main.src else f"({state.source_name(src)}) "
    fmt = state.fmt_anchor
    if agg.numeric == agg.count and agg.count:
        spread = f" · min {agg.min} max {agg.max}" if agg.count > 1 else ""
        total = f" sum {agg.sum}" if agg.count > 1 and agg.key not in _NO_SUM else ""
        stats = f"last {agg.last}{spread}{total}"
    else:
        stats = f"last {quote(str(agg.last), 70)}"
    scope = _AGG_SCOPE.get(agg.key)
    label = f"{agg.key} ({scope})" if scope else agg.key
    return Item(f"{where}{label}: {stats} · coverage {agg.coverage(fmt)}", fmt(agg.through))


def watermark(state: RunState) -> Item:
    """What the view covers: the main file's bytes read, malformed and unknown records and
    pending bytes (all files), how many files, and the last record materialised (byte offset
    and, as the line's anchor, file:line)."""
    main = state.sources[0] if state.sources else None
    mal = sum(s.malformed for s in state.sources)
    pend = sum(s.pending_bytes for s in state.sources)
    last = state.main.last_anchor
    parts = []
    if main is not None:
        parts.append(
            f"{fmt_count(main.consumed)} of {fmt_count(main.size)} bytes read"
            if main.size >= main.consumed
            else f"{fmt_count(main.consumed)} bytes read"
        )
    c = state.counters
    parts.append(f"malformed {fmt_count(mal)} · {unknown_text(c.unknown_records, c.unknown_blocks)} · pending {fmt_count(pend)} bytes")
    if len(state.sources) > 1:
        parts.append(plural(len(state.sources), "file"))
    resets = sum(s.truncated + s.replaced for s in state.sources)
    if resets:
        parts.append(plural(resets, "truncation/replacement"))
    if last is not None:
        parts.append(f"materialised through the record at byte {fmt_count(last.offset)}")
    return Item("WATERMARK: " + " · ".join(parts), state.fmt_anchor(last))


def _age(now: datetime | None, ts: str | None) -> str:
    if now is None or not ts:
        return ""
    t = parse_ts(ts)
    if t is None:
        return ""
    d = (now - t).total_seconds()
    return f" ({fmt_duration(d)} ago)" if d >= 0 else ""


def _anomaly_item(state: RunState, a: Anomaly) -> Item:
    cwd = (state.main.cwd or "").rstrip("/")
    msg = a.message.replace(cwd + "/", "") if cwd else a.message
    ev = [state.fmt_anchor(e) for e in a.evidence if e != a.began][:3]
    more = a.evidence_count - 1 - len(ev) if a.evidence_count > len(ev) + 1 else 0
    evs = f" (evidence {', '.join(ev)}{f' +{more} more' if more > 0 else ''})" if ev else ""
    if a.open:
        return Item(f"{a.severity.upper()} {a.kind}: {msg}{evs}; clears {a.clears}", state.fmt_anchor(a.began))
    at = f" at {state.fmt_anchor(a.cleared)}" if a.cleared is not None else ""
    return Item(f"cleared{at} ({a.cleared_reason}): {a.kind}: {msg}", state.fmt_anchor(a.began))


#: seconds without a record after which an in-progress episode is called idle in the view: a
#: transcript never marks the end of a session, so the last episode of a finished session stays
#: ``in_progress``; the view says how long nothing happened instead (the stall rule's figure,
#: model/anomaly_rules.py ``STALL_SECONDS``)
IDLE_SECONDS = STALL_SECONDS


def _idle(now: datetime | None, ep: Episode) -> str:
    """``", idle 3h 2m"`` for an in-progress episode with no record for :data:`IDLE_SECONDS` as of
    ``now``; ``""`` otherwise (no ``now``, or no timestamp)."""
    if now is None or ep.status != "in_progress" or not ep.end:
        return ""
    t = parse_ts(ep.end)
    if t is None:
        return ""
    d = (now - t).total_seconds()
    return f", idle {fmt_duration(d)}" if d >= IDLE_SECONDS else ""


def _took(now: datetime | None, ep: Episode) -> str:
    """The episode's duration; ``duration ? (a record time past the clock)`` when its last
    record's time is more than ``CLOCK_SKEW`` after ``now`` (a record of year 2099: no time the
    session took, views/fleet.py's rule for record times)."""
    t = parse_ts(ep.end)
    if now is not None and t is not None and past_clock(t.timestamp(), now.timestamp()):
        return "duration ? (a record time past the clock)"
    return fmt_duration(ep.duration_s)


def _episode_item(state: RunState, ep: Episode, superseded: int, now: datetime | None = None) -> Item:
    cost = episode_cost(state, ep)
    bits = [f"#{ep.index} v{ep.version} {ep.status}{_idle(now, ep)}"]
    if ep.lifecycle != "current":
        bits[0] += f" ({ep.lifecycle})"
    if superseded:
        bits.append(f"{plural(superseded, 'older version')} superseded")
    bits.append(
        plural(ep.tool_calls, "call")
        + (f", {plural(ep.tool_errors, 'tool error')}" if ep.tool_errors else "")
        + (f", {plural(ep.api_errors, 'API error')}" if ep.api_errors else "")
    )
    if ep.dangling:
        bits.append(f"{fmt_count(len(ep.dangling))} dangling")
    if ep.subagents:
        bits.append(plural(len(ep.subagents), "subagent"))
    bits.append(_took(now, ep))
    bits.append(f"{fmt_n(ep.tokens.total)} tok" + (f" {fmt_usd(cost)}" if cost else ""))
    ask = quote(ep.ask, 60) if ep.ask else "(before the first prompt)"
    concl = f" → {quote(ep.conclusion, 60)}" if ep.conclusion and ep.status != "in_progress" else ""
    return Item(" · ".join(bits) + f" · {ask}{concl}", state.fmt_anchor(ep.ask_anchor or ep.first))


def render_worker_view(
    state: RunState, *, episode: int | None = None, now: datetime | float | int | None = None, max_chars: int = DEFAULT_MAX_CHARS
) -> str:
    """The worker view of ``state`` as plain text of at most ``max_chars`` characters.

    ``episode`` (1-based) compiles the view as of the end of that episode from
    ``state.history`` (``None``: the whole session); ``now`` (a datetime or epoch seconds) adds
    ages and the stall detector, and is never read from the clock. Raises ``ValueError`` for an
    episode that does not exist. No Rich markup.
    """
    n_eps = episode_count(state)
    st, legend = short_names(state_as_of(state, episode))
    nowdt = as_datetime(now)
    fa = st.fmt_anchor
    sid = (st.main.session_id or "?")[:8]
    src_name = st.source_name(st.main.src)
    scope = (
        "whole session"
        if episode is None or st is state
        else f"end of episode {episode} of {n_eps}, main thread only (subagent transcripts are not kept as of past episodes)"
    )
    head = [f"tracetui view · {agent_session(state)} {sid} · {src_name} · as of {scope}", watermark(st).render(400)]
    if legend:
        head.append(
            "files: " + "; ".join(legend[:3]) + (f"; +{len(legend) - 3} more shortened names (same rule)" if len(legend) > 3 else "")
        )

    secs: list[Section] = []
    g = st.goal
    goal_item = Item(quote(g.text, 300), fa(g.anchor)) if g is not None else no_goal_item(st)
    secs.append(Section("GOAL", [goal_item], inline=True, keep=1, cost=0))
    la = st.latest_ask
    if la is None:
        ask_item = Item("none (no prompt in this file)")
    elif g is None or la.anchor != g.anchor:
        ask_item = Item(quote(la.text, 300), fa(la.anchor))
    else:
        ask_item = Item("the goal itself (one prompt)", fa(la.anchor))
    secs.append(Section("LATEST ASK", [ask_item], inline=True, keep=1, cost=0))
    fr = st.frontier
    if fr is None:
        now_item = Item("none (no tool call, text or prompt recorded yet)")
    elif episode is not None and episode < n_eps and fr.kind == "in_flight":
        # as of an earlier episode's end, a call still open is one whose result had not come
        # by then (the live view may know it now), not a call running
        now_item = Item(f"called {one_line(fr.text, 160)}: no result by the end of episode {episode}", fa(fr.anchor))
    else:
        now_item = Item(f"{fr.kind}: {one_line(fr.text, 160)}{_age(nowdt, fr.timestamp)}", fa(fr.anchor))
    secs.append(Section("NOW", [now_item], inline=True, keep=1, cost=0))

    pending = sorted(st.pending, key=lambda c: (c.anchor.src != st.main.src, -c.seq))
    inflight = [  # only the items offered are made (a long session can have thousands pending)
        Item(
            f"{c.name} …{c.id[-8:]} {quote(c.brief, 80)}{_age(nowdt, c.timestamp)}"
            + ("" if c.anchor.src == st.main.src else f" (in {st.source_name(c.anchor.src)})"),
            fa(c.anchor),
        )
        for c in pending[:OFFER]
    ]
    secs.append(
        Section(
            f"IN FLIGHT ({fmt_count(len(pending))})",
            inflight or [Item("none")],
            noun="pending calls",
            keep=3,
            cost=1,
            extra_more=max(len(pending) - OFFER, 0),
        )
    )

    # as detect_anomalies(st, nowdt, st.episodes); the cost spikes of a past episode's state are
    # the live state's (views/anomaly_memo.py): not every episode priced again per copy
    a_head, a_tail = timeless_of(st, st.episodes, live=state)
    anomalies = [*a_head, *stall_anomalies(st, nowdt), *a_tail]
    open_a = sorted((a for a in anomalies if a.open), key=lambda a: (SEVERITY_ORDER.get(a.severity, 3), -(a.began.line if a.began else 0)))
    cleared = sorted(
        (a for a in anomalies if not a.open), key=lambda a: -(a.cleared.line if a.cleared else (a.began.line if a.began else 0))
    )
    offered = [*open_a, *cleared[:5]]
    a_items = [_anomaly_item(st, a) for a in offered[:OFFER]]
    secs.append(
        Section(
            f"ANOMALIES ({len(open_a)} open, {len(cleared)} cleared)",
            a_items or [Item("none")],
            noun="anomalies",
            keep=2,
            cost=2,
            extra_more=max(len(offered) - OFFER, 0) + max(len(cleared) - 5, 0),
        )
    )

    c = st.counters
    t = st.tokens
    cost = session_cost_text(st)
    cost = cost if st.cost_usd is not None else f"cost {cost}"
    through = fa(st.main.last_anchor)
    n = fmt_count
    counters = [
        Item(
            f"records {n(c.records)} · prompts {n(c.user_prompts)} · tool calls {n(c.tool_calls)} (errors {n(c.tool_errors)}) · interrupts {n(c.interrupts)} · compactions {n(c.compactions)} · API errors {n(c.api_errors)}, retries {n(c.api_retries)} · subagents {n(len(st.main.subagents))}"
            + (" (all files)" if st.agents else ""),
            through,
        ),
        Item(
            f"tokens in {fmt_n(t.input)} · out {fmt_n(t.output)} · cache write {fmt_n(t.cache_creation)} · cache read {fmt_n(t.cache_read)} · {plural(c.api_messages, 'API message')} · {cost}"
            + (" (all files)" if st.agents else ""),
            through,
        ),
    ]
    tools = list(st.tools_by_name.items())
    if tools:
        shown = ", ".join(f"{k} {n(v)}" for k, v in tools[:8])
        counters.append(Item(f"tools: {shown}" + (f" +{len(tools) - 8} more tools" if len(tools) > 8 else ""), through))
    secs.append(Section("COUNTERS", counters, noun="counter lines", keep=2, cost=0))

    files = sorted(st.files, key=lambda f: ((f.last.src == st.main.src) if f.last else False, f.last.line if f.last else 0), reverse=True)
    f_items = [Item(f"{rel_path(f.path, st.main.cwd)} · read {f.reads} write {f.writes} edit {f.edits}", fa(f.last)) for f in files[:OFFER]]
    # the title says the paths are relative only when a listed one was made so, and says which
    # when only some were (a path outside the session's folder is listed whole)
    inside, cwd = sum(1 for f in files[:OFFER] if under(f.path, st.main.cwd)), one_line_name(st.main.cwd or "")
    relative = "" if not inside else f", paths relative to {cwd}" if inside == len(f_items) else f", paths under {cwd} relative to it"
    title = f"FILES ({fmt_count(len(files))}{relative})"
    secs.append(Section(title, f_items or [Item("none")], noun="files", keep=1, cost=5, extra_more=max(len(files) - OFFER, 0)))

    aggs = key_aggregates(st)
    k_items = [_agg_line(st, src, agg) for src, agg in aggs[:OFFER]]
    evicted = sum(d.facts_evicted for _s, d in _derived_of(st))
    k_title = "KEY FACTS (aggregates, exact; coverage = values included" + (
        f"; {evicted} old facts evicted, aggregates kept)" if evicted else ")"
    )
    secs.append(
        Section(
            k_title,
            k_items or [Item("none extracted (no test runs, commits, PR links, exit codes or todos)")],
            noun="aggregates",
            keep=1,
            cost=3,
            extra_more=max(len(aggs) - OFFER, 0),
        )
    )

    fails = recent_failures(st)
    total_fails = max(_ruled_out_total(st), len(fails))
    r_items = [Item(f"{text}" + (f": {quote(q, 100)}" if q else ""), fa(a)) for a, text, q in fails[:OFFER]]
    secs.append(
        Section(
            f"RECENT FAILURES ({fmt_count(total_fails)})",
            r_items or [Item("none")],
            noun="failures",
            keep=1,
            cost=3,
            extra_more=max(len(fails) - OFFER, 0),
        )
    )

    eps = current_episodes(st)
    sup: dict[int, int] = {}
    for ep in st.episodes:
        if ep.lifecycle == "superseded":
            sup[ep.index] = sup.get(ep.index, 0) + 1
    e_items = [_episode_item(st, ep, sup.get(ep.index, 0), nowdt) for ep in eps[: -OFFER - 1 : -1]]  # the newest OFFER, newest first
    secs.append(
        Section(
            f"EPISODES ({fmt_count(len(eps))}, newest first; main thread only)",
            e_items or [Item("none")],
            noun="episodes",
            keep=1,
            cost=4,
            extra_more=max(len(eps) - OFFER, 0),
        )
    )

    foot = ["(anchors are file:line in the transcript; tool output is quoted «like this» as data)"]
    return fit(head, secs, foot, max_chars)
