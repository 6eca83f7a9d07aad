"""Anomaly detectors: deterministic rules over ledger events, each with a kind, a severity, the
anchor where it began, evidence anchors, a message, and the rule that clears it.

Detectors that need no clock run incrementally in :class:`AnomalyTracker` (fed by the
deriver); cleared anomalies stay in its history. Detectors that need the wall clock or the
whole session (stall, cost spike, ingest honesty) run at view time in
:func:`detect_anomalies`, which takes ``now`` as an argument and never reads the clock.
Every threshold is a named constant whose docstring gives its reason.
"""

from __future__ import annotations

import bisect
import functools
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import msgspec

from tracetui.model.state import Event, unknown_text
from tracetui.model.types import EVIDENCE_KEPT, Anchor, Anomaly, ToolCall

if TYPE_CHECKING:  # pragma: no cover
    from tracetui.model.state import RunState

__all__ = [
    "Anomaly",
    "AnomalyTracker",
    "detect_anomalies",
    "context_window",
    "TOOL_LOOP_REPEATS",
    "TOOL_LOOP_WINDOW",
    "TOOL_ERROR_STREAK",
    "API_ERROR_STREAK",
    "EDIT_THRASH",
    "REREAD_LOOP",
    "STALL_SECONDS",
    "ENDED_SECONDS",
    "CONTEXT_PRESSURE_RATIO",
    "CONTEXT_WINDOW_TOKENS",
    "LONG_CONTEXT_WINDOW_TOKENS",
    "COST_SPIKE_FACTOR",
    "COST_SPIKE_MIN_USD",
    "RUNAWAY_SUBAGENTS",
    "EVIDENCE_KEPT",
    "SEVERITIES",
]

TOOL_LOOP_REPEATS = 3
"""Identical calls (same tool, same normalised input) within :data:`TOOL_LOOP_WINDOW` calls that
make a tool loop. Two identical calls are common and harmless (re-checking a status after a
change); a third with nothing changed in its input is the usual sign of an agent going round."""

TOOL_LOOP_WINDOW = 10
"""How many recent main-thread calls the tool-loop detector looks at; the loop clears when a
whole window passes without the repeated call (or when the next prompt starts an episode)."""

TOOL_ERROR_STREAK = 3
"""Consecutive failing tool results that make an error streak: one or two failures are normal
trial and error (a missing file, a failing test); three in a row means the agent is stuck. Clears
at the next successful result."""

API_ERROR_STREAK = 2
"""Consecutive API errors or retry notices (``system/api_error``) that make an API streak: one
retry is routine (Claude Code retries by itself); a second means the service or the request is
failing. Clears at the next assistant message with usage (a successful response)."""

EDIT_THRASH = 5
"""Edits (Edit, MultiEdit, NotebookEdit, Write) of one file within one episode that make edit
thrash: a feature usually takes a few edits per file; five or more in one episode means it is
being rewritten back and forth. Clears when the episode ends."""

REREAD_LOOP = 3
"""Reads of one file with no edit or write of it in between that make a re-read loop: reading
again after an edit is normal, reading the unchanged file a third time means the agent is losing
what it read (often after compaction). Clears at the next edit/write of the file or episode end."""

STALL_SECONDS = 300
#: seconds without a record after which a stall is a session that ended with calls unanswered
#: (severity info): a day, longer than any test run or build a call waits for
ENDED_SECONDS = 86_400
"""Seconds with no new record while a call is pending that make a stall: tests and builds often
run a few minutes, Claude Code's default Bash timeout is 2 minutes and its maximum 10; five
minutes of silence with a call open is worth a look. Clears when a record arrives."""

CONTEXT_PRESSURE_RATIO = 0.85
"""Share of the context window (input + cache creation + cache read tokens of the last main
message) that makes context pressure: Claude Code auto-compacts somewhat above this, so 85 % is
a warning before it happens. Clears when a later message is back below."""

CONTEXT_WINDOW_TOKENS = 200_000
"""The context window assumed for a model, in tokens (Claude models' standard window)."""

LONG_CONTEXT_WINDOW_TOKENS = 1_000_000
"""The window assumed when the model name says ``1m`` or a message already used more than
:data:`CONTEXT_WINDOW_TOKENS` (the 1M-context beta)."""

COST_SPIKE_FACTOR = 3.0
"""An episode costing at least this many times the median of the earlier episodes is a spike."""

COST_SPIKE_MIN_USD = 1.0
"""…and at least this many USD: below a dollar a ratio says nothing worth interrupting for."""

RUNAWAY_SUBAGENTS = 6
"""Subagents started within one episode that make runaway subagents: a typical fan-out is 1–4
(Claude Code's guidance runs a handful in parallel); six or more in one episode is unusual and
costly. Clears when the episode ends."""

HISTORY_KEPT = 200
"""Cleared anomalies kept per file (all are counted in ``AnomalyTracker.cleared_total``)."""

SEVERITIES = ("info", "warn", "error")


@functools.lru_cache(maxsize=256)
def _long_context(model: str | None) -> bool:
    return "1m" in (model or "").lower()


def context_window(model: str | None, used: int = 0, declared: int = 0) -> int:
    """The context window (tokens) of ``model``: the one the agent ``declared`` when it declared
    one (Codex ``token_count.info.model_context_window``), else the one assumed for a Claude model
    (see :data:`LONG_CONTEXT_WINDOW_TOKENS`)."""
    if declared > 0:
        return declared
    if used > CONTEXT_WINDOW_TOKENS or _long_context(model):
        return LONG_CONTEXT_WINDOW_TOKENS
    return CONTEXT_WINDOW_TOKENS


class AnomalyTracker(msgspec.Struct):
    """The incremental detectors of one file (plain data: persistable)."""

    open: dict[str, Anomaly] = msgspec.field(default_factory=dict)
    history: list[Anomaly] = msgspec.field(default_factory=list)
    cleared_total: int = 0
    recent_calls: list[tuple[str, Anchor]] = msgspec.field(default_factory=list)
    error_streak: list[Anchor] = msgspec.field(default_factory=list)
    api_streak: list[Anchor] = msgspec.field(default_factory=list)
    edits: dict[str, int] = msgspec.field(default_factory=dict)
    reads: dict[str, list[Anchor]] = msgspec.field(default_factory=dict)
    subagents: int = 0
    dangling_ids: dict[str, str] = msgspec.field(default_factory=dict)  # tool_use id -> anomaly key
    #: the context window (tokens) the agent declared, 0 when none (see :func:`context_window`)
    window: int = 0

    # -- plumbing ----------------------------------------------------------------------------
    def _open(self, kind: str, severity: str, key: str, began: Anchor, message: str, clears: str, evidence: list[Anchor]) -> Anomaly:
        a = self.open.get(key)
        if a is None:
            a = self.open[key] = Anomaly(kind, severity, key, began, message, clears)
            for e in evidence:
                a.add_evidence(e)
        return a

    def _clear(self, key: str, at: Anchor | None, reason: str) -> None:
        a = self.open.pop(key, None)
        if a is None:
            return
        a.cleared = at
        a.cleared_reason = reason
        self.cleared_total += 1
        self.history.append(a)
        if len(self.history) > HISTORY_KEPT:
            del self.history[: len(self.history) - HISTORY_KEPT]

    def _clear_kind(self, kind: str, at: Anchor | None, reason: str) -> None:
        for key in [k for k, a in self.open.items() if a.kind == kind]:
            self._clear(key, at, reason)

    # -- detectors ---------------------------------------------------------------------------
    def on_prompt(self, ev: Event) -> None:
        """A new episode: per-episode anomalies clear, per-episode counts restart."""
        for kind in ("tool_loop", "edit_thrash", "reread_loop", "runaway_subagents", "compaction"):
            self._clear_kind(kind, ev.anchor, "next prompt")
        self.recent_calls.clear()
        self.edits.clear()
        self.reads.clear()
        self.subagents = 0

    def on_call(self, call: ToolCall, input_key: str, op: tuple[str, str] | None, subagent: bool) -> None:
        """A main-thread tool_use: ``input_key`` is the tool name plus a digest of its
        normalised (key-sorted) input."""
        a = call.anchor
        rc = self.recent_calls
        rc.append((input_key, a))
        if len(rc) > TOOL_LOOP_WINDOW:
            del rc[0]
        same = [x for k, x in rc if k == input_key]
        if len(same) >= TOOL_LOOP_REPEATS:
            key = "tool_loop:" + input_key
            an = self.open.get(key)
            if an is None:
                self._open(
                    "tool_loop",
                    "warn",
                    key,
                    same[0],
                    f"{call.name}({call.brief}) called {len(same)} times with the same input within {TOOL_LOOP_WINDOW} calls",
                    f"when {TOOL_LOOP_WINDOW} calls pass without it, or at the next prompt",
                    same,
                )
            else:
                an.add_evidence(a)
        # only tool-loop anomalies have keys starting "tool_loop:" (see _open calls)
        loops = [k for k in self.open if k.startswith("tool_loop:")] if self.open else None
        if loops:
            keys_in_window = {k for k, _ in rc}
            for k in loops:
                if k[len("tool_loop:") :] not in keys_in_window:
                    self._clear(k, a, f"{TOOL_LOOP_WINDOW} calls without a repeat")
        if op is not None:
            path, kind = op
            if kind == "read":
                lst = self.reads.setdefault(path, [])
                lst.append(a)
                if len(lst) >= REREAD_LOOP:
                    rk = "reread_loop:" + path
                    an = self.open.get(rk)
                    if an is None:
                        self._open(
                            "reread_loop",
                            "warn",
                            rk,
                            lst[0],
                            f"{path} read {len(lst)} times with no edit in between",
                            "at the next edit or write of the file, or the next prompt",
                            lst,
                        )
                    else:
                        an.add_evidence(a)
                        an.message = f"{path} read {len(lst)} times with no edit in between"
            else:
                self.reads.pop(path, None)
                if self.open:
                    self._clear("reread_loop:" + path, a, "file edited")
                n = self.edits[path] = self.edits.get(path, 0) + 1
                if n >= EDIT_THRASH:
                    ek = "edit_thrash:" + path
                    an = self.open.get(ek)
                    if an is None:
                        an = self._open("edit_thrash", "warn", ek, a, "", "at the next prompt (end of the episode)", [a])
                    else:
                        an.add_evidence(a)
                    an.message = f"{path} edited {n} times in this episode"
        if subagent:
            self.subagents += 1
            if self.subagents >= RUNAWAY_SUBAGENTS:
                an = self.open.get("runaway_subagents")
                if an is None:
                    an = self._open("runaway_subagents", "warn", "runaway_subagents", a, "", "at the next prompt (end of the episode)", [a])
                else:
                    an.add_evidence(a)
                an.message = f"{self.subagents} subagents started in this episode"

    def on_result(self, ev: Event) -> None:
        """A tool_result event (main thread)."""
        if ev.is_error:
            self.error_streak.append(ev.anchor)
            n = len(self.error_streak)
            if n >= TOOL_ERROR_STREAK:
                an = self.open.get("tool_error_streak")
                if an is None:
                    an = self._open(
                        "tool_error_streak",
                        "error",
                        "tool_error_streak",
                        self.error_streak[0],
                        "",
                        "at the next successful tool result",
                        self.error_streak,
                    )
                else:
                    an.add_evidence(ev.anchor)
                an.message = f"{n} tool results in a row failed"
        else:
            if self.error_streak:
                self.error_streak.clear()
                # the streak's anomaly is open only while a streak runs (opened and cleared here)
                if "tool_error_streak" in self.open:
                    self._clear("tool_error_streak", ev.anchor, "a tool result succeeded")
        key = self.dangling_ids.pop(ev.tool_use_id or "", None) if self.dangling_ids else None
        if key is not None and key in self.open:
            if not any(v == key for v in self.dangling_ids.values()):
                self._clear(key, ev.anchor, "the dangling calls got their results")

    def on_api_error(self, ev: Event, retry: bool) -> None:
        """An API error record, or a ``system/api_error`` retry notice (``retry``)."""
        self.api_streak.append(ev.anchor)
        n = len(self.api_streak)
        if n >= API_ERROR_STREAK:
            an = self.open.get("api_error_streak")
            if an is None:
                an = self._open(
                    "api_error_streak",
                    "error",
                    "api_error_streak",
                    self.api_streak[0],
                    "",
                    "at the next successful API response",
                    self.api_streak,
                )
            else:
                an.add_evidence(ev.anchor)
            an.message = f"{n} API errors or retries in a row"

    def on_usage(self, ev: Event, model: str | None, context: int | None = None) -> None:
        """A main-thread assistant event with usage: a successful API response. ``context``:
        the tokens its request held, when the agent says so (Codex ``last_token_usage``); else
        the event's input + cache creation + cache read."""
        if self.api_streak:
            self.api_streak.clear()
            self._clear("api_error_streak", ev.anchor, "an API response succeeded")
        u = ev.usage
        if u is None:
            return
        used = context if context is not None else u[0] + u[2] + u[3]
        if used < (self.window or CONTEXT_WINDOW_TOKENS) * CONTEXT_PRESSURE_RATIO and "context_pressure" not in self.open:
            return  # below the ratio of the smallest window it may have: no pressure, none to clear
        window = context_window(model, used, self.window)
        if used >= CONTEXT_PRESSURE_RATIO * window:
            an = self.open.get("context_pressure")
            if an is None:
                an = self._open(
                    "context_pressure",
                    "warn",
                    "context_pressure",
                    ev.anchor,
                    "",
                    f"when a message is back below {int(CONTEXT_PRESSURE_RATIO * 100)} % of the window",
                    [ev.anchor],
                )
            elif an.evidence and an.evidence[-1] != ev.anchor:
                an.add_evidence(ev.anchor)
            an.message = f"context at {used:,} of {window:,} tokens ({100 * used // window} %)"
        elif "context_pressure" in self.open:
            self._clear("context_pressure", ev.anchor, f"back to {used:,} tokens")

    def on_compaction(self, ev: Event) -> None:
        key = f"compaction:{ev.anchor.line}"
        detail = ev.excerpt  # the fold's excerpt: "compaction (manual, N tokens before)"
        if detail.startswith("compaction (") and detail.endswith(")"):
            detail = detail[len("compaction (") : -1]
        self._open("compaction", "info", key, ev.anchor, f"context compacted ({detail})", "at the next prompt (a point event)", [ev.anchor])

    def on_dangling(self, ev: Event, calls: list[ToolCall], how: str) -> None:
        """Calls left open by an interrupt (``how`` = ``interrupt``) or by the next prompt."""
        if not calls:
            return
        key = f"interrupted_dangling:{ev.anchor.line}"
        names = ", ".join(f"{c.name} …{c.id[-8:]}" for c in calls[:3]) + (f" +{len(calls) - 3} more" if len(calls) > 3 else "")
        msg = f"{'interrupted' if how == 'interrupt' else 'next prompt arrived'} with {len(calls)} call(s) dangling: {names}"
        self._open(
            "interrupted_dangling", "warn", key, ev.anchor, msg, "when every dangling call gets its result", [c.anchor for c in calls]
        )
        for c in calls:
            self.dangling_ids[c.id] = key

    def frozen(self, prev: tuple[Anomaly, ...] = ()) -> tuple[Anomaly, ...]:
        """Cleared history then open anomalies. Cleared ones are never changed again, so they
        are shared; open ones are copied (they still gain evidence), except that a copy in
        ``prev`` (the previous snapshot's tuple) equal to an open anomaly is reused, and
        ``prev`` itself is returned when nothing changed (snapshots share what did not change)."""
        hist = self.history
        nh = len(hist)
        same = len(prev) == nh + len(self.open)
        if same:
            for was, now in zip(prev, hist):
                if was is not now:
                    same = False
                    break
        old = {a.key: a for a in prev[nh:]} if same else {a.key: a for a in prev if a.cleared is None and not a.cleared_reason}
        out = list(hist)
        for a in self.open.values():
            b: Anomaly | None = old.get(a.key)
            if b is None or b != a:
                b = msgspec.structs.replace(a)
                same = False
            out.append(b)
        if same:
            for a, b in zip(prev[nh:], out[nh:]):
                if a is not b:
                    same = False
                    break
        return prev if same else tuple(out)


# -- view-time detectors ----------------------------------------------------------------------


def as_datetime(now: datetime | float | int | None) -> datetime | None:
    """``now`` (a datetime, or epoch seconds) as an aware UTC datetime, or ``None``."""
    if now is None:
        return None
    if isinstance(now, datetime):
        return now if now.tzinfo else now.replace(tzinfo=UTC)
    return datetime.fromtimestamp(float(now), tz=UTC)


def fmt_span(seconds: float) -> str:
    """A duration in seconds as the model's messages and the monitor's ages show it: ``42s``,
    ``3m10s``, ``2h05m``, ``277d10h`` (``tracetui.tui.format.fmt_age`` calls this)."""
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    return f"{s // 86400}d{(s % 86400) // 3600:02d}h"


def _sorted_median(xs: list[float]) -> float:
    """``statistics.median(xs)`` for ``xs`` already sorted (same arithmetic, no sort)."""
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def detect_anomalies(state: "RunState", now: datetime | float | int | None = None, episodes: tuple | None = None) -> tuple[Anomaly, ...]:
    """Every anomaly of ``state``: the incremental ones of each file (main first), then the
    view-time ones: stall (only when ``now`` is given: a datetime, or epoch seconds), cost spike
    per episode (priced with genai-prices' bundled table), and ingest honesty (malformed or
    unknown records, truncated or replaced files, read errors, pending bytes).

    Pure: reads neither the clock nor files. ``episodes`` overrides the main thread's episodes
    (defaults to ``state.main.derived.episodes``).
    """

    head, tail = timeless_anomalies(state, episodes)
    return head + stall_anomalies(state, now) + tail


def timeless_anomalies(state: "RunState", episodes: tuple | None = None) -> tuple[tuple[Anomaly, ...], tuple[Anomaly, ...]]:
    """The anomalies of :func:`detect_anomalies` that do not depend on ``now``, in its order:
    ``(incremental, rest)``: those of each file, then cost spikes and ingest honesty (the
    stall goes between). A caller that redraws every second with the same state computes these
    once (pricing every episode is the costly part) and :func:`stall_anomalies` each time."""
    from tracetui.model.pricing import estimate_cost

    out: list[Anomaly] = []
    for st in (state.main, *state.agents):
        d = getattr(st, "derived", None)
        if d is not None:
            out.extend(d.anomalies)
    head = tuple(out)
    out = []
    # cost spike per episode (current versions only, closed or open)
    derived = state.main.derived
    eps = episodes if episodes is not None else (derived.episodes if derived is not None else ())
    costs: list[float] = []  # earlier episodes' costs, kept sorted (the median of each step)
    for ep in eps:
        if ep.lifecycle == "superseded":
            continue
        cost, _ = estimate_cost(ep.usage_buckets, ep.end) if ep.tokens_by_model else (0.0, "")
        if cost is None:
            continue
        if len(costs) >= 2:
            med = _sorted_median(costs)
            if cost >= COST_SPIKE_MIN_USD and cost >= COST_SPIKE_FACTOR * max(med, 1e-9):
                out.append(
                    Anomaly(
                        "cost_spike",
                        "warn",
                        f"cost_spike:{ep.index}",
                        ep.first or ep.ask_anchor,
                        f"episode {ep.index} cost ${cost:.2f}, {cost / max(med, 1e-9):.1f}× the median ${med:.2f} of earlier episodes",
                        "a per-episode finding: it stands once the episode ends",
                        tuple(a for a in (ep.ask_anchor, ep.last) if a is not None),
                        2,
                        cleared=ep.last if ep.status != "in_progress" else None,
                        cleared_reason="episode ended" if ep.status != "in_progress" else "",
                        view_time=True,
                    )
                )
        bisect.insort(costs, cost)
    # ingest honesty
    for s in state.sources:
        probs = []
        if s.malformed:
            probs.append(f"{s.malformed} malformed line(s)")
        if s.unknown:
            probs.append(unknown_text(s.unknown_records, s.unknown_blocks))
        if s.truncated or s.replaced:
            probs.append("; ".join(s.resets) or "file truncated or replaced")
        if s.error:
            probs.append(f"read error: {s.error}")
        if probs:
            sev = "error" if (s.truncated or s.replaced or s.error) else "info"
            out.append(
                Anomaly(
                    "ingest",
                    sev,
                    f"ingest:{s.name}",
                    s.last_anchor,
                    f"{s.name}: " + ", ".join(probs),
                    "never: counts of what was read stay",
                    (s.last_anchor,) if s.last_anchor is not None else (),
                    1,
                    view_time=True,
                )
            )
    return head, tuple(out)


def stall_anomalies(state: "RunState", now: datetime | float | int | None) -> tuple[Anomaly, ...]:
    """The stall anomaly of :func:`detect_anomalies` (none without ``now``, epoch seconds or a
    datetime): calls pending and no record for :data:`STALL_SECONDS`."""
    from tracetui.model.episodes import parse_ts

    out: list[Anomaly] = []
    # stall
    nowdt = as_datetime(now)
    if nowdt is not None and state.pending:
        last = None
        for st in (state.main, *state.agents):
            t = parse_ts(st.last_timestamp)
            if t is not None and (last is None or t > last):
                last = t
        if last is not None:
            age = (nowdt - last).total_seconds()
            if age >= STALL_SECONDS:
                newest = max(state.pending, key=lambda c: (c.anchor.src == state.main.src, c.seq))
                # a day without a record: the session ended with the calls unanswered, nothing is
                # running any more; said so, and as info, not as a warning about a stuck call
                ended = age >= ENDED_SECONDS
                out.append(
                    Anomaly(
                        "stall",
                        "info" if ended else "warn",
                        "stall",
                        newest.anchor,
                        f"no new record for {fmt_span(age)} with {len(state.pending)} call(s) pending (newest {newest.name} …{newest.id[-8:]})"
                        + ("; the session looks ended with them unanswered" if ended else ""),
                        "when a new record arrives or the pending calls complete",
                        tuple(c.anchor for c in state.pending[:EVIDENCE_KEPT]),
                        len(state.pending),
                        view_time=True,
                    )
                )
    return tuple(out)
