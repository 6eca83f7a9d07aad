"""Reports over the cross-session index: exact tokens per kind and estimated cost, grouped by
day, ISO week, month, project or session, every API message counted once across every file.

A message id found in several files (a resumed session copies earlier records; a subagent's
records may be repeated) is one message: its tokens are those a single
:class:`~tracetui.model.usage.UsageBook` fed with all its files' entries holds (the max of
each field, the earliest day, the first model), and it is filed under the file that has it
earliest (its day, then the file's first timestamp, then its path): that file's project and
session, that day. Costs are :func:`~tracetui.model.pricing.estimate_cost` of each group's
buckets (every message priced at its own day and tier band; a model without a price makes
the group's cost unknown, never zero), memoised in the index's ``costs`` table.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from itertools import groupby

import msgspec

from tracetui.model.state import Tokens
from tracetui.model.usage import UsageBook

__all__ = ["KINDS", "Group", "Report", "build_report", "period_of"]

#: the groupings of ``tracetui report``
KINDS = ("daily", "weekly", "monthly", "project", "session")

#: milliseconds the cost memo's save waits for another writer (it is skipped after)
MEMO_BUSY_MS = 50
#: memoised estimates kept at most (each costs a few hundred bytes)
MAX_COSTS = 20_000

_ROWS = (
    "SELECT m.msg, m.day, m.model, m.input, m.output, m.cache_creation, m.cache_read, m.cache_write_1h, m.file FROM msgs m ORDER BY m.msg"
)
_FILES = "SELECT id, path, project, session, agent, cwd, first_ts, last_ts FROM files"


@dataclass
class Group:
    """One row of a report: its key (``2026-11-02``, ``2026-W45``, ``2026-11``, a project
    folder name, a session id; ``"unknown"`` for messages without a day), the sessions and API
    messages in it, tokens per kind, the estimated cost in USD (``None``: unknown, the note
    says which models have no price), the models, and for a session or project its project
    folder, working directory, agent and first and last timestamps (ISO-8601)."""

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


@dataclass
class Report:
    """A report: its kind, the filters (``since``/``until`` as UTC days, ``project``), its rows
    in key order, the total over them, and how many files and sessions the index holds."""

    kind: str
    since: str | None
    until: str | None
    project: str | None
    rows: list[Group]
    total: Group
    files: int
    notes: list[str] = field(default_factory=list)


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


class _Acc:
    __slots__ = ("book", "sessions", "files", "last_ts", "first_ts", "info")

    def __init__(self) -> None:
        self.book = UsageBook()
        self.sessions: set[tuple[str, str]] = set()
        self.files: set[int] = set()
        self.first_ts: str | None = None
        self.last_ts: str | None = None
        self.info: tuple | None = None


def _cost(
    conn: sqlite3.Connection, book: UsageBook, fallback_ts: str | None, memo: dict[bytes, tuple[float | None, str]]
) -> tuple[float | None, str]:
    from tracetui.model.pricing import estimate_cost

    buckets = book.usage_buckets()
    key = msgspec.msgpack.encode([_prices_version(), buckets, fallback_ts])
    hit = memo.get(key)
    if hit is None:
        row = conn.execute("SELECT usd, note FROM costs WHERE key = ?", (key,)).fetchone()
        hit = (row[0], row[1]) if row is not None else estimate_cost(buckets, fallback_ts)
        memo[key] = hit
    return hit


@lru_cache(maxsize=1)
def _prices_version() -> str:
    """The genai-prices release whose bundled table priced a memoised cost."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("genai-prices")
    except PackageNotFoundError:  # pragma: no cover - a declared dependency
        return "?"


def build_report(
    conn: sqlite3.Connection, kind: str, since: str | None = None, until: str | None = None, project: str | None = None
) -> Report:
    """The report of ``kind`` (one of :data:`KINDS`) over the index ``conn``: messages whose
    day is within ``since``..``until`` (UTC days, both included; a message without a day is
    left out when either is given), of files whose project folder or working directory
    contains ``project``. Raises ``ValueError`` for an unknown kind, ``sqlite3.Error``."""
    if kind not in KINDS:
        raise ValueError(f"unknown report {kind!r}; one of {', '.join(KINDS)}")
    files = {r[0]: r for r in conn.execute(_FILES)}
    accs: dict[str, _Acc] = {}
    total = _Acc()
    dated = since is not None or until is not None

    def wanted(fid: int) -> bool:
        f = files[fid]
        return project is None or project in (f[2] or "") or project in (f[5] or "")

    for msg, recs_it in groupby(conn.execute(_ROWS), key=lambda r: r[0]):
        recs = list(recs_it)
        if len(recs) > 1:
            # filed under the file that has it earliest; the rest only raise its figures
            recs.sort(key=lambda r: (r[1] or "\uffff", files[r[8]][6] or "\uffff", files[r[8]][1]))
        owner = recs[0]
        day, fid = owner[1], owner[8]
        if dated and (not day or (since is not None and day < since) or (until is not None and day > until)):
            continue
        if not wanted(fid):
            continue
        f = files[fid]
        if kind == "project":
            key = f[2]
        elif kind == "session":
            key = f"{f[2]}\0{f[3]}"
        else:
            key = period_of(kind, day)
        acc = accs.get(key)
        if acc is None:
            acc = accs[key] = _Acc()
            acc.info = (f[2], f[5], f[4], f[3])
        for a in (acc, total):
            for r in recs:
                a.book.add(msg, r[2], (r[3], r[4], r[5], r[6], r[7]), r[1])
            a.sessions.add((f[2], f[3]))
            a.files.add(fid)
    # first and last timestamps of a group: those of its files' records
    for a in (*accs.values(), total):
        firsts = [files[i][6] for i in a.files if files[i][6]]
        lasts = [files[i][7] for i in a.files if files[i][7]]
        a.first_ts = min(firsts, default=None)
        a.last_ts = max(lasts, default=None)
    memo: dict[bytes, tuple[float | None, str]] = {}
    rows = [_group(conn, k, a, kind, memo) for k, a in sorted(accs.items())]
    if kind == "session":  # the most recently active last, as the periods are
        rows.sort(key=lambda g: (g.last_ts or "", g.project or "", g.key))
    tot = _group(conn, "total", total, "", memo)
    _save_costs(conn, memo)
    return Report(kind, since, until, project, rows, tot, len(files))


def _group(conn: sqlite3.Connection, key: str, a: _Acc, kind: str, memo: dict) -> Group:
    cost, note = _cost(conn, a.book, a.last_ts, memo)
    g = Group(key, len(a.sessions), len(a.book), a.book.tokens(), cost, note, tuple(sorted(a.book.by_model)))
    g.first_ts, g.last_ts = a.first_ts, a.last_ts
    if kind in ("project", "session") and a.info is not None:
        g.project, g.cwd, g.agent = a.info[0], a.info[1], a.info[2]
        if kind == "session":
            g.key = a.info[3]
    return g


def _save_costs(conn: sqlite3.Connection, memo: dict[bytes, tuple[float | None, str]]) -> None:
    """Keep the estimates for the next report (best effort: a locked index skips it)."""
    if not memo:
        return
    busy = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute(f"PRAGMA busy_timeout={MEMO_BUSY_MS}")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT COUNT(*) FROM costs").fetchone()[0] > MAX_COSTS:
                conn.execute("DELETE FROM costs")  # estimates of groups long gone: start the memo over
            conn.executemany("INSERT OR IGNORE INTO costs VALUES (?,?,?)", [(k, v[0], v[1]) for k, v in memo.items()])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except sqlite3.Error:
        pass
    finally:
        conn.execute(f"PRAGMA busy_timeout={int(busy)}")
