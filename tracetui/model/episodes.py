"""Episodes: one derived node per human prompt of the main thread, running to the next prompt.

An :class:`Episode` is frozen and versioned. :class:`EpisodeBook` builds them from ledger
events (fed by :class:`tracetui.model.derive.Deriver`), the open one in an
:class:`~tracetui.model.episode_builder.EpisodeBuilder`; it keeps every version it ever made.
A later record that changes an earlier episode's meaning makes a new version and marks the old
one ``superseded`` (never overwritten):

* the next prompt arrives while calls of the episode are still open: the episode is recognised
  as *interrupted* (version n+1, reason says how many calls were open);
* a tool_result arrives for a call of an earlier episode (a *late result*): its dangling call is
  resolved and its status recomputed;
* a later call retries one of its failed calls and succeeds (:meth:`EpisodeBook.resolve`, rule
  in ``tracetui.model.derive.retry_keys``): the error is marked resolved (``ErrorNote.resolved_by``)
  and an episode ``unresolved`` because it ended on that very error becomes ``errors``.

Lifecycle: ``current`` (the newest version), ``suspected-stale`` (a later record referred to one
of its dangling calls without resolving it, e.g. progress of a call still running, so a new
version may follow), ``superseded`` (a newer version exists).

Status: ``in_progress`` (the open episode), ``ok``, ``errors`` (errors happened, the episode
ended on a success, or the error it ended on was later resolved by a successful retry),
``interrupted`` (the user interrupted, or the next prompt came with calls open), ``unresolved``
(the episode ended on an error no later retry resolved, or with no assistant text after its last
tool result). Everything here is pure: no clock, no I/O; times are the records' own timestamps.
"""

from __future__ import annotations

import sys
from array import array
from typing import Any, Union

import msgspec

from tracetui.model.episode_builder import ASK_CHARS, ERRORS_KEPT, LIFECYCLES, STATUSES, EpisodeBuilder
from tracetui.model.numbers import plural
from tracetui.model.pricing import utc_day
from tracetui.model.state import Event
from tracetui.model.timestamps import duration_between, parse_ts
from tracetui.model.types import Anchor, Episode, ErrorNote, FileTouch, SubagentStart, ToolCall

__all__ = [
    "Episode",
    "ErrorNote",
    "SubagentStart",
    "EpisodeBuilder",
    "EpisodeBook",
    "ASK_CHARS",
    "ERRORS_KEPT",
    "parse_ts",
    "duration_between",
    "STATUSES",
    "LIFECYCLES",
]


def _recomputed_status(ep: Episode, dangling: int) -> str:
    """Status of an earlier episode after a late result resolved one of its dangling calls: an
    interrupted or unresolved episode stays so (the next prompt still came while work was
    outstanding); an ok one becomes ``errors`` when the late result failed."""
    if ep.interrupts or dangling or ep.status == "interrupted":
        return "interrupted"
    if ep.status == "unresolved":
        return "unresolved"
    if ep.tool_errors or ep.api_errors:
        return "errors"
    return "ok"


class EpisodeBook(msgspec.Struct):
    """Every episode version of one file, plus the open episode. Plain data (persistable).

    ``versions`` holds all frozen versions in creation order (a list, or a list-like keeping
    them elsewhere: ``append``, ``len``, ``[pos]``, ``[pos] = version``, and ``ordered(tail)``
    giving the sequence :meth:`snapshot` returns, as the session store's does); ``latest`` holds,
    per episode index, the position of its newest version in ``versions`` (packed: a signed
    32-bit little-endian int each, -1 for an index with no version; :meth:`newest`), 4 bytes an
    episode instead of a dict entry's hundred; ``call_episode`` maps a still-open
    tool_use id to the episode that made it (entries leave when the result arrives);
    ``error_episode`` maps the tool_use id of a failed call not yet resolved to its episode;
    ``counted_errors`` holds the tool_use ids whose failed result an episode counted, so a
    repeated result (a copied record set) is not an error again: an episode leaves out what the
    session's counters leave out (the fold counts a call's error once), and so do its tokens
    (:meth:`known_message`).
    """

    versions: list[Episode] = msgspec.field(default_factory=list)
    latest: bytearray = msgspec.field(default_factory=bytearray)
    open: Union[EpisodeBuilder, None] = None
    call_episode: dict[str, int] = msgspec.field(default_factory=dict)
    prompts: int = 0
    error_episode: dict[str, int] = msgspec.field(default_factory=dict)
    counted_errors: set[str] = msgspec.field(default_factory=set)
    #: the agent said the open episode's turn ended (Codex CLI ``task_complete``): it shows the
    #: status the next prompt will close it with, not ``in_progress``
    turn_done: bool = False

    # -- the newest version of each episode ---------------------------------------------------
    def newest(self, index: int) -> int | None:
        """The position in ``versions`` of episode ``index``'s newest version, ``None`` when it
        has none."""
        o = 4 * index
        if index < 0 or o + 4 > len(self.latest):
            return None
        at = int.from_bytes(self.latest[o : o + 4], "little", signed=True)
        return at if at >= 0 else None

    def _newest_of(self, index: int) -> int:
        """:meth:`newest` of an episode that has a version (``KeyError`` when it has none)."""
        at = self.newest(index)
        if at is None:
            raise KeyError(index)
        return at

    def _set_newest(self, index: int, at: int) -> None:
        o = 4 * index
        if o + 4 > len(self.latest):
            self.latest.extend(b"\xff" * (o + 4 - len(self.latest)))
        self.latest[o : o + 4] = at.to_bytes(4, "little", signed=True)

    def last_position(self) -> int:
        """The largest position ``latest`` points to (-1 when none): every version up to it is
        in ``versions``."""
        a = array("i")
        a.frombytes(self.latest[: len(self.latest) // 4 * 4])
        if sys.byteorder == "big":
            a.byteswap()
        return max(a, default=-1)

    # -- feeding -----------------------------------------------------------------------------
    def builder(self, pos: int) -> EpisodeBuilder:
        b = self.open
        if b is None:
            b = self.open = EpisodeBuilder(index=0, ledger_start=pos)
        return b

    def on_prompt(self, ev: Event, pos: int, pending: list[ToolCall]) -> None:
        """A human prompt at ledger position ``pos``: close the open episode, start the next.

        ``pending`` are the file's calls still open at that moment (main-thread ones count)."""
        b = self.open
        if b is not None and (b.index > 0 or b.tool_calls or b.texts):
            self._close(b, pending, ev, pos)
        self.prompts += 1
        nb = EpisodeBuilder(
            index=self.prompts,
            ledger_start=pos,
            ledger_end=pos + 1,
            ask=ev.excerpt,
            ask_form=ev.name or "text",
            ask_anchor=ev.anchor,
            ask_pending=True,
            first=ev.anchor,
            last=ev.anchor,
            start=ev.timestamp,
            end=ev.timestamp,
        )
        self.open = nb

    def _close(self, b: EpisodeBuilder, pending: list[ToolCall], ev: Event, pos: int) -> None:
        mine = tuple(msgspec.structs.replace(c) for c in pending if self.call_episode.get(c.id) == b.index)
        if mine and not b.interrupts:
            # the episode as it stood, then the interruption the new prompt reveals
            v1 = b.freeze(1, "in_progress", mine, lifecycle="superseded", made_at=b.ledger_end)
            v1 = msgspec.structs.replace(v1, superseded_by=2)
            self.versions.append(v1)
            ep = b.freeze(2, "interrupted", mine, reason=f"next prompt arrived with {plural(len(mine), 'call')} open", made_at=pos)
            ep = msgspec.structs.replace(ep, reason_anchor=ev.anchor)
        else:
            ep = b.freeze(1, b.closing_status(len(mine)), mine, made_at=pos)
        self._set_newest(b.index, len(self.versions))
        self.versions.append(ep)

    def on_event(self, ev: Event, pos: int) -> None:
        """Any ledger event other than a prompt, at ledger position ``pos``."""
        b = self.open or self.builder(pos)
        b.ledger_end = pos + 1
        a = ev.anchor
        if b.first is None:
            b.first = a
        b.last = a
        ts = ev.timestamp
        if ts:
            if b.start is None:
                b.start = ts
            b.end = ts
        k = ev.kind
        if k == "progress":  # the commonest event: only the stale check, no usage
            if ev.tool_use_id:
                owner = self.call_episode.get(ev.tool_use_id)
                if owner is not None and owner != b.index:
                    self._mark_stale(owner)
            return
        u = ev.usage
        if u is not None and ev.message_id:
            mu = b.msg_usage
            old = mu.get(ev.message_id)
            if old is None:
                mu[ev.message_id] = u
                b.msg_day[ev.message_id] = utc_day(ts)
            elif old != u:
                if u[0] >= old[0] and u[1] >= old[1] and u[2] >= old[2] and u[3] >= old[3] and u[4] >= old[4]:
                    mu[ev.message_id] = u  # the usual growth: the field-wise max is ``u`` itself
                else:
                    mu[ev.message_id] = (max(old[0], u[0]), max(old[1], u[1]), max(old[2], u[2]), max(old[3], u[3]), max(old[4], u[4]))
        if k == "assistant_text":
            if ev.excerpt:
                b.texts += 1
                b.conclusion = ev.excerpt
                b.conclusion_anchor = ev.anchor
                b.last_outcome = "text"
        elif k == "tool_result":
            tid = ev.tool_use_id or ""
            owner = self.call_episode.pop(tid, None)
            if owner is not None and owner != b.index and self.newest(owner) is not None:
                self._late_result(owner, ev, pos)
                return
            if ev.is_error:
                if tid:
                    if tid in self.counted_errors:
                        return  # the failed result again: counted where it came first
                    self.counted_errors.add(tid)
                b.tool_errors += 1
                b.last_outcome = "tool_error"
                b.last_error_id = tid
                if tid:
                    self.error_episode[tid] = b.index
                if len(b.errors) < ERRORS_KEPT:
                    b.errors.append(ErrorNote(ev.anchor, ev.name or "?", ev.excerpt, tid))
            else:
                b.last_outcome = "tool_ok"
        elif k == "api_error":
            b.api_errors += 1
            b.last_outcome = "api_error"
            if len(b.errors) < ERRORS_KEPT:
                b.errors.append(ErrorNote(ev.anchor, "API", ev.excerpt))
        elif k == "interrupt":
            b.interrupts += 1
            b.last_outcome = "interrupt"
        elif k == "compaction":
            b.compactions += 1

    def on_call(self, call: ToolCall, op: tuple[str, str] | None, description: str | None) -> None:
        """A new tool_use (deduplicated by id) with the file it touches and, for a subagent
        call, its description."""
        b = self.open or self.builder(0)
        b.tool_calls += 1
        b.tools[call.name] = b.tools.get(call.name, 0) + 1
        self.call_episode[call.id] = b.index
        if op is not None:
            path, kind = op
            ft = b.files.get(path)
            if ft is None:
                ft = b.files[path] = FileTouch(path, first=call.anchor)
            if kind == "read":
                ft.reads += 1
            elif kind == "write":
                ft.writes += 1
            else:
                ft.edits += 1
            ft.last = call.anchor
        if description is not None:
            b.subagents.append(SubagentStart(call.id, description, call.anchor))

    def known_message(self, message_id: str, before: tuple[int, int, int, int, int]) -> None:
        """The next record's API message ``message_id`` was counted by the session already,
        ``before`` its usage so far (the fold says so before the record's events, for a message
        not continuing the previous record's): the open episode counts only what its records add
        to ``before`` (``EpisodeBuilder.msg_base``). Nothing when the episode has seen the
        message itself (its earlier records are its own)."""
        b = self.open
        if b is not None and message_id not in b.msg_usage:
            b.msg_base[message_id] = before

    def on_model(self, message_id: str, model: str) -> None:
        b = self.open
        if b is not None and message_id not in b.msg_model:
            b.msg_model[message_id] = model

    def _late_result(self, index: int, ev: Event, pos: int) -> None:
        at = self._newest_of(index)  # where the episode's newest version is in ``versions``
        old = self.versions[at]
        tid = ev.tool_use_id or ""
        dangling = tuple(c for c in old.dangling if c.id != tid)
        errors = old.errors
        tool_errors = old.tool_errors
        if ev.is_error and not (tid and tid in self.counted_errors):  # a failed result counts once
            tool_errors += 1
            if tid:
                self.counted_errors.add(tid)
                self.error_episode[tid] = index
            if len(errors) < ERRORS_KEPT:
                errors = errors + (ErrorNote(ev.anchor, ev.name or "?", ev.excerpt, tid),)
        new = self._new_version(
            index, f"late tool_result for …{tid[-8:]}", ev.anchor, pos, dangling=dangling, tool_errors=tool_errors, errors=errors
        )
        self.versions[-1] = msgspec.structs.replace(new, status=_recomputed_status(new, len(dangling)))

    def _new_version(self, index: int, reason: str, anchor: Anchor, pos: int, **changes: Any) -> Episode:
        """Append the next version of episode ``index`` (its newest one with ``changes``, made at
        ledger position ``pos`` for ``reason``, seen at ``anchor``) and mark the old one
        superseded; returns the new version."""
        at = self._newest_of(index)
        old = self.versions[at]
        new = msgspec.structs.replace(
            old,
            version=old.version + 1,
            lifecycle="current",
            reason=reason,
            reason_anchor=anchor,
            superseded_by=None,
            made_at=pos,
            **changes,
        )
        self.versions[at] = msgspec.structs.replace(old, lifecycle="superseded", superseded_by=new.version)
        self._set_newest(index, len(self.versions))
        self.versions.append(new)
        return new

    def resolve(self, tool_use_id: str, anchor: Anchor, pos: int) -> bool:
        """A later call retried the failed call ``tool_use_id`` and succeeded, its result at
        ``anchor`` (ledger position ``pos``): mark the error resolved. In the open episode the
        note is updated in place; an earlier episode gets a new version (the old one is
        ``superseded``), ``unresolved`` becoming ``errors`` when it ended on this very error.
        ``False`` when the call is not a failed call still unresolved (idempotent)."""
        index = self.error_episode.pop(tool_use_id, None)
        if index is None:
            return False
        b = self.open
        if b is not None and b.index == index:
            b.resolved_errors += 1
            for i, e in enumerate(b.errors):
                if e.tool_use_id == tool_use_id:
                    b.errors[i] = msgspec.structs.replace(e, resolved_by=anchor)
                    break
            return True
        at = self.newest(index)
        if at is None:
            return False
        old = self.versions[at]
        errors = tuple(
            msgspec.structs.replace(e, resolved_by=anchor) if e.tool_use_id == tool_use_id and e.resolved_by is None else e
            for e in old.errors
        )
        status = old.status
        if status == "unresolved" and old.ended_on_error == tool_use_id:
            status = "errors"
        self._new_version(
            index,
            f"failed call …{tool_use_id[-8:]} resolved by a later successful retry",
            anchor,
            pos,
            status=status,
            errors=errors,
            resolved_errors=old.resolved_errors + 1,
        )
        return True

    def _mark_stale(self, index: int) -> None:
        pos = self.newest(index)
        if pos is None:
            return
        ep = self.versions[pos]
        if ep.lifecycle == "current":
            self.versions[pos] = msgspec.structs.replace(ep, lifecycle="suspected-stale")

    # -- output ------------------------------------------------------------------------------
    def snapshot(self, pending: list[ToolCall], latest_ask_text: str | None, latest_ask_anchor: Anchor | None) -> tuple[Episode, ...]:
        """Every version, in (index, version) order, with the open episode as ``in_progress`` (or
        ``interrupted`` when the user's interrupt is its last event)."""
        tail: tuple[Episode, ...] = ()
        b = self.open
        if b is not None and (b.index > 0 or b.tool_calls or b.texts):
            if b.ask_pending and latest_ask_text is not None and latest_ask_anchor == b.ask_anchor:
                b.ask = latest_ask_text[:ASK_CHARS]
                b.ask_pending = False
            mine = tuple(msgspec.structs.replace(c) for c in pending if self.call_episode.get(c.id) == b.index)
            # an episode whose last event is the user's interrupt waits for the next prompt: it
            # is interrupted already, as the same episode is once that prompt closes it
            status = "interrupted" if b.last_outcome == "interrupt" else "in_progress"
            if self.turn_done and status == "in_progress":
                status = b.closing_status(len(mine))
            tail = (b.freeze(1, status, mine),)
        ordered = getattr(self.versions, "ordered", None)
        if ordered is not None:  # versions kept elsewhere (the session store): read when asked for
            return ordered(tail)
        return (*sorted(self.versions, key=lambda e: (e.index, e.version)), *tail)

    def fill_ask(self, text: str, anchor: Anchor) -> None:
        """Give the open episode its whole ask (the event only carries an excerpt)."""
        b = self.open
        if b is not None and b.ask_pending and b.ask_anchor == anchor:
            b.ask = text[:ASK_CHARS]
            b.ask_pending = False
