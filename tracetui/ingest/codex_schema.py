"""The OpenAI Codex CLI rollout's line and payload shapes the Codex fold decodes, as msgspec structs.

A rollout line is ``{"timestamp", "type", "payload"}`` (``../shared/docs/codex-format.md``). Only
the fields the fold reads are declared; large or variable payload parts (message content, tool
output, patch text, token usage, rate limits) stay :class:`msgspec.Raw` until a rule reads them;
unknown fields are skipped. One :class:`Payload` holds the fields of every payload kind the fold
knows (``session_meta``, ``turn_context``, ``response_item``, ``event_msg``, ``compacted``), so a
line is decoded in one pass. :mod:`tracetui.ingest.codex_decode` turns lines into these.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Union

import msgspec

from tracetui.ingest.schema import MAX_TOKENS

__all__ = [
    "CODEX_RECORD_TYPES",
    "KNOWN_ITEM_TYPES",
    "KNOWN_EVENT_TYPES",
    "CALL_TYPES",
    "OUTPUT_TYPES",
    "Payload",
    "CodexRecord",
    "TypedPayload",
    "TypedRecord",
    "RateLimits",
    "CodexEnvelope",
    "TokenTotals",
    "TokenInfo",
    "RateWindow",
    "ContentPart",
]

#: the top-level ``type`` values of a rollout line the fold knows; others are unknown records
CODEX_RECORD_TYPES: frozenset[str] = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})

#: ``response_item`` payload types the fold knows (codex-format.md, "One line")
KNOWN_ITEM_TYPES: frozenset[str] = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "web_search_call",
    }
)

#: ``event_msg`` payload types the fold knows; others are kept and counted as unknown records
KNOWN_EVENT_TYPES: frozenset[str] = frozenset(
    {
        "user_message",
        "agent_message",
        "agent_reasoning",
        "token_count",
        "task_started",
        "task_complete",
        "turn_aborted",
        "exec_command_end",
        "patch_apply_end",
        "web_search_end",
        "context_compacted",
        "thread_name_updated",
        "collab_agent_spawn_end",
        "collab_waiting_end",
        "collab_close_end",
        "collab_agent_interaction_end",
        "dynamic_tool_call_request",
        "dynamic_tool_call_response",
    }
)

#: the response items that are a tool call, answered by the output type of :data:`OUTPUT_TYPES`
CALL_TYPES: frozenset[str] = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
#: the response items that answer a call, by ``call_id``
OUTPUT_TYPES: frozenset[str] = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})

#: an absent raw field: one shared empty value (a Raw is immutable), not one made per record
_RAW = msgspec.Raw()

#: a token count: an int in ``0..MAX_TOKENS`` (msgspec rejects anything else)
Tok = Annotated[int, msgspec.Meta(ge=0, le=MAX_TOKENS)]


class Payload(msgspec.Struct, gc=False):
    """The ``payload`` object of any known line kind: the union of the fields the fold reads.

    ``type`` is the payload's own type (``function_call``, ``token_count``, ...; absent for
    ``session_meta``, ``turn_context`` and ``compacted``). ``arguments`` of a ``function_call``
    is a JSON *string* (kept raw: :func:`~tracetui.ingest.codex_decode.call_arguments` decodes
    the string, then the JSON inside it)."""

    type: Union[str, None] = None
    # session_meta
    id: Union[str, None] = None
    timestamp: Union[str, None] = None
    cwd: Union[str, None] = None
    originator: Union[str, None] = None
    cli_version: Union[str, None] = None
    source: msgspec.Raw = _RAW
    forked_from_id: Union[str, None] = None
    git: msgspec.Raw = _RAW
    # turn_context, collab_agent_spawn_end
    turn_id: Union[str, None] = None
    model: Union[str, None] = None
    # response_item
    role: Union[str, None] = None
    content: msgspec.Raw = _RAW
    name: Union[str, None] = None
    arguments: msgspec.Raw = _RAW
    input: msgspec.Raw = _RAW
    action: msgspec.Raw = _RAW
    call_id: Union[str, None] = None
    output: msgspec.Raw = _RAW
    # event_msg
    message: msgspec.Raw = _RAW
    reason: Any = None
    exit_code: Any = None
    aggregated_output: msgspec.Raw = _RAW
    success: Any = None
    info: msgspec.Raw = _RAW
    rate_limits: msgspec.Raw = _RAW
    new_thread_id: Union[str, None] = None
    new_agent_nickname: Union[str, None] = None
    new_agent_role: Union[str, None] = None
    prompt: msgspec.Raw = _RAW
    last_agent_message: msgspec.Raw = _RAW
    thread_name: Union[str, None] = None
    # collab_waiting_end / collab_close_end: the child threads' statuses
    receiver_thread_id: Union[str, None] = None
    agent_statuses: msgspec.Raw = _RAW
    status: msgspec.Raw = _RAW


class CodexRecord(msgspec.Struct, gc=False):
    """One rollout line. ``schema_error`` is set (by the decoder) when a declared field had an
    unexpected type; the record then keeps only its ``type`` and ``timestamp`` and is counted
    as unknown, as a Claude Code record is.

    A record is what a ledger event takes from it (``uuid``, ``parentUuid``, ``isSidechain``,
    ``timestamp``): a rollout record has no uuid, no parent and no sidechain flag."""

    timestamp: Union[str, None] = None
    type: Union[str, None] = None
    payload: Union[Payload, None] = None
    schema_error: Union[str, None] = None

    uuid: ClassVar[None] = None
    parentUuid: ClassVar[None] = None
    isSidechain: ClassVar[bool] = False


class CodexEnvelope(msgspec.Struct):
    """A line's envelope only (the fallback when its payload has fields of unexpected types)."""

    timestamp: Any = None
    type: Any = None


class TokenTotals(msgspec.Struct, gc=False):
    """``total_token_usage``: cumulative tokens of the thread. ``input_tokens`` includes
    ``cached_input_tokens``; ``output_tokens`` includes ``reasoning_output_tokens``."""

    input_tokens: Tok = 0
    cached_input_tokens: Tok = 0
    output_tokens: Tok = 0
    reasoning_output_tokens: Tok = 0
    cache_write_input_tokens: Tok = 0


class TokenInfo(msgspec.Struct, gc=False):
    """``token_count.info`` (``null`` when the event carries rate limits only)."""

    total_token_usage: Union[TokenTotals, None] = None
    #: the last response's own tokens (its ``input_tokens``: what its request held)
    last_token_usage: Union[TokenTotals, None] = None
    model_context_window: Union[int, None] = None


class RateWindow(msgspec.Struct, gc=False):
    """One rate-limit window of ``token_count.rate_limits`` (``primary``: 5 hours, ``secondary``:
    weekly): percent used, its length in minutes, and when it resets (Unix seconds)."""

    used_percent: Union[float, None] = None
    window_minutes: Union[int, None] = None
    resets_at: Union[int, None] = None


class RateLimits(msgspec.Struct, gc=False):
    """``token_count.rate_limits``: its two windows, each ``None`` when absent or ``null``."""

    primary: Union[RateWindow, None] = None
    secondary: Union[RateWindow, None] = None


class ContentPart(msgspec.Struct, gc=False):
    """One part of a message's ``content[]`` (``input_text``, ``output_text``, ...): its text,
    of any type (only a string is text); other fields are skipped."""

    text: Any = None


class TypedPayload(Payload, gc=False):
    """A :class:`Payload` whose ``token_count`` parts and message ``content`` are decoded with
    the line (``info`` and ``rate_limits`` of the expected shapes, or ``None`` when absent or
    ``null``; ``content`` a string or a list of :class:`ContentPart`, ``None`` when absent or
    ``null``). A line whose parts have another shape fails this decode and is read as a
    :class:`CodexRecord` (raw parts, each rule then taking what it can)."""

    content: Union[str, list[ContentPart], None] = None  # type: ignore[assignment]
    info: Union[TokenInfo, None] = None  # type: ignore[assignment]
    rate_limits: Union[RateLimits, None] = None  # type: ignore[assignment]


class TypedRecord(CodexRecord, gc=False):
    """A :class:`CodexRecord` with a :class:`TypedPayload`: the one-pass decode of the common line."""

    payload: Union[TypedPayload, None] = None  # type: ignore[assignment]
