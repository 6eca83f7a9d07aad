"""Reports over the cross-session index: exact tokens per kind and estimated cost, grouped by
day, ISO week, month, project or session, every API message counted once across every file.

A message id found in several files (a resumed session copies earlier records; a subagent's
records may be repeated) is one message (the ``messages`` table, session/index/messages.py):
its tokens are those a single :class:`~tracetui.model.usage.UsageBook` fed with all its files'
entries holds (the max of each field, the earliest day, the first model), and it is filed under
the file that has it earliest: that file's project and session, that day (a session left with
no message, its copies all counted elsewhere, is still a row of the session and project reports:
session/index/elsewhere.py; a session whose usage records were rejected, its tokens unknown,
is listed with its cost unknown: session/index/rejected.py). A report is then a
``GROUP BY`` of those rows by the group's key and the price bucket (model, day, tier band), the
buckets a UsageBook keeps. Costs are :func:`~tracetui.model.pricing.estimate_cost` of each group's
buckets (every message priced at its own day and tier band; a model without a price makes
the group's cost unknown, never zero), memoised in the index's ``costs`` table.
"""

from __future__ import annotations

import sqlite3
from functools import lru_cache
from pathlib import Path

import msgspec

from tracetui.model.pricing import PLAIN_COST_NOTE
from tracetui.model.state import Tokens, UsageBucket
from tracetui.session.index.elsewhere import Elsewhere, counted_elsewhere
from tracetui.session.index.groups import Group, Report, period_of
from tracetui.session.index.rejected import rejected_usage, with_rejected
from tracetui.session.index.scope import scope_where

__all__ = ["KINDS", "Group", "Report", "build_report", "period_of"]

#: the groupings of ``tracetui report``
KINDS = ("daily", "weekly", "monthly", "project", "session")

#: milliseconds the cost memo's save waits for another writer (it is skipped after)
MEMO_BUSY_MS = 50
#: memoised estimates kept at most (each costs a few hundred bytes)
MAX_COSTS = 20_000

#: the group key of a message row ``m`` of file ``f``, per report kind
_KEYS = {
    "daily": "CASE WHEN m.day = '' THEN 'unknown' ELSE m.day END",
    "weekly": "iso_week(m.day)",
    "monthly": "CASE WHEN m.day = '' THEN 'unknown' ELSE substr(m.day, 1, 7) END",
    "project": "f.project",
    "session": "f.project || char(0) || f.session",
}
#: what a report reads: the per-file buckets of the messages (session/index/messages.py)
_FROM = " FROM buckets m JOIN files f ON f.id = m.file"


class _Costs:
    """The cost estimates of one report: from the index's ``costs`` table when known there,
    else :func:`~tracetui.model.pricing.estimate_cost` (then kept for the next report by
    :meth:`save`)."""

    def __init__(self, conn: sqlite3.Connection, preload: bool) -> None:
        self.conn = conn
        self.known: dict[bytes, tuple[float | None, str]] = {}
        self.new: dict[bytes, tuple[float | None, str]] = {}
        self.preloaded = preload
        if preload:  # a group each: one read of the table, not one a group
            self.known.update((k, (usd, note)) for k, usd, note in conn.execute("SELECT key, usd, note FROM costs"))

    def get(self, buckets: tuple[UsageBucket, ...], fallback_ts: str | None) -> tuple[float | None, str]:
        """``(usd, note)`` of ``buckets`` (undated ones priced at ``fallback_ts``'s day)."""
        key = msgspec.msgpack.encode([_prices_version(), buckets, fallback_ts])
        hit = self.known.get(key) or self.new.get(key)
        if hit is None and not self.preloaded:
            row = self.conn.execute("SELECT usd, note FROM costs WHERE key = ?", (key,)).fetchone()
            if row is not None:
                hit = self.known[key] = (row[0], row[1])
        if hit is None:
            from tracetui.model.pricing import estimate_cost

            hit = self.new[key] = estimate_cost(buckets, fallback_ts)
        return hit

    def save(self) -> None:
        """Keep the new estimates (best effort: a locked index skips it)."""
        if self.new:
            _save_costs(self.conn, self.new)


@lru_cache(maxsize=1)
def _prices_version() -> str:
    """What identifies the price table a memoised cost came from: the path, size and
    modification time of genai-prices' bundled data (found without importing the package, which
    takes ~0.35 s; ``importlib.metadata`` alone ~30 ms)."""
    import importlib.util

    spec = importlib.util.find_spec("genai_prices")
    if spec is None or spec.origin is None:  # pragma: no cover - a declared dependency
        return "?"
    data = Path(spec.origin).with_name("data.py")
    try:
        st = data.stat()
    except OSError:  # pragma: no cover
        return spec.origin
    return f"{data}:{st.st_size}:{st.st_mtime_ns}"


def build_report(
    conn: sqlite3.Connection,
    kind: str,
    since: str | None = None,
    until: str | None = None,
    project: str | None = None,
    agent: str | None = None,
) -> Report:
    """The report of ``kind`` (one of :data:`KINDS`) over the index ``conn``: messages whose
    day is within ``since``..``until`` (UTC days, both included; a message without a day is
    left out when either is given), filed under files whose project folder or working
    directory contains ``project`` and that ``agent`` wrote (``"claude"`` | ``"codex"``;
    ``None``: both). Raises ``ValueError`` for an unknown kind, ``sqlite3.Error``."""
    if kind not in KINDS:
        raise ValueError(f"unknown report {kind!r}; one of {', '.join(KINDS)}")
    conn.create_function("iso_week", 1, lambda d: period_of("weekly", d or ""), deterministic=True)
    where, args = scope_where("m.day", since, until, project, agent)
    cond = (" WHERE " + " AND ".join(where)) if where else ""
    memo = _Costs(conn, preload=kind in ("project", "session"))
    rows = _groups(conn, _KEYS[kind], cond, args, kind, memo)
    (total,) = _groups(conn, "'total'", cond, args, "", memo) or [Group("total", cost_usd=0.0, cost_note=PLAIN_COST_NOTE)]
    memo.save()
    elsewhere = counted_elsewhere(conn, since, until, project, agent) if kind in ("project", "session") else []
    if elsewhere:
        rows = _with_elsewhere(kind, rows, elsewhere)
        total.sessions += len(elsewhere)
    rejected = rejected_usage(conn, since, until, project, agent)
    if rejected:
        counted = {(e.project, e.session) for e in elsewhere}
        rows = with_rejected(conn, kind, rows, total, rejected, (_KEYS[kind], _FROM, cond, args), counted)
    if kind == "session":  # the most recently active last, as the periods are
        rows.sort(key=lambda g: (g.last_ts or "", g.project or "", g.key))
    n_files = conn.execute("SELECT COUNT(*) FROM files" + (" WHERE agent = ?" if agent else ""), (agent,) if agent else ()).fetchone()[0]
    return Report(kind, since, until, project, rows, total, n_files, agent=agent, elsewhere=elsewhere)


def _with_elsewhere(kind: str, rows: list[Group], elsewhere: list[Elsewhere]) -> list[Group]:
    """``rows`` with the sessions of no message of their own (``elsewhere``): a session row each
    (0 messages, $0.00), or counted among their project's sessions (a project row of its own
    when none of its sessions has a message), projects in key order."""
    if kind == "session":
        rows += [
            Group(e.session, 1, 0, Tokens(), 0.0, PLAIN_COST_NOTE, (), e.project, e.cwd, e.agent, e.first_ts, e.last_ts) for e in elsewhere
        ]
        return rows
    by_key = {g.key: g for g in rows}
    for e in elsewhere:
        if e.project not in by_key:
            g = by_key[e.project] = Group(e.project, 0, 0, Tokens(), 0.0, PLAIN_COST_NOTE, (), e.project, e.cwd, e.agent)
            g.first_ts, g.last_ts = e.first_ts, e.last_ts
        else:
            g = by_key[e.project]
            g.agent = ",".join(sorted({*(g.agent or "").split(","), *(e.agent or "").split(",")} - {""})) or None
            g.first_ts = min(filter(None, (g.first_ts, e.first_ts)), default=None)
            g.last_ts = max(filter(None, (g.last_ts, e.last_ts)), default=None)
        g.sessions += 1
    return sorted(by_key.values(), key=lambda g: g.key)


def _groups(conn: sqlite3.Connection, key: str, cond: str, args: list, kind: str, memo: _Costs) -> list[Group]:
    """The groups of messages by ``key`` (an SQL expression), in key order: their buckets
    (model, day, price band) priced, their sessions and files' timestamps."""
    buckets: dict[str, list[UsageBucket]] = {}
    # the files table only where the key or a filter needs it (a day's key does not)
    src = _FROM if "f." in key or "f." in cond else " FROM buckets m"
    sql = (
        f"SELECT {key} AS k, m.model, m.day, m.band, SUM(m.messages), SUM(m.input), SUM(m.output), SUM(m.cache_creation),"
        f" SUM(m.cache_read), SUM(m.cache_write_1h){src}{cond} GROUP BY k, m.model, m.day, m.band"
    )
    for k, model, day, band, n, i, o, cc, cr, c1h in conn.execute(sql, args):
        buckets.setdefault(k, []).append(UsageBucket(model, day, band, n, Tokens(i, o, cc, cr), c1h))
    # sessions and timestamps of each group's files: the (group, file) pairs first, then the files
    sql = (
        "SELECT g.k, COUNT(DISTINCT f.project || char(0) || f.session), MIN(f.first_ts), MAX(f.last_ts), MIN(f.project),"
        f" MIN(f.cwd), GROUP_CONCAT(DISTINCT f.agent), MIN(f.session) FROM (SELECT DISTINCT {key} AS k, m.file AS file{src}{cond}) g"
        " JOIN files f ON f.id = g.file GROUP BY g.k"
    )
    out = []
    unpriced: dict[str, set[tuple[str, str]]] = {}
    ks = []  # each group's key as the SQL has it (a session's is shown by its id only)
    for k, sessions, first_ts, last_ts, proj, cwd, agent, session in conn.execute(sql, args):
        bs = sorted(buckets.get(k, ()), key=lambda b: (b.model, b.day, b.band))
        tokens = Tokens()
        for b in bs:
            tokens = tokens.add(b.tokens)
        cost, note = memo.get(tuple(bs), last_ts)
        g = Group(k, sessions, sum(b.messages for b in bs), tokens, cost, note, tuple(sorted({b.model for b in bs})))
        g.first_ts, g.last_ts = first_ts, last_ts
        g.known_usd = cost or 0.0
        if cost is None:  # the known part, bucket by bucket, and what has no price
            g.known_usd, lost = _known_part(bs, last_ts, memo)
            g.unpriced_messages = sum(b.messages for b in lost)
            g.unpriced_models = tuple(sorted({b.model for b in lost}))
            unpriced[k] = {(b.model, b.day) for b in lost}
        if kind in ("project", "session"):
            g.project, g.cwd, g.agent = proj, cwd, ",".join(sorted(set(agent.split(",")))) if agent else agent
            if kind == "session":
                g.key = session
        out.append(g)
        ks.append(k)
    if unpriced:
        counts = _unpriced_sessions(conn, key, cond, args, set().union(*unpriced.values()))
        for g, k in zip(out, ks):
            g.unpriced_sessions = counts.get(k, 0) if g.cost_usd is None else 0
    out.sort(key=lambda g: g.key if kind != "session" else "")
    return out


def _known_part(bs: list[UsageBucket], last_ts: str | None, memo: _Costs) -> tuple[float, list[UsageBucket]]:
    """``(USD of the buckets priced, the buckets of no known price)``, each bucket priced alone."""
    known, lost = 0.0, []
    for b in bs:
        usd, _ = memo.get((b,), last_ts)
        if usd is None:
            lost.append(b)
        else:
            known += usd
    return round(known, 6), lost


def _unpriced_sessions(conn: sqlite3.Connection, key: str, cond: str, args: list, pairs: set[tuple[str, str]]) -> dict[str, int]:
    """Group key -> how many sessions of the group have messages of a ``(model, day)`` of
    ``pairs`` (those of no known price)."""
    values = ", ".join("(?, ?)" for _ in pairs)
    extra = f"(m.model, m.day) IN (VALUES {values})"
    where = f"{cond} AND {extra}" if cond else f" WHERE {extra}"
    flat = [x for pair in sorted(pairs) for x in pair]
    sql = f"SELECT {key} AS k, COUNT(DISTINCT f.project || char(0) || f.session){_FROM}{where} GROUP BY k"
    return {k: n for k, n in conn.execute(sql, [*args, *flat])}


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
