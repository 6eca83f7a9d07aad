"""Record timestamps and durations: ISO-8601 parsing, spans between records, ``now`` as a
datetime, and a duration as the views show it. Pure: never reads the clock."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["parse_ts", "duration_between", "as_datetime", "fmt_span", "later"]


def parse_ts(ts: str | None) -> datetime | None:
    """An ISO-8601 record timestamp (``2026-02-12T15:36:09.570Z``) as an aware datetime, or None."""
    if not ts:
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None


def later(ts: str, than: str | None) -> bool:
    """Whether record timestamp ``ts`` is later than ``than`` (``True`` when ``than`` is
    ``None``). Two stamps of one shape (the same length, both ``Z``: every Claude Code and
    Codex record) compare as text, in order; others by their times; one that does not parse (or
    a local time against a UTC one) is not later."""
    if than is None:
        return True
    if len(ts) == len(than) and ts[-1:] == than[-1:] == "Z":
        return ts > than
    a, b = parse_ts(ts), parse_ts(than)
    if a is None or b is None:
        return False
    try:
        return a > b
    except TypeError:  # naive against aware
        return False


def duration_between(start: str | None, end: str | None) -> float | None:
    """Seconds from ``start`` to ``end`` (record timestamps), or ``None`` when either is missing
    or unparseable, or when ``end`` is earlier (timestamps are not monotonic, so the span between
    the first and last record by file position can be negative; we never report a made-up one)."""
    a, b = parse_ts(start), parse_ts(end)
    if a is None or b is None:
        return None
    d = (b - a).total_seconds()
    return d if d >= 0 else None


def as_datetime(now: datetime | float | int | None) -> datetime | None:
    """``now`` (a datetime, or epoch seconds) as an aware UTC datetime, or ``None``."""
    if now is None:
        return None
    if isinstance(now, datetime):
        return now if now.tzinfo else now.replace(tzinfo=UTC)
    return datetime.fromtimestamp(float(now), tz=UTC)


def fmt_span(seconds: float) -> str:
    """A duration in seconds as the model's messages and the monitor's ages show it: ``42s``,
    ``3m10s``, ``2h05m``, ``277d10h`` (``tracetui.tui.format.fmt_age`` calls this)."""
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    return f"{s // 86400}d{(s % 86400) // 3600:02d}h"
