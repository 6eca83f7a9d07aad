"""The sessions a report has no message of, because every API message of theirs is counted
under another session: a transcript copied under another session id (the same message ids),
a fork. A message is filed under the file that has it earliest (session/index/messages.py:
its day, then the file's first timestamp, then, for files with the same timestamps as a copy
has, the path that sorts first), so such a session has no bucket; the session and project
reports still list it, with 0 messages, and say where its messages are counted.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from tracetui.session.index.scope import scope_where

__all__ = ["Elsewhere", "counted_elsewhere"]


@dataclass(frozen=True)
class Elsewhere:
    """One session (``project`` folder, ``session`` id) with API messages in the report's scope
    and none counted under it: ``messages`` of them, counted under the sessions ``under``
    (``(session, project, messages)``, most messages first); ``tie``: the file they are
    counted under starts at the same timestamp as this session's (a copy: the path decided);
    its working directory, agents (``"claude"``, ``"codex"``, ``"claude,codex"``) and first
    and last record timestamps."""

    session: str
    project: str
    messages: int
    under: tuple[tuple[str, str, int], ...]
    tie: bool
    cwd: str | None
    agent: str | None
    first_ts: str | None
    last_ts: str | None


def _and(parts: tuple[list[str], list[str]]) -> tuple[str, list[str]]:
    """Conditions of :func:`~tracetui.session.index.groups.scope_where` as ``" AND …"`` each."""
    return "".join(f" AND {p}" for p in parts[0]), parts[1]


def counted_elsewhere(
    conn: sqlite3.Connection, since: str | None, until: str | None, project: str | None, agent: str | None
) -> list[Elsewhere]:
    """The sessions of the report's scope (UTC days ``since``..``until``, the ``project``
    substring of the folder or working directory, the ``agent``; as for
    :func:`~tracetui.session.index.query.build_report`) that have API messages counted on
    those days and none counted under them, sorted by project and session. Reads only the
    files without a bucket in scope. Raises ``sqlite3.Error``."""
    mday, margs = _and(scope_where("m.day", since, until, None, None))
    bday, bargs = _and(scope_where("b.day", since, until, None, None))
    fcond, fargs = _and(scope_where("", None, None, project, agent))
    # the files first (CROSS JOIN keeps that order): a file with a bucket in scope is skipped
    # by its primary key, and only the others' messages are looked up
    sql = (
        "SELECT f.project, f.session, o.project, o.session, COUNT(DISTINCT x.msg), MIN(f.first_ts), MAX(f.last_ts),"
        " MIN(f.cwd), GROUP_CONCAT(DISTINCT f.agent), MIN(o.first_ts)"
        " FROM files f CROSS JOIN msgs x ON x.file = f.id JOIN messages m ON m.msg = x.msg JOIN files o ON o.id = m.file"
        f" WHERE NOT EXISTS (SELECT 1 FROM buckets b WHERE b.file = f.id{bday}){fcond}{mday}"
        " GROUP BY f.project, f.session, o.project, o.session"
    )
    found: dict[tuple[str, str], list[tuple]] = {}
    for row in conn.execute(sql, [*bargs, *fargs, *margs]):
        if (row[0], row[1]) != (row[2], row[3]):
            found.setdefault((row[0], row[1]), []).append(row)
    own = f"SELECT 1 FROM files g JOIN buckets b ON b.file = g.id WHERE g.project = ? AND g.session = ?{bday} LIMIT 1"
    out = []
    for (proj, session), rows in sorted(found.items()):
        if conn.execute(own, [proj, session, *bargs]).fetchone() is not None:
            continue  # another file of the session has messages counted under it
        rows.sort(key=lambda r: (-r[4], r[3], r[2]))
        agents = sorted({a for r in rows for a in (r[8] or "").split(",") if a})
        first = min((r[5] for r in rows if r[5] is not None), default=None)
        out.append(
            Elsewhere(
                session=session,
                project=proj,
                messages=sum(r[4] for r in rows),
                under=tuple((r[3], r[2], r[4]) for r in rows),
                tie=rows[0][9] == first,
                cwd=min((r[7] for r in rows if r[7] is not None), default=None),
                agent=",".join(agents) or None,
                first_ts=first,
                last_ts=max((r[6] for r in rows if r[6] is not None), default=None),
            )
        )
    return out
