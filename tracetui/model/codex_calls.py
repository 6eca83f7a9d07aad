"""CodexFold's handlers of tool calls, their outputs and end events, subagent spawns, and token
counts (a mixin of :class:`tracetui.model.codex_fold.CodexFold`, whose state, FileFold's, the
methods read and write).

* A call is a ``function_call``, ``custom_tool_call`` or ``local_shell_call``, by ``call_id``;
  it is pending until its ``*_output`` arrives. It failed when its ``exec_command_end`` has a
  non-zero ``exit_code`` or its ``patch_apply_end`` has ``success`` false (counted once per call,
  whether the end event comes before or after the output), or when its output says the command
  exited with a code other than 0 (``Process exited with code N``: Codex CLI 0.130 and later
  write no ``exec_command_end``; where both are written they agree). A command that outlives its
  first output runs on in a session its ``write_stdin`` polls: the poll whose output says it
  exited so is the failed call (once per command: not when its end event was read before).
* ``apply_patch`` touches the files its patch names (writes and edits counted, paths as
  written); ``update_plan`` replaces the todo list when its output arrives; ``spawn_agent`` makes
  a subagent link, which ``collab_agent_spawn_end`` names the child thread of.
* Tokens come from the cumulative ``token_count`` totals: each change of the total is one
  usage entry of the thread (a repeated total adds nothing; a total with a field below the one
  before starts a new count, taken whole). input = ``input_tokens`` - ``cached_input_tokens``,
  cache read = ``cached_input_tokens``, output = ``output_tokens`` (reasoning included), cache
  creation = ``cache_write_input_tokens``. The model is the latest ``turn_context.model``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tracetui.ingest.codex_decode import (
    call_arguments,
    call_brief,
    context_window_of,
    exec_status,
    is_poll,
    patch_files,
    plan_todos,
    rate_windows,
    text_of,
    token_info,
    token_info_error,
)
from tracetui.ingest.codex_schema import CodexRecord, Payload, RateLimits, TokenInfo
from tracetui.ingest.content import decode_any, result_excerpt
from tracetui.ingest.decode import excerpt_of
from tracetui.model.fold_messages import EXCERPT_CHARS, _intern
from tracetui.model.fold_tools import CALLS_TRIM
from tracetui.model.pricing import NO_MODEL, utc_day
from tracetui.model.state import Anchor, Frontier, RateLimit, SubagentLink, Todo, ToolCall

__all__ = ["CodexCalls", "NOTICE", "SPAWN_TOOL", "PLAN_TOOL", "PATCH_TOOL"]

SPAWN_TOOL = "spawn_agent"
#: the marks around the message that tells a parent of a subagent's end
NOTICE = "<subagent_notification>"
NOTICE_END = "</subagent_notification>"
#: the unified exec tools: a command, and the poll (or input) of one still running
EXEC_TOOL = "exec_command"
POLL_TOOL = "write_stdin"
#: running commands' sessions remembered at most (a session a poll never saw end is dropped)
_MAX_SESSIONS = 256
PLAN_TOOL = "update_plan"
PATCH_TOOL = "apply_patch"


class CodexCalls:
    """The call and token handlers of :class:`~tracetui.model.codex_fold.CodexFold`."""

    last_action: Frontier | None

    def _call(self: Any, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        pt = p.type
        if pt == "function_call":
            args = call_arguments(p.arguments)
        elif pt == "custom_tool_call":
            args = decode_any(p.input)
        else:  # local_shell_call: its action holds the command
            args = decode_any(p.action)
        name = _intern(p.name or ("local_shell" if pt == "local_shell_call" else "?"))
        cid = p.call_id or ""
        ops = patch_files(args) if name == PATCH_TOOL and isinstance(args, str) else []
        brief = call_brief(name, args, ops)
        label = f"{name}({brief})"
        self._event("tool_use", anchor, st, 0, payload, excerpt_of(label, EXCERPT_CHARS), name=name, tool_use_id=cid)
        if cid and (cid in self.calls or self._find_call(cid, self._seq) is not None):
            return  # the same call read twice is one call
        c = self.counters
        c.tool_calls += 1
        if c.tool_calls % CALLS_TRIM == 0:
            self._trim_calls()  # closed calls leave ``calls`` when the ledger can find them again
        by_name = self.tools_by_name
        by_name[name] = by_name.get(name, 0) + 1
        for op in ops:
            self._touch(op, anchor)
        self.last_action = Frontier("tool_use", label, anchor, name, cid or None, st.timestamp)
        if not cid:
            # a call no output can ever answer: counted, listed as a shape problem, never pending
            self._shape(anchor, f"response_item:{pt}", "call without call_id")
            return
        call = ToolCall(cid, name, brief, anchor, self._seq, st.timestamp, False)
        self.calls[cid] = call
        self.pending[cid] = call
        if self.derive is not None:
            # a poll of a running command is no repeated action: its input is made its own
            seen = {"poll": cid, **args} if is_poll(name, args) else args
            self.derive.on_call(self, call, seen, ops[0] if ops else None)
        if name == POLL_TOOL and isinstance(args, dict):
            sid = args.get("session_id")
            if isinstance(sid, (int, str)) and not isinstance(sid, bool):
                self._polls[cid] = str(sid)
        if name == PLAN_TOOL:
            todos = plan_todos(args)
            if todos is not None:
                self._call_inputs[cid] = [list(t) for t in todos]
        elif name == SPAWN_TOOL and isinstance(args, dict):
            msg = args.get("message")
            desc = excerpt_of(msg, 60) if isinstance(msg, str) else brief
            role = args.get("agent_type")
            self.subagents[cid] = SubagentLink(cid, name, desc, role if isinstance(role, str) else None, anchor)
        if cid in self._failed_early:
            self._failed_early.discard(cid)
            self._fail(cid)

    def _fail(self: Any, cid: str) -> None:
        """Count call ``cid`` (read already) as failed, once; a call already answered is
        marked failed too (a new object: snapshots share the old one)."""
        if cid in self._tool_error_ids:
            return
        self._tool_error_ids.add(cid)
        self.counters.tool_errors += 1
        call = self.calls.get(cid)
        if call is not None and cid not in self.pending and not call.is_error:
            self.calls[cid] = msgspec.structs.replace(call, is_error=True)

    def _call_end(self: Any, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        """``exec_command_end`` / ``patch_apply_end``: whether the call failed. A failure read
        after the call's output (a command that outlived its first output) is the call's result
        from then on: a ``tool_result`` event (the episode and the anomalies count the error),
        else the end event is the call's ``progress``."""
        cid = p.call_id or ""
        if p.type == "exec_command_end":
            code = p.exit_code
            failed = type(code) is int and code != 0
            text = f"exit {code}" if code is not None else "exec_command_end"
        else:
            failed = p.success is False
            text = "patch applied" if p.success is True else ("patch failed" if failed else "patch_apply_end")
        call = self.calls.get(cid) if cid else None
        if call is None and cid and failed:
            call = self._find_call(cid, self._seq)
        if call is not None:
            cid = call.id
        late = failed and call is not None and cid not in self.pending and cid not in self._tool_error_ids
        if late and call is not None:
            self._event("tool_result", anchor, st, 0, payload, text, name=call.name, tool_use_id=cid, is_error=True)
        else:
            self._event("progress", anchor, st, 0, payload, text, name=_intern(p.type or ""), tool_use_id=cid or None, is_error=failed)
        if not failed or not cid:
            return
        if call is None:
            self._failed_early.add(cid)
            return
        self._fail(cid)
        if late:
            call = msgspec.structs.replace(call, is_error=True, result_anchor=anchor, result_excerpt=text)
            if cid in self.calls:
                self.calls[cid] = call
            la = self.last_action
            if la is not None and la.kind == "tool_use" and la.tool_use_id == cid:
                self.last_action = Frontier(
                    "tool_error",
                    f"{call.name}({call.brief}) failed: «{text}»",
                    anchor,
                    tool=call.name,
                    tool_use_id=cid,
                    timestamp=st.timestamp,
                )
            if self.derive is not None:
                self.derive.on_result(self, call, text_of(p.aggregated_output) or text, None)

    def _output(self: Any, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        """A ``*_output`` answering call ``call_id``: the call leaves ``pending``."""
        cid = p.call_id or ""
        call = self.calls.get(cid) if cid else None
        if call is None and cid:
            call = self._find_call(cid, self._seq + 1)
        if call is not None:
            cid = call.id
            if call.name == EXEC_TOOL or call.name == POLL_TOOL:
                self._exit(call, p.output)
        is_error = cid in self._tool_error_ids
        out = p.output
        if out and memoryview(out)[0] == 34:
            # a string, the common output: kept raw, its excerpt from its start and its text
            # decoded only where a rule reads it (as a Claude tool_result's content)
            content: Any = out
            exc = result_excerpt(out, EXCERPT_CHARS)
        else:
            content = text_of(out)
            exc = excerpt_of(content, EXCERPT_CHARS)
        name = call.name if call is not None else None
        self._event("tool_result", anchor, st, 0, payload, exc, name=name, tool_use_id=cid, is_error=is_error)
        if call is None:
            if not cid:
                self._shape(anchor, f"response_item:{p.type}", "output without call_id")
            return
        if cid not in self.calls:
            self.calls[cid] = call
        self._pair(call, anchor, is_error, exc, content, None, st.timestamp)
        if call.name == SPAWN_TOOL:
            link = self.subagents.get(cid)
            if link is not None and link.status == "running":
                self.subagents[cid] = msgspec.structs.replace(link, status="error" if is_error else "async_launched", result_anchor=anchor)

    def _exit(self: Any, call: ToolCall, out: Any) -> None:
        """What a unified exec call's output says of its command (``exec_status``): an exit
        code other than 0 fails the call (a poll's only when its command's end event did not
        fail the command already), a session still running is remembered for its polls."""
        code, session = exec_status(out)
        cid = call.id
        if call.name == POLL_TOOL:
            polled = self._polls.pop(cid, None)
            if code is None:
                return
            started = self._exec_sessions.pop(polled, None) if polled is not None else None
            if started is not None and started in self._tool_error_ids:
                return  # its exec_command_end said so: counted on the command's call
            if code != 0:
                self._fail(cid)
                if started is not None:
                    # counted here: the command's end event, if one comes, counts it no more
                    self._tool_error_ids.add(started)
            return
        if session is not None:
            if len(self._exec_sessions) >= _MAX_SESSIONS:
                del self._exec_sessions[next(iter(self._exec_sessions))]
            self._exec_sessions[session] = cid
        elif code is not None and code != 0:
            self._fail(cid)

    def _todos(self: Any, name: str, inp: Any, tur: Any, anchor: Anchor) -> None:
        """The todo list an ``update_plan`` call set, once its output arrived (``inp``: its
        ``[step, status]`` pairs)."""
        if name != PLAN_TOOL or not isinstance(inp, list):
            return
        self.todos = {str(n + 1): Todo(str(n + 1), step, status, anchor, PLAN_TOOL) for n, (step, status) in enumerate(inp)}

    def _collab(self: Any, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        """A subagent's spawn (it names the child thread), wait or close (its status)."""
        cid = p.call_id or ""
        pt = _intern(p.type or "")
        if pt == "collab_agent_spawn_end":
            link = self.subagents.get(cid)
            child = p.new_thread_id
            if link is None and cid:
                desc = p.new_agent_nickname or (child or "")
                link = SubagentLink(cid, SPAWN_TOOL, desc, p.new_agent_role, anchor)
            if link is not None and isinstance(child, str):
                desc = f"{p.new_agent_nickname}: {link.description}" if p.new_agent_nickname else link.description
                self.subagents[cid] = msgspec.structs.replace(link, agent_id=child, description=desc)
            elif link is not None and link.status == "running":  # no thread: the spawn failed (a thread limit)
                self.subagents[cid] = msgspec.structs.replace(link, status="error", result_anchor=anchor)
        else:
            done = _statuses(p)
            for tid, link in list(self.subagents.items()):
                if link.agent_id in done and link.status in ("running", "async_launched"):
                    self.subagents[tid] = msgspec.structs.replace(link, status=done[link.agent_id])
        self._event("metadata", anchor, st, 0, payload, pt, name=pt, tool_use_id=cid or None)

    def _notice(self: Any, text: str) -> None:
        """A ``<subagent_notification>`` the parent is given (a user message: ``{"agent_path":
        child thread id, "status": {"completed": …}}``): the child's link ends as it says,
        where no ``collab_*`` event of the rollout said so (seventh user trial: three subagents
        stayed ``async_launched`` after their completion was told)."""
        body = text[len(NOTICE) :].strip()
        if body.endswith(NOTICE_END):
            body = body[: -len(NOTICE_END)].strip()
        try:
            obj = msgspec.json.decode(body)
        except (msgspec.DecodeError, RecursionError):
            return
        if not isinstance(obj, dict):
            return
        done = _ended(obj.get("agent_path"), obj.get("status"))
        for tid, link in list(self.subagents.items()):
            if link.agent_id in done and link.status in ("running", "async_launched"):
                self.subagents[tid] = msgspec.structs.replace(link, status=done[link.agent_id])

    # -- tokens -----------------------------------------------------------------------------
    def _totals(self: Any, p: Payload) -> tuple[int, int, int, int] | None:
        """The cumulative totals ``(input, cached input, output, cache write)`` of a
        ``token_count``, or ``None``; keeps the context window it declares (``context_window``,
        and the anomaly tracker's, which the ``context_pressure`` rule reads)."""
        got = p.info
        info = got if type(got) is TokenInfo else token_info(got)
        if info is None:
            return None
        window = context_window_of(info)
        if window and window != self.context_window:
            self.context_window = window
            if self.derive is not None:
                self.derive.on_context_window(window)
        last = info.last_token_usage
        if last is not None:
            self.context_used = last.input_tokens  # cached included: the whole request
        t = info.total_token_usage
        if t is None:
            return None
        return (t.input_tokens, t.cached_input_tokens, t.output_tokens, t.cache_write_input_tokens)

    def _token_count(self: Any, p: Payload, st: CodexRecord, anchor: Anchor, payload: Any) -> None:
        rl = p.rate_limits
        if type(rl) is RateLimits:  # decoded with the line (TypedPayload): its windows as they are
            w = rl.primary
            if w is not None:
                self.rate_limits["primary"] = RateLimit("primary", w.used_percent, w.window_minutes, w.resets_at, anchor)
            w = rl.secondary
            if w is not None:
                self.rate_limits["secondary"] = RateLimit("secondary", w.used_percent, w.window_minutes, w.resets_at, anchor)
        elif rl:  # raw (a line of another shape); absent or null: no window to keep
            for wname, w in rate_windows(rl).items():
                self.rate_limits[wname] = RateLimit(wname, w.used_percent, w.window_minutes, w.resets_at, anchor)
        cur = self._totals(p)
        if cur is None:
            why = token_info_error(p.info)
            if why is not None:
                # a total of another type or outside 0..MAX_TOKENS: not counted, and said so (as
                # the Claude fold rejects such a usage: usage_rejected, an unknown entry)
                self.counters.unknown_records += 1
                self.counters.usage_rejected += 1
                self._unknown(anchor, "event_msg:token_count", f"usage rejected: {why}")
                if self.model:
                    self.models.setdefault(self.model, 0)  # the model was used, its tokens are what is unknown
        if cur is None or cur == self._tok_base:  # no total, or a repeated one: no usage
            self._event("metadata", anchor, st, 0, payload, "token_count", name="token_count")
            return
        base = self._tok_base
        if base is None or cur[0] < base[0] or cur[1] < base[1] or cur[2] < base[2] or cur[3] < base[3]:
            d = cur  # the first total, or one below the last: a new count
        else:
            d = (cur[0] - base[0], cur[1] - base[1], cur[2] - base[2], cur[3] - base[3])
        self._tok_base = cur
        # input includes the cached part; never below zero (a cache count grown past input)
        u = (max(d[0] - d[1], 0), d[2], d[3], d[1], 0)
        key = f"{self.thread_id or self.src}#{self._tok_n}"
        self._tok_n += 1
        model = self.model or NO_MODEL
        self.models[model] = self.models.get(model, 0) + 1
        usage = self.usage
        usage.add_new(key, model, u, utc_day(st.timestamp))  # one new id a change of the total
        self.counters.api_messages = len(usage)
        if self.on_usage is not None:
            self.on_usage(key, model, u, usage.day_of(key))
        ev = self._event("metadata", anchor, st, 0, payload, "token_count", name="token_count", message_id=key, usage=u)
        derive = self.derive
        if derive is not None:
            derive.on_model(key, model)  # the episode's tokens by model
            # a response's tokens: what a Claude assistant event with usage tells the anomaly
            # trackers (an API error streak ends, the context_pressure rule)
            derive.on_codex_usage(ev, self.model, self.context_used or None)


def _ended(tid: Any, status: Any) -> dict[str, str]:
    """``{tid: "completed" | "error"}`` when ``status`` (a child's status object) says it ended
    so, else ``{}``."""
    if isinstance(tid, str) and isinstance(status, dict):
        if "completed" in status:
            return {tid: "completed"}
        if any(k in status for k in ("errored", "error", "failed")):
            return {tid: "error"}
    return {}


def _statuses(p: Payload) -> dict[str, str]:
    """Child thread id → ``completed`` | ``error`` from a ``collab_waiting_end``'s
    ``agent_statuses`` or a ``collab_close_end``'s ``receiver_thread_id`` and ``status``."""
    out: dict[str, str] = {}

    def one(tid: Any, status: Any) -> None:
        out.update(_ended(tid, status))

    statuses = decode_any(p.agent_statuses) if p.agent_statuses else None
    if isinstance(statuses, list):
        for s in statuses:
            if isinstance(s, dict):
                one(s.get("thread_id"), s.get("status"))
    if p.receiver_thread_id:
        one(p.receiver_thread_id, decode_any(p.status) if p.status else None)
    return out
