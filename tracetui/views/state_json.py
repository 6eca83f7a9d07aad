"""``tracetui state``: the RunState as a JSON object, and as a short human summary."""

from __future__ import annotations

from typing import Any

from tracetui.ingest.agents import agent_name
from tracetui.model.state import Anchor, PromptInfo, RunState, one_line_name, unknown_text
from tracetui.views.format import fmt_count, plural
from tracetui.views.safe import export_text, line_redacted, state_secrets
from tracetui.views.text import known_part, session_cost_text

__all__ = ["state_to_json", "state_summary", "anchor_json"]

#: files the summary lists one a line (the main file first); the others, unless one has a note (bytes
#: pending, a reset, an error), are one line of totals: a session of 1,200 subagent files printed
#: 1,200 lines (ninth user trial)
SOURCE_LINES = 10

_COUNTER_KEYS = (
    "records",
    "malformed",
    "unknown_records",
    "unknown_blocks",
    "tool_calls",
    "tool_errors",
    "api_messages",
    "user_prompts",
    "interrupts",
    "compactions",
    "api_errors",
    "api_retries",
    "sidechain_records",
    "usage_rejected",
    "shape_errors",
)


def anchor_json(state: RunState, a: Anchor | None) -> dict[str, Any] | None:
    """``{"file", "line", "offset"}`` (offset in bytes), or ``None``."""
    if a is None:
        return None
    return {"file": state.source_name(a.src), "line": a.line, "offset": a.offset}


def _prompt(state: RunState, p: PromptInfo | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"text": p.text, "form": p.form, "anchor": anchor_json(state, p.anchor), "timestamp": p.timestamp}


def state_to_json(state: RunState) -> dict[str, Any]:
    """The state as plain JSON types: counters, tokens, cost, pending calls, files, models,
    goal, latest ask, frontier, todos, subagents, per-agent breakdown and sources."""
    c = state.counters
    t = state.tokens
    agents = []
    for a in (state.main, *state.agents):
        agents.append(
            {
                "agent": a.agent_id or ("main" if a.src == state.main.src else state.source_name(a.src)),
                "file": state.source_name(a.src),
                "counters": {k: getattr(a.counters, k) for k in _COUNTER_KEYS},
                "tokens": {
                    "input": a.tokens.input,
                    "output": a.tokens.output,
                    "cache_creation": a.tokens.cache_creation,
                    "cache_read": a.tokens.cache_read,
                },
                "tool_calls_by_name": dict(a.tools_by_name),
            }
        )
    fr = state.frontier
    return {
        "session_id": state.main.session_id,
        # which agent wrote the session: claude | codex (every other key is the same for both)
        "agent": state.agent,
        "cwd": state.main.cwd,
        "version": state.main.version,
        "title": state.main.title,
        "counters": {k: getattr(c, k) for k in _COUNTER_KEYS},
        "tool_calls_by_name": dict(state.tools_by_name),
        "tokens": {"input": t.input, "output": t.output, "cache_creation": t.cache_creation, "cache_read": t.cache_read},
        "tokens_by_model": {
            m: {"input": v.input, "output": v.output, "cache_creation": v.cache_creation, "cache_read": v.cache_read}
            for m, v in state.tokens_by_model.items()
        },
        "cost_usd": state.cost_usd,
        "cost_note": state.cost_note,
        # with cost_usd null: the USD of the messages that have a known price (0 when none has)
        "cost_known_usd": known_part(state),
        "pending_calls": [
            {"id": p.id, "name": p.name, "input": p.brief, "anchor": anchor_json(state, p.anchor), "timestamp": p.timestamp}
            for p in state.pending
        ],
        "files": [
            {"path": f.path, "reads": f.reads, "writes": f.writes, "edits": f.edits, "last": anchor_json(state, f.last)}
            for f in state.files
        ],
        "models": list(state.models),
        "goal": _prompt(state, state.goal),
        "latest_ask": _prompt(state, state.latest_ask),
        "frontier": None if fr is None else {"kind": fr.kind, "text": fr.text, "anchor": anchor_json(state, fr.anchor)},
        "todos": [{"id": td.id, "content": td.content, "status": td.status, "anchor": anchor_json(state, td.anchor)} for td in state.todos],
        "subagents": [
            {
                "tool_use_id": s.tool_use_id,
                "description": s.description,
                "subagent_type": s.subagent_type,
                "status": s.status,
                "agent_id": s.agent_id,
                "file": state.source_name(s.source) if s.source is not None else None,
                "anchor": anchor_json(state, s.anchor),
                # its records inline in the main file (isSidechain), when it has no file of its own
                "inline": None
                if not s.inline_records
                else {
                    "records": s.inline_records,
                    "tool_calls": s.inline_tool_calls,
                    "first": anchor_json(state, s.inline_first),
                    "last": anchor_json(state, s.inline_last),
                },
            }
            for s in state.main.subagents
        ],
        "agents": agents,
        "compactions": [anchor_json(state, a) for a in state.main.compactions],
        "quarantine": [
            {"anchor": anchor_json(state, q.anchor), "reason": q.reason, "excerpt": q.excerpt}
            for src in (state.main, *state.agents)
            for q in src.quarantine
        ],
        # records and blocks kept as unknown (a type the fold does not know, an unexpected shape,
        # a rejected usage), with why: the samples each file keeps (all are counted)
        "unknown": [
            {"anchor": anchor_json(state, u.anchor), "type": u.type, "reason": u.reason}
            for src in (state.main, *state.agents)
            for u in src.unknown
        ],
        "sources": [
            {
                "path": s.path,
                "role": s.role,
                "agent_id": s.agent_id,
                "size": s.size,
                "bytes_consumed": s.consumed,
                "resume_offset": s.consumed,
                "lines": s.lines,
                "pending_bytes": s.pending_bytes,
                "malformed": s.malformed,
                "unknown": s.unknown,
                "unknown_records": s.unknown_records,
                "unknown_blocks": s.unknown_blocks,
                "truncated": s.truncated > 0,
                "replaced": s.replaced > 0,
                "resets": list(s.resets),
                "error": s.error,
            }
            for s in state.sources
        ],
    }


_fmt_int = fmt_count


def state_summary(state: RunState) -> str:
    """A short human summary (plain text, a dozen lines)."""
    c = state.counters
    t = state.tokens
    lines = []
    main = state.sources[0] if state.sources else None
    # a Codex session names its agent first; a Claude Code session's line is as it always was
    who = f"{agent_name(state.agent)}, " if state.agent not in (None, "claude") else ""
    sid = one_line_name(state.main.session_id or "?")
    lines.append(f"session  {sid}  ({who}{state.source_name(0) if main else '?'}, {plural(len(state.sources) - 1, 'subagent file')})")
    if state.goal:
        lines.append(f"goal     {_short(state.goal.text)}  [{state.fmt_anchor(state.goal.anchor)}]")
    if state.latest_ask and state.latest_ask is not state.goal:
        lines.append(f"latest   {_short(state.latest_ask.text)}  [{state.fmt_anchor(state.latest_ask.anchor)}]")
    if state.frontier:
        lines.append(f"now      {state.frontier.kind}: {_short(state.frontier.text)}  [{state.fmt_anchor(state.frontier.anchor)}]")
    lines.append(
        f"records  {_fmt_int(c.records)}  prompts {_fmt_int(c.user_prompts)}  interrupts {_fmt_int(c.interrupts)}  compactions {_fmt_int(c.compactions)}"
        f"  malformed {_fmt_int(c.malformed)}  {unknown_text(c.unknown_records, c.unknown_blocks)}"
    )
    tools = list(state.tools_by_name.items())
    top = ", ".join(f"{k} {_fmt_int(v)}" for k, v in tools[:6]) + (f", +{plural(len(tools) - 6, 'more tool')}" if len(tools) > 6 else "")
    lines.append(
        f"tools    {_fmt_int(c.tool_calls)} calls"
        + (f" ({top})" if top else "")
        + f"  errors {_fmt_int(c.tool_errors)}  pending {_fmt_int(len(state.pending))}"
    )
    lines.append(
        f"tokens   in {_fmt_int(t.input)}  out {_fmt_int(t.output)}  cache write {_fmt_int(t.cache_creation)}"
        f"  cache read {_fmt_int(t.cache_read)}  ({plural(c.api_messages, 'API message')})"
    )
    cost = session_cost_text(state)
    lines.append(f"cost     {cost}   models {', '.join(state.models) or '-'}")
    lines.append(
        f"files    {_fmt_int(len(state.files))} touched   todos {_fmt_int(len(state.todos))}   subagents {_fmt_int(len(state.main.subagents))}"
    )
    rest = [0, 0, 0, 0]  # the files not listed: how many, bytes read, bytes, lines
    for i, s in enumerate(state.sources):
        flags = []
        if s.pending_bytes:
            flags.append(f"{_fmt_int(s.pending_bytes)} bytes pending: a last line without its newline, not yet a whole record")
        if s.truncated or s.replaced:
            flags.append("; ".join(s.resets))
        if s.error:
            flags.append(s.error)
        if i >= SOURCE_LINES and not flags:
            rest[0] += 1
            rest[1] += s.consumed
            rest[2] += s.size
            rest[3] += s.lines
            continue
        lines.append(
            f"source   {one_line_name(s.name)}: {_fmt_int(s.consumed)} of {_fmt_int(s.size)} bytes, {_fmt_int(s.lines)} lines"
            + (f"  ({'; '.join(flags)})" if flags else "")
        )
    if rest[0]:
        lines.append(
            f"source   +{plural(rest[0], 'more file')}: {_fmt_int(rest[1])} of {_fmt_int(rest[2])} bytes, {_fmt_int(rest[3])} lines"
            " in all, none with a note (state --json lists each)"
        )
    return export_text("\n".join(lines), seen=state_secrets(state))


def _short(text: str, limit: int = 100) -> str:
    return line_redacted(text, limit)
