"""The text a reader is shown of one Codex CLI rollout record read back by its anchor (the
drill-down): a call's input, a call's output, a message's words; never the record itself.

The record is the decoded JSON object of one rollout line (``{"timestamp", "type", "payload"}``,
``../shared/docs/codex-format.md``). A ``function_call``'s ``arguments`` is a JSON string: it is
decoded and shown as JSON; a ``custom_tool_call``'s ``input`` (an ``apply_patch`` body) is text; a
``local_shell_call`` shows its ``action``. Outputs are the ``output`` text of
``function_call_output`` / ``custom_tool_call_output``, and an ``exec_command_end`` (the record a
failed command's result is anchored at) says ``exit N`` and its ``aggregated_output``.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["codex_record_text"]

#: the record types of a rollout that carry a ``payload`` object
_ENVELOPES = frozenset({"response_item", "event_msg", "session_meta", "turn_context", "compacted"})


def _json(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def _arguments(v: Any) -> str:
    """A ``function_call``'s arguments as JSON: the JSON string decoded, the string as is when it
    is not JSON, an object given directly as JSON."""
    if isinstance(v, str):
        try:
            return _json(json.loads(v))
        except (ValueError, RecursionError):
            return v
    return "" if v is None else _json(v)


def _output(v: Any) -> str:
    """A call output's text: a string as is; an older build's ``{"output": …}`` object its text;
    a list of content parts their texts joined by newlines; anything else as JSON."""
    if isinstance(v, str):
        return v
    if isinstance(v, dict) and isinstance(v.get("output"), str):
        return v["output"]
    if isinstance(v, list):
        return _parts(v)
    return "" if v is None else _json(v)


def _parts(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "\n".join(p["text"] for p in v if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _exec_end(p: dict[str, Any]) -> str:
    code = p.get("exit_code")
    out = p.get("aggregated_output")
    if not isinstance(out, str):
        out = "\n".join(s for s in (p.get("stdout"), p.get("stderr")) if isinstance(s, str) and s)
    head = f"exit {code}" if isinstance(code, int) else "exec_command_end"
    return f"{head}\n{out}" if out else head


def codex_record_text(rec: dict[str, Any]) -> str | None:
    """The text of rollout record ``rec`` (a decoded JSON object) for a reader, or ``None`` when
    ``rec`` is not a rollout record (no ``payload`` object under a rollout record type): the
    caller then reads it as a Claude Code record. A payload of a type without a rule here is
    shown as its JSON (the payload, never the envelope)."""
    p = rec.get("payload")
    if rec.get("type") not in _ENVELOPES or not isinstance(p, dict):
        return None
    t = p.get("type")
    if t == "function_call":
        return _arguments(p.get("arguments"))
    if t == "custom_tool_call":
        v = p.get("input")
        return v if isinstance(v, str) else _json(v)
    if t == "local_shell_call":
        return _json(p.get("action"))
    if t in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        return _output(p.get("output"))
    if t == "exec_command_end":
        return _exec_end(p)
    if t == "patch_apply_end":
        out = "\n".join(s for s in (p.get("stdout"), p.get("stderr")) if isinstance(s, str) and s)
        head = "patch applied" if p.get("success") else "patch failed"
        return f"{head}\n{out}" if out else head
    if t in ("user_message", "agent_message"):
        v = p.get("message")
        return v if isinstance(v, str) else _json(v)
    if t == "message":
        return _parts(p.get("content"))
    if t == "reasoning":
        return _parts(p.get("summary")) or "(reasoning not stored)"
    if t == "task_complete" and isinstance(p.get("last_agent_message"), str):
        return p["last_agent_message"]
    return _json(p)
