"""What a report counts: the SQL conditions of its scope (days, project, agent), the one rule
for its messages (query.py), its rejected usage (rejected.py) and the sessions counted elsewhere
(elsewhere.py)."""

from __future__ import annotations

__all__ = ["scope_where"]


def scope_where(day: str, since: str | None, until: str | None, project: str | None, agent: str | None) -> tuple[list[str], list[str]]:
    """The SQL conditions (to be joined with ``AND``) and their arguments of a report's scope:
    the UTC days ``since``..``until`` (both included) of the column ``day`` (one with no day is
    left out when either is given), files whose project folder or working directory (``f.project``,
    ``f.cwd``) contains ``project``, and that ``agent`` wrote (``f.agent``). The one rule of what
    a report counts, for its messages (query.build_report) and its rejected usage (rejected.py)."""
    where: list[str] = []
    args: list[str] = []
    if since is not None or until is not None:
        where.append(f"COALESCE({day}, '') != ''")
    if since is not None:
        where.append(f"{day} >= ?")
        args.append(since)
    if until is not None:
        where.append(f"{day} <= ?")
        args.append(until)
    if project is not None:
        where.append("(instr(f.project, ?) > 0 OR instr(COALESCE(f.cwd, ''), ?) > 0)")
        args += [project, project]
    if agent is not None:
        where.append("f.agent = ?")
        args.append(agent)
    return where, args
