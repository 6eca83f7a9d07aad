"""The index's ``messages`` table: every API message once, across every file.

``msgs`` holds each file's view of a message (its file fold's :class:`~tracetui.model.usage.
UsageBook` entry); ``messages`` holds the message as one book fed with every file's entry gives
it: the max of each token field, the earliest day, the model first named, and the file it is
filed under, the one that has it earliest (its day, then the file's first timestamp, then its
path; the day ``""``, unknown, comes after any day). Its price band (model/pricing.py
``price_band``) is kept with it, and the ``buckets`` table sums them per file, day, model and
band, which is what a report groups (session/index/query.py).

:func:`settle` recomputes the rows of the messages a write touched, and their buckets, in the
write's transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from itertools import groupby
from operator import itemgetter

from tracetui.model.pricing import price_band
from tracetui.model.usage import UsageBook

__all__ = ["settle"]

_ROWS = (
    "SELECT m.msg, m.file, m.day, m.model, m.input, m.output, m.cache_creation, m.cache_read, m.cache_write_1h, f.first_ts, f.path"
    " FROM temp.touched t JOIN msgs m ON m.msg = t.msg JOIN files f ON f.id = m.file ORDER BY m.msg"
)


#: the touched messages' rows taken out of (``-``) or put into (``+``) the per-file buckets
_BUCKETS = (
    "INSERT INTO buckets SELECT m.file, m.day, m.model, m.band, {sign}COUNT(*), {sign}SUM(m.input), {sign}SUM(m.output),"
    " {sign}SUM(m.cache_creation), {sign}SUM(m.cache_read), {sign}SUM(m.cache_write_1h)"
    " FROM temp.touched t JOIN messages m ON m.msg = t.msg WHERE true GROUP BY m.file, m.day, m.model, m.band"
    " ON CONFLICT(file, day, model, band) DO UPDATE SET messages = messages + excluded.messages, input = input + excluded.input,"
    " output = output + excluded.output, cache_creation = cache_creation + excluded.cache_creation,"
    " cache_read = cache_read + excluded.cache_read, cache_write_1h = cache_write_1h + excluded.cache_write_1h"
)


def _owner_order(r: tuple) -> tuple[str, str, str]:
    return (r[2] or "\uffff", r[9] or "\uffff", r[10])


def settle(conn: sqlite3.Connection, msgs: Iterable[str]) -> None:
    """Make the ``messages`` rows of the message ids ``msgs`` agree with ``msgs`` rows of every
    file (inside a write transaction): recomputed, or deleted when no file has the id any
    more. Raises ``sqlite3.Error``."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS touched(msg TEXT PRIMARY KEY) WITHOUT ROWID")
    conn.execute("DELETE FROM temp.touched")
    conn.executemany("INSERT OR IGNORE INTO temp.touched VALUES (?)", ((m,) for m in msgs))
    conn.execute(_BUCKETS.format(sign="-"))
    conn.execute("DELETE FROM messages WHERE msg IN (SELECT msg FROM temp.touched)")
    book = UsageBook()
    out = []
    for msg, group in groupby(conn.execute(_ROWS).fetchall(), key=itemgetter(0)):
        recs = list(group)
        if len(recs) == 1:  # in one file: its fold's entry is the message
            r = recs[0]
            fid, day, model, u = r[1], r[2], r[3], r[4:9]
        else:
            recs.sort(key=_owner_order)
            for r in recs:
                book.add(msg, r[3], r[4:9], r[2])
            m = book.message(msg)
            assert m is not None
            u, model, day = m
            fid = recs[0][1]
        out.append((msg, fid, day, model, price_band(u[0], u[2], u[3]), *u))
    conn.executemany("INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?)", out)
    conn.execute(_BUCKETS.format(sign="+"))
    conn.execute("DELETE FROM buckets WHERE messages = 0")
    conn.execute("DELETE FROM temp.touched")
