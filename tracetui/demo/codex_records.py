"""Build OpenAI Codex CLI rollouts in code: :class:`RolloutBuilder` (shapes from
``../shared/docs/codex-format.md``; nothing copied from real rollouts).

The builder keeps what a rollout threads through its lines: the clock, the thread id, the call
ids, the cumulative token totals. Ids come from counters, so the same calls give the same bytes.
:meth:`RolloutBuilder.child` starts a subagent's rollout, optionally with the replayed copy of
this (the parent's) history that Codex writes at the start of a forked child.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

__all__ = ["RolloutBuilder", "THREAD_ID", "CODEX_MODEL"]

THREAD_ID = "0199c0de-0000-7000-8000-000000000001"
CODEX_MODEL = "gpt-5.4"
_FMT = "%Y-%m-%dT%H:%M:%S.%f"


def _iso(t: datetime) -> str:
    return t.strftime(_FMT)[:-3] + "Z"


class RolloutBuilder:
    """The lines of one rollout, in file order (:attr:`lines`, plain dicts).

    ``parent`` (a thread id) makes a subagent rollout whose ``session_meta`` names it
    (``source.subagent.thread_spawn.parent_thread_id``). Token totals are cumulative, as Codex
    writes them: :meth:`tokens` adds one response's tokens to the thread's total.
    """

    def __init__(
        self,
        thread_id: str = THREAD_ID,
        start: str = "2026-03-02T09:00:00.000Z",
        model: str = CODEX_MODEL,
        cwd: str = "/home/dev/app",
        parent: str | None = None,
        nickname: str | None = None,
    ) -> None:
        self.thread_id = thread_id
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)
        self.model = model
        self.cwd = cwd
        self.parent = parent
        self.lines: list[dict[str, Any] | bytes] = []
        #: the ``model_context_window`` each ``token_count`` declares (``None``: left out)
        self.window: int | None = 258400
        self.totals = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0}
        self._n = 0
        self._turn = 0
        source: Any = "cli"
        if parent is not None:
            source = {
                "subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1, "agent_nickname": nickname, "agent_role": "explorer"}}
            }
        self.meta = {
            "id": thread_id,
            "timestamp": _iso(self.t),
            "cwd": cwd,
            "originator": "codex_cli_rs",
            "cli_version": "0.130.0",
            "source": source,
            "model_provider": "openai",
        }
        if parent is not None:
            self.meta["forked_from_id"] = parent
        self.add("session_meta", self.meta)

    # -- low level ----------------------------------------------------------------------------
    def tick(self, seconds: float = 1.0) -> RolloutBuilder:
        self.t += timedelta(seconds=seconds)
        return self

    def add(self, type_: str, payload: dict[str, Any], ts: str | None = None) -> RolloutBuilder:
        """Append one line ``{"timestamp", "type", "payload"}`` (stamped now, or ``ts``)."""
        self.lines.append({"timestamp": ts or _iso(self.t), "type": type_, "payload": payload})
        return self

    def event(self, type_: str, **fields: Any) -> RolloutBuilder:
        return self.add("event_msg", {"type": type_, **fields})

    def item(self, type_: str, **fields: Any) -> RolloutBuilder:
        return self.add("response_item", {"type": type_, **fields})

    def raw(self, data: bytes) -> RolloutBuilder:
        """Append a line as given (a torn or malformed one)."""
        self.lines.append(data)
        return self

    def _id(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}_{self._n:04d}"

    # -- a turn -------------------------------------------------------------------------------
    def turn(self, ask: str) -> RolloutBuilder:
        """Open a turn: ``task_started``, ``turn_context``, the environment message, the ask."""
        self._turn += 1
        tid = f"turn-{self._turn:03d}"
        self.event("task_started", turn_id=tid, model_context_window=258400)
        self.add("turn_context", {"turn_id": tid, "cwd": self.cwd, "model": self.model, "approval_policy": "on-request"})
        self.item("message", role="user", content=[{"type": "input_text", "text": "<environment_context>...</environment_context>"}])
        self.item("message", role="user", content=[{"type": "input_text", "text": ask}])
        return self.event("user_message", message=ask, images=[])

    def say(self, text: str) -> RolloutBuilder:
        self.tick(1).item("message", role="assistant", content=[{"type": "output_text", "text": text}])
        return self.event("agent_message", message=text)

    def done(self, last: str = "") -> RolloutBuilder:
        return self.tick(1).event("task_complete", turn_id=f"turn-{self._turn:03d}", last_agent_message=last)

    def abort(self, reason: str = "interrupted") -> RolloutBuilder:
        return self.tick(1).event("turn_aborted", turn_id=f"turn-{self._turn:03d}", reason=reason)

    def tokens(self, inp: int, cached: int, out: int, reasoning: int = 0, repeat: bool = False) -> RolloutBuilder:
        """A ``token_count`` after one response of ``inp`` input tokens (``cached`` of them from
        the cache) and ``out`` output tokens (``reasoning`` of them reasoning); ``repeat`` writes
        the same total twice in a row, as Codex often does."""
        t = self.totals
        t["input_tokens"] += inp
        t["cached_input_tokens"] += cached
        t["output_tokens"] += out
        t["reasoning_output_tokens"] += reasoning
        t["total_tokens"] += inp + out
        last = {
            "input_tokens": inp,
            "cached_input_tokens": cached,
            "output_tokens": out,
            "reasoning_output_tokens": reasoning,
            "total_tokens": inp + out,
        }
        info: dict[str, Any] = {"total_token_usage": dict(t), "last_token_usage": last}
        if self.window is not None:
            info["model_context_window"] = self.window
        for _ in range(2 if repeat else 1):
            self.tick(0.1).event(
                "token_count",
                info=dict(info),
                rate_limits={"primary": {"used_percent": 12.5, "window_minutes": 300, "resets_at": 1772445600}, "secondary": None},
            )
        return self

    def exec(self, cmd: str, output: str = "", exit_code: int = 0, end_first: bool = True) -> str:
        """An ``exec_command`` call, its ``exec_command_end`` and its output; returns the call id."""
        cid = self._id("call")
        self.tick(1).item("function_call", name="exec_command", arguments=orjson.dumps({"cmd": cmd}).decode(), call_id=cid)
        end = {"call_id": cid, "command": ["/bin/bash", "-lc", cmd], "exit_code": exit_code, "aggregated_output": output}
        if end_first:
            self.tick(0.5).event("exec_command_end", **end)
        self.tick(0.1).item("function_call_output", call_id=cid, output=f"Process exited with code {exit_code}\nOutput:\n{output}")
        if not end_first:
            self.tick(0.5).event("exec_command_end", **end)
        return cid

    def _exec_head(self, cid: str, exit_code: int | None, session: int | None, output: str) -> str:
        """The text a unified exec tool's output opens with (Codex CLI 0.120 and later)."""
        state = f"Process exited with code {exit_code}" if exit_code is not None else f"Process running with session ID {session}"
        return f"Chunk ID: {cid[-6:]}\nWall time: 1.0012 seconds\n{state}\nOriginal token count: {len(output.split())}\nOutput:\n{output}"

    def exec_unified(self, cmd: str, output: str = "", exit_code: int | None = 0, session: int | None = None, end: bool = False) -> str:
        """An ``exec_command`` call as Codex CLI 0.130 and later write it: no end event, the
        exit code in its output's head, or (``exit_code`` ``None``) the session it runs on in
        (polled by :meth:`poll`); with ``end``, the ``exec_command_end`` 0.120 writes before
        the output too. Returns the call id."""
        cid = self._id("call")
        self.tick(1).item("function_call", name="exec_command", arguments=orjson.dumps({"cmd": cmd}).decode(), call_id=cid)
        if end and exit_code is not None:
            self.tick(0.5).event(
                "exec_command_end", call_id=cid, command=["/bin/zsh", "-lc", cmd], exit_code=exit_code, aggregated_output=output
            )
        self.tick(0.1).item("function_call_output", call_id=cid, output=self._exec_head(cid, exit_code, session, output))
        return cid

    def poll(self, session: int, output: str = "", exit_code: int | None = None, end_of: str | None = None) -> str:
        """A ``write_stdin`` poll of the command running in ``session``; its output says it
        exited with ``exit_code`` (``None``: it runs on). ``end_of``: the command's call id,
        whose ``exec_command_end`` comes before the poll's output (as 0.120 writes it)."""
        cid = self._id("call")
        self.tick(1).item(
            "function_call", name="write_stdin", arguments=orjson.dumps({"session_id": session, "chars": ""}).decode(), call_id=cid
        )
        if end_of is not None and exit_code is not None:
            self.tick(0.5).event("exec_command_end", call_id=end_of, process_id=str(session), exit_code=exit_code, aggregated_output=output)
        self.tick(0.1).item("function_call_output", call_id=cid, output=self._exec_head(cid, exit_code, session, output))
        return cid

    def call(self, name: str, args: dict[str, Any], output: str | None = "ok") -> str:
        """A ``function_call`` (``arguments`` a JSON string) and, unless ``output`` is ``None``
        (the call stays pending), its output; returns the call id."""
        cid = self._id("call")
        self.tick(1).item("function_call", name=name, arguments=orjson.dumps(args).decode(), call_id=cid)
        if output is not None:
            self.tick(0.1).item("function_call_output", call_id=cid, output=output)
        return cid

    def patch(self, body: str, success: bool = True) -> str:
        """An ``apply_patch`` custom tool call with its ``patch_apply_end`` and output."""
        cid = self._id("call")
        patch = f"*** Begin Patch\n{body}*** End Patch\n"
        self.tick(1).item("custom_tool_call", name="apply_patch", input=patch, call_id=cid, status="completed")
        self.tick(0.1).event("patch_apply_end", call_id=cid, success=success, changes={})
        self.tick(0.1).item("custom_tool_call_output", call_id=cid, output="Success." if success else "Failed.")
        return cid

    def plan(self, steps: list[tuple[str, str]]) -> str:
        return self.call("update_plan", {"plan": [{"step": s, "status": st} for s, st in steps]}, "Plan updated")

    def spawn(self, child: str, message: str, nickname: str = "Harvey") -> str:
        """A ``spawn_agent`` call, its ``collab_agent_spawn_end`` naming thread ``child``."""
        cid = self._id("call")
        self.tick(1).item(
            "function_call",
            name="spawn_agent",
            arguments=orjson.dumps({"agent_type": "explorer", "message": message}).decode(),
            call_id=cid,
        )
        self.tick(0.1).event(
            "collab_agent_spawn_end",
            call_id=cid,
            new_thread_id=child,
            new_agent_nickname=nickname,
            new_agent_role="explorer",
            prompt=message,
            model=self.model,
        )
        self.tick(0.1).item("function_call_output", call_id=cid, output=orjson.dumps({"agent_id": child, "nickname": nickname}).decode())
        return cid

    def compact(self) -> RolloutBuilder:
        self.tick(1).add("compacted", {"message": "", "replacement_history": []})
        return self.event("context_compacted")

    # -- subagents ----------------------------------------------------------------------------
    def child(self, thread_id: str, replay: bool = True, nickname: str = "Harvey") -> RolloutBuilder:
        """A subagent rollout of this thread, starting now. With ``replay``, its second line is
        this rollout's ``session_meta`` and a copy of this rollout's lines follows, every one
        re-stamped at the child's first timestamp (as Codex writes a forked child)."""
        c = RolloutBuilder(thread_id, _iso(self.t), self.model, self.cwd, parent=self.thread_id, nickname=nickname)
        if replay:
            stamp = c.lines[0]["timestamp"]  # type: ignore[index]
            for ln in self.lines:
                if isinstance(ln, dict):
                    c.lines.append({**ln, "timestamp": stamp})
            c.totals = dict(self.totals)
        return c

    # -- output -------------------------------------------------------------------------------
    def data(self, final_newline: bool = True) -> bytes:
        out = b"\n".join(ln if isinstance(ln, bytes) else orjson.dumps(ln) for ln in self.lines)
        return out + b"\n" if final_newline else out

    def write(self, path: Path, final_newline: bool = True) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.data(final_newline))
        return path
