"""The incremental anomaly detectors of one file: :class:`AnomalyTracker`, fed event by event
by the deriver (:class:`tracetui.model.derive.Deriver`). Needs no clock; cleared anomalies stay
in its history. Thresholds: :mod:`tracetui.model.anomaly_rules`."""

from __future__ import annotations

import msgspec

from tracetui.model.anomaly_rules import (
    API_ERROR_STREAK,
    CONTEXT_PRESSURE_RATIO,
    CONTEXT_WINDOW_TOKENS,
    EDIT_THRASH,
    HISTORY_KEPT,
    REREAD_LOOP,
    RUNAWAY_SUBAGENTS,
    TOOL_ERROR_STREAK,
    TOOL_LOOP_REPEATS,
    TOOL_LOOP_WINDOW,
    context_window,
)
from tracetui.model.numbers import fmt_count, plural
from tracetui.model.state import Event
from tracetui.model.types import Anchor, Anomaly, ToolCall

__all__ = ["AnomalyTracker"]


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
    #: where the episode's first subagents started (up to :data:`RUNAWAY_SUBAGENTS`): the
    #: runaway anomaly's evidence begins with the first, so it accounts for every one it counts
    subagent_starts: list[Anchor] = msgspec.field(default_factory=list)
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
        self.subagent_starts.clear()

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
            if len(self.subagent_starts) < RUNAWAY_SUBAGENTS:
                self.subagent_starts.append(a)
            if self.subagents >= RUNAWAY_SUBAGENTS:
                an = self.open.get("runaway_subagents")
                if an is None:
                    # from the episode's first subagent on: began there, one piece of evidence each
                    starts = self.subagent_starts
                    an = self._open(
                        "runaway_subagents", "warn", "runaway_subagents", starts[0], "", "at the next prompt (end of the episode)", starts
                    )
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
            an.message = f"context at {fmt_count(used)} of {fmt_count(window)} tokens ({100 * used // window} %)"
        elif "context_pressure" in self.open:
            self._clear("context_pressure", ev.anchor, f"back to {plural(used, 'token')}")

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
        msg = f"{'interrupted' if how == 'interrupt' else 'next prompt arrived'} with {plural(len(calls), 'call')} dangling: {names}"
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
