"""FileFold's handlers of tool calls and their results: calls, pending calls, file touches,
subagent links, todos, results read before their call (a mixin of
:class:`tracetui.model.fold.FileFold`, whose state the methods read and write)."""

from __future__ import annotations

from typing import Any

import msgspec

from tracetui.ingest.content import decode_any, result_excerpt, result_text
from tracetui.ingest.decode import MAX_TOKENS, Block, Record, excerpt_of
from tracetui.ingest.tools import SUBAGENT_TOOLS, TODO_TOOLS, brief_input, file_ops
from tracetui.model.fold_messages import EXCERPT_CHARS, _intern
from tracetui.model.state import Anchor, FileTouch, Frontier, SubagentLink, Todo, ToolCall

__all__ = ["ToolHandlers", "EARLY_KEPT", "EARLY_TEXT", "CALLS_TRIM"]

#: tool_results read before their tool_use kept at most (per file), and the characters of one
#: such result's text kept (head and tail); see ``FileFold._keep_early``
EARLY_KEPT = 256
EARLY_TEXT = 16384
#: with a ledger that can find a closed call again (``find_call``), closed calls whose tool_use
#: is more than the ledger's ``find_lag`` events back leave ``FileFold.calls`` every this many
#: new calls (memory: the calls of a session, not the calls ever made)
CALLS_TRIM = 1024


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


class ToolHandlers:
    """The tool handlers of :class:`~tracetui.model.fold.FileFold` (``self`` is the fold)."""

    # the type of the fold's attribute these handlers assign (declared in FileFold.__init__)
    last_action: Frontier | None

    def _tool_use(self: Any, rec: Record, anchor: Anchor, i: int, raw: Any, b: Block, key: str, u: Any, main: bool) -> None:
        name = _intern(b.name) if b.name else "?"
        tid = b.id or ""
        inp = b.input
        if type(inp) is msgspec.Raw:  # else decoded with its block already (any JSON value)
            inp = decode_any(inp)
        brief = brief_input(name, inp)
        said = f"{name}({brief})"
        self._event(
            "tool_use",
            anchor,
            rec,
            i,
            raw,
            excerpt_of(said, EXCERPT_CHARS),
            name=name,
            tool_use_id=tid,
            message_id=key,
            usage=u,
        )
        if not tid:
            # a call no result can ever answer: counted (by name, with its file touch) and
            # listed as a shape problem, never pending; nothing else keys on it
            self._shape(anchor, "block:tool_use", "tool_use without id")
            self.counters.tool_calls += 1
            self.tools_by_name[name] = self.tools_by_name.get(name, 0) + 1
            self._touch(file_ops(name, inp), anchor)
            if main:
                self.last_action = Frontier("tool_use", said, anchor, tool=name, timestamp=rec.timestamp)
            return
        if tid in self.calls or self._find_call(tid, self._seq) is not None:
            return  # the same tool_use read twice is one call
        call = ToolCall(tid, name, brief, anchor, self._seq, rec.timestamp, bool(rec.isSidechain))
        self.calls[tid] = call
        self.pending[tid] = call
        self.counters.tool_calls += 1
        if self.counters.tool_calls % CALLS_TRIM == 0:
            self._trim_calls()
        self.tools_by_name[name] = self.tools_by_name.get(name, 0) + 1
        op = file_ops(name, inp)
        self._touch(op, anchor)
        if name in TODO_TOOLS:
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
            self.last_action = Frontier("tool_use", said, anchor, tool=name, tool_use_id=tid, timestamp=rec.timestamp)
        early = self._early_results.pop(tid, None) if self._early_results else None
        if early is not None:  # its result was read first: the call is answered already
            self._pair(call, *early)

    def _touch(self: Any, op: tuple[str, str] | None, anchor: Anchor) -> None:
        """Count a call's file operation ``op`` (``(path, "read"|"write"|"edit")``, from
        ``file_ops``; ``None``: none) in ``files``."""
        if op is None:
            return
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

    def _tool_result(self: Any, rec: Record, anchor: Anchor, i: int, raw: Any, b: Block, main: bool) -> None:
        tid = b.tool_use_id or ""
        is_error = bool(b.is_error)
        content = b.content  # raw: its whole text is decoded only where a rule reads it
        call = self.calls.get(tid)
        if call is None and tid:
            call = self._find_call(tid, self._seq + 1)  # a closed call that left ``calls`` (a late or repeated result)
        if call is not None:
            tid = call.id  # the call's own string, not a copy per result (memory)
        name = call.name if call is not None else None
        exc = result_excerpt(content, EXCERPT_CHARS)
        self._event("tool_result", anchor, rec, i, raw, exc, name=name, tool_use_id=tid, is_error=is_error)
        if not tid:
            # a result no call can claim: its error (each one) counted, listed as a shape problem
            self._shape(anchor, "block:tool_result", "tool_result without tool_use_id")
            if is_error:
                self.counters.tool_errors += 1
            return
        if is_error and tid not in self._tool_error_ids:
            self._tool_error_ids.add(tid)
            self.counters.tool_errors += 1
        if call is None:
            if tid not in self._early_results:
                self._keep_early(tid, anchor, is_error, exc, result_text(content), rec.toolUseResult)
            return
        self._pair(call, anchor, is_error, exc, content, rec.toolUseResult, rec.timestamp)

    def _find_call(self: Any, tid: str, before: int) -> ToolCall | None:
        """The closed call ``tid`` that :meth:`_trim_calls` let go, found again by the ledger
        (``events.find_call``: its tool_use event, among the events before sequence number
        ``before``), or ``None`` (no such call, or a ledger that finds none: a list, from which
        no call is ever let go)."""
        events = self.events
        if type(events) is list:
            return None  # (a list finds none; asking it would raise and catch an AttributeError)
        find = getattr(events, "find_call", None)
        return find(tid, before) if find is not None else None

    def _trim_calls(self: Any) -> None:
        """Let go of the closed calls whose tool_use is more than ``events.find_lag`` events back
        (by then the ledger finds them: ``events.find_call``). Pending calls stay. Which calls
        go depends only on the events folded, so the same bytes keep the same calls. Nothing
        goes with a ledger that cannot find calls (a list: the pure fold keeps every call)."""
        lag = getattr(self.events, "find_lag", None)
        if lag is None or getattr(self.events, "find_call", None) is None:
            return
        upto = self._seq - lag
        pending = self.pending
        drop = []
        for tid, call in self.calls.items():
            if call.seq > upto:
                break  # calls are in the order of their tool_use (a call found again is re-added, older)
            if tid not in pending:
                drop.append(tid)
        for tid in drop:
            del self.calls[tid]

    def _keep_early(self: Any, tid: str, anchor: Anchor, is_error: bool, exc: str, text: str, tur: Any) -> None:
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

    def _pair(self: Any, call: ToolCall, anchor: Anchor, is_error: bool, exc: str, content: Any, tur: Any, ts: str | None = None) -> None:
        """Pair ``call`` with its tool_result at ``anchor`` (``content`` its content, raw or its
        whole text, see ``result_text``; ``tur`` the record's ``toolUseResult``, raw or decoded;
        ``ts`` its timestamp, when known): the call
        leaves ``pending``; derived state, subagent links and todos take the result. When the
        call was the thread's last action and failed, the frontier says so (``tool_error``)."""
        tid, name = call.id, call.name
        self.pending.pop(tid, None)
        la = self.last_action
        if is_error and la is not None and la.kind == "tool_use" and la.tool_use_id == tid:
            self.last_action = Frontier(
                "tool_error", f"{name}({call.brief}) failed: «{exc}»", anchor, tool=name, tool_use_id=tid, timestamp=ts or la.timestamp
            )
        # a new object, not a mutation: snapshots share the call objects of ``pending``
        call = self.calls[tid] = msgspec.structs.replace(call, result_anchor=anchor, is_error=is_error, result_excerpt=exc)
        if self.derive is not None:
            self.derive.on_result(self, call, content, None)
        inp = self._call_inputs.pop(tid, None) if self._call_inputs else None
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

    def _todos(self: Any, name: str, inp: Any, tur: Any, anchor: Anchor) -> None:
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
