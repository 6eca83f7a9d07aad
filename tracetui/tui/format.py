"""Pure formatters for the panes: transcript text made safe, ages, tokens, bytes.

Transcript text is data. Everything here returns plain ``str`` with terminal control characters
replaced by visible stand-ins (the views' rule), or :class:`rich.text.Text` built without markup parsing, so ``[bold]`` or
``[link=…]`` in a prompt shows as typed and an ``ESC[31m`` never reaches the terminal. Nothing
here reads the clock: ``now`` (seconds since the epoch) is always an argument.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from pathlib import PurePath
from typing import TYPE_CHECKING

from rich.text import Text

from tracetui.model.state import one_line_name
from tracetui.model.timestamps import fmt_span
from tracetui.views.fleet import CLOCK_SKEW, LIVE_WINDOW, copied, past_clock
from tracetui.views.format import fmt_bytes as _fmt_bytes
from tracetui.views.format import fmt_count, fmt_short, fmt_usd
from tracetui.views.safe import cut_whole, redacted, safe_text

if TYPE_CHECKING:
    from tracetui.ingest.secret_values import SeenSecrets

__all__ = [
    "clean",
    "one_line",
    "file_label",
    "data",
    "data_block",
    "parse_ts",
    "age_of",
    "fmt_age",
    "fmt_tokens",
    "fmt_bytes",
    "fmt_count",
    "fmt_usd",
    "short_path",
    "file_place",
    "LIVE_WINDOW",
    "is_live",
    "activity",
]


#: texts up to this many characters are remembered by :func:`_shown` (the panes draw the same
#: prompts, paths and briefs on every update; a longer text is rare and is not kept)
_REMEMBER = 4096


@lru_cache(maxsize=8192)
def _remembered(text: str, cut: bool) -> str:
    return safe_text(redacted(text, cut)[0])


def _shown(text: str, cut: bool) -> str:
    return _remembered(text, cut) if len(text) <= _REMEMBER else safe_text(redacted(text, cut)[0])


def clean(text: str, cut: bool = False, seen: SeenSecrets | None = None) -> str:
    """``text`` as the monitor shows it: its secrets masked (:func:`tracetui.views.safe.redacted`,
    as in every view and export) and made safe for the terminal by the one rule,
    :func:`tracetui.views.safe.safe_text` (``ESC`` shown as ``␛``, C1 controls as U+FFFD, one
    character for one, so the text is measured as it is drawn); tabs become four spaces,
    ``CRLF`` a newline. ``cut``: ``text`` is the head of a longer one, so a secret running into
    its end is masked by its head (:func:`tracetui.ingest.secrets.redact`). ``seen``: the
    session's secrets (:func:`tracetui.views.safe.state_secrets`), every copy of one masked too."""
    if not text:
        return ""
    text = text.replace("\r\n", "\n").replace("\t", "    ")
    if seen:  # masked by this session's secrets: not a text to remember for every session
        return safe_text(redacted(text, cut, seen)[0])
    return _shown(text, cut)


def _head(text: str, limit: int) -> tuple[str, bool]:
    """``(the head of text that a cut to limit characters can show, whether it is cut)``: a
    long prompt or tool result is cut before :func:`clean` (masking secrets costs ~1 ms per
    KB), with room for whitespace runs that collapse."""
    room = 8 * limit + 256
    return (text[:room], True) if limit and len(text) > room else (text, False)


def one_line(text: str | None, limit: int = 0) -> str:
    """:func:`clean` text on one line (whitespace runs collapsed), cut to ``limit`` characters
    with ``…`` when ``limit`` > 0."""
    head, cut = _head(text or "", limit)
    s = " ".join(clean(head, cut).split())
    if limit and (len(s) > limit or cut):
        return cut_whole(s + "…" if cut else s, limit)  # a mask is never cut (views/safe.py)
    return s


#: a file name that starts with a session id (``1234abcd-5678-…``, Claude Code's ``<id>.jsonl``)
_STARTS_WITH_ID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-")
#: characters of a file's name in a tab's title or the session header at most
FILE_LABEL_CHARS = 40


def file_label(name: str, limit: int = FILE_LABEL_CHARS) -> str:
    """How a tab or the session header names a session known by its file's ``name`` only: a
    name that starts with a session id by the id's first 8 characters (``1234abcd``, as ids
    are shown everywhere), any other name whole (``mixed_claude_first``, not ``mixed_cl``), on
    one line and at most ``limit`` characters (cut with ``…``)."""
    if _STARTS_WITH_ID.match(name):
        return one_line(name[:8])
    return one_line(name, limit)


def data(text: str | None, style: str = "", limit: int = 0, multiline: bool = False) -> Text:
    """A :class:`Text` holding transcript text literally (never parsed as markup)."""
    if multiline:
        head, cut = _head(text or "", limit)
        s = clean(head, cut)
        if limit and (len(s) > limit or cut):
            s = cut_whole(s + "…" if cut else s, limit)
    else:
        s = one_line(text, limit)
    return Text(s, style=style, no_wrap=not multiline, overflow="ellipsis")


def data_block(text: str | None, limit: int, lines: int, indent: int = 0, style: str = "") -> Text:
    """A :class:`Text` holding transcript text literally with its line breaks (a tool result:
    ``1 from x import y`` and ``2`` on lines of their own), at most ``limit`` characters (as
    :func:`data`) and ``lines`` lines: a longer text keeps its first and last lines with the
    lines left out said between them (a command puts its verdict last). Lines after the first
    start with ``indent`` spaces, under the first's label; blank runs stay as one blank line."""
    t = data((text or "").replace("\r\n", "\n"), style=style, limit=limit, multiline=True)
    rows, blank = [], False
    for row in t.plain.split("\n"):
        row = row.rstrip()
        if row or not blank:
            rows.append(row)
        blank = not row
    if len(rows) > lines:
        head = max(1, (lines - 1) // 2)
        tail = max(1, lines - 1 - head)
        rows = [*rows[:head], f"… [{len(rows) - head - tail} lines not shown] …", *rows[-tail:]]
    return Text(("\n" + " " * indent).join(rows), style=style)


@lru_cache(maxsize=4096)
def parse_ts(ts: str | None) -> float | None:
    """A record timestamp (ISO-8601, ``Z`` suffix) in seconds since the epoch, or ``None``."""
    if not ts:
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def age_of(ts: str | None, now: float) -> float | None:
    """Seconds from record timestamp ``ts`` to ``now`` (never negative: a clock a little
    ahead is "just now"), or ``None`` when it is unknown or more than
    :data:`~tracetui.views.fleet.CLOCK_SKEW` after ``now`` (a record of year 9999 has no age:
    "0s ago" was an age invented)."""
    t = parse_ts(ts)
    if t is None or past_clock(t, now):
        return None
    return max(0.0, now - t)


def fmt_age(seconds: float | None) -> str:
    """``4s``, ``2m05s``, ``1h02m``, ``3d04h`` (rounded to the second, as the views'
    ``fmt_duration`` rounds, so a pane and its copied card or worker view say the same age);
    ``?`` when unknown."""
    return "?" if seconds is None else fmt_span(round(seconds))


def fmt_tokens(n: int | None) -> str:
    """Tokens in short form (``950``, ``12.3k``, ``4.56M``): the views' one formatter,
    :func:`tracetui.views.format.fmt_short`."""
    return fmt_short(n)


def fmt_bytes(n: int | None) -> str:
    """Bytes in short binary form (``512 B``, ``48.1 KiB``, ``3.2 MiB``): the views' one
    formatter, :func:`tracetui.views.format.fmt_bytes`."""
    return _fmt_bytes(n)


def is_live(written: float | None, now: float, last_record: float | None = None) -> bool:
    """The session was written to within :data:`~tracetui.views.fleet.LIVE_WINDOW` seconds of
    ``now`` (``written``: the newest modification time of its files, seconds since the epoch; a
    time after ``now`` by up to :data:`~tracetui.views.fleet.CLOCK_SKEW`, a clock apart, counts
    as just written, one further ahead says nothing of when it was written: not live, as in the
    fleet). A last
    write more than :data:`~tracetui.views.fleet.RECORD_LAG` after the newest record's time
    ``last_record`` (epoch seconds) is no write of the session (``fleet.copied``: a copy, a
    touch): then the record's time is the session's last write, as in the fleet.
    Unknown (``None``) counts as live: nothing says otherwise."""
    if written is None:
        return True
    if written > now + CLOCK_SKEW:
        return False
    if copied(written, last_record):
        assert last_record is not None
        written = last_record
    return now - written < LIVE_WINDOW


def activity(written: float | None, now: float, last_record: float | None = None) -> str:
    """``live``, or ``idle 12m`` / ``idle 3h`` / ``idle 452d`` (the age of the last write in its
    largest whole unit) by :func:`is_live`; ``idle (modified in the future)`` for a last write
    stamped too far ahead to be live; ``idle 279d (a copy?)`` when the last write is no write of
    the session (:func:`is_live`), aged from its newest record ``last_record``."""
    if is_live(written, now, last_record):
        return "live"
    assert written is not None
    if written > now + CLOCK_SKEW:
        return "idle (modified in the future)"  # its age is unknown (is_live)
    if copied(written, last_record):
        assert last_record is not None
        return f"idle {_whole_unit(now - last_record)} (a copy?)"
    return f"idle {_whole_unit(now - written)}"


def _whole_unit(age: float) -> str:
    """``12m`` / ``3h`` / ``452d``: ``age`` (seconds, at least 0 counted) in its largest whole unit."""
    age = max(0.0, age)
    if age < 3600:
        return f"{int(age // 60)}m"
    if age < 86400:
        return f"{int(age // 3600)}h"
    return f"{int(age // 86400)}d"


def short_path(path: str, cwd: str | None, limit: int = 0) -> str:
    """``path`` relative to ``cwd`` when inside it, cut from the left to ``limit`` characters,
    on one line: a line break or tab in it as its control picture (``new␊line.py``, the rule of
    :func:`tracetui.model.state.one_line_name`, as the views show it), then :func:`clean`."""
    p = path
    if cwd and p.startswith(cwd.rstrip("/") + "/"):
        p = p[len(cwd.rstrip("/")) + 1 :]
    p = clean(one_line_name(p))
    if limit and len(p) > limit:
        p = "…" + p[-(limit - 1) :]
    return p


def file_place(path: str, agent: str = "claude") -> str:
    """Where a session's file is, enough to find it and the same on every machine: a Claude Code
    transcript by its project folder and name (``-home-dev-shop/1234abcd-….jsonl``); a Codex CLI
    rollout by its day folders and name (``2026/04/13/rollout-….jsonl``: its folder alone is
    the day of the month, which says nothing), or its name alone outside that layout. One line,
    control characters shown by their stand-ins."""
    p = PurePath(path)
    if agent == "codex":
        day = p.parts[-4:-1]
        if len(day) == 3 and all(x.isdigit() for x in day):
            return one_line("/".join((*day, p.name)))
        return one_line(p.name)
    return one_line(f"{p.parent.name}/{p.name}")
