"""``tracetui report`` and ``tracetui search`` as text and JSON: pure functions of the index's
answers (session/index), no I/O.

The report is an aligned table, one row per day, ISO week, month, project or session, then the
total; tokens are exact counts per kind, the cost is an estimate (genai-prices) and says so,
and a row whose models include one without a known price shows ``unknown``, never ``$0.00``.
Every string taken from a transcript or a path (a session id, a project folder, a working
directory) is given with its secrets masked (views/safe.py ``redacted``); the caller makes the
text terminal-safe (views/safe.py ``safe_text``) and the JSON too (``json_safe``). The report's
own words are not masked again: they hold no secret, and a label that hits the detectors' gates
("token") would load them for nothing.
"""

from __future__ import annotations

from typing import Any

from tracetui.ingest.agents import agent_name
from tracetui.model.state import one_line_name
from tracetui.session.index.elsewhere import Elsewhere
from tracetui.session.index.query import Group, Report
from tracetui.session.index.search import Hit
from tracetui.views.format import fmt_count, fmt_usd, fmt_usd_known, plural
from tracetui.views.safe import redacted

__all__ = ["render_report", "report_json", "render_hits", "hits_json", "COST_LABEL"]

#: what every cost figure of a report is
COST_LABEL = "estimated USD (genai-prices; each API message priced at its own day and tier)"
#: characters of a project, folder or session shown in a table cell at most (cut at the start:
#: a path's end tells projects apart)
CELL_CHARS = 40
#: how a message found in several files is counted (session/index/messages.py), said under every table
COUNT_RULE = (
    "Tokens are exact, each API message counted once across every file (a resumed session's copies too), under the file"
    " that has it earliest: its day, then the file's first record, then (files with the same timestamps, as a copy has)"
    " the path that sorts first."
)
_HEADS = {"daily": "DAY", "weekly": "WEEK", "monthly": "MONTH", "project": "PROJECT", "session": "SESSION"}


def _clean(text: str | None) -> str | None:
    """A transcript's string with its secrets masked (``None`` stays ``None``)."""
    return redacted(text)[0] if text else text


def _line(text: str | None) -> str:
    """A name or note as the table prints it: secrets masked (:func:`_clean`), on one line (a
    line break or tab in a file or folder name as its control picture: ``one_line_name``; the
    other control characters are the caller's ``safe_text``)."""
    return one_line_name(_clean(text) or "")


def _cut_left(text: str | None, n: int = CELL_CHARS) -> str:
    text = _line(text)
    return text if len(text) <= n else "\u2026" + text[-(n - 1) :]


def _agent_cell(agent: str | None) -> str:
    """The agents of a row as the table shows them: ``claude``, ``codex``, ``claude+codex``."""
    return (agent or "claude").replace(",", "+")


def _cost_cell(g: Group) -> str:
    """The cost: the estimate, or with messages of no known price the known part and how many
    sessions are unpriced (``$56.69 + unknown (1 session unpriced)``); a session's own row with
    nothing priced is ``unknown``."""
    if g.cost_usd is not None:
        return fmt_usd(g.cost_usd)
    if g.sessions <= 1 and g.known_usd <= 0:
        return "unknown"
    return fmt_usd_known(g.known_usd, max(1, g.unpriced_sessions))


def _where(g: Group, twins: bool) -> str:
    """A session's PROJECT cell: its working directory (else its project folder); with
    ``twins`` (another row has its id: a copy under another project folder) its folder after
    it, which the cut at the start keeps (``…/erk (-proj-b)``)."""
    place = g.cwd or g.project or ""
    return f"{place} ({g.project})" if twins and g.project and g.project != place else place


def _cells(kind: str, g: Group, total: bool = False, twins: bool = False) -> list[str]:
    t = g.tokens
    head = ["total"] if total else [_cut_left(g.key)]
    if kind == "session":
        head += [
            "" if total else _agent_cell(g.agent),
            "" if total else _cut_left(_where(g, twins)),
            "" if total else (g.last_ts or "")[:16].replace("T", " "),
        ]
    elif kind == "project":
        head += ["" if total else _agent_cell(g.agent), "" if total else _cut_left(g.cwd or "")]
    return [
        *head,
        fmt_count(g.sessions),
        fmt_count(g.messages),
        fmt_count(t.input),
        fmt_count(t.output),
        fmt_count(t.cache_read),
        fmt_count(t.cache_creation),
        fmt_count(t.total),
        _cost_cell(g),
    ]


def _unpriced(groups: list[Group]) -> list[str]:
    """The notes of the groups with models of no known price (those of rejected usage alone
    are said once: :func:`_rejected_line`)."""
    notes = []
    for g in groups:
        if g.cost_usd is None and g.cost_note and g.cost_note not in notes and (g.unpriced_models or not g.rejected):
            notes.append(g.cost_note)
    return notes


def _rejected_line(total: Group) -> list[str]:
    """``unknown: the usage of 15 records in 1 session was rejected …``, when there is any."""
    if not total.rejected:
        return []
    return [
        f"unknown: the usage of {plural(total.rejected, 'record')} in {plural(total.rejected_sessions, 'session')} was rejected"
        " (a token count that is no number, or out of range): not counted above, nor priced."
    ]


def render_report(rep: Report) -> str:
    """The report as an aligned table (text columns left, figures right), a total line, and
    what the cost is (an estimate; which models have no price). ``""``-free: a report with no
    message says so in one line."""
    heads = [_HEADS[rep.kind]]
    if rep.kind == "session":
        heads += ["AGENT", "PROJECT", "LAST (UTC)"]
    elif rep.kind == "project":
        heads += ["AGENT", "FOLDER"]
    n_text = len(heads)
    heads += ["SESSIONS", "MESSAGES", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "TOTAL TOKENS", "COST"]
    scope = _scope(rep)
    if not rep.rows:
        return "\n".join([f"no API messages {scope}({fmt_count(rep.files)} transcript files indexed)", *(_line(n) for n in rep.notes)])
    seen: dict[str, int] = {}
    for g in rep.rows:
        seen[g.key] = seen.get(g.key, 0) + 1
    table = [heads, *(_cells(rep.kind, g, twins=seen[g.key] > 1) for g in rep.rows), _cells(rep.kind, rep.total, total=True)]
    widths = [max(len(r[i]) for r in table) for i in range(len(heads))]

    def line(r: list[str]) -> str:
        parts = [c.ljust(w) if i < n_text else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))]
        return "  ".join(parts).rstrip()

    out = [f"tracetui report {rep.kind} {scope}".rstrip(), "", line(table[0])]
    out += [line(r) for r in table[1:-1]]
    out.append("  ".join("-" * w for w in widths))
    out.append(line(table[-1]))
    out.append("")
    out.append(f"COST: {COST_LABEL}.")
    for note in _unpriced([*rep.rows, rep.total]):
        out.append(f"unknown: {note} (its tokens are counted above, not priced).")
    out += _rejected_line(rep.total)
    out.append(COUNT_RULE)
    out += [_line(n) for n in _notes(rep)]
    return "\n".join(out)


def _notes(rep: Report) -> list[str]:
    """The report's notes: one for each session counted elsewhere, then the others."""
    return [*map(_elsewhere_note, rep.elsewhere), *rep.notes]


def _elsewhere_note(e: Elsewhere) -> str:
    """``note: session S (P): 0 messages here, its N API messages are counted under session O (Q) …``."""
    (sid, proj, _n), more = e.under[0], len(e.under) - 1
    also = f" and {more} other session{'s' if more != 1 else ''}" if more else ""
    why = "whose file has them as early (the same timestamps: the path that sorts first)" if e.tie else "whose file has them earlier"
    return (
        f"note: session {e.session} ({e.project}): 0 messages here, its {e.messages:,} API message{'s are' if e.messages != 1 else ' is'}"
        f" counted under session {sid} ({proj}){also}, {why}: the same message ids (a copied or forked transcript)."
    )


def _elsewhere_json(e: Elsewhere) -> dict[str, Any]:
    return {
        "session": _clean(e.session),
        "project": _clean(e.project),
        "messages": e.messages,
        "under": [{"session": _clean(s), "project": _clean(p), "messages": n} for s, p, n in e.under],
    }


def _scope(rep: Report) -> str:
    parts = []
    if rep.since or rep.until:
        parts.append(f"from {rep.since or 'the start'} to {rep.until or 'the last record'} (UTC days)")
    if rep.project:
        parts.append(f"for projects matching {rep.project!r}")
    if rep.agent:
        parts.append(f"of {agent_name(rep.agent)} sessions only")
    return " ".join(parts) + (" " if parts else "")


def _group_json(g: Group) -> dict[str, Any]:
    t = g.tokens
    d: dict[str, Any] = {
        "key": _clean(g.key),
        "sessions": g.sessions,
        "messages": g.messages,
        "tokens": {
            "input": t.input,
            "output": t.output,
            "cache_read": t.cache_read,
            "cache_creation": t.cache_creation,
            "total": t.total,
        },
        "cost_usd": g.cost_usd,
        "cost_note": g.cost_note,
        "models": list(g.models),
        "first_timestamp": g.first_ts,
        "last_timestamp": g.last_ts,
    }
    if g.project is not None:
        d.update(project=_clean(g.project), cwd=_clean(g.cwd), agent=g.agent)
    d["known_usd"] = g.known_usd
    d["unpriced"] = {
        "sessions": g.unpriced_sessions,
        "messages": g.unpriced_messages,
        "models": list(g.unpriced_models),
        "rejected_records": g.rejected,
    }
    return d


def report_json(rep: Report) -> dict[str, Any]:
    """The report as one JSON object: ``{report, since, until, project, agent (null: both),
    cost_label, rows: [...],
    total, files_indexed, counted_elsewhere, notes}``; each row ``{key, sessions, messages, tokens: {input, output,
    cache_read, cache_creation, total}, cost_usd (null: unknown), cost_note, models,
    first_timestamp, last_timestamp}`` (a project or session row adds ``project, cwd, agent``:
    ``claude``, ``codex`` or ``claude,codex``), then ``known_usd`` (the cost of the messages
    priced: ``cost_usd`` when all are) and ``unpriced: {sessions, messages, models}`` (what has
    no known price; zeros and ``[]`` when nothing). ``counted_elsewhere`` (session and project
    reports; ``[]`` else): the sessions listed with 0 messages because every message of theirs
    is counted under another session, ``{session, project, messages, under: [{session, project,
    messages}]}``, each also said in ``notes``."""
    return {
        "report": rep.kind,
        "since": rep.since,
        "until": rep.until,
        "project": _clean(rep.project),
        "agent": rep.agent,
        "cost_label": COST_LABEL,
        "rows": [_group_json(g) for g in rep.rows],
        "total": _group_json(rep.total),
        "files_indexed": rep.files,
        "counted_elsewhere": [_elsewhere_json(e) for e in rep.elsewhere],
        "notes": [_clean(n) for n in _notes(rep)],
    }


def render_hits(query: str, hits: list[Hit], fts: bool, more: bool = False, limit: int | None = None) -> str:
    """Search results, one block per hit: ``path:line  kind[ tool]  session <id>[ (Codex CLI)]
    timestamp`` then the indexed text (one line, indented); one line when nothing matched.
    ``more``: the list is cut at ``limit`` (``--limit``) and there are more matches: said in the
    first line, never as if the hits were all."""
    how = "" if fts else " (substring search: this SQLite has no FTS5)"
    if not hits:
        return f"no prompt or tool call matches {query!r}{how}"
    n = plural(len(hits), "match", "matches")
    if more:
        n = f"the first {n} (more not shown: --limit {limit if limit is not None else len(hits)} cut the list)"
    out = [f"{n} for {query!r}{how}", ""]
    for h in hits:
        what = h.kind if h.kind != "tool_use" else f"tool {h.name or '?'}"
        who = f" ({agent_name(h.agent)})" if h.agent != "claude" else ""  # a Claude Code hit's line as it was
        where = one_line_name(h.anchor)
        out.append(f"{where}  {what}  session {one_line_name(h.session)}{who}  {(h.timestamp or '')[:19].replace('T', ' ')}".rstrip())
        out.append("    " + " ".join(h.text.split()))
    return "\n".join(out)


def hits_json(query: str, hits: list[Hit], fts: bool, more: bool = False) -> dict[str, Any]:
    """Search results as one JSON object: ``{query, fts5, more, results: [{anchor, path, line,
    kind, name, timestamp, session, project, agent, text}]}`` (``more``: the list was cut at
    ``--limit`` and there are more matches)."""
    return {
        "query": query,
        "fts5": fts,
        "more": more,
        "results": [
            {
                "anchor": h.anchor,
                "path": h.path,
                "line": h.line,
                "kind": h.kind,
                "name": h.name,
                "timestamp": h.timestamp,
                "session": h.session,
                "project": h.project,
                "agent": h.agent,
                "text": h.text,
            }
            for h in hits
        ],
    }
