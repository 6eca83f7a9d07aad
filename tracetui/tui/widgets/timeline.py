"""The timeline: one cell per episode, coloured by status, showing where scrubbing is."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tracetui.tui.widgets.episodes import STATUS_STYLE
from tracetui.tui.widgets.pane import Shown, guarded, update_text

__all__ = ["Timeline"]


class Timeline(Static):
    """``episodes ▮▮▮[▮]▮ 4/6 HISTORY  [ ] step · l live`` — one line."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes)
        self.shown: Shown | None = None

    @guarded
    def show(self, shown: Shown) -> None:
        self.shown = shown
        update_text(self, self.build(shown, max(20, self.size.width or 80)))

    def on_resize(self) -> None:
        if self.shown is not None:
            self.show(self.shown)

    @staticmethod
    def build(shown: Shown, width: int) -> Text:
        """The timeline for ``width`` cells (several episodes share a cell when many)."""
        rows = shown.rows
        n = len(rows)
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(" episodes ", style="bold")
        if shown.history:
            tail = f" {shown.episode}/{n} HISTORY · as of the end of episode {shown.episode} · l: back to live"
        else:
            tail = f" {n}/{n} {shown.live_status}" if n else " none yet"
            if n > 1:
                tail += " · [ ]: step through episodes"
        room = max(4, width - len(tail) - 12)
        if n:
            per = max(1, -(-n // room))
            for start in range(0, n, per):
                group = rows[start : start + per]
                worst = max(
                    group,
                    key=lambda r: (
                        ("ok", "in_progress", "unresolved", "interrupted", "errors").index(r.status)
                        if r.status in ("ok", "in_progress", "unresolved", "interrupted", "errors")
                        else 0
                    ),
                )
                _mark, style = STATUS_STYLE.get(worst.status, ("·", ""))
                here = shown.episode in {r.index for r in group} if shown.history else (start + per >= n)
                t.append("█" if here else "▮", style=(style + " reverse") if here and shown.history else style)
        t.append(tail, style="bold reverse" if shown.history else "dim")
        return t
