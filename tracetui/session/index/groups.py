"""What a report is made of: its rows (:class:`Group`), the report (:class:`Report`) and the
key of a day in a report of a period (:func:`period_of`). Built by session/index/query.py
``build_report``; shown by views/report.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from tracetui.model.state import Tokens
from tracetui.session.index.elsewhere import Elsewhere

__all__ = ["Group", "Report", "period_of"]


@dataclass
class Group:
    """One row of a report: its key (``2026-11-02``, ``2026-W45``, ``2026-11``, a project
    folder name, a session id; ``"unknown"`` for messages without a day), the sessions and API
    messages in it, tokens per kind, the estimated cost in USD (``None``: unknown, the note
    says which models have no price), the models, and for a session or project its project
    folder, working directory, agent (``"claude"``, ``"codex"``; ``"claude,codex"`` for a
    project both worked in) and first and last timestamps (ISO-8601)."""

    key: str
    sessions: int = 0
    messages: int = 0
    tokens: Tokens = field(default_factory=Tokens)
    cost_usd: float | None = None
    cost_note: str = ""
    models: tuple[str, ...] = ()
    project: str | None = None
    cwd: str | None = None
    agent: str | None = None
    first_ts: str | None = None
    last_ts: str | None = None
    #: the cost of the messages whose price is known (USD; ``cost_usd`` when all are), and of
    #: the others: their sessions, messages and models (a total says what it knows and what not)
    known_usd: float = 0.0
    unpriced_sessions: int = 0
    unpriced_messages: int = 0
    unpriced_models: tuple[str, ...] = ()
    #: usage records rejected in the group's sessions (their tokens unknown: session/index/rejected.py),
    #: and the sessions holding them (counted among ``unpriced_sessions`` too)
    rejected: int = 0
    rejected_sessions: int = 0


@dataclass
class Report:
    """A report: its kind, the filters (``since``/``until`` as UTC days, ``project``, ``agent``),
    its rows in key order, the total over them, and how many files and sessions the index holds."""

    kind: str
    since: str | None
    until: str | None
    project: str | None
    rows: list[Group]
    total: Group
    files: int
    notes: list[str] = field(default_factory=list)
    #: the agent the report is narrowed to (``"claude"`` | ``"codex"``; ``None``: both)
    agent: str | None = None
    #: the sessions of a session or project report whose messages in scope are all counted
    #: under other sessions (listed with 0 messages: session/index/elsewhere.py)
    elsewhere: list[Elsewhere] = field(default_factory=list)


def period_of(kind: str, day: str) -> str:
    """The group key of UTC ``day`` (``YYYY-MM-DD``) in a report of ``kind``: the day, its ISO
    week (``2026-W45``) or its month (``2026-11``); ``"unknown"`` for ``""``."""
    if not day:
        return "unknown"
    if kind == "weekly":
        y, w, _ = date.fromisoformat(day).isocalendar()
        return f"{y}-W{w:02d}"
    if kind == "monthly":
        return day[:7]
    return day
