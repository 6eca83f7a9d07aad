"""The fleet's table: one line per session, drawn line by line (Textual's line API).

Textual's ``DataTable`` measured every cell again after each change and rendered each visible
cell through Rich (about 150 ms a repaint with 200 sessions); here a row is one strip of padded
cells, rebuilt only when its cells or the cursor changed, and a change redraws only its line.
The first line is the header (it stays while the rows scroll). Cells are text made safe by the
views (:func:`tracetui.views.fleet_table.row_cells`); this widget only pads, cuts and colours.

A table wider than the widget scrolls sideways: the first ``frozen`` columns (the state and the
project) stay, the others scroll (left/right a column at a time, Home/End to either edge, the
mouse and the scrollbar to any cell). The columns that stay take half the widget's width at
most: the ones after the first are cut to the room left (:data:`HELD_MIN` cells at least). A cell cut, by its column's width or by an edge of the
view, shows ``…`` where text was left out: a cut end ends in ``…``, a cut start begins with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

__all__ = ["FleetRows", "MAX_WIDTH"]

#: cells a column takes at most (the title's limit is the views')
MAX_WIDTH = 60
#: cells a held column after the first (the project) keeps at least when it is cut to stay in
#: view: the header "Project" and a character
HELD_MIN = 8


@lru_cache(maxsize=64)
def _style(spec: str) -> Style:
    return Style.parse(spec) if spec else Style()


class FleetRows(ScrollView, can_focus=True):
    """Rows of cells under a header. :meth:`set_rows` gives keys, cells and per-cell styles;
    up/down/page keys move the cursor, Enter (or a click) posts :class:`FleetRows.Selected`."""

    COMPONENT_CLASSES = {"fleet-rows--header", "fleet-rows--cursor"}
    DEFAULT_CSS = """
    FleetRows { height: 1fr; }
    FleetRows > .fleet-rows--header { text-style: bold; background: $panel; }
    FleetRows > .fleet-rows--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    FleetRows:blur > .fleet-rows--cursor { background: $block-cursor-blurred-background; }
    """
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("left", "column(-1)", "Left", show=False),
        Binding("right", "column(1)", "Right", show=False),
        Binding("home", "edge(-1)", "Left edge, then first row", show=False),
        Binding("end", "edge(1)", "Right edge, then last row", show=False),
        Binding("ctrl+home", "cursor(-1000000)", "First row", show=False),
        Binding("ctrl+end", "cursor(1000000)", "Last row", show=False),
        Binding("enter", "select", "Open", show=False),
    ]

    class Selected(Message):
        """Enter or a click on the row of ``key``."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class Highlighted(Message):
        """The cursor moved to the row of ``key``."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(
        self, columns: Sequence[tuple[str, str]], right: frozenset[str] = frozenset(), *, frozen: int = 0, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.columns = list(columns)
        self.right = right
        #: leading columns that stay in view while the others scroll sideways
        self.frozen = frozen
        self.keys: list[str] = []
        self.cells: list[tuple[str, ...]] = []
        self.cell_styles: list[tuple[str, ...]] = []
        self.widths = [cell_len(h) for _, h in self.columns]
        self.cursor = 0
        #: the user moved the cursor: from then on it stays on its row's session as rows re-sort;
        #: until then it stays on the first row, the session that needs attention most
        self.moved = False
        self._strips: dict[int, tuple[tuple, Strip]] = {}

    # -- data --------------------------------------------------------------------------------
    def set_rows(self, keys: list[str], cells: list[tuple[str, ...]], styles: list[tuple[str, ...]]) -> None:
        """The rows in order (``cells`` and ``styles``: one tuple per row, a value per column);
        the cursor stays on its row's key once the user moved it, else on the first row. Redraws
        the lines that changed."""
        at = self.keys[self.cursor] if 0 <= self.cursor < len(self.keys) else None
        widths = [min(MAX_WIDTH, max([cell_len(h)] + [cell_len(r[i]) for r in cells])) for i, (_, h) in enumerate(self.columns)]
        full = widths != self.widths or keys != self.keys
        old = self.cells
        self.widths = widths
        self.keys, self.cells, self.cell_styles = keys, cells, styles
        if not self.moved:
            self.cursor = 0
        elif at is not None and at in keys:
            self.cursor = keys.index(at)
        self.cursor = max(0, min(self.cursor, len(keys) - 1))
        self._fit_virtual()
        if full:
            self._strips.clear()
            self.refresh()
            return
        for i, row in enumerate(cells):
            if i >= len(old) or old[i] != row:
                self.refresh_lines(i + 1)

    def row_text(self, i: int) -> list[str]:
        """The cells of row ``i`` as drawn (for tests)."""
        return list(self.cells[i])

    @property
    def cursor_key(self) -> str | None:
        return self.keys[self.cursor] if 0 <= self.cursor < len(self.keys) else None

    # -- drawing -----------------------------------------------------------------------------
    def _held(self) -> int:
        """How many leading columns stay in view: the :attr:`frozen` ones (they are cut to fit,
        :meth:`held_widths`)."""
        return min(self.frozen, len(self.columns))

    def held_widths(self) -> list[int]:
        """The cells each held column is drawn in: its own width when the whole table fits the
        widget; else the held columns take half the widget's width at most, the first (the
        state) whole and each after it cut to the room left, :data:`HELD_MIN` cells at least
        (a 26-cell project at 80 columns: 21 cells, ending in ``…``)."""
        widths = list(self.widths[: self._held()])
        view = self.scrollable_content_region.width  # less the vertical scrollbar
        if not widths or 1 + sum(w + 2 for w in self.widths) <= view:
            return widths
        room = view // 2 - 1 - (widths[0] + 2)
        for j in range(1, len(widths)):
            widths[j] = min(widths[j], max(HELD_MIN, room - 2))
            room -= widths[j] + 2
        return widths

    def _fit_virtual(self) -> None:
        """The scrolling size: the held columns as drawn, then the others (so End stops where
        the last column ends)."""
        held = self._held()
        width = 1 + sum(w + 2 for w in self.held_widths()) + sum(w + 2 for w in self.widths[held:])
        self.virtual_size = Size(width, len(self.keys) + 1)

    def on_resize(self) -> None:
        self._fit_virtual()  # the held columns' widths follow the widget's
        self._strips.clear()

    def _starts(self) -> list[int]:
        """Where each scrolling column starts, in cells from the first scrolling one."""
        out, x = [], 0
        for w in self.widths[self._held() :]:
            out.append(x)
            x += w + 2
        return out

    def _cell(self, i: int, v: str, w: int | None = None) -> str:
        """``v`` padded (or cut, ending in ``…``) to column ``i``'s width (or ``w`` cells), aligned."""
        w = self.widths[i] if w is None else w
        text = v if cell_len(v) <= w else set_cell_size(v[: w - 1], w - 1) + "…"
        pad = w - cell_len(text)
        return " " * pad + text if self.columns[i][0] in self.right else text + " " * pad

    def _line(self, values: Sequence[str], styles: Sequence[Style], base: Style, width: int, scroll_x: int) -> Strip:
        """One line ``width`` cells wide: the held columns, then the others from ``scroll_x``
        (cells) on; a cell an edge cuts through shows ``…`` on that side when text is hidden."""
        held_widths = self.held_widths()
        held = len(held_widths)
        segs = [Segment(" ", base)]
        for i, w in enumerate(held_widths):
            segs += [Segment(self._cell(i, values[i], w), base + styles[i]), Segment("  ", base)]
        left = scroll_x
        right = scroll_x + max(0, width - sum(cell_len(sg.text) for sg in segs))
        x = 0
        for i in range(held, len(values)):
            text = self._cell(i, values[i])
            w = cell_len(text)
            a, b = max(x, left), min(x + w, right)
            if a == x and b == x + w:  # the whole cell in view
                segs.append(Segment(text, base + styles[i]))
            elif a < b:
                cell = Strip([Segment(text, base + styles[i])], w)
                seen = "".join(sg.text for sg in cell.crop(a - x, b - x))
                if b < x + w and "".join(sg.text for sg in cell.crop(b - x, w)).strip():
                    seen = set_cell_size(seen, b - a - 1) + "…"
                if a > x and "".join(sg.text for sg in cell.crop(0, a - x)).strip():
                    seen = "…" + "".join(sg.text for sg in Strip([Segment(seen)]).crop(1, b - a))
                segs.append(Segment(seen, base + styles[i]))
            x += w
            a, b = max(x, left), min(x + 2, right)
            if a < b:
                segs.append(Segment(" " * (b - a), base))
            x += 2
        return Strip(segs).extend_cell_length(width, base).crop(0, width)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        if y == 0:
            header = self.get_component_rich_style("fleet-rows--header")
            return self._line([h for _, h in self.columns], [Style()] * len(self.columns), header, width, scroll_x)
        i = scroll_y + y - 1
        if not 0 <= i < len(self.keys):
            return Strip.blank(width, self.rich_style)
        cursor = i == self.cursor
        key = (self.cells[i], self.cell_styles[i], cursor, self.has_focus, scroll_x, width)
        got = self._strips.get(i)
        if got is not None and got[0] == key:
            return got[1]
        base = self.get_component_rich_style("fleet-rows--cursor") if cursor else self.rich_style
        strip = self._line(self.cells[i], [_style(s) for s in self.cell_styles[i]], base, width, scroll_x)
        self._strips[i] = (key, strip)
        return strip

    # -- keys and mouse ----------------------------------------------------------------------
    def _move(self, to: int) -> None:
        if not self.keys:
            return
        old = self.cursor
        self.moved = True
        self.cursor = max(0, min(to, len(self.keys) - 1))
        if self.cursor == old:
            return
        self.refresh_lines(old + 1)
        self.refresh_lines(self.cursor + 1)
        rows = max(1, self.size.height - 1)  # the header takes a line
        top = self.scroll_offset.y
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + rows:
            self.scroll_to(y=self.cursor - rows + 1, animate=False)
        self.post_message(self.Highlighted(self.keys[self.cursor]))

    def action_cursor(self, step: int) -> None:
        self._move(self.cursor + step)

    def action_column(self, step: int) -> None:
        """Scroll sideways to the start of the next (``step`` 1) or previous (-1) column."""
        x = self.scroll_offset.x
        starts = self._starts()
        to = next((c for c in starts if c > x), self.max_scroll_x) if step > 0 else max((c for c in starts if c < x), default=0)
        self.scroll_to(x=min(to, self.max_scroll_x), animate=False)

    def action_edge(self, step: int) -> None:
        """Home (``step`` -1) / End (1): to the left / right edge of the table; already there,
        to the first / last row."""
        x = self.scroll_offset.x
        if step < 0 and x > 0:
            self.scroll_to(x=0, animate=False)
        elif step > 0 and x < self.max_scroll_x:
            self.scroll_to(x=self.max_scroll_x, animate=False)
        else:
            self.action_cursor(step * 1_000_000)

    def action_page(self, step: int) -> None:
        self._move(self.cursor + step * max(1, self.size.height - 2))

    def action_select(self) -> None:
        if self.cursor_key is not None:
            self.post_message(self.Selected(self.cursor_key))

    def on_click(self, event: events.Click) -> None:
        if event.y < 1:
            return
        i = self.scroll_offset.y + event.y - 1
        if 0 <= i < len(self.keys):
            was = self.cursor
            self._move(i)
            if event.chain >= 2 or i == was:  # a click on the row under the cursor opens it
                self.post_message(self.Selected(self.keys[i]))

    def on_focus(self) -> None:
        self.refresh_lines(self.cursor + 1)

    def on_blur(self) -> None:
        self.refresh_lines(self.cursor + 1)
