"""Claude Code transcript records built in code: one constructor per record shape.

Each constructor returns one record as a plain ``dict`` in the shape Claude Code 2.1.x writes
(``../shared/docs/transcript-format.md``; section numbers below refer to it), from explicit
values only: the caller gives every uuid, timestamp, message id and tool_use id, so the same
arguments always give the same bytes and a generator pays for nothing it did not ask for.
:func:`line` and :func:`jsonl` turn records into file bytes. Nothing here is copied from real
transcripts. :class:`tracetui.demo.transcript.TranscriptBuilder` builds whole sessions on these.

Envelope keywords, accepted by every constructor of a conversation record (``**env``):
``uuid`` and ``ts`` (required), ``parent`` (``parentUuid``, default ``None``), ``sidechain``
(``isSidechain``), ``session`` (``sessionId``), ``cwd``, ``version``, ``git_branch``
(``gitBranch``), ``agent_id`` (``agentId``, subagent files only); any other keyword becomes a
top-level field of the record, after the envelope, in the order given.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import orjson

__all__ = [
    "SESSION_ID",
    "CWD",
    "MODEL",
    "VERSION",
    "SYNTHETIC",
    "COMPACT_PREFIX",
    "REJECTED",
    "iso",
    "envelope",
    "user",
    "assistant",
    "tool_result",
    "system",
    "compact_boundary",
    "compact_summary",
    "api_retry",
    "api_error",
    "progress",
    "meta",
    "file_history_snapshot",
    "text_block",
    "thinking_block",
    "tool_use_block",
    "tool_result_block",
    "usage",
    "slash_text",
    "bash_input_text",
    "interrupt_text",
    "task_result_text",
    "hook_progress",
    "line",
    "jsonl",
]

SESSION_ID = "5e55a0c1-0000-4000-8000-000000000001"
CWD = "/home/dev/shop-api"
MODEL = "claude-sonnet-4-5-20250929"
VERSION = "2.1.30"
#: the model name of records Claude Code writes itself, not the API (§6)
SYNTHETIC = "<synthetic>"
#: how the text of the ``isCompactSummary`` user record begins (§10)
COMPACT_PREFIX = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\n"
)
#: the tool_result text of a tool use the user rejected (§6)
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
)


def iso(t: datetime) -> str:
    """``t`` (UTC) as a transcript timestamp: ISO-8601 with milliseconds and ``Z``, ``2026-03-02T09:00:00.000Z``."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


# -- the envelope and the conversation records ---------------------------------------------------


def envelope(
    type_: str,
    *,
    uuid: str,
    ts: str | None,
    parent: str | None = None,
    sidechain: bool = False,
    session: str = SESSION_ID,
    cwd: str = CWD,
    version: str = VERSION,
    git_branch: str = "main",
    agent_id: str | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """The common envelope of a conversation record (§3), then ``fields``.

    Shape: ``{parentUuid, isSidechain, userType: "external", cwd, sessionId, version, gitBranch,
    [agentId], type, uuid, timestamp, **fields}``; a field named like an envelope key replaces it
    in place.
    """
    rec: dict[str, Any] = {
        "parentUuid": parent,
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": cwd,
        "sessionId": session,
        "version": version,
        "gitBranch": git_branch,
    }
    if agent_id is not None:
        rec["agentId"] = agent_id
    rec["type"] = type_
    rec["uuid"] = uuid
    rec["timestamp"] = ts
    rec.update(fields)
    return rec


def user(content: str | list[dict[str, Any]], **env: Any) -> dict[str, Any]:
    """A ``user`` record: ``message: {role: "user", content}``; ``content`` is a string (a typed
    prompt, a slash command, a compact summary) or a list of content blocks (§5)."""
    return envelope("user", message={"role": "user", "content": content}, **env)


def assistant(
    blocks: list[dict[str, Any]],
    *,
    msg_id: str | None,
    usage: dict[str, Any] | None,
    model: str = MODEL,
    request_id: str | None = None,
    stop_reason: str | None = None,
    stop_sequence: bool = False,
    **env: Any,
) -> dict[str, Any]:
    """An ``assistant`` record holding ``blocks`` (one, as Claude Code writes them, §7).

    Shape: ``message: {model, type: "message", role: "assistant", content: blocks, stop_reason,
    [stop_sequence: null], [id: msg_id], [usage]}`` then ``[requestId]``; ``None`` leaves a key
    out. The records of one API message share ``msg_id``, ``request_id`` and the usage numbers
    (give each its own ``usage`` dict: records are serialised independently).
    """
    msg: dict[str, Any] = {"model": model, "type": "message", "role": "assistant", "content": blocks, "stop_reason": stop_reason}
    if stop_sequence:
        msg["stop_sequence"] = None
    if msg_id is not None:
        msg["id"] = msg_id
    if usage is not None:
        msg["usage"] = usage
    rec = envelope("assistant", message=msg, **env)
    if request_id is not None:
        rec["requestId"] = request_id
    return rec


def tool_result(tool_use_id: str, content: Any = "ok", *, is_error: bool | None = None, result: Any = None, **env: Any) -> dict[str, Any]:
    """The ``user`` record answering ``tool_use_id`` (§8): one ``tool_result`` block, then
    ``toolUseResult: result`` unless ``result`` is ``None`` (an object, or a string ``"Error: …"``
    on errors)."""
    extra = {} if result is None else {"toolUseResult": result}
    return user([tool_result_block(tool_use_id, content, is_error)], **extra, **env)


def system(subtype: str | None, **env: Any) -> dict[str, Any]:
    """A ``system`` record: the envelope, its fields, then ``subtype`` (left out when ``None``)."""
    rec = envelope("system", **env)
    if subtype is not None:
        rec["subtype"] = subtype
    return rec


def compact_boundary(pre_tokens: int = 1000, *, trigger: str = "auto", **env: Any) -> dict[str, Any]:
    """``system/compact_boundary`` (§10): ``content: "Conversation compacted"``, ``level: "info"``,
    ``compactMetadata: {trigger: "auto"|"manual", preTokens}``. Claude Code writes it with
    ``parent=None`` and ``logicalParentUuid`` (a field) naming the last record before it."""
    meta = {"trigger": trigger, "preTokens": pre_tokens}
    return system("compact_boundary", content="Conversation compacted", level="info", compactMetadata=meta, **env)


def compact_summary(summary: str, **env: Any) -> dict[str, Any]:
    """The ``user`` record after a compact boundary (§10): :data:`COMPACT_PREFIX` + ``summary``,
    ``isCompactSummary`` and ``isVisibleInTranscriptOnly`` true (not a human prompt)."""
    return user(COMPACT_PREFIX + summary, isCompactSummary=True, isVisibleInTranscriptOnly=True, **env)


def api_retry(status: int = 529, *, attempt: int = 1, max_retries: int = 10, retry_in_ms: int = 2000, **env: Any) -> dict[str, Any]:
    """``system/api_error``, one retry notice (§6): ``level: "error"``, ``error: {status}``,
    ``retryInMs`` (milliseconds), ``retryAttempt``, ``maxRetries``."""
    return system(
        "api_error", level="error", error={"status": status}, retryInMs=retry_in_ms, retryAttempt=attempt, maxRetries=max_retries, **env
    )


def api_error(
    text: str,
    *,
    msg_id: str,
    error: str | None = "unknown",
    usage: dict[str, Any] | None = None,
    stop_reason: str | None = "stop_sequence",
    **env: Any,
) -> dict[str, Any]:
    """The synthetic assistant record of an API failure after its retries (§6): model
    :data:`SYNTHETIC`, one text block ``text`` (``"API Error: 529 {…}"``), ``msg_id`` a uuid (not
    ``msg_…``), zero usage unless given, no ``requestId``; then ``isApiErrorMessage: true`` and
    ``error`` (left out when ``None``)."""
    zero = _zero_usage() if usage is None else usage
    rec = assistant([text_block(text)], msg_id=msg_id, usage=zero, model=SYNTHETIC, stop_reason=stop_reason, **env)
    rec["isApiErrorMessage"] = True
    if error is not None:
        rec["error"] = error
    return rec


def progress(data: dict[str, Any], *, tool_use_id: str, parent_tool_use_id: str | None = None, **env: Any) -> dict[str, Any]:
    """A ``progress`` record (§4.1): ``data`` (e.g. :func:`hook_progress`), ``parentToolUseID``,
    ``toolUseID``."""
    return envelope("progress", data=data, parentToolUseID=parent_tool_use_id, toolUseID=tool_use_id, **env)


def meta(type_: str, session: str = SESSION_ID, **fields: Any) -> dict[str, Any]:
    """A metadata record outside the uuid chain (§4.2: ``ai-title``, ``last-prompt``, ``pr-link``, …):
    ``{type, **fields, sessionId}``."""
    return {"type": type_, **fields, "sessionId": session}


def file_history_snapshot(message_id: str, ts: str) -> dict[str, Any]:
    """A ``file-history-snapshot`` record with no tracked files (§4.2)."""
    snap = {"messageId": message_id, "trackedFileBackups": {}, "timestamp": ts}
    return {"type": "file-history-snapshot", "messageId": message_id, "snapshot": snap, "isSnapshotUpdate": False}


# -- content blocks, usage, texts -------------------------------------------------------------------


def text_block(text: str) -> dict[str, Any]:
    """``{type: "text", text}``."""
    return {"type": "text", "text": text}


def thinking_block(signature: str = "EuYBCkYIBBgCKkD" + "x" * 40, thinking: str = "") -> dict[str, Any]:
    """``{type: "thinking", thinking, signature}``; the text is ``""`` from 2.1.91 on (§5)."""
    return {"type": "thinking", "thinking": thinking, "signature": signature}


def tool_use_block(tool_use_id: str, name: str, inp: dict[str, Any] | None = None) -> dict[str, Any]:
    """``{type: "tool_use", id: "toolu_…", name, input}`` (§5)."""
    return {"type": "tool_use", "id": tool_use_id, "name": name, "input": inp or {}}


def tool_result_block(tool_use_id: str, content: Any = "ok", is_error: bool | None = None) -> dict[str, Any]:
    """``{tool_use_id, type: "tool_result", content, [is_error]}``; ``content`` a string or a list of blocks."""
    b: dict[str, Any] = {"tool_use_id": tool_use_id, "type": "tool_result", "content": content}
    if is_error is not None:
        b["is_error"] = is_error
    return b


def usage(
    input_tokens: int = 0, output_tokens: int = 0, cache_creation: int = 0, cache_read: int = 0, service_tier: str | None = "standard"
) -> dict[str, Any]:
    """``message.usage`` in tokens (§7): ``{input_tokens, output_tokens, cache_creation_input_tokens,
    cache_read_input_tokens, [service_tier]}`` (``None`` leaves the tier out)."""
    u: dict[str, Any] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": cache_creation,
        "cache_read_input_tokens": cache_read,
    }
    if service_tier is not None:
        u["service_tier"] = service_tier
    return u


def _zero_usage() -> dict[str, Any]:
    return usage(service_tier=None)


def slash_text(name: str, args: str = "", legacy: bool = False) -> str:
    """The content of a slash-command prompt, ``/name args`` once folded (§4.1). ``legacy`` gives
    the older order (``<command-name>`` first, no "is running…")."""
    n = name.lstrip("/")
    if legacy:
        return f"<command-name>/{n}</command-name>\n<command-message>{n}</command-message>\n<command-args>{args}</command-args>"
    return f"<command-message>{n} is running…</command-message>\n<command-name>/{n}</command-name>\n<command-args>{args}</command-args>"


def bash_input_text(cmd: str) -> str:
    """The content of a bash-mode input (``! cmd`` typed by the user)."""
    return f"<bash-input>{cmd}</bash-input>"


def interrupt_text(for_tool: bool = True) -> str:
    """``[Request interrupted by user…]`` (§6), the text of an interrupt record."""
    return "[Request interrupted by user for tool use]" if for_tool else "[Request interrupted by user]"


def task_result_text(summary: str, agent_id: str, total_tokens: int, tool_uses: int, duration_ms: int) -> str:
    """The tool_result text of a finished Task/Agent call (§9): ``summary``, then the agent id and
    its ``<usage>`` (tokens, tool calls, milliseconds)."""
    return (
        f"{summary}\nagentId: {agent_id} (for resuming to continue this agent's work if needed)\n"
        f"<usage>total_tokens: {total_tokens}\ntool_uses: {tool_uses}\nduration_ms: {duration_ms}</usage>"
    )


def hook_progress(event: str, name: str, command: str = "echo ok") -> dict[str, Any]:
    """The ``data`` of a hook ``progress`` record: ``{type: "hook_progress", hookEvent, hookName, command}``."""
    return {"type": "hook_progress", "hookEvent": event, "hookName": name, "command": command}


# -- bytes ----------------------------------------------------------------------------------------------


def line(rec: dict[str, Any]) -> bytes:
    """One record as compact JSON bytes, UTF-8 as-is, no newline (§2). Lone surrogates and
    other values orjson refuses go through :mod:`json` (``surrogatepass``), as a broken writer would."""
    try:
        return orjson.dumps(rec)
    except TypeError:
        return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def jsonl(records: Iterable[dict[str, Any] | bytes], final_newline: bool = True) -> bytes:
    """Records (dicts, or raw line bytes kept as given) as JSONL file bytes: lines joined by
    ``\\n``, plus a final ``\\n`` unless ``final_newline`` is false (a torn last line)."""
    parts = [r if isinstance(r, bytes) else line(r) for r in records]
    data = b"\n".join(parts)
    return data + b"\n" if final_newline and parts else data
