"""The fold: records of one transcript file become ledger events and an :class:`AgentState`.

:class:`FileFold` is the single writer for one file. It is pure and deterministic: it reads no
clock and does no I/O; lines are handed to it by the ingest layer. Feeding the same bytes in any
chunking gives the same events and the same state, because it only ever sees whole lines in file
order. Its record handlers are in ``fold_messages`` and its tool handlers in ``fold_tools``
(mixins); token usage per message is ``usage.UsageBook``. ``session_fold.SessionFold`` combines
the folds of a main transcript and its subagents into a :class:`RunState`, deduplicating tokens
per API message id across files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import msgspec

from tracetui.ingest.decode import (
    KNOWN_RECORD_TYPES,
    Quarantined,
    Record,
    bom_length,
    decode_head,
    decode_line,
    decode_record_fast,
    excerpt_of,
)
from tracetui.ingest.prompts import classify_user_text
from tracetui.model.derive import Deriver
from tracetui.model.fold_messages import EXCERPT_CHARS, FRONTIER_CHARS, SYNTHETIC_MODEL, MessageHandlers, _intern
from tracetui.model.fold_snapshot import SnapshotMixin
from tracetui.model.fold_tools import EARLY_KEPT, EARLY_TEXT, ToolHandlers
from tracetui.model.pricing import is_timestamp
from tracetui.model.state import (
    AgentState,
    Anchor,
    Counters,
    Event,
    FileTouch,
    Frontier,
    PromptInfo,
    QuarantineEntry,
    SubagentLink,
    Todo,
    ToolCall,
    UnknownEntry,
)
from tracetui.model.timestamps import later
from tracetui.model.usage import UsageBook

__all__ = ["UsageBook", "FileFold", "SYNTHETIC_MODEL", "EXCERPT_CHARS", "FRONTIER_CHARS", "EARLY_KEPT", "EARLY_TEXT"]

#: at most this many quarantine and unknown entries are kept per file (all are counted)
MAX_SAMPLES = 200
_sha = hashlib.sha256
_BLANK = frozenset(b" \t\r\n\x0b\x0c")


class FileFold(MessageHandlers, ToolHandlers, SnapshotMixin):
    """Folds the records of one transcript file, in file order, into events and state.

    Feed it with :meth:`feed_line` (one complete line: number, byte offset, bytes) or
    :meth:`feed_record` (an already-decoded record). :meth:`snapshot` returns a frozen
    :class:`AgentState`. ``on_usage(key, model, usage, day)`` is called for every assistant record
    whose usage changes this file's book (``day``: the message's UTC day in this file), so a
    :class:`SessionFold` can dedupe tokens across files.

    ``events`` and ``history`` are the sinks the fold appends its ledger events and its
    per-prompt :class:`AgentState` snapshots to: lists by default (the pure API and tests), or
    any object with ``append`` and ``len`` (the session store writes them to SQLite, so memory
    stays the state's, not the ledger's). The fold only appends to them and takes their length.
    A ledger that can find a closed tool call again (``find_call(tid, before)`` and
    ``find_lag``, the session store's) lets the fold drop closed calls from :attr:`calls`
    (``fold_tools``); with a list every call stays.
    """

    def __init__(
        self,
        src: int = 0,
        agent_id: str | None = None,
        on_usage: Callable[[str, str, tuple[int, int, int, int, int], str], None] | None = None,
        events: Any = None,
        history: Any = None,
    ) -> None:
        self.src = src
        self.agent_id = agent_id
        self.on_usage = on_usage
        self.events: list[Event] = [] if events is None else events
        self.counters = Counters()
        self.tools_by_name: dict[str, int] = {}
        self.usage = UsageBook()
        self.models: dict[str, int] = {}
        self.calls: dict[str, ToolCall] = {}
        self.pending: dict[str, ToolCall] = {}
        self._call_inputs: dict[str, Any] = {}  # inputs kept only until the result, for todos
        self.files: dict[str, FileTouch] = {}
        self.todos: dict[str, Todo] = {}
        self.goal: PromptInfo | None = None
        self.latest_ask: PromptInfo | None = None
        self.last_action: Frontier | None = None
        self.subagents: dict[str, SubagentLink] = {}
        self.compactions: list[Anchor] = []
        self.quarantine: list[QuarantineEntry] = []
        self.unknown: list[UnknownEntry] = []
        self.prompts = 0
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.version: str | None = None
        self.git_branch: str | None = None
        self.title: str | None = None
        self.first_timestamp: str | None = None
        self.last_timestamp: str | None = None
        #: the latest of the records' timestamps (a queued prompt's can be older than the
        #: record before it): what quiet time is measured from
        self.newest_timestamp: str | None = None
        self.last_anchor: Anchor | None = None
        self.sidechain_file: bool | None = None  # decided by the first user/assistant record
        self.pr_links: list[str] = []
        self.history: list[AgentState] = [] if history is None else history
        #: derived state (episodes, facts, anomalies) fed with every event; see model/derive.py
        self.derive: Any = Deriver()
        self._seq = 0
        #: the previous record's uuid and API message key: a record's parentUuid and a message's
        #: later records then share these strings instead of holding copies (memory per event)
        self._prev_uuid: str | None = None
        self._prev_key: str | None = None
        #: the previous snapshot, whose unchanged tuples the next one reuses (structural sharing)
        self._last_snapshot: AgentState | None = None
        self._tool_error_ids: set[str] = set()
        #: inline sidechains (records with isSidechain in a main file): a Task/Agent call's prompt
        #: → its tool_use id, each sidechain record's uuid → the call it belongs to, and the
        #: owner of the record being folded (see ``_inline``)
        self._task_prompts: dict[str, str] = {}
        self._side_owner: dict[str, str] = {}
        self._cur_owner: str | None = None
        #: tool_results read before their tool_use: id → (anchor, is_error, excerpt, text,
        #: toolUseResult bytes or None); see ``_keep_early``
        self._early_results: dict[str, tuple[Anchor, bool, str, str, bytes | None]] = {}
        self.malformed = 0

    # -- input ------------------------------------------------------------------------------
    def feed_line(self, line_no: int, offset: int, buf: bytes | memoryview) -> None:
        """Fold one complete line (without its newline). Blank lines are ignored. A UTF-8 byte
        order mark at the start of the file (offset 0; some editors write one) is not part of
        the first record: the record is anchored after it."""
        if offset == 0 and bom_length(0, buf):
            buf = buf[3:]
            offset = 3
        if not buf:
            return
        first = buf[0]
        if first == 123 and buf[-1] == 125:  # b"{", b"}": the common line, decoded in one call
            try:
                rec = decode_record_fast(buf)
            except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                pass  # the general path below says what is wrong
            else:
                self.feed_record(rec, Anchor(self.src, line_no, offset), buf)
                return
        elif first in _BLANK and not bytes(buf).strip():
            return
        for rel, item, payload in decode_line(buf):
            anchor = Anchor(self.src, line_no, offset + rel)
            if isinstance(item, Quarantined):
                self.add_quarantine(anchor, item.reason, item.excerpt)
            else:
                self.feed_record(item, anchor, payload)

    def add_quarantine(self, anchor: Anchor, reason: str, excerpt: str) -> None:
        """Count a malformed line (or part of one) and keep a sample of it."""
        self.counters.malformed += 1
        self.malformed += 1
        if len(self.quarantine) < MAX_SAMPLES:
            self.quarantine.append(QuarantineEntry(anchor, reason, excerpt))
        self.last_anchor = anchor

    def _unknown(self, anchor: Anchor, type_: str, reason: str) -> None:
        if len(self.unknown) < MAX_SAMPLES:
            self.unknown.append(UnknownEntry(anchor, type_, reason))

    def _bad_time(self, rec: Any, anchor: Anchor, type_: str) -> None:
        """A record whose timestamp is a text that is no time (``is_timestamp``): counted as a
        shape error and left out, so that it is never a first or last time, an episode's start
        or end, nor an age."""
        self._shape(anchor, type_, "timestamp: not a time, left out")
        rec.timestamp = None

    def _shape(self, anchor: Anchor, type_: str, reason: str) -> None:
        """Count a record or block kept with a field of another type left out; listed with the
        unknown entries (``shape: <why>``), not counted as unknown."""
        self.counters.shape_errors += 1
        if len(self.unknown) < MAX_SAMPLES:
            self.unknown.append(UnknownEntry(anchor, type_, "shape: " + reason.split("\n")[0]))

    def _event(
        self,
        kind: str,
        anchor: Anchor,
        rec: Record,
        block: int,
        payload: Any,
        excerpt: str,
        status: str = "ok",
        name: str | None = None,
        tool_use_id: str | None = None,
        message_id: str | None = None,
        is_error: bool = False,
        usage: tuple[int, int, int, int, int] | None = None,
    ) -> Event:
        seq = self._seq = self._seq + 1
        ev = Event(
            seq,
            kind,
            anchor,
            rec.uuid,
            block,
            _sha(payload).digest(),
            excerpt,
            status,
            name,
            tool_use_id,
            message_id,
            rec.parentUuid,
            rec.timestamp,
            is_error,
            rec.isSidechain is True,
            usage,
        )
        self.events.append(ev)
        derive = self.derive
        if derive is not None:
            derive.on_event(self, ev)
        return ev

    def feed_record(self, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
        """Fold one decoded record found at ``anchor`` (``payload``: its JSON bytes)."""
        c = self.counters
        c.records += 1
        self.last_anchor = anchor
        t = rec.type
        pu = rec.parentUuid
        if pu is not None and pu == self._prev_uuid:
            rec.parentUuid = self._prev_uuid
        if rec.uuid is not None:
            self._prev_uuid = rec.uuid
        self._cur_owner = None
        if rec.isSidechain:
            c.sidechain_records += 1
            if not self.sidechain_file and pu is not None and self.sidechain_file is not None:
                owner = self._side_owner.get(pu)
                if owner is not None:
                    self._inline(owner, rec, anchor)
        ts = rec.timestamp
        if ts:
            nt = self.newest_timestamp
            n = len(ts)
            if nt is not None and n == len(nt) and n >= 20 and ts[-1] == "Z" == nt[-1] and ts[10] == "T" and ts[4] == "-" and ts[7] == "-":
                # the usual stamp after another of its shape (``pricing.is_timestamp``, then
                # ``timestamps.later`` compare as text): what the general path below does
                self.last_timestamp = ts
                if ts > nt:
                    self.newest_timestamp = ts
            elif is_timestamp(ts):
                if self.first_timestamp is None:
                    self.first_timestamp = ts
                self.last_timestamp = ts
                if later(ts, self.newest_timestamp):
                    self.newest_timestamp = ts
            else:
                self._bad_time(rec, anchor, str(t))
        if self.session_id is None and rec.sessionId:
            self.session_id = rec.sessionId
        v = rec.cwd
        if v:
            self.cwd = v
        v = rec.version
        if v:
            self.version = v
        v = rec.gitBranch
        if v is not None and v != "":
            self.git_branch = v
        if self.agent_id is None and self.src != 0 and rec.agentId:
            self.agent_id = rec.agentId
        if rec.shape_error is not None:
            self._shape(anchor, str(t), rec.shape_error)
        if t not in KNOWN_RECORD_TYPES or rec.schema_error:
            c.unknown_records += 1
            reason = rec.schema_error.split("\n")[0] if rec.schema_error else "unknown record type"
            self._unknown(anchor, str(t), reason)
            self._event("unknown_record", anchor, rec, 0, payload, excerpt_of(f"{t}: {reason}"), "unknown", name=str(t))
            return
        if t == "assistant":
            self._assistant(rec, anchor, payload)
        elif t == "user":
            self._user(rec, anchor, payload)
        elif t == "system":
            self._system(rec, anchor, payload)
        elif t == "progress":
            self._progress(rec, anchor, payload)
        elif t == "attachment":
            sub, _ = decode_head(rec.attachment)
            if isinstance(sub, str):
                sub = _intern(sub)
            self._event("attachment", anchor, rec, 0, payload, str(sub or "attachment"), name=sub)
        else:
            self._metadata(rec, anchor, payload)

    # -- records ----------------------------------------------------------------------------
    def _is_main_thread(self, rec: Record) -> bool:
        if self.sidechain_file is None:
            self.sidechain_file = bool(rec.isSidechain)
        return self.sidechain_file or not rec.isSidechain

    def _user_text(self, rec: Record, anchor: Anchor, i: int, raw: Any, text: str, main: bool) -> None:
        if rec.isSidechain and not main and rec.parentUuid is None and i == 0 and text in self._task_prompts and self._cur_owner is None:
            # the first record of an inline sidechain: its prompt is the Task call's, verbatim
            self._inline(self._task_prompts[text], rec, anchor)
        if rec.isMeta:
            self._event("user_text", anchor, rec, i, raw, excerpt_of(text, EXCERPT_CHARS), name="meta")
            return
        kind, norm, form = classify_user_text(text)
        if kind == "interrupt" and main:
            self.counters.interrupts += 1
            self._event("interrupt", anchor, rec, i, raw, excerpt_of(norm, EXCERPT_CHARS))
            return
        if kind == "prompt" and main:
            if self.goal is not None:
                # the episode of the previous prompt is complete: keep its state for scrubbing
                snap = self.snapshot(history=True)
                # the state as of the end of the previous episode: this prompt's record, which
                # opens the next one, was counted already (views said records L+1 through line L)
                c = msgspec.structs.replace(
                    snap.counters,
                    records=snap.counters.records - 1,
                    sidechain_records=snap.counters.sidechain_records - bool(rec.isSidechain),
                )
                self.history.append(msgspec.structs.replace(snap, counters=c))
            self.counters.user_prompts += 1
            self.prompts += 1
            self._prev_key = None  # a message met after a prompt continues no record of the last episode
            self._event("prompt", anchor, rec, i, raw, excerpt_of(norm, EXCERPT_CHARS), name=form)
            info = PromptInfo(norm, anchor, form, rec.uuid, rec.timestamp, self._seq)
            if self.goal is None:
                self.goal = info
            self.latest_ask = info
            self.last_action = Frontier("prompt", excerpt_of(norm, FRONTIER_CHARS), anchor, timestamp=rec.timestamp)
            return
        self._event("user_text", anchor, rec, i, raw, excerpt_of(norm, EXCERPT_CHARS), name=kind)

    # -- persistent state (tracetui/session/store) ---------------------------------------------
    #: attributes :meth:`to_cache` leaves out: callbacks (re-attached by the owner on restore),
    #: memos that only save work or memory (``_last_snapshot``: the snapshot the next one
    #: shares unchanged tuples with, or is when nothing was folded since (``_snap_at``); after
    #: a restore the next snapshot builds them afresh), and
    #: the ledger and history sinks (the store keeps their rows; the owner re-attaches them)
    CACHE_SKIP = ("on_usage", "_last_snapshot", "_snap_at", "events", "history")

    def to_cache(self) -> dict[str, Any]:
        """Every attribute of this fold except :data:`CACHE_SKIP`, by name (shared, not copied).

        The fold cache encodes the values by their runtime types, so an attribute added later is
        saved without a change here; one it cannot encode makes the save fail loudly (tests).
        """
        names = list(getattr(self, "__dict__", {}))
        for cls in type(self).__mro__:
            names.extend(s for s in getattr(cls, "__slots__", ()) if s not in names and hasattr(self, s))
        return {k: getattr(self, k) for k in names if k not in self.CACHE_SKIP and not k.startswith("__")}

    @classmethod
    def from_cache(
        cls, attrs: dict[str, Any], on_usage: Callable[[str, str, tuple[int, int, int, int, int], str], None] | None = None
    ) -> "FileFold":
        """A fold restored from :meth:`to_cache` output. Raises ``ValueError`` when ``attrs`` do
        not name exactly this class's attributes (the cache was written by another schema)."""
        f = cls(attrs.get("src", 0), attrs.get("agent_id"), on_usage)
        have = set(f.to_cache())
        if set(attrs) != have:
            diff = sorted(set(attrs) ^ have)
            raise ValueError(f"cached FileFold attributes differ from this version's: {', '.join(diff)}")
        for k, v in attrs.items():
            setattr(f, k, v)
        return f
