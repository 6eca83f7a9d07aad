"""The Pending calls pane: tool_use blocks with no tool_result yet, each with a ticking age."""

from __future__ import annotations

from rich.text import Text

from tracetui.tui.format import age_of, fmt_age, one_line
from tracetui.tui.widgets.pane import Pane, Shown, anchor_text, set_title, short_anchor

__all__ = ["PendingCalls"]

#: a call pending longer than this many seconds is shown as slow
SLOW_S = 60.0


class PendingCalls(Pane):
    """Every pending call (main thread and subagents): age, tool, brief input, id tail, anchor.

    In an idle session (its files not written within ``format.LIVE_WINDOW``) the rows keep
    their ages, not coloured as slow, and the title says the session is idle: these calls have
    no result recorded, nothing is running them now. In HISTORY the title says they had no
    result by the end of the scrubbed episode, and ages run to that episode's last record."""

    TITLE = "Pending calls"

    def key(self, shown: Shown) -> object:
        p = shown.state.pending
        return (tuple((c.id, c.timestamp) for c in p), int(shown.now), self._idle(shown))

    @staticmethod
    def _idle(shown: Shown) -> str:
        """``idle 452d`` when the live session is idle, else ``""`` (scrubbing shows a past state:
        its calls were pending then)."""
        act = shown.activity
        return "" if shown.history or act == "live" else act

    def build(self, shown: Shown) -> Text:
        st = shown.state
        calls = sorted(st.pending, key=lambda c: (c.timestamp or "", c.seq))
        idle = self._idle(shown)
        title = f"Pending calls ({len(calls)})" + (f" · session {idle}" if idle and calls else "")
        if shown.history and calls:  # ages are to the episode's last record (shown.now)
            title += f" · no result by end of ep {shown.episode}"
        set_title(self, title)
        if not calls:
            return Text("none in flight", style="dim italic")
        rows = self.rows_available
        show = calls if len(calls) <= rows else calls[: rows - 1]
        out = Text(no_wrap=True, overflow="ellipsis")
        w = self.width_available
        for i, c in enumerate(show):
            if i:
                out.append("\n")
            age = age_of(c.timestamp, shown.now)
            if idle:
                age_style = "dim"
            else:
                age_style = "bold red" if age is not None and age >= SLOW_S else "bold yellow"
            out.append(f"{fmt_age(age):>6} ", style=age_style)
            name = one_line(c.name)
            out.append(name, style="bold")
            if c.sidechain:
                out.append(" (sub)", style="dim")
            anchor = short_anchor(st, c.anchor)
            wide = w >= 60
            room = max(8, w - 7 - len(name) - 1 - len(anchor) - 1 - (10 if wide else 0) - (6 if c.sidechain else 0))
            out.append(" " + one_line(c.brief, room))
            if wide:
                out.append(f" …{c.id[-8:]}", style="dim")
            out.append(" ")
            out.append_text(anchor_text(st, c.anchor))
        if len(show) < len(calls):
            # on the first line when a one-row pane lists none above it
            out.append(("\n" if show else "") + f"+{len(calls) - len(show)} more pending", style="italic")
        return out
