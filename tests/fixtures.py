"""Small transcript records for the tests: :mod:`tracetui.demo.records` with test defaults.

Every helper returns a plain ``dict`` (one record); :func:`jsonl` turns a list of them into file
bytes. Keywords are the envelope keywords of ``tracetui.demo.records`` (``uuid``, ``ts``,
``parent``, ``sidechain``, ``session``, ``cwd``, ``version``); any other keyword becomes a field of
the record. Unless given, a record gets a uuid from one counter shared by the whole test run,
timestamp ``2026-01-01T00:00:00.000Z``, session :data:`SESSION` and cwd ``/work/demo``. Nothing
here is copied from the corpus; the shapes follow ``../shared/docs/transcript-format.md``.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tracetui.demo import records as r
from tracetui.demo.records import jsonl, line, text_block, tool_result_block, tool_use_block

__all__ = [
    "SESSION",
    "envelope",
    "user",
    "prompt",
    "slash",
    "bash_input",
    "interrupt",
    "text_block",
    "tool_use_block",
    "tool_result_block",
    "usage",
    "assistant",
    "tool_call",
    "tool_result",
    "api_error",
    "system",
    "compact_boundary",
    "progress",
    "line",
    "jsonl",
    "write",
    "fan_out",
    "append",
]

_counter = itertools.count(1)

SESSION = "11111111-2222-3333-4444-555555555555"
CWD = "/work/demo"


def _uuid() -> str:
    return f"00000000-0000-4000-8000-{next(_counter):012d}"


def _ts(n: int = 0) -> str:
    return f"2026-01-01T00:00:{n % 60:02d}.000Z"


def _env(kw: dict[str, Any]) -> dict[str, Any]:
    """``kw`` with the test defaults filled in (a fresh uuid when ``uuid`` is missing or ``None``)."""
    kw["uuid"] = kw.pop("uuid", None) or _uuid()
    kw.setdefault("ts", _ts())
    kw.setdefault("session", SESSION)
    kw.setdefault("cwd", CWD)
    return kw


def envelope(type_: str, **kw: Any) -> dict[str, Any]:
    """The common envelope of a conversation record (uuid, parentUuid, session id, ...)."""
    return r.envelope(type_, **_env(kw))


def user(content: Any, **kw: Any) -> dict[str, Any]:
    """A user record whose ``message.content`` is ``content`` (a string or a list of blocks)."""
    return r.user(content, **_env(kw))


def prompt(text: str, **kw: Any) -> dict[str, Any]:
    """A typed human prompt (string content)."""
    return user(text, **kw)


def slash(name: str, args: str = "", **kw: Any) -> dict[str, Any]:
    """A slash-command record as Claude Code writes it (``<command-name>`` markup)."""
    return user(r.slash_text(name, args), **kw)


def bash_input(cmd: str, **kw: Any) -> dict[str, Any]:
    """A bash-mode input (``! cmd`` typed by the user)."""
    return user(r.bash_input_text(cmd), **kw)


def interrupt(for_tool: bool = True, **kw: Any) -> dict[str, Any]:
    """``[Request interrupted by user…]`` as a text block."""
    return user([text_block(r.interrupt_text(for_tool))], **kw)


def usage(inp: int = 0, out: int = 0, cc: int = 0, cr: int = 0) -> dict[str, Any]:
    """``message.usage`` in tokens: input, output, cache creation, cache read; tier ``standard``."""
    return r.usage(inp, out, cc, cr)


def assistant(
    blocks: Any,
    msg_id: str | None = "msg_1",
    model: str = r.MODEL,
    u: dict[str, Any] | None = None,
    request_id: str | None = "req_1",
    **kw: Any,
) -> dict[str, Any]:
    """An assistant record holding ``blocks`` (usually one), with usage ``u``."""
    return r.assistant(blocks, msg_id=msg_id, usage=u, model=model, request_id=request_id, **_env(kw))


def tool_call(tid: str, name: str, inp: dict[str, Any] | None = None, msg_id: str | None = None, **kw: Any) -> dict[str, Any]:
    """An assistant record with one tool_use block."""
    return assistant([tool_use_block(tid, name, inp)], msg_id=msg_id or f"msg_{tid}", request_id=f"req_{tid}", u=usage(1, 1), **kw)


def tool_result(tid: str, content: Any = "ok", is_error: bool | None = None, result: Any = None, **kw: Any) -> dict[str, Any]:
    """A user record carrying one tool_result (``result`` becomes ``toolUseResult``)."""
    return r.tool_result(tid, content, is_error=is_error, result=result, **_env(kw))


def api_error(text: str = "API Error: 500 overloaded", msg_id: str | None = None, **kw: Any) -> dict[str, Any]:
    """The synthetic assistant record of a failed API call (``isApiErrorMessage``), zero usage."""
    env = _env(kw)
    return r.api_error(text, msg_id=msg_id or env["uuid"], error=None, usage=usage(), stop_reason=None, **env)


def system(subtype: str | None, **kw: Any) -> dict[str, Any]:
    """A system record (``subtype`` left out when ``None``)."""
    return r.system(subtype, **_env(kw))


def compact_boundary(pre: int = 1000, **kw: Any) -> dict[str, Any]:
    """``system/compact_boundary`` triggered ``auto`` with ``preTokens: pre``."""
    return r.compact_boundary(pre, **_env(kw))


def progress(data: dict[str, Any], parent_tool: str | None = None, **kw: Any) -> dict[str, Any]:
    """A progress record with ``data`` under tool call ``parent_tool``."""
    tool_use_id = f"t_{next(_counter)}"
    return r.progress(data, tool_use_id=tool_use_id, parent_tool_use_id=parent_tool, **_env(kw))


def write(path: Path, records: Iterable[dict[str, Any] | bytes], final_newline: bool = True) -> Path:
    """Write ``records`` as JSONL at ``path`` (parents created); returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jsonl(records, final_newline))
    return path


def fan_out(folder: Path, n: int, session: str = "5e55a0c1-0000-4000-8000-000000000000") -> Path:
    """A session under ``folder`` whose one prompt starts ``n`` subagents, each a Task call
    answered by its subagent's file (2.1.x layout: ``<session>/subagents/agent-<id>.jsonl`` with
    its ``.meta.json``; a prompt, a Read and a text each); returns the main transcript's path."""
    from tracetui.demo.transcript import TranscriptBuilder

    m = TranscriptBuilder(session_id=session)
    m.prompt("Explore every module, one subagent each")
    for i in range(n):
        tid = m.tick(0.5).tool_use("Task", {"description": f"explore {i}", "prompt": f"Read module {i}", "subagent_type": "Explore"})
        s = m.subagent(f"a{i:016x}", tid, agent_type="Explore", description=f"explore {i}")
        s.tick(0.2).prompt(f"Read module {i}")
        s.tick(0.5).tool("Read", {"file_path": f"/home/dev/shop-api/mod{i}.py"}, "     1\tx = 1", took=0.2)
        s.tick(0.5).text(f"Module {i} sets x.")
        m.sync(s).tick(0.1).task_result(s, f"Module {i} sets x.")
    m.tick(1).text("Done.")
    return m.write_session(folder)


def append(path: Path, data: bytes) -> None:
    """Append ``data`` to the file at ``path``."""
    with open(path, "ab") as f:
        f.write(data)


def database_fds() -> int:
    """This process's descriptors open on a session database file (``*.sqlite``, not its WAL or
    shared-memory file): one per open connection (Linux ``/proc/self/fd``)."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            n += os.readlink(f"/proc/self/fd/{fd}").endswith(".sqlite")
        except OSError:
            pass
    return n


def future_reply_session(reply_ts: str) -> bytes:
    """A prompt at 2026-01-01T00:00Z, its reply stamped ``reply_ts`` (a record of year 2099, say),
    and the next prompt ten minutes on: the JSONL bytes (the tests of a record time past the clock)."""
    recs = [
        {"type": "user", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "first ask"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": reply_ts,
            "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "done"}]},
        },
        {
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a1",
            "timestamp": "2026-01-01T00:10:00Z",
            "message": {"role": "user", "content": "next"},
        },
    ]
    return "\n".join(json.dumps(r) for r in recs).encode() + b"\n"
