"""The sessions of a report with API records whose usage the fold rejected (a token count that
is a string, a float or out of range: ``Counters.usage_rejected``). Their tokens are not
known, so no figure holds them: a report whose every usage record of a session was rejected
had no bucket of it and left the session out without a word, its total shown as complete
(trial 12). They are listed instead, their cost unknown, and counted among the unpriced
sessions of their groups (query.py ``Group.unpriced_sessions``), as ``tracetui state`` says
"cost unknown (usage of N records rejected…)".

A file's rejected records are reported on one UTC day, that of its last record when the last
of them was read (the index keeps a count a file, not a day a record: session/index/db.py).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from tracetui.model.pricing import rejected_note
from tracetui.model.state import Tokens
from tracetui.session.index.groups import Group, period_of
from tracetui.session.index.scope import scope_where

__all__ = ["Rejected", "rejected_usage", "with_rejected"]


@dataclass(frozen=True)
class Rejected:
    """One session's files in the report's scope with ``records`` usage records rejected,
    reported on UTC ``day`` (``""``: none known); its project folder, session id, working
    directory, agents (``"claude"``, ``"codex"``, ``"claude,codex"``) and first and last
    record timestamps."""

    project: str
    session: str
    day: str
    records: int
    cwd: str | None
    agent: str | None
    first_ts: str | None
    last_ts: str | None


def rejected_usage(
    conn: sqlite3.Connection, since: str | None, until: str | None, project: str | None, agent: str | None
) -> list[Rejected]:
    """The sessions with rejected usage records in the report's scope (UTC days ``since``..``until``
    on their day, the ``project`` substring of the folder or working directory, the ``agent``: as
    :func:`~tracetui.session.index.query.build_report`), one per session and day, sorted by
    project, session and day. Reads only the files with rejected records. Raises ``sqlite3.Error``."""
    where, args = scope_where("f.rejected_day", since, until, project, agent)
    where.insert(0, "f.rejected > 0")
    sql = (
        "SELECT f.project, f.session, COALESCE(f.rejected_day, ''), SUM(f.rejected), MIN(f.cwd), GROUP_CONCAT(DISTINCT f.agent),"
        f" MIN(f.first_ts), MAX(f.last_ts) FROM files f WHERE {' AND '.join(where)}"
        " GROUP BY f.project, f.session, COALESCE(f.rejected_day, '') ORDER BY 1, 2, 3"
    )
    out = []
    for proj, session, day, n, cwd, agents, first, last in conn.execute(sql, args):
        agents = ",".join(sorted(set(agents.split(",")))) if agents else None
        out.append(Rejected(proj, session, day, int(n), cwd, agents, first, last))
    return out


def with_rejected(
    conn: sqlite3.Connection,
    kind: str,
    rows: list[Group],
    total: Group,
    rejected: list[Rejected],
    query: tuple[str, str, Any, list],
    counted: set[tuple[str, str]],
) -> list[Group]:
    """``rows`` (a report of ``kind``, and its ``total``, changed in place) with the sessions of
    ``rejected``: each in the group of its day, project or session (a row of its own when the
    group has none), which counts it among its sessions when it is not already, adds its
    records to :attr:`Group.rejected`, and turns unknown: its cost ``None``, the known part in
    ``known_usd``, the session among ``unpriced_sessions``. ``query``: the report's group key (an
    SQL expression), source and condition with its arguments (query.py), to find the groups a
    session has messages in; ``counted``: the ``(project, session)`` pairs the report lists
    already with none (session/index/elsewhere.py). Rows of a period or project in key order."""
    key, src, cond, args = query
    pairs = sorted({(r.project, r.session) for r in rejected})
    values = ", ".join("(?, ?)" for _ in pairs)
    within = f"(f.project, f.session) IN (VALUES {values})"
    where = f"{cond} AND {within}" if cond else f" WHERE {within}"
    flat = [x for pair in pairs for x in pair]
    has = set(conn.execute(f"SELECT DISTINCT {key}, f.project, f.session{src}{where}", [*args, *flat]))
    listed = {(p, s) for _k, p, s in has} | (counted if kind in ("project", "session") else set())

    def group_of(r: Rejected) -> tuple[str, ...]:
        if kind == "session":
            return (r.project, r.session)
        return (r.project,) if kind == "project" else (period_of(kind, r.day),)

    by_group: dict[tuple[str, ...], Group] = {((g.project or "", g.key) if kind == "session" else (g.key,)): g for g in rows}
    added: dict[tuple[str, ...], set[tuple[str, str]]] = {}
    for r in rejected:
        gk = group_of(r)
        g = by_group.get(gk)
        new = g is None
        if g is None:
            g = by_group[gk] = Group(gk[-1], 0, 0, Tokens(), 0.0)
            if kind in ("project", "session"):
                g.project, g.cwd, g.agent = r.project, r.cwd, r.agent
            rows.append(g)
        _widen(g, r)
        sessions = added.setdefault(gk, set())
        if (r.project, r.session) not in sessions:
            sessions.add((r.project, r.session))
            if kind == "session":
                in_group = not new  # its row: its messages' or one of none counted elsewhere
            else:
                in_group = (gk[0], r.project, r.session) in has or (kind == "project" and (r.project, r.session) in counted)
            g.sessions += not in_group
            g.rejected_sessions += 1
            g.unpriced_sessions += 1
        g.rejected += r.records
    for g in {id(g): g for gk, g in by_group.items() if gk in added}.values():
        _unknown(g)
    every = set(pairs)
    total.sessions += len(every - listed)
    total.rejected += sum(r.records for r in rejected)
    total.rejected_sessions += len(every)
    total.unpriced_sessions += len(every)
    _unknown(total)
    if kind != "session":
        rows.sort(key=lambda g: g.key)
    return rows


def _widen(g: Group, r: Rejected) -> None:
    """``g``'s first and last timestamps and agents widened to those of ``r``'s files."""
    g.first_ts = min(filter(None, (g.first_ts, r.first_ts)), default=None)
    g.last_ts = max(filter(None, (g.last_ts, r.last_ts)), default=None)
    if g.agent is not None or r.agent is not None:
        g.agent = ",".join(sorted({*(g.agent or "").split(","), *(r.agent or "").split(",")} - {""})) or None


def _unknown(g: Group) -> None:
    """``g``'s cost made unknown by its rejected records: the figure it had is the known part;
    a note in the state's words unless one says already which models have no price."""
    if g.cost_usd is not None:
        g.known_usd, g.cost_usd = g.cost_usd, None
    if not g.unpriced_models:
        g.cost_note = rejected_note(g.rejected, g.messages > 0)
