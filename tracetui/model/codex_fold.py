"""The fold of one OpenAI Codex CLI rollout: :class:`CodexFold`, a :class:`FileFold` with the
rollout's rules at the edge (``../shared/docs/codex-format.md``).

It has FileFold's interface and state (``feed_line``, ``snapshot``, the ``events``/``history``
sinks, ``to_cache``/``from_cache``, ``frontier``), and makes the same ledger event kinds, so
:class:`~tracetui.model.session_fold.SessionFold`, the deriver (episodes, facts, anomalies), the
views and the store work on it unchanged. What differs is how records are read:

* a line is ``{"timestamp", "type", "payload"}``; records, malformed and torn lines, unknown
  record and payload types are kept and counted as for Claude Code;
* a human prompt is an ``event_msg user_message``; an interrupt a ``turn_aborted`` with reason
  ``interrupted``; a compaction a ``compacted`` record; tool calls and tokens: ``codex_calls``;
* **the replay**: a child rollout (its first ``session_meta`` names a parent) whose second
  record is the parent's ``session_meta`` starts with a copy of the parent's history, re-stamped
  at the spawn: the records after the first one that carry the first record's timestamp to the
  second (the same ``YYYY-MM-DDTHH:MM:SS``) are that copy. They are counted in ``records`` and
  in :attr:`replayed` only (one ``replayed`` ledger event each), and the child's tokens start
  from the copy's last cumulative total.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from tracetui.ingest.codex_decode import decode_codex_fast, decode_codex_line, decode_codex_raw, parent_of, prompt_text, text_of
from tracetui.ingest.codex_schema import (
    CALL_TYPES,
    CODEX_RECORD_TYPES,
    KNOWN_EVENT_TYPES,
    KNOWN_ITEM_TYPES,
    OUTPUT_TYPES,
    CodexRecord,
    Payload,
)
from tracetui.ingest.content import decode_any
from tracetui.ingest.decode import Quarantined, bom_length, excerpt_of
from tracetui.model.codex_calls import NOTICE, CodexCalls
from tracetui.model.fold import FileFold
from tracetui.model.fold_messages import EXCERPT_CHARS, FRONTIER_CHARS, _intern
from tracetui.model.pricing import is_timestamp
from tracetui.model.state import AgentState, Anchor, Frontier, PromptInfo, RateLimit
from tracetui.model.timestamps import later

__all__ = ["CodexFold", "AGENT"]

#: the name of the agent whose files this fold reads (``RunState.agent``)
AGENT = "codex"
_BLANK = frozenset(b" \t\r\n\x0b\x0c")
_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)
#: replay states: the first record not read yet, the second expected, inside the copy, past it
_FIRST, _SECOND, _COPY, _DONE = 0, 1, 2, 3
#: the excerpt of a replayed record's event, by record type
_REPLAYED = {t: f"replayed: {t}" for t in CODEX_RECORD_TYPES}


class CodexFold(CodexCalls, FileFold):
    """Folds the records of one Codex rollout, in file order, into events and state (the
    interface and the guarantees of :class:`FileFold`: pure, deterministic, any chunking)."""

    def __init__(self, src: int = 0, agent_id: str | None = None, on_usage: Any = None, events: Any = None, history: Any = None) -> None:
        super().__init__(src, agent_id, on_usage, events, history)
        self.agent = AGENT
        #: the thread id (``session_meta.id``) and the parent thread a child rollout names
        self.thread_id: str | None = None
        self.parent_id: str | None = None
        self.nickname: str | None = None
        #: the latest ``turn_context.model`` (what the next token counts are priced as)
        self.model: str | None = None
        self.turn_id: str | None = None
        #: records of the copy of the parent's history (see the module docstring)
        self.replayed = 0
        self._replay = _FIRST
        self._first_second = ""
        #: the last cumulative token totals ``(input, cached input, output, cache write)``
        self._tok_base: tuple[int, int, int, int] | None = None
        self._tok_n = 0
        self.rate_limits: dict[str, RateLimit] = {}
        #: the context window (tokens) the latest ``token_count`` declared, 0 before one did
        self.context_window = 0
        #: the tokens the last response's request held (``last_token_usage.input_tokens``)
        self.context_used = 0
        #: call ids whose exec_command_end / patch_apply_end failed before their call was read
        self._failed_early: set[str] = set()
        #: the last turn ended (``task_complete``): its episode is closed, not in progress
        self._turn_done = False
        #: a running command's session id -> the ``exec_command`` call that started it, and a
        #: pending ``write_stdin`` call -> the session it polls (model/codex_calls.py ``_exit``)
        self._exec_sessions: dict[str, str] = {}
        self._polls: dict[str, str] = {}

    # -- input ------------------------------------------------------------------------------
    def feed_line(self, line_no: int, offset: int, buf: bytes | memoryview) -> None:
        """Fold one complete line (without its newline), as :meth:`FileFold.feed_line` does:
        blank lines ignored, a byte order mark opening the file not part of the first record."""
        if offset == 0 and bom_length(0, buf):
            buf = buf[3:]
            offset = 3
        if not buf:
            return
        first = buf[0]
        if first == 123 and buf[-1] == 125:  # the common line, decoded in one call
            try:
                rec: CodexRecord | None = decode_codex_fast(buf)
            except (msgspec.ValidationError, RecursionError):  # a part of another shape: read raw, each rule takes what it can
                try:
                    rec = decode_codex_raw(buf)
                except _DECODE_ERRORS:
                    rec = None  # the general path says what is wrong
            except _DECODE_ERRORS:
                rec = None
            if rec is not None:
                self.feed_record(rec, Anchor(self.src, line_no, offset), buf)
                return
        elif first in _BLANK and not bytes(buf).strip():
            return
        for rel, item, payload in decode_codex_line(buf):
            anchor = Anchor(self.src, line_no, offset + rel)
            if isinstance(item, Quarantined):
                self.add_quarantine(anchor, item.reason, item.excerpt)
            else:
                self.feed_record(item, anchor, payload)

    def feed_record(self, rec: CodexRecord, anchor: Anchor, payload: bytes | memoryview) -> None:  # type: ignore[override]
        """Fold one decoded rollout record found at ``anchor`` (``payload``: its JSON bytes).
        The record is what its ledger events take their stamp from (its timestamp; a rollout
        record has no uuid, parent or sidechain flag)."""
        c = self.counters
        c.records += 1
        self.last_anchor = anchor
        if self._replay != _DONE and self._in_copy(rec, anchor, payload):
            return
        ts = rec.timestamp
        if ts and ts != self.last_timestamp:
            # (the previous record's time again, the commonest case, is valid and folded already)
            if len(ts) >= 20 and ts[-1] == "Z" and ts[10] == "T" and ts[4] == "-" and ts[7] == "-" or is_timestamp(ts):
                # (the first test is is_timestamp's of the usual form, inline: one per record)
                if self.first_timestamp is None:
                    self.first_timestamp = ts
                self.last_timestamp = ts
                nt = self.newest_timestamp
                if nt is None or (ts > nt if len(ts) == len(nt) and ts[-1] == nt[-1] == "Z" else later(ts, nt)):
                    self.newest_timestamp = ts
            else:
                self._bad_time(rec, anchor, str(rec.type))
        t = rec.type
        p = rec.payload
        if (t == "response_item" or t == "event_msg") and p is not None and not rec.schema_error:
            # the payload's rule by its type, in one lookup (_ITEM_RULES, _EVENT_RULES), first:
            # the commonest records
            rule = (_ITEM_RULES if t == "response_item" else _EVENT_RULES).get(p.type)  # type: ignore[arg-type]
            if rule is None:
                self._unknown_record(rec, anchor, payload, f"{t}:{p.type}", "unknown payload type")
            else:
                rule(self, p, rec, anchor, payload)
            return
        if t not in CODEX_RECORD_TYPES or rec.schema_error or p is None:
            self._unknown_record(
                rec, anchor, payload, str(t), rec.schema_error or ("no payload" if t in CODEX_RECORD_TYPES else "unknown record type")
            )
            return
        if t == "turn_context":
            if p.model:
                self.model = _intern(p.model)
            if p.cwd:
                self.cwd = p.cwd
            self.turn_id = p.turn_id or self.turn_id
            self._event("metadata", anchor, rec, 0, payload, excerpt_of(f"turn_context: {p.model or ''}"), name="turn_context")  # type: ignore[arg-type]
        elif t == "session_meta":
            self._session_meta(p, rec, anchor, payload)
        else:  # compacted
            c.compactions += 1
            self.compactions.append(anchor)
            self._event("compaction", anchor, rec, 0, payload, "compaction (compacted history)", name="compacted")  # type: ignore[arg-type]

    def _unknown_record(self, st: CodexRecord, anchor: Anchor, payload: Any, type_: str, reason: str) -> None:
        self.counters.unknown_records += 1
        reason = reason.split("\n")[0]
        self._unknown(anchor, type_, reason)
        self._event("unknown_record", anchor, st, 0, payload, excerpt_of(f"{type_}: {reason}"), "unknown", name=type_)  # type: ignore[arg-type]

    def _in_copy(self, rec: CodexRecord, anchor: Anchor, payload: Any) -> bool:
        """Whether ``rec`` is part of the copy of the parent's history (then it is counted as
        replayed, and its token totals become the child's starting point)."""
        p = rec.payload
        if self._replay == _FIRST:
            self._replay = _SECOND
            self._first_second = (rec.timestamp or "")[:19]
            if rec.type == "session_meta" and p is not None and not rec.schema_error:
                parent, _, _ = parent_of(p.source, p.forked_from_id)
                if parent:
                    return False
            self._replay = _DONE
            return False
        if self._replay == _SECOND:
            is_parent = rec.type == "session_meta" and p is not None and p.id is not None and p.id == self.parent_id
            if not is_parent or len(self._first_second) != 19:
                self._replay = _DONE
                return False
            self._replay = _COPY
        elif not rec.timestamp or rec.timestamp[:19] != self._first_second:
            self._replay = _DONE
            return False
        self.replayed += 1
        if rec.type == "event_msg" and p is not None and p.type == "token_count":
            base = self._totals(p)
            if base is not None:
                self._tok_base = base
        exc = _REPLAYED.get(rec.type) or excerpt_of(f"replayed: {rec.type}")  # type: ignore[arg-type]
        self._event("metadata", anchor, rec, 0, payload, exc, name="replayed")  # type: ignore[arg-type]
        return True

    # -- records ----------------------------------------------------------------------------
    def _session_meta(self, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        if self.thread_id is None and p.id:
            self.thread_id = self.session_id = p.id
            parent, nick, _role = parent_of(p.source, p.forked_from_id)
            self.parent_id, self.nickname = parent, nick
            self.sidechain_file = parent is not None
            if self.src != 0 and self.agent_id is None:
                self.agent_id = p.id
            if p.cwd:
                self.cwd = p.cwd
            if p.cli_version:
                self.version = p.cli_version
            git = decode_any(p.git) if p.git else None
            if isinstance(git, dict) and isinstance(git.get("branch"), str) and git["branch"]:
                self.git_branch = git["branch"]
        self._event("metadata", anchor, st, 0, payload, excerpt_of(f"session_meta: {p.id or ''}"), name="session_meta")  # type: ignore[arg-type]

    # the rules of the payload types (_ITEM_RULES, _EVENT_RULES below say which type is whose)
    def _message(self, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        text = text_of(p.content)
        if p.role == "assistant":
            exc = excerpt_of(text, EXCERPT_CHARS)
            self._event("assistant_text", anchor, st, 0, payload, exc)  # type: ignore[arg-type]
            if text and not text.isspace():
                self.last_action = Frontier("text", excerpt_of(text, FRONTIER_CHARS), anchor, timestamp=st.timestamp)
        else:
            self._event("user_text", anchor, st, 0, payload, excerpt_of(text, EXCERPT_CHARS), name=_intern(p.role or "user"))  # type: ignore[arg-type]
            if text.startswith(NOTICE):
                self._notice(text)

    def _reasoning(self, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        self._event("thinking", anchor, st, 0, payload, "thinking")  # type: ignore[arg-type]

    def _web_search(self, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        self._event("metadata", anchor, st, 0, payload, "web_search_call", name="web_search_call")  # type: ignore[arg-type]

    def _user_message(self, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        self._prompt(prompt_text(p.message), st, anchor, payload)

    def _turn_aborted(self, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        if p.reason == "interrupted":
            self.counters.interrupts += 1
            self._event("interrupt", anchor, st, 0, payload, "turn aborted: interrupted")  # type: ignore[arg-type]
        else:
            self._other_event(p, st, anchor, payload)

    def _other_event(self, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        """A known ``event_msg`` without a rule of its own: a metadata event (a thread name,
        a turn's start and end, an abort's reason kept)."""
        pt = _intern(p.type or "")
        text = ""
        if pt == "thread_name_updated" and p.thread_name:
            text = self.title = p.thread_name
        elif pt == "task_started":
            self.turn_id = p.turn_id or self.turn_id
            self._turn_ended(False)
        elif pt == "task_complete":
            self._turn_ended(True)
        elif pt == "turn_aborted":
            text = str(p.reason)
        self._event("metadata", anchor, st, 0, payload, excerpt_of(f"{pt}: {text}", EXCERPT_CHARS) if text else pt, name=pt)  # type: ignore[arg-type]

    def _prompt(self, text: str, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        """A human prompt (``user_message``): the goal when first, the latest ask always; the
        episode of the previous prompt is complete and its state kept for scrubbing."""
        if self.goal is not None:
            snap = self.snapshot(history=True)
            c = msgspec.structs.replace(snap.counters, records=snap.counters.records - 1)
            self.history.append(msgspec.structs.replace(snap, counters=c))
        self.counters.user_prompts += 1
        self.prompts += 1
        self._turn_ended(False)
        self._event("prompt", anchor, st, 0, payload, excerpt_of(text, EXCERPT_CHARS), name="text")  # type: ignore[arg-type]
        info = PromptInfo(text, anchor, "text", None, st.timestamp, self._seq)
        if self.goal is None:
            self.goal = info
        self.latest_ask = info
        self.last_action = Frontier("prompt", excerpt_of(text, FRONTIER_CHARS), anchor, timestamp=st.timestamp)

    # -- resuming ---------------------------------------------------------------------------
    #: what a reader that keeps no fold (the cross-session index) saves to go on folding a
    #: rollout after its last line with the same token counts and replay: the thread, the
    #: model, the cumulative token base and count, the replay state, and what the file said of
    #: itself (session, working folder, sidechain). :meth:`resume_state`, :meth:`resumed`
    RESUME_ATTRS = (
        "thread_id",
        "parent_id",
        "nickname",
        "model",
        "_tok_base",
        "_tok_n",
        "_replay",
        "_first_second",
        "replayed",
        "session_id",
        "cwd",
        "sidechain_file",
    )

    def resume_state(self) -> list[Any]:
        """The values of :data:`RESUME_ATTRS` (strings, ints, ``None``, a tuple of ints), for
        :meth:`resumed`."""
        return [getattr(self, a) for a in self.RESUME_ATTRS]

    @classmethod
    def resumed(cls, state: list[Any], src: int = 0, on_usage: Any = None, events: Any = None, history: Any = None) -> CodexFold:
        """A fold that goes on from :meth:`resume_state` ``state``: the lines after the ones
        that state was taken after give the same token entries (keys, tokens, models) and
        prompts and calls as one fold of the whole file would. Everything else (calls, files,
        counters) starts empty. Raises ``ValueError`` for a state of another shape."""
        if not isinstance(state, list) or len(state) != len(cls.RESUME_ATTRS):
            raise ValueError("not a Codex fold's resume state")
        f = cls(src, None, on_usage, events, history)
        for a, v in zip(cls.RESUME_ATTRS, state):
            setattr(f, a, tuple(v) if a == "_tok_base" and v is not None else v)
        if f.model is not None:
            f.model = _intern(f.model)
        return f

    # -- output -----------------------------------------------------------------------------
    def _turn_ended(self, done: bool) -> None:
        """A turn is an episode: once its ``task_complete`` is read, the open episode shows the
        status the next prompt will close it with (``ok``, ``errors``, ...), not
        ``in_progress`` (:attr:`EpisodeBook.turn_done`)."""
        self._turn_done = done
        if self.derive is not None:
            self.derive.on_turn_done(done)

    def snapshot(self, history: bool = False) -> AgentState:
        """:meth:`FileFold.snapshot`, naming the agent, its rate-limit windows and the context
        window it declared."""
        last = self._last_snapshot
        snap = super().snapshot(history)
        limits = tuple(self.rate_limits.values())
        if last is not None and last.rate_limits == limits:
            limits = last.rate_limits
        snap = self._last_snapshot = msgspec.structs.replace(
            snap, agent=AGENT, rate_limits=limits, context_window=self.context_window, context_used=self.context_used
        )
        return snap


_Rule = Callable[[CodexFold, Payload, CodexRecord, Anchor, Any], None]
#: the rule of each known ``response_item`` payload type (another type: an unknown record)
_ITEM_RULES: dict[str, _Rule] = {
    "message": CodexFold._message,
    "reasoning": CodexFold._reasoning,
    "web_search_call": CodexFold._web_search,
    **dict.fromkeys(CALL_TYPES, CodexFold._call),
    **dict.fromkeys(OUTPUT_TYPES, CodexFold._output),
}
#: the rule of each known ``event_msg`` payload type (another type: an unknown record)
_EVENT_RULES: dict[str, _Rule] = {
    **dict.fromkeys(KNOWN_EVENT_TYPES, CodexFold._other_event),
    "token_count": CodexFold._token_count,
    "user_message": CodexFold._user_message,
    "exec_command_end": CodexFold._call_end,
    "patch_apply_end": CodexFold._call_end,
    "turn_aborted": CodexFold._turn_aborted,
    "collab_agent_spawn_end": CodexFold._collab,
    "collab_waiting_end": CodexFold._collab,
    "collab_close_end": CodexFold._collab,
}
if set(_ITEM_RULES) != KNOWN_ITEM_TYPES or set(_EVENT_RULES) != KNOWN_EVENT_TYPES:  # pragma: no cover - a type added on one side only
    raise ImportError("codex_fold: the payload rules and codex_schema's known types differ")
