"""The Goal pane: the session's first human prompt and the latest ask."""

from __future__ import annotations

from rich.text import Text

from tracetui.tui.format import one_line
from tracetui.tui.widgets.pane import Pane, Shown, anchor_text, short_anchor

__all__ = ["GoalPane"]


class GoalPane(Pane):
    """Goal (first prompt) and, when different, the latest ask, each with its anchor."""

    TITLE = "Goal"

    def key(self, shown: Shown) -> object:
        m = shown.state.main
        return (m.goal, m.latest_ask, m.title)

    def build(self, shown: Shown) -> Text:
        st = shown.state
        goal, ask = st.main.goal, st.main.latest_ask
        if goal is None:
            return Text("no human prompt yet", style="dim italic")
        w = self.width_available
        rows = self.rows_available
        out = Text(no_wrap=False, overflow="fold")
        same = ask is None or ask.anchor == goal.anchor
        goal_lines = rows if same else max(1, rows - 1 - (rows > 3))
        out.append(one_line(goal.text, max(20, (w - 10) * goal_lines - len(short_anchor(st, goal.anchor)) - 2)))
        out.append("  ")
        out.append_text(anchor_text(st, goal.anchor))
        if not same:
            out.append("\n")
            out.append("Latest ask ", style="bold")
            out.append(one_line(ask.text, max(20, w - 17 - len(short_anchor(st, ask.anchor)))))
            out.append("  ")
            out.append_text(anchor_text(st, ask.anchor))
        return out
