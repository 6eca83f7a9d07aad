"""Row shares of stacked panes that always keep every pane on screen.

Textual's ``fr`` heights with ``min-height`` overflow their container when the minimums do not
fit: at 80x24 with a tab bar, the Files | Todos | Subagents column got 8 rows and laid its panes
out over 32, so Todos and Subagents were drawn below the screen and Files lost its ``+N more``
line. :func:`share` gives every pane its title row and at least one line whenever the rows allow,
and :class:`PaneStack` applies it to its children on every resize.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.containers import Vertical

__all__ = ["share", "PaneStack", "ROOMY", "TIGHT"]

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


class PaneStack(Vertical):
    """A column of panes whose heights are :func:`share` of the column's height, set on each
    resize. ``weights`` and ``maxes`` are given per child, in order (children beyond them get
    weight 1 and no maximum)."""

    def __init__(self, weights: Sequence[int], maxes: Sequence[int | None], *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.weights = tuple(weights)
        self.maxes = tuple(maxes)

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.height)

    def fit(self, height: int) -> None:
        """Set the children's heights for a column ``height`` rows high."""
        kids = [c for c in self.children if c.display]
        n = len(kids)
        weights = [self.weights[i] if i < len(self.weights) else 1 for i in range(n)]
        maxes = [self.maxes[i] if i < len(self.maxes) else None for i in range(n)]
        for kid, rows in zip(kids, share(height, weights, maxes), strict=True):
            kid.styles.height = rows  # Textual skips a rule set to the value it has
