"""FileFold's handlers of conversation records: assistant and user messages, system,
progress, attachment-less metadata (a mixin of :class:`tracetui.model.fold.FileFold`, whose
state the methods read and write; see that class). Tool calls and results: ``fold_tools``."""

from __future__ import annotations

import sys
from typing import Any

import msgspec

from tracetui.ingest.content import decode_any
from tracetui.ingest.decode import (
    KNOWN_BLOCK_TYPES,
    Block,
    Message,
    Record,
    decode_block,
    decode_block_fast,
    decode_head,
    decode_message,
    excerpt_of,
)
from tracetui.model.pricing import NO_MODEL, utc_day
from tracetui.model.state import Anchor, Frontier

__all__ = ["MessageHandlers", "SYNTHETIC_MODEL", "EXCERPT_CHARS", "FRONTIER_CHARS"]

#: the model name Claude Code gives records it wrote itself (API errors, "No response requested.")
SYNTHETIC_MODEL = "<synthetic>"
#: characters of payload kept inline in an event; the rest stays in the file
EXCERPT_CHARS = 100
#: characters of the frontier's text (what the agent said or was asked last): one per state, so
#: longer than an event's excerpt, for a Now pane that has the room
FRONTIER_CHARS = 400
#: names repeated on many events (tool names, subtypes) are kept once
_intern = sys.intern


class MessageHandlers:
    """The record handlers of :class:`~tracetui.model.fold.FileFold` (``self`` is the fold)."""

    # the types of the fold's attributes these handlers assign (declared in FileFold.__init__)
    last_action: Frontier | None
    _prev_key: str | None
    _cur_owner: str | None

    def _assistant(self: Any, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
        sf = self.sidechain_file
        if sf is None:
            main = self._is_main_thread(rec)
        else:
            main = sf or not rec.isSidechain
        # decoded with its record already, in the common case
        msg: Message | None = rec.message if isinstance(rec.message, Message) else decode_message(rec.message)
        if msg is None:
            self.counters.unknown_records += 1
            self._unknown(anchor, "assistant", "message missing or of unexpected shape")
            self._event("unknown_record", anchor, rec, 0, payload, "assistant without message", "unknown", name="assistant")
            return
        if msg.shape_error is not None:
            self._shape(anchor, "assistant", "message." + msg.shape_error)
        model = _intern(msg.model) if msg.model else NO_MODEL
        key = msg.id or rec.requestId or rec.uuid or f"{anchor.src}:{anchor.offset}"
        continues = key == self._prev_key  # the previous record's message (no prompt between)
        if continues:
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
            if msg.model and model != SYNTHETIC_MODEL:
                self.models.setdefault(model, 0)  # the model was used, its tokens are what is unknown
        if msg.usage is not None and model != SYNTHETIC_MODEL:
            us = msg.usage
            cw = us.cache_creation_input_tokens
            h1 = us.cache_creation.ephemeral_1h_input_tokens if us.cache_creation is not None else 0
            # the 1-hour part of the cache writes (priced higher); never more than their total
            u = (us.input_tokens, us.output_tokens, cw, us.cache_read_input_tokens, h1 if h1 <= cw else cw)
            book = self.usage
            old = book.by_id.get(key)  # a recent message (UsageBook.get, one call less)
            if old is None:
                old = book.get(key)
            if old is not None and not continues and self.derive is not None:
                # a message counted already, met again (a copied record set, a reused id): the
                # open episode counts only what this and its next records add (derive.py)
                self.derive.on_known_message(key, old)
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
                if old is None:
                    book.add(key, model, u, utc_day(rec.timestamp))
                    self.counters.api_messages = len(book)
                    if self.on_usage is not None:
                        self.on_usage(key, model, u, book.day_of(key))
                else:
                    # a later record of a known message: the count of messages stays, and its
                    # day was given with its first record (the session's book keeps the
                    # earliest day of every file's, so giving it again changes nothing)
                    book.add(key, model, u, "")
                    if self.on_usage is not None:
                        self.on_usage(key, model, u, "")
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
            try:
                b = decode_block_fast(raw)
            except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
                b = decode_block(raw)  # says what is wrong, or repairs it
            if b.shape_error is not None:
                self._shape(anchor, f"block:{b.type}", b.shape_error)
            bt = b.type
            if bt == "tool_use" and not b.schema_error:
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

    def _unknown_block(self: Any, rec: Record, anchor: Anchor, i: int, raw: Any, b: Block) -> None:
        known = b.type in KNOWN_BLOCK_TYPES and not b.schema_error
        if known:  # a known type in an unexpected place (e.g. an image from the assistant)
            self._event(b.type if b.type == "image" else "unknown_block", anchor, rec, i, raw, b.type, name=b.type)
            return
        self.counters.unknown_blocks += 1
        reason = (b.schema_error or "unknown block type").split("\n")[0]
        self._unknown(anchor, f"block:{b.type}", reason)
        self._event("unknown_block", anchor, rec, i, raw, excerpt_of(f"{b.type}: {reason}"), "unknown", name=b.type)

    def _user(self: Any, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
        sf = self.sidechain_file
        if sf is None:
            main = self._is_main_thread(rec)
        else:
            main = sf or not rec.isSidechain
        # decoded with its record already, in the common case
        msg: Message | None = rec.message if isinstance(rec.message, Message) else decode_message(rec.message)
        if msg is None:
            self.counters.unknown_records += 1
            self._unknown(anchor, "user", "message missing or of unexpected shape")
            self._event("unknown_record", anchor, rec, 0, payload, "user without message", "unknown", name="user")
            return
        if msg.shape_error is not None:
            self._shape(anchor, "user", "message." + msg.shape_error)
        content = msg.content
        if rec.isCompactSummary:
            text = content if isinstance(content, str) else ""
            self._event("compact_summary", anchor, rec, 0, payload, excerpt_of(text or "compaction summary", EXCERPT_CHARS))
            return
        if isinstance(content, str) or content is None:
            self._user_text(rec, anchor, 0, payload, content or "", main)
            return
        if len(content) == 1:
            # the commonest user record: one tool_result (the general path below gives the same)
            raw = content[0]
            try:
                b: Block = decode_block_fast(raw)
            except (msgspec.DecodeError, RecursionError, msgspec.ValidationError):
                b = decode_block(raw)  # says what is wrong, or repairs it
            if b.type == "tool_result" and b.schema_error is None and b.shape_error is None:
                self._tool_result(rec, anchor, 0, raw, b, main)
                return
            blocks = [b]
        else:
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

    def _inline(self: Any, owner: str, rec: Record, anchor: Anchor) -> None:
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

    def _system(self: Any, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
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

    def _progress(self: Any, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
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

    def _metadata(self: Any, rec: Record, anchor: Anchor, payload: bytes | memoryview) -> None:
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
