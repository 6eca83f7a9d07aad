"""The fold: records of one transcript file become ledger events and an :class:`AgentState`.

:class:`FileFold` is the single writer for one file. It is pure and deterministic: it reads no
clock and does no I/O; lines are handed to it by the ingest layer. Feeding the same bytes in any
chunking gives the same events and the same state, because it only ever sees whole lines in file
order. :class:`SessionFold` combines the folds of a main transcript and its subagents into a
:class:`RunState`, deduplicating tokens per API message id across files.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from tracetui.ingest.decode import (
    KNOWN_BLOCK_TYPES,
    KNOWN_RECORD_TYPES,
    MAX_TOKENS,
    Block,
    Quarantined,
    Record,
    bom_length,
    decode_any,
    decode_block,
    decode_head,
    decode_line,
    decode_message,
    decode_record_fast,
    excerpt_of,
    result_excerpt,
    result_text,
)
from tracetui.ingest.prompts import classify_user_text
from tracetui.ingest.tools import SUBAGENT_TOOLS, brief_input, file_ops
from tracetui.model.derive import Deriver
from tracetui.model.pricing import bucket_key, buckets_of, estimate_cost, utc_day
from tracetui.model.state import (
    AgentState,
    Anchor,
    Counters,
    Event,
    FileTouch,
    Frontier,
    PromptInfo,
    QuarantineEntry,
    RunState,
    SourceStatus,
    SubagentLink,
    Todo,
    Tokens,
    ToolCall,
    UnknownEntry,
    UsageBucket,
)
from tracetui.model.state import share as _share

__all__ = ["UsageBook", "FileFold", "SessionFold", "fold", "fold_bytes", "SYNTHETIC_MODEL", "EXCERPT_CHARS"]

#: the model name Claude Code gives records it wrote itself (API errors, "No response requested.")
SYNTHETIC_MODEL = "<synthetic>"
#: characters of payload kept inline in an event; the rest stays in the file
EXCERPT_CHARS = 100
#: characters of the frontier's text (what the agent said or was asked last): one per state, so
#: longer than an event's excerpt, for a Now pane that has the room
FRONTIER_CHARS = 400
#: at most this many quarantine and unknown entries are kept per file (all are counted)
MAX_SAMPLES = 200
#: tool_results read before their tool_use kept at most (per file), and the characters of one
#: such result's text kept (head and tail); see ``FileFold._keep_early``
EARLY_KEPT = 256
EARLY_TEXT = 16384

_sha = hashlib.sha256
#: names repeated on many events (tool names, subtypes) are kept once
_intern = sys.intern
_BLANK = frozenset(b" \t\r\n\x0b\x0c")
_META_TYPES = frozenset(KNOWN_RECORD_TYPES - {"user", "assistant", "system", "progress", "attachment"})


def _bounded(v: Any) -> Any:
    """``v`` (a decoded JSON value) with every int outside the signed 64-bit range written as
    its decimal string (the same digits, which the fold only ever reads as text: todo and task
    ids), so a kept tool input saves to the fold cache (msgpack holds -2**63..2**64-1)."""
    if type(v) is int:
        return v if -(1 << 63) <= v < 1 << 63 else str(v)
    if isinstance(v, dict):
        return {k: _bounded(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_bounded(x) for x in v]
    return v


class UsageBook:
    """Token usage per API message id: the max of each field over the message's records, summed.

    Claude Code writes one record per content block and repeats the usage on each, with
    ``output_tokens`` growing (transcript-format.md §7). Max is commutative, so the totals do not
    depend on the order records arrive in, nor on which file they come from.

    A usage is ``(input, output, cache_creation, cache_read, cache_write_1h)`` tokens; the last
    is the part of ``cache_creation`` written to the 1-hour cache (``usage.cache_creation.
    ephemeral_1h_input_tokens``), priced higher than the rest. Displayed totals (``tokens``)
    hold the first four.

    For pricing (model/pricing.py) the book also keeps, per bucket (model, UTC day, tier band),
    the message count and tokens (``buckets``: ``"day|band|model"`` → ``[messages, input,
    output, cache_creation, cache_read, cache_write_1h]``). A message's day is the one given when its id is first
    added; a later add with an earlier day moves it there (``""``, no day, is later than any day),
    so a session's book, fed by several files in any interleaving, keeps the earliest of the
    files' days. A message whose tokens cross a tier bound moves to the new band.
    """

    __slots__ = ("by_id", "model_of", "totals", "by_model", "buckets", "bucket_of")

    def __init__(self) -> None:
        self.by_id: dict[str, tuple[int, int, int, int, int]] = {}
        self.model_of: dict[str, str] = {}
        self.totals = [0, 0, 0, 0]
        self.by_model: dict[str, list[int]] = {}
        self.buckets: dict[str, list[int]] = {}
        #: message id -> its key in ``buckets`` (``"day|band|model"``: the message's day is its
        #: prefix; keys are interned, so a message costs its dict entries only)
        self.bucket_of: dict[str, str] = {}

    def _bucket(self, key: str, u: tuple[int, int, int, int, int], sign: int, messages: int) -> None:
        b = self.buckets.get(key)
        if b is None:
            b = self.buckets[key] = [0, 0, 0, 0, 0, 0]
        b[0] += messages
        b[1] += sign * u[0]
        b[2] += sign * u[1]
        b[3] += sign * u[2]
        b[4] += sign * u[3]
        b[5] += sign * u[4]

    def add(self, key: str, model: str, u: tuple[int, int, int, int, int], day: str = "") -> None:
        """Fold one record's usage ``u`` (input, output, cache creation, cache read, 1-hour cache
        write tokens) of message ``key`` by ``model`` on UTC ``day`` (``YYYY-MM-DD``, ``""`` when
        unknown)."""
        old = self.by_id.get(key)
        if old is None:
            new = d = u
            self.model_of[key] = model
            bk = self.bucket_of[key] = bucket_key(model, day, u)
            self._bucket(bk, u, 1, 1)
        else:
            k0 = k1 = self.bucket_of[key]
            if day:
                d0 = k0.partition("|")[0]
                earlier = not d0 or day < d0
            else:  # no day given (the fold's later records of a message): it cannot move earlier
                earlier = False
            if old == u and not earlier:
                return  # the usage repeated on the next record of the same message
            new = (max(old[0], u[0]), max(old[1], u[1]), max(old[2], u[2]), max(old[3], u[3]), max(old[4], u[4]))
            if new == old and not earlier:
                return
            model = self.model_of[key]
            d = (new[0] - old[0], new[1] - old[1], new[2] - old[2], new[3] - old[3], new[4] - old[4])
            if earlier:
                k1 = self.bucket_of[key] = bucket_key(model, day, new)
            elif new[0] != old[0] or new[2] != old[2] or new[3] != old[3]:  # input grew: the band may change
                k1 = self.bucket_of[key] = bucket_key(model, k0.partition("|")[0], new)
            if k0 == k1:
                self._bucket(k0, d, 1, 0)
            else:
                self._bucket(k0, old, -1, -1)
                self._bucket(k1, new, 1, 1)
            if new == old:
                return  # only the day moved
        self.by_id[key] = new
        t = self.totals
        t[0] += d[0]
        t[1] += d[1]
        t[2] += d[2]
        t[3] += d[3]
        m = self.by_model.get(model)
        if m is None:
            m = self.by_model[model] = [0, 0, 0, 0]
        m[0] += d[0]
        m[1] += d[1]
        m[2] += d[2]
        m[3] += d[3]

    def day_of(self, key: str) -> str:
        """The UTC day (``YYYY-MM-DD``, ``""`` when unknown) message ``key`` is priced at."""
        return self.bucket_of[key].partition("|")[0]

    def tokens(self) -> Tokens:
        return Tokens(*self.totals)

    def tokens_by_model(self) -> dict[str, Tokens]:
        return {k: Tokens(*v) for k, v in sorted(self.by_model.items())}

    def usage_buckets(self) -> tuple[UsageBucket, ...]:
        """The buckets priced by :func:`tracetui.model.pricing.estimate_cost`, ordered."""
        return buckets_of(self.buckets)

    def __len__(self) -> int:
        return len(self.by_id)


class FileFold:
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
        self.unknown_count = 0

    # -- input ------------------------------------------------------------------------------
    def feed_line(self, line_no: int, offset: int, buf: bytes | memoryview) -> None:
        """Fold one complete line (without its newline). Blank lines are ignored. A UTF-8 byte
        order mark at the start of the file (offset 0; some editors write one) is not part of
        the first record: the record is anchored after it."""
        if offset == 0 and bom_length(0, buf):
            buf = buf[3:]
            offset = 3
        if not buf or buf[0] in _BLANK and not bytes(buf).strip():
            return
        if buf[0] == 123 and buf[-1] == 125:  # b"{", b"}": the common line, decoded in one call
            try:
                rec = decode_record_fast(buf)
            except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                pass  # the general path below says what is wrong
            else:
                self.feed_record(rec, Anchor(self.src, line_no, offset), buf)
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
        self.unknown_count += 1
        if len(self.unknown) < MAX_SAMPLES:
            self.unknown.append(UnknownEntry(anchor, type_, reason))

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
        self._seq += 1
        ev = Event(
            self._seq,
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
            bool(rec.isSidechain),
            usage,
        )
        self.events.append(ev)
        if self.derive is not None:
            self.derive.on_event(self, ev)
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
        if rec.timestamp:
            if self.first_timestamp is None:
                self.first_timestamp = rec.timestamp
            self.last_timestamp = rec.timestamp
        if rec.sessionId and self.session_id is None:
            self.session_id = rec.sessionId
        if rec.cwd:
            self.cwd = rec.cwd
        if rec.version:
            self.version = rec.version
        if rec.gitBranch is not None and rec.gitBranch != "":
            self.git_branch = rec.gitBranch
        if rec.agentId and self.agent_id is None and self.src != 0:
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

    def _assistant(self, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
        main = self._is_main_thread(rec)
        msg = decode_message(rec.message)
        if msg is None:
            self.counters.unknown_records += 1
            self._unknown(anchor, "assistant", "message missing or of unexpected shape")
            self._event("unknown_record", anchor, rec, 0, payload, "assistant without message", "unknown", name="assistant")
            return
        model = _intern(msg.model) if msg.model else "unknown"
        key = msg.id or rec.requestId or rec.uuid or f"{anchor.src}:{anchor.offset}"
        if key == self._prev_key:
            key = self._prev_key
        else:
            self._prev_key = key
        u: tuple[int, int, int, int, int] | None = None
        if msg.usage_error is not None:
            # a token count outside 0..MAX_TOKENS (or of another type): the record's usage is
            # not counted, the record is (its content below); the reason is kept
            self.counters.unknown_records += 1
            self.counters.usage_rejected += 1
            self._unknown(anchor, "assistant", f"usage rejected: {msg.usage_error}")
        if msg.usage is not None and model != SYNTHETIC_MODEL:
            us = msg.usage
            cw = us.cache_creation_input_tokens
            h1 = us.cache_creation.ephemeral_1h_input_tokens if us.cache_creation is not None else 0
            # the 1-hour part of the cache writes (priced higher); never more than their total
            u = (us.input_tokens, us.output_tokens, cw, us.cache_read_input_tokens, h1 if h1 <= cw else cw)
            old = self.usage.by_id.get(key)
            # every model seen with usage is a model used, even on a reused message id
            models = self.models
            models[model] = models.get(model, 0) + (old is None)
            if old == u:
                # the usage repeated on the message's next record: its events share the tuple,
                # and neither book changes (the session's holds the max over files, so at least
                # this file's value already)
                u = old
            else:
                # a message's day is its first record's with usage in this file (pricing.py)
                self.usage.add(key, model, u, utc_day(rec.timestamp) if old is None else "")
                self.counters.api_messages = len(self.usage)
                if self.on_usage is not None:
                    self.on_usage(key, model, u, self.usage.day_of(key))
        if rec.isApiErrorMessage:
            self.counters.api_errors += 1
            text = ""
            if isinstance(msg.content, list) and msg.content:
                b = decode_block(msg.content[0])
                text = b.text or ""
            elif isinstance(msg.content, str):
                text = msg.content
            self._event("api_error", anchor, rec, 0, payload, excerpt_of(text or "API error", EXCERPT_CHARS), message_id=key, is_error=True)
            return
        content = msg.content
        if isinstance(content, str):
            self._event("assistant_text", anchor, rec, 0, payload, excerpt_of(content, EXCERPT_CHARS), message_id=key, usage=u)
            if main and content and not content.isspace():
                self.last_action = Frontier("text", excerpt_of(content, FRONTIER_CHARS), anchor, timestamp=rec.timestamp)
            return
        if not content:
            self._event("assistant_text", anchor, rec, 0, payload, "", message_id=key, usage=u)
            return
        for i, raw in enumerate(content):
            b = decode_block(raw)
            if b.shape_error is not None:
                self._shape(anchor, f"block:{b.type}", b.shape_error)
            bt = b.type
            if bt == "tool_use" and not b.schema_error and b.id:
                self._tool_use(rec, anchor, i, raw, b, key, u, main)
            elif bt == "text" and not b.schema_error:
                text = b.text or ""
                exc = excerpt_of(text, EXCERPT_CHARS)
                self._event("assistant_text", anchor, rec, i, raw, exc, message_id=key, usage=u)
                if main and text and not text.isspace():
                    self.last_action = Frontier(
                        "text", excerpt_of(text, FRONTIER_CHARS) if len(text) > EXCERPT_CHARS else exc, anchor, timestamp=rec.timestamp
                    )
            elif bt in ("thinking", "redacted_thinking") and not b.schema_error:
                self._event("thinking", anchor, rec, i, raw, "thinking", message_id=key, usage=u)
            else:
                self._unknown_block(rec, anchor, i, raw, b)

    def _unknown_block(self, rec: Record, anchor: Anchor, i: int, raw: Any, b: Block) -> None:
        known = b.type in KNOWN_BLOCK_TYPES and not b.schema_error
        if known:  # a known type in an unexpected place (e.g. an image from the assistant)
            self._event(b.type if b.type == "image" else "unknown_block", anchor, rec, i, raw, b.type, name=b.type)
            return
        self.counters.unknown_blocks += 1
        reason = (b.schema_error or "unknown block type").split("\n")[0]
        self._unknown(anchor, f"block:{b.type}", reason)
        self._event("unknown_block", anchor, rec, i, raw, excerpt_of(f"{b.type}: {reason}"), "unknown", name=b.type)

    def _tool_use(self, rec: Record, anchor: Anchor, i: int, raw: Any, b: Block, key: str, u: Any, main: bool) -> None:
        name = _intern(b.name) if b.name else "?"
        tid = b.id or ""
        inp = decode_any(b.input)
        brief = brief_input(name, inp)
        self._event(
            "tool_use",
            anchor,
            rec,
            i,
            raw,
            excerpt_of(f"{name}({brief})", EXCERPT_CHARS),
            name=name,
            tool_use_id=tid,
            message_id=key,
            usage=u,
        )
        if tid in self.calls:
            return  # the same tool_use read twice is one call
        call = ToolCall(tid, name, brief, anchor, self._seq, rec.timestamp, bool(rec.isSidechain))
        self.calls[tid] = call
        self.pending[tid] = call
        self.counters.tool_calls += 1
        self.tools_by_name[name] = self.tools_by_name.get(name, 0) + 1
        op = file_ops(name, inp)
        if op is not None:
            path, kind = op
            # leaves are replaced, never mutated: snapshots share them without copying
            ft = self.files.get(path)
            if ft is None:
                ft = FileTouch(path, first=anchor)
            r, w, e = ft.reads, ft.writes, ft.edits
            if kind == "read":
                r += 1
            elif kind == "write":
                w += 1
            else:
                e += 1
            self.files[path] = FileTouch(path, r, w, e, ft.first, anchor)
        if name in ("TodoWrite", "TaskCreate", "TaskUpdate"):
            inp = _bounded(inp)  # kept until its result, and cached: no int msgpack cannot hold
            self._call_inputs[tid] = inp
        if self.derive is not None:
            self.derive.on_call(self, call, inp, op)
        if name in SUBAGENT_TOOLS and isinstance(inp, dict):
            desc = inp.get("description") or excerpt_of(str(inp.get("prompt", "")), 60)
            st = inp.get("subagent_type")
            self.subagents[tid] = SubagentLink(tid, name, str(desc), st if isinstance(st, str) else None, anchor)
            prompt = inp.get("prompt")
            if isinstance(prompt, str) and prompt and not rec.isSidechain:
                self._task_prompts.setdefault(prompt, tid)
        if self._cur_owner is not None:
            link = self.subagents.get(self._cur_owner)
            if link is not None:
                self.subagents[self._cur_owner] = msgspec.structs.replace(link, inline_tool_calls=link.inline_tool_calls + 1)
        if main:
            self.last_action = Frontier("tool_use", f"{name}({brief})", anchor, tool=name, tool_use_id=tid, timestamp=rec.timestamp)
        early = self._early_results.pop(tid, None) if self._early_results else None
        if early is not None:  # its result was read first: the call is answered already
            self._pair(call, *early)

    def _user(self, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
        main = self._is_main_thread(rec)
        msg = decode_message(rec.message)
        if msg is None:
            self.counters.unknown_records += 1
            self._unknown(anchor, "user", "message missing or of unexpected shape")
            self._event("unknown_record", anchor, rec, 0, payload, "user without message", "unknown", name="user")
            return
        content = msg.content
        if rec.isCompactSummary:
            text = content if isinstance(content, str) else ""
            self._event("compact_summary", anchor, rec, 0, payload, excerpt_of(text or "compaction summary", EXCERPT_CHARS))
            return
        if isinstance(content, str) or content is None:
            self._user_text(rec, anchor, 0, payload, content or "", main)
            return
        blocks = [decode_block(raw) for raw in content]
        for b in blocks:
            if b.shape_error is not None:
                self._shape(anchor, f"block:{b.type}", b.shape_error)
        has_result = any(b.type == "tool_result" for b in blocks)
        # the prompt rule is per record (issue 2 §5): a record with several text blocks is one
        # prompt (or interrupt) whose text is its text blocks joined; the first block carries it
        texts = [i for i, b in enumerate(blocks) if b.type == "text" and not b.schema_error]
        joined = "\n".join(blocks[i].text or "" for i in texts) if len(texts) > 1 and not has_result else None
        for i, (raw, b) in enumerate(zip(content, blocks)):
            bt = b.type
            if bt == "tool_result" and not b.schema_error:
                self._tool_result(rec, anchor, i, raw, b, main)
            elif bt == "text" and not b.schema_error:
                if has_result:
                    self._event("user_text", anchor, rec, i, raw, excerpt_of(b.text or "", EXCERPT_CHARS))
                elif joined is None:
                    self._user_text(rec, anchor, i, raw, b.text or "", main)
                elif i == texts[0]:
                    self._user_text(rec, anchor, i, raw, joined, main)
                else:
                    self._event("user_text", anchor, rec, i, raw, excerpt_of(b.text or "", EXCERPT_CHARS), name="part")
            elif bt == "image" and not b.schema_error:
                self._event("image", anchor, rec, i, raw, "[image]", name="image")
            else:
                self._unknown_block(rec, anchor, i, raw, b)

    def _inline(self, owner: str, rec: Record, anchor: Anchor) -> None:
        """Count ``rec`` (a sidechain record of this main file) as the inline subagent of call
        ``owner``, and pass ownership on to the records that name it as their parent."""
        link = self.subagents.get(owner)
        if link is None:
            return
        if rec.uuid is not None:
            self._side_owner[rec.uuid] = owner
        self._cur_owner = owner
        self.subagents[owner] = msgspec.structs.replace(
            link, inline_records=link.inline_records + 1, inline_first=link.inline_first or anchor, inline_last=anchor
        )

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
            self._event("prompt", anchor, rec, i, raw, excerpt_of(norm, EXCERPT_CHARS), name=form)
            info = PromptInfo(norm, anchor, form, rec.uuid, rec.timestamp, self._seq)
            if self.goal is None:
                self.goal = info
            self.latest_ask = info
            self.last_action = Frontier("prompt", excerpt_of(norm, FRONTIER_CHARS), anchor, timestamp=rec.timestamp)
            return
        self._event("user_text", anchor, rec, i, raw, excerpt_of(norm, EXCERPT_CHARS), name=kind)

    def _tool_result(self, rec: Record, anchor: Anchor, i: int, raw: Any, b: Block, main: bool) -> None:
        tid = b.tool_use_id or ""
        is_error = bool(b.is_error)
        content = b.content  # raw: its whole text is decoded only where a rule reads it
        call = self.calls.get(tid)
        if call is not None:
            tid = call.id  # the call's own string, not a copy per result (memory)
        name = call.name if call is not None else None
        exc = result_excerpt(content, EXCERPT_CHARS)
        self._event("tool_result", anchor, rec, i, raw, exc, name=name, tool_use_id=tid, is_error=is_error)
        if is_error and tid not in self._tool_error_ids:
            self._tool_error_ids.add(tid)
            self.counters.tool_errors += 1
        if call is None:
            if tid and tid not in self._early_results:
                self._keep_early(tid, anchor, is_error, exc, result_text(content), rec.toolUseResult)
            return
        self._pair(call, anchor, is_error, exc, content, rec.toolUseResult, rec.timestamp)

    def _keep_early(self, tid: str, anchor: Anchor, is_error: bool, exc: str, text: str, tur: Any) -> None:
        """Keep a tool_result whose tool_use has not been read yet: Claude Code 2.1.x sometimes
        writes the result's line before the call's (``../shared/corpus`` git-sync sessions), and
        the call that arrives later is then answered at once, never pending. Bounded: at most
        :data:`EARLY_KEPT` are kept (the oldest is dropped, and its call will show as pending);
        a text over :data:`EARLY_TEXT` characters keeps its head and tail, which is what the
        derived facts read (facts.py ``HEAD_BYTES``/``TAIL_BYTES``); ``toolUseResult`` is kept
        when it is small (the subagent and task fields the pairing reads)."""
        if len(text) > EARLY_TEXT:
            text = text[: EARLY_TEXT // 4] + "\n…\n" + text[-EARLY_TEXT // 2 :]
        small = bytes(tur) if tur and len(tur) <= EARLY_TEXT else None
        if len(self._early_results) >= EARLY_KEPT:
            del self._early_results[next(iter(self._early_results))]
        self._early_results[tid] = (anchor, is_error, exc, text, small)

    def _pair(self, call: ToolCall, anchor: Anchor, is_error: bool, exc: str, content: Any, tur: Any, ts: str | None = None) -> None:
        """Pair ``call`` with its tool_result at ``anchor`` (``content`` its content, raw or its
        whole text, see ``result_text``; ``tur`` the record's ``toolUseResult``, raw or decoded;
        ``ts`` its timestamp, when known): the call
        leaves ``pending``; derived state, subagent links and todos take the result. When the
        call was the thread's last action and failed, the frontier says so (``tool_error``)."""
        tid, name = call.id, call.name
        if tid in self.pending:
            del self.pending[tid]
        la = self.last_action
        if is_error and la is not None and la.kind == "tool_use" and la.tool_use_id == tid:
            self.last_action = Frontier(
                "tool_error", f"{name}({call.brief}) failed: «{exc}»", anchor, tool=name, tool_use_id=tid, timestamp=ts or la.timestamp
            )
        # a new object, not a mutation: snapshots share the call objects of ``pending``
        call = self.calls[tid] = msgspec.structs.replace(call, result_anchor=anchor, is_error=is_error, result_excerpt=exc)
        if self.derive is not None:
            self.derive.on_result(self, call, content, None)
        inp = self._call_inputs.pop(tid, None)
        if name in SUBAGENT_TOOLS:
            link = self.subagents.get(tid)
            if link is not None:
                link = self.subagents[tid] = msgspec.structs.replace(link)  # copy on write
                res = decode_any(tur)
                link.result_anchor = anchor
                if isinstance(res, dict):
                    aid = res.get("agentId")
                    if isinstance(aid, str):
                        link.agent_id = aid
                    st = res.get("status")
                    link.status = "error" if is_error else (st if isinstance(st, str) else "completed")
                    tt = res.get("totalTokens")
                    if type(tt) is int and 0 <= tt <= MAX_TOKENS:  # else not a count (1e23, -5, true)
                        link.total_tokens = tt
                else:
                    link.status = "error" if is_error else "completed"
        elif not is_error and inp is not None:
            self._todos(name or "", inp, tur, anchor)

    def _todos(self, name: str, inp: Any, tur: Any, anchor: Anchor) -> None:
        if not isinstance(inp, dict):
            return
        if name == "TodoWrite" and isinstance(inp.get("todos"), list):
            self.todos = {}
            for n, t in enumerate(inp["todos"]):
                if isinstance(t, dict):
                    tid = str(t.get("id") or n + 1)
                    self.todos[tid] = Todo(tid, str(t.get("content", "")), str(t.get("status", "pending")), anchor)
        elif name == "TaskCreate":
            res = decode_any(tur)
            task = res.get("task") if isinstance(res, dict) else None
            tid = str(task.get("id")) if isinstance(task, dict) and task.get("id") is not None else str(len(self.todos) + 1)
            subject = inp.get("subject") or (task.get("subject") if isinstance(task, dict) else "") or ""
            self.todos[tid] = Todo(tid, str(subject), "pending", anchor, "TaskCreate")
        elif name == "TaskUpdate":
            tid = str(inp.get("taskId", ""))
            status = inp.get("status")
            todo = self.todos.get(tid)
            if todo is not None:
                todo = self.todos[tid] = msgspec.structs.replace(todo)  # copy on write
            if status == "deleted":
                self.todos.pop(tid, None)
            elif todo is not None:
                if isinstance(status, str):
                    todo.status = status
                if isinstance(inp.get("subject"), str):
                    todo.content = inp["subject"]
                todo.anchor = anchor
            elif isinstance(status, str):
                self.todos[tid] = Todo(tid, str(inp.get("subject", f"task {tid}")), status, anchor, "TaskUpdate")

    def _system(self, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
        sub = _intern(rec.subtype) if rec.subtype else rec.subtype
        if sub == "compact_boundary":
            self.counters.compactions += 1
            self.compactions.append(anchor)
            meta = decode_any(rec.compactMetadata)
            pre = meta.get("preTokens") if isinstance(meta, dict) else None
            trig = meta.get("trigger") if isinstance(meta, dict) else None
            self._event(
                "compaction",
                anchor,
                rec,
                0,
                payload,
                f"compaction ({trig or '?'}, {pre if pre is not None else '?'} tokens before)",
                name=sub,
            )
            return
        if sub == "api_error":
            self.counters.api_retries += 1
        content = decode_any(rec.content)
        text = content if isinstance(content, str) else ""
        self._event(
            "system",
            anchor,
            rec,
            0,
            payload,
            excerpt_of(f"{sub or 'system'}: {text}" if text else (sub or "system"), EXCERPT_CHARS),
            is_error=sub == "api_error",
            name=sub,
        )

    def _progress(self, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
        sub, aid = decode_head(rec.data)
        if isinstance(sub, str):
            sub = _intern(sub)
        if sub == "agent_progress" and rec.parentToolUseID:
            link = self.subagents.get(rec.parentToolUseID)
            if link is not None and isinstance(aid, str) and link.agent_id is None:
                self.subagents[rec.parentToolUseID] = msgspec.structs.replace(link, agent_id=aid)
        tid = rec.parentToolUseID or rec.toolUseID
        call = self.calls.get(tid) if tid else None
        if call is not None:
            tid = call.id  # the call's own string, not a copy per progress event (memory)
        self._event("progress", anchor, rec, 0, payload, str(sub or "progress"), name=sub, tool_use_id=tid)

    def _metadata(self, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
        t = _intern(rec.type) if isinstance(rec.type, str) else rec.type
        text = ""
        if t == "summary" and rec.summary:
            text = rec.summary
            self.title = self.title or rec.summary
        elif t == "custom-title" and rec.customTitle:
            text = self.title = rec.customTitle
        elif t == "ai-title" and rec.aiTitle:
            text = rec.aiTitle
            if self.title is None:
                self.title = rec.aiTitle
        elif t == "pr-link" and rec.prUrl:
            text = rec.prUrl
            if rec.prUrl not in self.pr_links:
                self.pr_links.append(rec.prUrl)
        elif t == "queue-operation":
            text = rec.operation or ""
        self._event("metadata", anchor, rec, 0, payload, excerpt_of(f"{t}: {text}" if text else str(t), EXCERPT_CHARS), name=t)

    # -- persistent state (tracetui/session/store) ---------------------------------------------
    #: attributes :meth:`to_cache` leaves out: callbacks (re-attached by the owner on restore),
    #: memos that only save work or memory (``_last_snapshot``: the snapshot the next one
    #: shares unchanged tuples with; after a restore the next snapshot builds them afresh), and
    #: the ledger and history sinks (the store keeps their rows; the owner re-attaches them)
    CACHE_SKIP = ("on_usage", "_last_snapshot", "events", "history")

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

    # -- output -----------------------------------------------------------------------------
    def frontier(self) -> Frontier | None:
        """The newest main-thread call in flight, else the last action."""
        for call in reversed(self.pending.values()):
            if not call.sidechain or self.sidechain_file:
                return Frontier("in_flight", f"{call.name}({call.brief})", call.anchor, call.name, call.id, call.timestamp)
        return self.last_action

    def snapshot(self, history: bool = False) -> AgentState:
        """A frozen copy of this file's state: containers copied, leaves shared (the fold
        replaces a leaf instead of mutating it, so a snapshot never changes afterwards).

        A container that did not change since the previous snapshot is the same object
        (``old.files is new.files``, likewise the dicts ``tools_by_name`` and
        ``tokens_by_model``): views can skip work, and the per-prompt history costs memory only
        for what changed. With ``history`` (the snapshot kept in :attr:`history` as a prompt
        closes an episode) the derived state leaves out the episodes (``derived.episodes`` is
        empty): every version records where it was made, so the episodes as of that point are
        ``episodes_as_of(state.episodes, snapshot.ledger_len)`` (views/text.py), and a copy per
        prompt would cost time and memory quadratic in the prompts."""
        last = self._last_snapshot
        if last is None:
            pending, files, todos, subagents = (
                tuple(self.pending.values()),
                tuple(self.files.values()),
                tuple(self.todos.values()),
                tuple(self.subagents.values()),
            )
            compactions, quarantine, unknown, pr_links = (
                tuple(self.compactions),
                tuple(self.quarantine),
                tuple(self.unknown),
                tuple(self.pr_links),
            )
        else:
            pending = _share(last.pending, self.pending.values())
            files = _share(last.files, self.files.values())
            todos = _share(last.todos, self.todos.values())
            subagents = _share(last.subagents, self.subagents.values())
            compactions = _share(last.compactions, self.compactions)
            quarantine = _share(last.quarantine, self.quarantine)
            unknown = _share(last.unknown, self.unknown)
            pr_links = _share(last.pr_links, self.pr_links)
        tools_by_name = self.tools_by_name
        tokens_by_model = self.usage.tokens_by_model()
        if last is not None and last.tools_by_name == tools_by_name:
            tools_by_name = last.tools_by_name
        else:
            tools_by_name = dict(tools_by_name)
        if last is not None and last.tokens_by_model == tokens_by_model:
            tokens_by_model = last.tokens_by_model
        usage_buckets = self.usage.usage_buckets()
        if last is not None and last.usage_buckets == usage_buckets:
            usage_buckets = last.usage_buckets
        snap = self._last_snapshot = AgentState(
            src=self.src,
            agent_id=self.agent_id,
            counters=msgspec.structs.replace(self.counters),
            tools_by_name=tools_by_name,
            tokens=self.usage.tokens(),
            tokens_by_model=tokens_by_model,
            models=tuple(sorted(self.models)),
            pending=pending,
            files=files,
            todos=todos,
            goal=self.goal,
            latest_ask=self.latest_ask,
            frontier=self.frontier(),
            subagents=subagents,
            compactions=compactions,
            quarantine=quarantine,
            unknown=unknown,
            prompts=self.prompts,
            ledger_len=len(self.events),
            session_id=self.session_id,
            cwd=self.cwd,
            version=self.version,
            git_branch=self.git_branch,
            title=self.title,
            first_timestamp=self.first_timestamp,
            last_timestamp=self.last_timestamp,
            last_anchor=self.last_anchor,
            sidechain_file=bool(self.sidechain_file),
            pr_links=pr_links,
            derived=self.derive.snapshot(self, episodes=not history) if self.derive is not None else None,
            usage_buckets=usage_buckets,
        )
        return snap


class SessionFold:
    """The folds of a session's files: source 0 is the main transcript, then subagents.

    Sources are registered with :meth:`add_source` and fed with :meth:`feed_line`; each file is
    folded on its own, so the combined state does not depend on how reads of different files
    interleave. :meth:`snapshot` returns the combined :class:`RunState`.

    ``sinks(src)``, when given, returns the ``(events, history)`` sinks of a new file fold (see
    :class:`FileFold`); without it they are lists.
    """

    #: attributes the fold cache leaves out (the owner re-attaches the sinks factory)
    CACHE_SKIP = ("sinks",)
    sinks: Callable[[int], tuple[Any, Any]] | None = None

    def __init__(self, price: bool = True, sinks: Callable[[int], tuple[Any, Any]] | None = None) -> None:
        self.sinks = sinks
        self.folds: list[FileFold] = []
        self.sources: list[SourceStatus] = []
        self.usage = UsageBook()
        self.price = price
        self.generation = 0
        self._meta_links: dict[int, str] = {}

    def add_source(self, path: str, name: str, role: str = "main", agent_id: str | None = None, tool_use_id: str | None = None) -> int:
        """Register a file; returns its source index (0 for the first, the main transcript)."""
        src = len(self.folds)
        self.folds.append(self._new_fold(src, agent_id))
        self.sources.append(SourceStatus(path=path, name=name, role=role, agent_id=agent_id))
        if tool_use_id:
            self._meta_links[src] = tool_use_id
        return src

    def _new_fold(self, src: int, agent_id: str | None) -> FileFold:
        ev, hist = self.sinks(src) if self.sinks is not None else (None, None)
        return FileFold(src, agent_id, self.usage.add, ev, hist)

    def feed_line(self, src: int, line_no: int, offset: int, buf: bytes | memoryview) -> None:
        self.folds[src].feed_line(line_no, offset, buf)

    def reset_source(self, src: int, reason: str, detail: str) -> None:
        """Start source ``src`` over (it was truncated or replaced), saying so in its status."""
        old = self.folds[src]
        self.folds[src] = self._new_fold(src, old.agent_id if src else None)
        st = self.sources[src]
        if reason == "replaced":
            st.replaced += 1
        else:
            st.truncated += 1
        st.resets = st.resets + (f"{reason}: {detail}",)
        self.usage = UsageBook()
        for f in self.folds:
            f.on_usage = self.usage.add
            for key, u in f.usage.by_id.items():
                self.usage.add(key, f.usage.model_of[key], u, f.usage.day_of(key))

    def set_io(self, src: int, size: int, consumed: int, lines: int, pending: int, error: str | None = None) -> None:
        """Record what the reader knows of source ``src``: sizes and offsets in bytes."""
        st = self.sources[src]
        st.size, st.consumed, st.lines, st.pending_bytes, st.error = size, consumed, lines, pending, error

    def _sources(self) -> tuple[SourceStatus, ...]:
        out = []
        for f, st in zip(self.folds, self.sources):
            s = msgspec.structs.replace(
                st, malformed=f.malformed, unknown=f.unknown_count + f.counters.unknown_blocks, last_anchor=f.last_anchor
            )
            if s.agent_id is None and f.agent_id:
                s.agent_id = f.agent_id
            out.append(s)
        return tuple(out)

    def snapshot(self) -> RunState:
        """The combined state of every file folded so far."""
        self.generation += 1
        states = [f.snapshot() for f in self.folds]
        if not states:
            states = [FileFold(0).snapshot()]
        main, agents = states[0], tuple(states[1:])
        sources = self._sources()
        by_agent = {s.agent_id: s.src for s in agents if s.agent_id}
        by_tool = {tid: src for src, tid in self._meta_links.items()}
        links = []
        for link in main.subagents:
            src = by_tool.get(link.tool_use_id)
            if src is None and link.agent_id:
                src = by_agent.get(link.agent_id)
            links.append(msgspec.structs.replace(link, source=src) if src is not None else link)
        main = msgspec.structs.replace(main, subagents=tuple(links))
        counters = Counters()
        tools: dict[str, int] = {}
        files: dict[str, FileTouch] = {}
        pending = []
        models: set[str] = set()
        for st in states:
            counters = counters.add(st.counters)
            for k, v in st.tools_by_name.items():
                tools[k] = tools.get(k, 0) + v
            for ft in st.files:
                cur = files.get(ft.path)
                if cur is None:
                    files[ft.path] = msgspec.structs.replace(ft)
                else:
                    cur.reads += ft.reads
                    cur.writes += ft.writes
                    cur.edits += ft.edits
                    # keep the main thread's (or first subagent's) last touch: line numbers of
                    # different files are not comparable, and the main thread is what views order by
            pending.extend(st.pending)
            models.update(st.models)
        counters.api_messages = len(self.usage)
        # human prompts and interrupts are the session's: a subagent's first "prompt" is the Task
        # input its parent wrote (the per-agent breakdown in ``agents`` still counts it)
        counters.user_prompts = states[0].counters.user_prompts
        counters.interrupts = states[0].counters.interrupts
        tokens_by_model = self.usage.tokens_by_model()
        buckets = self.usage.usage_buckets()
        if self.price:
            # each bucket at its own day (pricing.py); the last timestamp only dates undated ones
            last_ts = max((s.last_timestamp for s in states if s.last_timestamp), default=None)
            cost, note = estimate_cost(buckets, last_ts, counters.usage_rejected)
        else:
            cost, note = None, "not priced"
        return RunState(
            main=main,
            agents=agents,
            sources=sources,
            counters=counters,
            tools_by_name=dict(sorted(tools.items(), key=lambda kv: (-kv[1], kv[0]))),
            tokens=self.usage.tokens(),
            tokens_by_model=tokens_by_model,
            cost_usd=cost,
            cost_note=note,
            models=tuple(sorted(models)),
            pending=tuple(pending),
            files=tuple(files.values()),
            history=_frozen(self.folds[0].history, True) if self.folds else (),
            episodes=main.derived.episodes if main.derived is not None else (),
            ledgers=tuple(_frozen(f.events, False) for f in self.folds),
            generation=self.generation,
            usage_buckets=buckets,
        )


def _frozen(sink: Any, copy: bool) -> Any:
    """What a snapshot holds of a sink: a list ledger itself (append-only; readers stop at the
    state's ``ledger_len``), a list history as a tuple (``copy``), a store's sink as its
    ``view()`` (a read-only sequence of the items appended so far)."""
    if type(sink) is list:
        return tuple(sink) if copy else sink
    return sink.view()


def _iter_lines(data: bytes) -> Iterable[tuple[int, int, memoryview]]:
    mv = memoryview(data)
    start = 0
    n = 0
    while True:
        nl = data.find(b"\n", start)
        if nl < 0:
            break
        n += 1
        yield n, start, mv[start:nl]
        start = nl + 1
    if start < len(data):
        yield n + 1, start, mv[start:]


def fold_bytes(data: bytes, name: str = "transcript.jsonl", price: bool = False) -> RunState:
    """Fold a whole transcript held in memory as one main file (the pure entry point for tests).

    A last line without a newline is folded as a record when it parses (the end-of-file rule).
    """
    sf = SessionFold(price=price)
    sf.add_source(name, name)
    for n, off, buf in _iter_lines(data):
        sf.feed_line(0, n, off, buf)
    sf.set_io(0, len(data), len(data), data.count(b"\n"), 0)
    return sf.snapshot()


def fold(records: Iterable[dict[str, Any] | bytes | str], name: str = "transcript.jsonl", price: bool = False) -> RunState:
    """Fold records (dicts, or JSON lines as str/bytes) in order, as if read from one file."""
    import orjson

    parts = []
    for r in records:
        if isinstance(r, dict):
            parts.append(orjson.dumps(r))
        elif isinstance(r, str):
            parts.append(r.encode("utf-8", "surrogatepass"))
        else:
            parts.append(bytes(r))
    return fold_bytes(b"\n".join(parts) + b"\n", name, price)
