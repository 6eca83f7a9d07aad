"""Row shares of stacked panes that always keep every pane on screen.

Textual's ``fr`` heights with ``min-height`` overflow their container when the minimums do not
fit: at 80x24 with a tab bar, the Files | Todos | Subagents column got 8 rows and laid its panes
out over 32, so Todos and Subagents were drawn below the screen and Files lost its ``+N more``
line. :func:`share` gives every pane its title row and at least one line whenever the rows allow,
and :class:`PaneStack` applies it to its children on every resize. In a column too short for that
(60x16: two rows for three panes, and Subagents got none under its count) the last panes are
folded (:func:`folded`) into one-line summaries beneath the others.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tracetui.tui.widgets.pane import fold_text, update_text

__all__ = ["share", "folded", "PaneStack", "ROOMY", "TIGHT"]

#: rows a pane gets at least while every pane can have that many: its title and two lines
ROOMY = 3
#: rows a pane gets at least when the column is shorter: its title and one line (``none``, or
#: ``+N more``)
TIGHT = 2


def share(total: int, weights: Sequence[int], maxes: Sequence[int | None]) -> list[int]:
    """Split ``total`` rows between panes in the proportion of ``weights`` (positive ints),
    each pane between a minimum and its ``maxes`` entry (``None``: no maximum); the heights
    returned sum to ``total`` whenever the maximums allow.

    The minimum is :data:`ROOMY` rows when every pane can have it, else :data:`TIGHT`; below
    ``TIGHT`` rows a pane, the rows are shared out evenly (the first panes get the remainder).
    Fractions are rounded as Textual rounds ``fr`` (cumulative floors), so a column that fits
    gets the heights its stylesheet gave it before.
    """
    n = len(weights)
    if n == 0 or total <= 0:
        return [0] * n
    if total < n * TIGHT:
        base, extra = divmod(total, n)
        return [base + (1 if i < extra else 0) for i in range(n)]
    low = ROOMY if total >= n * ROOMY else TIGHT
    fixed: dict[int, float] = {}
    while True:
        free = [i for i in range(n) if i not in fixed]
        if not free:
            break
        rest = total - sum(fixed.values())
        wsum = sum(weights[i] for i in free)
        want = {i: rest * weights[i] / wsum for i in free}
        over = {i: float(maxes[i]) for i in free if maxes[i] is not None and want[i] > maxes[i]}  # type: ignore[operator]
        under = {i: float(low) for i in free if want[i] < low}
        if not over and not under:
            fixed.update(want)
            break
        fixed.update(under or over)
    sizes = [fixed[i] for i in range(n)]
    out, acc, done = [], 0.0, 0
    for s in sizes:
        acc += s
        out.append(int(acc) - done)
        done = int(acc)
    return out


def folded(total: int, n: int) -> int:
    """How many of ``n`` stacked panes are folded into one-line summaries in a column ``total``
    rows high: none while every pane can have its title and a line (:data:`TIGHT` rows each);
    else the last ones, as few as leave the others ``TIGHT`` rows each and a row for the
    summaries (all ``n`` below ``TIGHT + 1`` rows)."""
    if n == 0 or total >= n * TIGHT:
        return 0
    whole = min(n - 1, max(0, (total - 1) // TIGHT))
    return n - whole


class _FoldLine(Static):
    """The summaries' lines; drawn again at its own width once laid out."""

    def on_resize(self) -> None:
        if isinstance(self.parent, PaneStack):
            self.parent.refresh_fold()


class PaneStack(Vertical):
    """A column of panes whose heights are :func:`share` of the column's height, set on each
    resize. ``weights`` and ``maxes`` are given per child, in order (children beyond them get
    weight 1 and no maximum). When the column is too short for every pane's title and a line,
    the last panes get no rows and their summaries (a pane's ``fold() -> Folded``) are drawn in
    one line each beneath the others (:func:`folded`, :func:`~tracetui.tui.widgets.pane.fold_text`)."""

    def __init__(self, weights: Sequence[int], maxes: Sequence[int | None], *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.weights = tuple(weights)
        self.maxes = tuple(maxes)
        #: the one-line summaries of the folded panes (drawn after the panes)
        self.fold_line = _FoldLine("", classes="pane-fold")
        self._folded: list = []
        self._fold_rows = 0

    def compose(self) -> ComposeResult:
        yield self.fold_line

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.height)

    def fit(self, height: int) -> None:
        """Set the children's heights for a column ``height`` rows high (the folded panes are
        hidden: a pane's top border takes its row even at height 0)."""
        fold = self.fold_line
        kids = [c for c in self.children if c is not fold and (c.display or c in self._folded)]
        n = len(kids)
        k = folded(height, n)
        whole = n - k
        rows = min(k, height - whole * TIGHT) if k else 0
        weights = [self.weights[i] if i < len(self.weights) else 1 for i in range(whole)]
        maxes = [self.maxes[i] if i < len(self.maxes) else None for i in range(whole)]
        for i, kid in enumerate(kids):
            kid.display = i < whole
        for kid, h in zip(kids, share(height - rows, weights, maxes), strict=False):
            kid.styles.height = h  # Textual skips a rule set to the value it has
        self._folded, self._fold_rows = kids[whole:], rows
        fold.styles.height = rows
        fold.display = bool(k)
        self.refresh_fold()

    def refresh_fold(self) -> None:
        """Draw the folded panes' summaries again (after the panes were given a new state)."""
        if not self._folded:
            return
        parts = [kid.fold() for kid in self._folded if hasattr(kid, "fold")]
        width = self.fold_line.content_size.width or max(1, self.size.width - 2)  # its padding
        update_text(self.fold_line, fold_text(parts, self._fold_rows, width))
