"""The base of the text panes, and :class:`Shown`: what every pane is given on each update."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from rich.text import Text
from textual.widgets import Static

from tracetui.model.state import Anchor, RunState
from tracetui.tui.format import one_line
from tracetui.tui.view_model import EpisodeRow

__all__ = [
    "Shown",
    "Pane",
    "Folded",
    "fold_text",
    "squeeze",
    "anchor_text",
    "short_anchor",
    "guarded",
    "report_failure",
    "update_text",
    "set_title",
]

#: the state the newest record time was last worked out of, and that time (``Shown.activity``)
_newest: tuple[object, float | None] = (None, None)


@dataclass(frozen=True)
class Shown:
    """One update of a session's panes.

    ``live`` is the newest folded state; ``state`` is what the panes show (``live``, or the state
    as of the end of episode ``episode`` while scrubbing); ``now`` is the app clock in seconds
    since the epoch (ages tick from it); ``rows`` are the episodes of ``live``; ``written`` is
    when the session's files were last modified (seconds since the epoch, ``None``: unknown)
    and ``clock`` the app clock (``now`` is the end of the episode while scrubbing).
    """

    live: RunState
    state: RunState
    episode: int | None
    now: float
    rows: tuple[EpisodeRow, ...]
    paused: bool = False
    written: float | None = None
    clock: float | None = None

    @functools.cached_property
    def activity(self) -> str:
        """``live`` while the session's files were written within ``format.LIVE_WINDOW`` of
        the app clock, else ``idle 3h`` (:func:`tracetui.tui.format.activity`; a write long
        after the newest record of ``live``, a copy, counts from that record)."""
        from tracetui.tui.format import activity
        from tracetui.views.fleet_facts import newest_record

        global _newest
        live = self.live
        if _newest[0] is not live:  # once a state, not at every tick (it walks every subagent)
            _newest = (live, newest_record(live))
        return activity(self.written, self.now if self.clock is None else self.clock, _newest[1])

    @property
    def live_status(self) -> str:
        """:attr:`activity` as the header and timeline say it: ``LIVE`` or ``IDLE 3h``; ``GONE``
        when the main transcript is no longer there (deleted or moved: the panes keep what was
        read), ``UNREADABLE`` when it cannot be read (the anomalies pane says why)."""
        src = self.live.sources[0] if self.live.sources else None
        if src is not None and src.error:
            # no file there, or a symlink to none (session/reader.describe_os_error)
            gone = src.error.endswith(": no such file") or src.error.endswith("which does not exist")
            return "GONE" if gone else "UNREADABLE"
        a = self.activity
        return "LIVE" if a == "live" else "IDLE" + a[4:]

    @property
    def history(self) -> bool:
        """True while scrubbing (the panes show a past state)."""
        return self.episode is not None


class Folded(NamedTuple):
    """What a folded pane's summary says: its ``title`` as its border says it (with its count),
    how many ``entries`` it lists, and the first of them (``first``, ``""`` when none)."""

    title: str
    entries: int
    first: str = ""


def squeeze(title: str, room: int) -> str:
    """``title`` in at most ``room`` cells, its figures kept: the name before them is cut
    (``Subag… (1)``), then the whole title when even that does not fit."""
    if len(title) <= room:
        return title
    name, _, rest = title.partition(" ")
    if rest and room - len(rest) - 1 >= 2:
        return one_line(name, room - len(rest) - 1) + " " + rest
    return one_line(title, max(1, room))


def fold_text(parts: Sequence[Folded], rows: int, width: int) -> Text:
    """The summaries of folded panes in ``rows`` lines of ``width`` cells: a line each while
    the rows allow (title, first entry cut to fit, ``+N more`` for the others; ``none`` when
    empty), else the last line joins the titles of the rest (``Todos 2/3 · Subagents (1)``),
    the longest cut first, its figures kept (:func:`squeeze`). Never a count
    with nothing beneath it: a folded pane is a line of its own."""
    rows = max(1, rows)
    own, joined = (list(parts), []) if len(parts) <= rows else (list(parts[: rows - 1]), list(parts[rows - 1 :]))
    lines: list[list[tuple[str, str]]] = []
    for p in own:
        more = f" +{p.entries - 1} more" if p.entries > 1 else ""
        if not p.entries:
            lines.append([(p.title, "bold"), (" none", "dim italic")])
            continue
        room = width - len(p.title) - len(more) - 1
        first = [(" " + one_line(p.first, room), "")] if room >= 4 and p.first else []
        lines.append([(p.title, "bold"), *first, (more, "italic")])
    if joined:
        sep = " · "
        rooms = [len(p.title) for p in joined]
        while sum(rooms) > width - len(sep) * (len(joined) - 1) and max(rooms) > 1:
            rooms[rooms.index(max(rooms))] -= 1  # the longest title gives way first
        line: list[tuple[str, str]] = []
        for i, (p, room) in enumerate(zip(joined, rooms, strict=True)):
            line += [(sep if i else "", "dim"), (squeeze(p.title, room), "bold" if p.entries else "dim")]
        lines.append(line)
    out = Text(no_wrap=True, overflow="ellipsis")
    for i, line in enumerate(lines):
        if i:
            out.append("\n")
        for text, style in line:
            out.append(text, style=style)
    return out


def short_anchor(state: RunState, anchor: Anchor | None) -> str:
    """``file:line`` of ``anchor`` with a long file name cut to its first 8 characters
    (``d3m0c0de…:41``); the drill-down, and the header's watermark from 100 columns, name the
    whole file. The name is data: its controls are shown by their stand-ins
    (:func:`tracetui.tui.format.one_line`), before layout."""
    if anchor is None:
        return "unlocated"
    name = one_line(state.source_name(anchor.src))
    if len(name) > 22:
        name = name[:8] + "…"
    return f"{name}:{anchor.line}"


def anchor_text(state: RunState, anchor: Anchor | None) -> Text:
    """:func:`short_anchor` in a dim style (file names come from disk: shown as data)."""
    return Text(short_anchor(state, anchor), style="dim", no_wrap=True)


def report_failure(widget: Any, exc: Exception) -> None:
    """Say in ``widget`` (and once per message as a notification) that it could not be drawn:
    one pane's bug must not end the monitor."""
    msg = f"{type(widget).__name__} failed: {type(exc).__name__}: {exc}"
    if isinstance(widget, Static):
        update_text(widget, Text(msg, style="bold red"))
    else:
        widget.border_subtitle = "failed: see notification"
    app = widget.app
    said: set[str] | None = getattr(app, "_tracetui_failures", None)
    if said is None:
        said = set()
        app._tracetui_failures = said
    if msg not in said:
        said.add(msg)
        widget.app.notify(msg, title="tracetui bug", severity="error", markup=False, timeout=10)


def update_text(widget: Static, text: Text) -> None:
    """``widget.update(text)`` unless it shows that very text already: the one-second tick
    rebuilds what shows ages, and an unchanged pane must cost no render."""
    if getattr(widget, "_tracetui_text", None) == text:
        return
    widget._tracetui_text = text  # type: ignore[attr-defined]
    widget.update(text, layout=False)


def set_title(widget: Any, title: str) -> None:
    """``widget.border_title = title`` unless it is that title already: Textual repaints the
    widget on every set, and the one-second tick set every pane's title again (the fleet screen
    over the monitor was repainted with it: ~35 KB/s to the terminal for nothing)."""
    if getattr(widget, "_tracetui_title", None) == title:
        return
    widget._tracetui_title = title
    widget.border_title = title


def guarded(show: Callable[..., None]) -> Callable[..., None]:
    """Wrap a widget's ``show`` so an exception is reported in the widget, not raised."""

    @functools.wraps(show)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            show(self, *args, **kwargs)
        except Exception as exc:
            report_failure(self, exc)

    return wrapper


class Pane(Static):
    """A bordered pane whose content is rebuilt from a :class:`Shown` and the pane's size.

    Subclasses implement :meth:`build` returning a :class:`Text`; the pane keeps the last
    :class:`Shown` so a resize re-renders (lists shorten to fit and say ``+N more``).
    """

    TITLE = ""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes)
        self.shown: Shown | None = None
        self.border_title = self.TITLE
        self._key: object = None

    @guarded
    def show(self, shown: Shown) -> None:
        """Render ``shown`` (skipped when :meth:`key` says nothing this pane shows changed)."""
        self.shown = shown
        key = (self.key(shown), self.size)
        if key == self._key and key[0] is not None:
            return
        self._key = key
        # the pane's size comes from the stylesheet, never from its content: no layout pass
        update_text(self, self.build(shown))

    def key(self, shown: Shown) -> object:
        """What the pane's content depends on (``None``: always rebuild)."""
        return None

    def build(self, shown: Shown) -> Text:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def rows_available(self) -> int:
        """Lines of content that fit (at least 1)."""
        return max(1, self.content_size.height)

    @property
    def width_available(self) -> int:
        return max(10, self.content_size.width)

    def on_resize(self) -> None:
        if self.shown is not None:
            self.show(self.shown)
