"""The open episode while its events arrive (:class:`EpisodeBuilder`), and its freeze into a
frozen :class:`~tracetui.model.types.Episode` version with its tokens summed per model and per
pricing bucket. The book that keeps the versions is :mod:`tracetui.model.episodes`."""

from __future__ import annotations

from typing import Union

import msgspec

from tracetui.model.pricing import NO_MODEL, buckets_by_key, price_band
from tracetui.model.timestamps import duration_between
from tracetui.model.types import Anchor, Episode, ErrorNote, FileTouch, SubagentStart, Tokens, ToolCall, UsageBucket

__all__ = ["EpisodeBuilder", "ASK_CHARS", "ERRORS_KEPT", "STATUSES", "LIFECYCLES"]

#: characters of an episode's ask kept in the episode (the whole prompt stays in the file)
ASK_CHARS = 600
#: error notes kept per episode; all errors are counted in ``tool_errors``/``api_errors``
ERRORS_KEPT = 20
#: an episode's statuses (:mod:`tracetui.model.episodes` says when each applies)
STATUSES = ("in_progress", "ok", "errors", "interrupted", "unresolved")
#: an episode version's lifecycles, from the newest version to one a newer version replaced
LIFECYCLES = ("current", "suspected-stale", "superseded")


class EpisodeBuilder(msgspec.Struct):
    """The open episode while its events arrive (mutable; plain data so it can be persisted)."""

    index: int
    ask: str = ""
    ask_form: str = "text"
    ask_anchor: Union[Anchor, None] = None
    first: Union[Anchor, None] = None
    last: Union[Anchor, None] = None
    ledger_start: int = 0
    ledger_end: int = 0
    start: Union[str, None] = None
    end: Union[str, None] = None
    tools: dict[str, int] = msgspec.field(default_factory=dict)
    tool_calls: int = 0
    tool_errors: int = 0
    api_errors: int = 0
    interrupts: int = 0
    compactions: int = 0
    texts: int = 0
    files: dict[str, FileTouch] = msgspec.field(default_factory=dict)
    errors: list[ErrorNote] = msgspec.field(default_factory=list)
    msg_usage: dict[str, tuple[int, int, int, int, int]] = msgspec.field(default_factory=dict)
    msg_model: dict[str, str] = msgspec.field(default_factory=dict)
    #: UTC day of each message's first record with usage in this episode (pricing)
    msg_day: dict[str, str] = msgspec.field(default_factory=dict)
    #: the session's usage of a message before this episode's first record of it, for a message
    #: the session counted already (a copied record set, a reused id): the episode counts only
    #: what its records add to that, as the session does (:meth:`EpisodeBook.known_message`)
    msg_base: dict[str, tuple[int, int, int, int, int]] = msgspec.field(default_factory=dict)
    subagents: list[SubagentStart] = msgspec.field(default_factory=list)
    conclusion: str = ""
    conclusion_anchor: Union[Anchor, None] = None
    #: what the episode ended on so far: "", text, tool_ok, tool_error, api_error
    last_outcome: str = ""
    #: the tool_use id of the last failed call (meaningful when ``last_outcome`` is tool_error)
    last_error_id: str = ""
    resolved_errors: int = 0
    ask_pending: bool = False

    def tokens(self) -> tuple[Tokens, dict[str, Tokens], tuple[UsageBucket, ...]]:
        """``(total, per model, per pricing bucket)`` over the episode's messages."""
        # each bucket's columns summed as its messages come (integer sums: the same totals in
        # any order); the 1-hour cache writes, the last column, are priced apart (usage.py)
        # keyed by ``(model, day, band)``: no key string built per message (pricing.buckets_by_key)
        buckets: dict[tuple[str, str, int], list[int]] = {}
        days = self.msg_day
        models = self.msg_model
        bases = self.msg_base
        band = price_band
        for mid, u in self.msg_usage.items():
            key = (models.get(mid, NO_MODEL), days.get(mid, ""), band(u[0], u[2], u[3]))
            if bases:
                base = bases.get(mid)
                if base is not None:
                    # counted by the session before this episode: only what its records add
                    # (priced in the band of the whole message; a message of no growth is left out)
                    u = (
                        max(u[0] - base[0], 0),
                        max(u[1] - base[1], 0),
                        max(u[2] - base[2], 0),
                        max(u[3] - base[3], 0),
                        max(u[4] - base[4], 0),
                    )
                    if not any(u):
                        continue
            c = buckets.get(key)
            if c is None:
                buckets[key] = [1, u[0], u[1], u[2], u[3], u[4]]
            else:
                c[0] += 1
                c[1] += u[0]
                c[2] += u[1]
                c[3] += u[2]
                c[4] += u[3]
                c[5] += u[4]
        by: dict[str, list[int]] = {}
        for key, c in buckets.items():
            m = by.get(key[0])
            if m is None:
                by[key[0]] = c[1:5]
            else:
                for i in range(4):
                    m[i] += c[i + 1]
        tot = [sum(col) for col in zip(*by.values())] if by else [0, 0, 0, 0]
        return Tokens(*tot), {k: Tokens(*v) for k, v in sorted(by.items())}, buckets_by_key(buckets)

    def freeze(
        self,
        version: int,
        status: str,
        dangling: tuple[ToolCall, ...],
        lifecycle: str = "current",
        reason: str = "",
        made_at: int | None = None,
    ) -> Episode:
        """This builder as a frozen :class:`Episode` (containers copied)."""
        tokens, by_model, buckets = self.tokens()
        return Episode(
            index=self.index,
            version=version,
            lifecycle=lifecycle,
            status=status,
            ask=self.ask,
            ask_form=self.ask_form,
            ask_anchor=self.ask_anchor,
            first=self.first,
            last=self.last,
            ledger_start=self.ledger_start,
            ledger_end=self.ledger_end,
            start=self.start,
            end=self.end,
            duration_s=duration_between(self.start, self.end),
            tools=dict(sorted(self.tools.items(), key=lambda kv: (-kv[1], kv[0]))),
            tool_calls=self.tool_calls,
            tool_errors=self.tool_errors,
            api_errors=self.api_errors,
            interrupts=self.interrupts,
            compactions=self.compactions,
            files=tuple(msgspec.structs.replace(f) for f in self.files.values()),
            errors=tuple(self.errors),
            tokens=tokens,
            tokens_by_model=by_model,
            subagents=tuple(self.subagents),
            conclusion=self.conclusion,
            conclusion_anchor=self.conclusion_anchor,
            dangling=dangling,
            reason=reason,
            made_at=self.ledger_end if made_at is None else made_at,
            usage_buckets=buckets,
            resolved_errors=self.resolved_errors,
            ended_on_error=self.last_error_id if self.last_outcome == "tool_error" else None,
        )

    def closing_status(self, dangling: int) -> str:
        """The status of this episode when the next prompt closes it with ``dangling`` calls open."""
        if self.interrupts or dangling:
            return "interrupted"
        if self.last_outcome in ("tool_error", "api_error", "tool_ok") or (self.last_outcome == "" and self.tool_calls):
            return "unresolved"
        if self.tool_errors or self.api_errors:
            return "errors"
        return "ok"
