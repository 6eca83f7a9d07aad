"""Small transcript records built in code, shaped like Claude Code's JSONL (transcript-format.md).

Every helper returns a plain ``dict`` (one record); :func:`jsonl` turns a list of them into file
bytes. Nothing here is copied from the corpus: ids and texts are made up, the shapes follow
``../shared/docs/transcript-format.md`` §3–§10.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_counter = itertools.count(1)

SESSION = "11111111-2222-3333-4444-555555555555"


def _uuid() -> str:
    return f"00000000-0000-4000-8000-{next(_counter):012d}"


def _ts(n: int = 0) -> str:
    return f"2026-01-01T00:00:{n % 60:02d}.000Z"


def envelope(type_: str, **kw: Any) -> dict[str, Any]:
    """The common envelope of a conversation record (uuid, parentUuid, session id, ...)."""
    rec: dict[str, Any] = {
        "parentUuid": kw.pop("parent", None),
        "isSidechain": kw.pop("sidechain", False),
        "userType": "external",
        "cwd": kw.pop("cwd", "/work/demo"),
        "sessionId": kw.pop("session", SESSION),
        "version": kw.pop("version", "2.1.30"),
        "gitBranch": "main",
        "type": type_,
        "uuid": kw.pop("uuid", None) or _uuid(),
        "timestamp": kw.pop("ts", _ts()),
    }
    rec.update(kw)
    return rec


def user(content: Any, **kw: Any) -> dict[str, Any]:
    """A user record whose ``message.content`` is ``content`` (a string or a list of blocks)."""
    return envelope("user", message={"role": "user", "content": content}, **kw)


def prompt(text: str, **kw: Any) -> dict[str, Any]:
    """A typed human prompt (string content)."""
    return user(text, **kw)


def slash(name: str, args: str = "", **kw: Any) -> dict[str, Any]:
    """A slash-command record as Claude Code writes it (``<command-name>`` markup)."""
    text = f"<command-message>{name.lstrip('/')} is running…</command-message>\n<command-name>{name}</command-name>\n<command-args>{args}</command-args>"
    return user(text, **kw)


def bash_input(cmd: str, **kw: Any) -> dict[str, Any]:
    """A bash-mode input (``! cmd`` typed by the user)."""
    return user(f"<bash-input>{cmd}</bash-input>", **kw)


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use_block(tid: str, name: str, inp: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": inp or {}}


def tool_result_block(tid: str, content: Any = "ok", is_error: bool | None = None) -> dict[str, Any]:
    b: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": content}
    if is_error is not None:
        b["is_error"] = is_error
    return b


def usage(inp: int = 0, out: int = 0, cc: int = 0, cr: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_creation_input_tokens": cc,
        "cache_read_input_tokens": cr,
        "service_tier": "standard",
    }


def assistant(
    blocks: Any,
    msg_id: str | None = "msg_1",
    model: str = "claude-sonnet-4-5-20250929",
    u: dict[str, Any] | None = None,
    request_id: str | None = "req_1",
    **kw: Any,
) -> dict[str, Any]:
    """An assistant record holding ``blocks`` (usually one), with usage ``u``."""
    msg: dict[str, Any] = {"model": model, "type": "message", "role": "assistant", "content": blocks, "stop_reason": None}
    if msg_id is not None:
        msg["id"] = msg_id
    if u is not None:
        msg["usage"] = u
    rec = envelope("assistant", message=msg, **kw)
    if request_id is not None:
        rec["requestId"] = request_id
    return rec


def tool_call(tid: str, name: str, inp: dict[str, Any] | None = None, msg_id: str | None = None, **kw: Any) -> dict[str, Any]:
    """An assistant record with one tool_use block."""
    return assistant([tool_use_block(tid, name, inp)], msg_id=msg_id or f"msg_{tid}", request_id=f"req_{tid}", u=usage(1, 1), **kw)


def tool_result(tid: str, content: Any = "ok", is_error: bool | None = None, result: Any = None, **kw: Any) -> dict[str, Any]:
    """A user record carrying one tool_result (``result`` becomes ``toolUseResult``)."""
    extra = {} if result is None else {"toolUseResult": result}
    return user([tool_result_block(tid, content, is_error)], **extra, **kw)


def system(subtype: str | None, **kw: Any) -> dict[str, Any]:
    rec = envelope("system", **kw)
    if subtype is not None:
        rec["subtype"] = subtype
    return rec


def compact_boundary(pre: int = 1000, **kw: Any) -> dict[str, Any]:
    return system(
        "compact_boundary", content="Conversation compacted", level="info", compactMetadata={"trigger": "auto", "preTokens": pre}, **kw
    )


def progress(data: dict[str, Any], parent_tool: str | None = None, **kw: Any) -> dict[str, Any]:
    return envelope("progress", data=data, parentToolUseID=parent_tool, toolUseID=f"t_{next(_counter)}", **kw)


def line(rec: dict[str, Any]) -> bytes:
    """One record as compact JSON bytes (no newline)."""
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def jsonl(records: Iterable[dict[str, Any] | bytes], final_newline: bool = True) -> bytes:
    """Records (dicts, or raw line bytes) as JSONL file bytes."""
    parts = [r if isinstance(r, bytes) else line(r) for r in records]
    data = b"\n".join(parts)
    return data + b"\n" if final_newline and parts else data


def write(path: Path, records: Iterable[dict[str, Any] | bytes], final_newline: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jsonl(records, final_newline))
    return path


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)
