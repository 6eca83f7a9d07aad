"""The transcript's record and content-block shapes the fold decodes, as msgspec structs.

Only the fields the fold reads are declared; large payloads stay :class:`msgspec.Raw`; unknown
fields are skipped (``../shared/docs/transcript-format.md`` §4–§7). :mod:`tracetui.ingest.decode`
turns lines into these, never raising.
"""

from __future__ import annotations

from typing import Annotated, Any, Union

import msgspec

__all__ = [
    "KNOWN_RECORD_TYPES",
    "KNOWN_BLOCK_TYPES",
    "MAX_TOKENS",
    "Tok",
    "CacheCreation",
    "Usage",
    "Message",
    "Block",
    "Record",
    "ResultPart",
    "Quarantined",
]


#: Record types the fold knows (transcript-format.md §4: conversation and metadata records).
#: Anything else is kept and counted as an unknown record.
KNOWN_RECORD_TYPES: frozenset[str] = frozenset(
    {
        "user",
        "assistant",
        "system",
        "progress",
        "attachment",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "agent-name",
        "ai-title",
        "last-prompt",
        "mode",
        "permission-mode",
        "pr-link",
        "bridge-session",
    }
)


#: Content block types the fold knows (transcript-format.md §5). Others become unknown blocks.
KNOWN_BLOCK_TYPES: frozenset[str] = frozenset({"text", "image", "tool_result", "thinking", "redacted_thinking", "tool_use", "document"})


_RAW = msgspec.field(default_factory=msgspec.Raw)


#: the most tokens one API message can report per field (a trillion: far above any context
#: window); a count outside ``0..MAX_TOKENS`` is not usage (the record's usage is rejected)
MAX_TOKENS = 10**12


#: a token count of one message: an int in ``0..MAX_TOKENS`` (msgspec rejects anything else)
Tok = Annotated[int, msgspec.Meta(ge=0, le=MAX_TOKENS)]


class CacheCreation(msgspec.Struct, gc=False):
    """``usage.cache_creation``: the cache-write tokens split by cache lifetime (5 minutes, 1
    hour), which are priced differently (genai-prices ``cache_write_1h_tokens``)."""

    ephemeral_5m_input_tokens: Tok = 0
    ephemeral_1h_input_tokens: Tok = 0


class Usage(msgspec.Struct, gc=False):
    """The ``message.usage`` object of an assistant record, in tokens (each in
    ``0..MAX_TOKENS``; see :func:`decode_message` for a usage outside that)."""

    input_tokens: Tok = 0
    output_tokens: Tok = 0
    cache_creation_input_tokens: Tok = 0
    cache_read_input_tokens: Tok = 0
    cache_creation: Union[CacheCreation, None] = None


class Message(msgspec.Struct):
    """``record.message``: an Anthropic API message (assistant) or a user message.

    ``content`` is a string or a list of undecoded blocks; each block is decoded on its own by
    :func:`decode_block` so one new block type costs one unknown block, not the whole line.
    """

    id: Union[str, None] = None
    model: Union[str, None] = None
    content: Union[str, list[msgspec.Raw], None] = None
    usage: Union[Usage, None] = None
    #: why ``usage`` was rejected (a token count outside ``0..MAX_TOKENS``, a field of another
    #: type); ``usage`` is then ``None`` and the rest of the message decoded as usual
    usage_error: Union[str, None] = None
    #: the message's fields ignored because of their types (``"field: why"``, ``"; "``-joined:
    #: an ``id`` or ``model`` that is a number); the message is kept without them, its blocks too
    shape_error: Union[str, None] = None


class _MessageRawUsage(Message):
    usage: msgspec.Raw = _RAW


class Block(msgspec.Struct):
    """One content block. Only the fields the fold reads are declared."""

    type: str = ""
    text: Union[str, None] = None
    id: Union[str, None] = None
    name: Union[str, None] = None
    input: msgspec.Raw = _RAW
    tool_use_id: Union[str, None] = None
    content: msgspec.Raw = _RAW
    is_error: Union[bool, None] = None
    #: set when the block's fields had unexpected types; the block is then unknown
    schema_error: Union[str, None] = None
    #: the fields ignored because of their types (``"field: why"``, ``"; "``-joined); the block
    #: is kept without them
    shape_error: Union[str, None] = None


class Record(msgspec.Struct):
    """One transcript record (one JSON object of a line).

    ``message``, ``toolUseResult``, ``content``, ``data`` and ``attachment`` stay as
    :class:`msgspec.Raw` until the fold needs them. ``schema_error`` is set when a declared field
    had an unexpected type; such a record keeps only its ``type`` and is counted as unknown.
    """

    type: Union[str, None] = None
    uuid: Union[str, None] = None
    parentUuid: Union[str, None] = None
    timestamp: Union[str, None] = None
    sessionId: Union[str, None] = None
    agentId: Union[str, None] = None
    isSidechain: Union[bool, None] = None
    isMeta: Union[bool, None] = None
    isCompactSummary: Union[bool, None] = None
    isApiErrorMessage: Union[bool, None] = None
    subtype: Union[str, None] = None
    requestId: Union[str, None] = None
    cwd: Union[str, None] = None
    version: Union[str, None] = None
    gitBranch: Union[str, None] = None
    message: msgspec.Raw = _RAW
    toolUseResult: msgspec.Raw = _RAW
    content: msgspec.Raw = _RAW
    data: msgspec.Raw = _RAW
    attachment: msgspec.Raw = _RAW
    compactMetadata: msgspec.Raw = _RAW
    parentToolUseID: Union[str, None] = None
    toolUseID: Union[str, None] = None
    summary: Union[str, None] = None
    customTitle: Union[str, None] = None
    aiTitle: Union[str, None] = None
    prUrl: Union[str, None] = None
    operation: Union[str, None] = None
    schema_error: Union[str, None] = None
    #: the declared fields ignored because of their types (``"field: why"``, ``"; "``-joined):
    #: the record is kept without them (module docstring)
    shape_error: Union[str, None] = None


class ResultPart(msgspec.Struct):
    """One part of a tool_result's list content (text, image, tool_reference, ...); an image's
    data is skipped, not decoded."""

    type: Any = None
    text: Any = None
    tool_name: Any = msgspec.UNSET


class _BlockFast(Block):
    """A block whose tool_use input is decoded in the same pass (an input is then a Python
    value, not :class:`msgspec.Raw`). A tool_result's content stays raw: its text is decoded
    only when a rule reads it (:func:`result_text`), its excerpt from a prefix
    (:func:`result_excerpt`)."""

    input: Any = None


class _MessageFast(Message):
    content: Union[str, list[msgspec.Raw], None] = None


class _RecordFast(Record):
    """A record whose ``message`` is decoded in the same pass as the envelope (one scan of the
    line instead of two). A message of unexpected shape falls back to :class:`Record`."""

    message: Union[_MessageFast, None] = None


class _Head(msgspec.Struct):
    """The ``type`` and ``agentId`` of an object (``progress.data``, ``attachment``); the rest
    of the object is skipped, not decoded."""

    type: Any = None
    agentId: Any = None


class Quarantined(msgspec.Struct, gc=False):
    """A line (or the part of one) that is not a JSON object.

    ``rel_offset`` is the byte offset of the bad part within its line; ``reason`` says what is
    wrong; ``excerpt`` is at most 80 characters of it, with U+FFFD for undecodable bytes.
    """

    rel_offset: int
    reason: str
    excerpt: str


class _TypeOnly(msgspec.Struct):
    type: Any = None
