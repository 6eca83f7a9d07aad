"""The Episodes pane: one line per human prompt; Enter on a line opens its drill-down."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tracetui.tui.format import fmt_age, fmt_count, fmt_tokens, one_line, parse_ts
from tracetui.tui.view_model import EpisodeRow
from tracetui.tui.widgets.pane import Shown, guarded, set_title
from tracetui.views.fleet import past_clock

__all__ = ["EpisodesList", "STATUS_STYLE", "episode_line"]

STATUS_STYLE = {
    "in_progress": ("…", "bold yellow"),
    "ok": ("✓", "green"),
    "errors": ("!", "bold red"),
    "interrupted": ("‖", "magenta"),
    "unresolved": ("?", "red"),
}


def episode_line(row: EpisodeRow, width: int, selected: bool = False, open_label: str = "live", now: float | None = None) -> Text:
    """``  3 ✓ ask…   12c   1 err  45.1k  2m05s`` (tool calls, tool and API errors, tokens,
    duration; the open episode's is ``open_label``: ``live``, or ``idle`` when the session's
    files were not written lately) fitted to ``width`` cells. The figures have
    fixed widths so they line up; they are dropped from the right before the ask gets shorter
    than 12 characters. A duration ending at a record time more than ``CLOCK_SKEW`` after
    ``now`` (epoch seconds; a record of year 2099) is ``?``: no duration the session took."""
    mark, style = STATUS_STYLE.get(row.status, ("·", ""))
    a, b = parse_ts(row.start), parse_ts(row.end)
    if b is not None and past_clock(b, now):
        b = None
    took = open_label if row.live else fmt_age(b - a if a is not None and b is not None and b >= a else None)
    figures = [
        (f"{row.tool_calls:>4}c", ""),
        (f"{row.tool_errors:>3} err", "bold red" if row.tool_errors else "dim"),
        (f"{fmt_tokens(row.tokens):>6}", "dim"),
        (f"{took:>6}", "dim"),
    ]
    head = f"{row.index:>3} "
    versions = f" v{len(row.versions)}" if len(row.versions) > 1 else ""
    while figures and width - len(head) - 2 - sum(len(f) + 1 for f, _ in figures) < 12:
        figures.pop()
    room = max(4, width - len(head) - 2 - sum(len(f) + 1 for f, _ in figures))
    ask = one_line(row.ask, max(1, room - len(versions))) + versions
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(head, style="reverse bold" if selected else "bold")
    t.append(f"{mark} ", style=style)
    t.append(ask.ljust(room))
    for f, st in figures:
        t.append(" ")
        t.append(f, style=st)
    return t


class _Row(Option):
    """An episode's option whose line (:func:`episode_line`) is made when it is first drawn or
    read: masking secrets (``clean``) costs about 0.1 ms a line, 0.3 s for a first draw of 2,500
    episodes of which a screen shows 30. Every row is one line, so the list is measured
    without making any (:meth:`EpisodesList._update_lines`)."""

    def __init__(self, make: Callable[[], Text]) -> None:
        super().__init__("")
        self._make: Callable[[], Text] | None = make

    @property
    def prompt(self) -> Text:  # type: ignore[override]
        if self._make is not None:
            self._prompt, self._make = self._make(), None
        return self._prompt  # type: ignore[return-value]

    def _set_prompt(self, prompt: object) -> None:
        self._make = prompt if callable(prompt) else None
        super()._set_prompt("" if callable(prompt) else prompt)  # type: ignore[arg-type]


def _row(row: EpisodeRow, width: int, selected: bool, open_label: str, now: float | None) -> _Row:
    return _Row(lambda: episode_line(row, width, selected, open_label, now))


class EpisodesList(OptionList):
    """Episodes, oldest first; the scrubbed one is marked; Enter opens the drill-down.

    The cursor follows the newest episode until the user moves it (:attr:`user_moved`: a
    cursor key or a click); scrubbing puts it on the scrubbed episode, and going back to live
    puts it on the newest again and forgets the user's move.
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.border_title = "Episodes"
        self.rows_data: tuple[EpisodeRow, ...] = ()
        self._keys: list[object] = []
        self._width = 0
        self.shown: Shown | None = None
        #: the user put the cursor on a row (cursor keys, click) since it last followed the newest
        self.user_moved = False

    @guarded
    def show(self, shown: Shown) -> None:
        self.shown = shown
        rows = shown.rows
        sel = shown.episode
        width = max(20, self.scrollable_content_region.width or self.size.width)
        # while scrubbing, the list (and each row's figures) is still the live one: say so; the
        # rows count the main thread's calls and tokens (Counters add the subagents')
        set_title(
            self,
            f"Episodes ({fmt_count(len(rows))}, live, main thread)" if shown.history else f"Episodes ({fmt_count(len(rows))}, main thread)",
        )
        open_label = "live" if shown.activity == "live" else "idle"
        now = shown.now
        keys = [
            (
                r.index,
                r.status,
                r.tool_calls,
                r.tool_errors,
                r.tokens,
                r.end,
                past_clock(parse_ts(r.end), now),
                len(r.versions),
                r.ask,
                r.live and open_label,
                sel == r.index,
            )
            for r in rows
        ]
        if keys == self._keys and width == self._width:
            return
        old = self._keys if width == self._width else []
        was_sel = any(k[-1] for k in self._keys)
        was_at = self.highlighted
        follow = not self.user_moved or self.highlighted is None or self.highlighted >= len(self._keys) - 1
        if len(old) > len(keys) or any(a[0] != b[0] for a, b in zip(old, keys)) or not old:
            if old:  # other episodes (the file was folded again): the user's row is gone
                self.user_moved = False
                follow = True
            self.clear_options()
            old = []
        for i in range(min(len(old), len(keys))):
            if old[i] != keys[i]:
                r = rows[i]
                self._replace_row(i, r, width, sel == r.index, open_label, now)
        if len(keys) > len(old):  # the new rows in one go (one by one, each redid the list's lines)
            self.add_options([_row(r, width, sel == r.index, open_label, now) for r in rows[len(old) :]])
        self._keys = keys
        self._width = width
        self.rows_data = tuple(rows)
        if sel is not None:
            self.user_moved = False
            if rows:
                self.highlighted = max(0, min(len(rows) - 1, sel - rows[0].index))
        elif was_sel or follow:
            # live again after scrubbing, or following: the cursor is on the newest episode
            self.user_moved = False
            if rows:
                self.highlighted = len(rows) - 1
        elif self.highlighted is None and was_at is not None and rows:
            # redrawn at another width: the cursor stays on the user's row
            self.highlighted = min(was_at, len(rows) - 1)

    def _replace_row(self, index: int, row: EpisodeRow, width: int, selected: bool, open_label: str, now: float | None) -> None:
        """Row ``index`` is now ``row``'s line (made when drawn). Every row is one line, so the
        other rows stay measured and only this row's rendering is dropped; Textual's own
        ``replace_option_prompt_at_index`` measures every row again, which made each scrub step
        O(episodes). (Private parts of Textual 8.2's OptionList, pinned in pyproject.)"""
        option = self.get_option_at_index(index)
        option._set_prompt(lambda: episode_line(row, width, selected, open_label, now))
        cache = self._option_render_cache
        for key in [k for k in cache.keys() if k[0] is option]:
            cache.discard(key)
        self.refresh()

    def _update_lines(self) -> None:
        """Textual's line map of the options, for rows of one line each (:func:`episode_line`:
        ``no_wrap``, no newline: :func:`~tracetui.tui.format.one_line`), without making or
        measuring any row's line: the map Textual 8.2's ``OptionList._update_lines`` builds
        for them (no dividers here)."""
        if not self.scrollable_content_region:
            return
        cache = self._line_cache
        lines = cache.lines
        for index in range(lines[-1][0] + 1 if lines else 0, len(self.options)):
            cache.index_to_line[index] = len(lines)
            cache.heights[index] = 1
            lines.append((index, 0))
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        virtual_size = Size(width, len(lines))
        if virtual_size != self.virtual_size:
            self.virtual_size = virtual_size
            self._scroll_update(virtual_size)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """One line per row (made for none of them)."""
        return self.option_count

    # the user's own moves: from then on `e` opens the row under the cursor (SessionView)
    def action_cursor_up(self) -> None:
        self.user_moved = True
        super().action_cursor_up()

    def action_cursor_down(self) -> None:
        self.user_moved = True
        super().action_cursor_down()

    def action_first(self) -> None:
        self.user_moved = True
        super().action_first()

    def action_last(self) -> None:
        self.user_moved = True
        super().action_last()

    def action_page_up(self) -> None:
        self.user_moved = True
        super().action_page_up()

    def action_page_down(self) -> None:
        self.user_moved = True
        super().action_page_down()

    async def _on_click(self, event: events.Click) -> None:
        self.user_moved = True
        await super()._on_click(event)

    def on_resize(self) -> None:
        if self.shown is not None:
            self.show(self.shown)

    def selected_index(self) -> int | None:
        """The episode index (1-based) under the cursor, or ``None`` when empty."""
        h = self.highlighted
        if not self.rows_data or h is None or not 0 <= h < len(self.rows_data):
            return None
        return self.rows_data[h].index
