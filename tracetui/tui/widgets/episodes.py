"""The Episodes pane: one line per human prompt; Enter on a line opens its drill-down."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import OptionList

from tracetui.tui.format import fmt_age, fmt_count, fmt_tokens, one_line, parse_ts
from tracetui.tui.view_model import EpisodeRow
from tracetui.tui.widgets.pane import Shown, guarded, set_title

__all__ = ["EpisodesList", "STATUS_STYLE", "episode_line"]

STATUS_STYLE = {
    "in_progress": ("…", "bold yellow"),
    "ok": ("✓", "green"),
    "errors": ("!", "bold red"),
    "interrupted": ("‖", "magenta"),
    "unresolved": ("?", "red"),
}


def episode_line(row: EpisodeRow, width: int, selected: bool = False, open_label: str = "live") -> Text:
    """``  3 ✓ ask…   12c   1 err  45.1k  2m05s`` (tool calls, tool and API errors, tokens,
    duration; the open episode's is ``open_label``: ``live``, or ``idle`` when the session's
    files were not written lately) fitted to ``width`` cells. The figures have
    fixed widths so they line up; they are dropped from the right before the ask gets shorter
    than 12 characters."""
    mark, style = STATUS_STYLE.get(row.status, ("·", ""))
    a, b = parse_ts(row.start), parse_ts(row.end)
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
        keys = [
            (r.index, r.status, r.tool_calls, r.tool_errors, r.tokens, r.end, len(r.versions), r.ask, r.live and open_label, sel == r.index)
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
                self.replace_option_prompt_at_index(i, episode_line(r, width, sel == r.index, open_label))
        if len(keys) > len(old):  # the new rows in one go (one by one, each redid the list's lines)
            self.add_options([episode_line(r, width, sel == r.index, open_label) for r in rows[len(old) :]])
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

    def _replace_option_prompt(self, index: int, prompt: object) -> None:
        """A row's new prompt. Every row is one line (``episode_line``: ``no_wrap``, one line of
        text), so the other rows stay measured and only this row's rendering is dropped;
        Textual's own clears the line cache, and measuring every row again made each scrub
        step O(episodes). (Private parts of Textual 8.2's OptionList, pinned in pyproject.)"""
        option = self.get_option_at_index(index)
        one_line_prompt = isinstance(prompt, Text) and prompt.no_wrap and "\n" not in prompt.plain
        if not one_line_prompt or self._line_cache.heights.get(index) != 1:
            super()._replace_option_prompt(index, prompt)  # type: ignore[arg-type]
            return
        option._set_prompt(prompt)
        cache = self._option_render_cache
        for key in [k for k in cache.keys() if k[0] is option]:
            cache.discard(key)
        self.refresh()

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
