"""The Now pane: what the main thread is doing (the frontier), and since when."""

from __future__ import annotations

from rich.text import Text

from tracetui.tui.format import age_of, fmt_age, one_line
from tracetui.tui.widgets.pane import Pane, Shown, anchor_text

__all__ = ["NowPane"]

_KIND = {"in_flight": "running", "tool_use": "called", "text": "said", "prompt": "asked"}


class NowPane(Pane):
    """The frontier: the newest call in flight, else the last action, with its age."""

    TITLE = "Now"

    def key(self, shown: Shown) -> object:
        f = shown.state.main.frontier
        age = age_of(f.timestamp, shown.now) if f is not None else None
        return (f, int(age) if age is not None else None, shown.live.main.last_timestamp)

    def build(self, shown: Shown) -> Text:
        st = shown.state
        f = st.main.frontier
        if f is None:
            return Text("nothing yet", style="dim italic")
        out = Text(no_wrap=False, overflow="fold")
        style = "bold yellow" if f.kind == "in_flight" else "bold"
        out.append(f"{_KIND.get(f.kind, f.kind)} ", style=style)
        out.append(one_line(f.text, max(20, self.width_available * max(1, self.rows_available - 1) - 30)))
        out.append("\n")
        out.append(f"for {fmt_age(age_of(f.timestamp, shown.now))}  " if f.kind == "in_flight" else f"{fmt_age(age_of(f.timestamp, shown.now))} ago  ", style="dim")
        out.append_text(anchor_text(st, f.anchor))
        last = age_of(shown.live.main.last_timestamp, shown.now)
        own = age_of(f.timestamp, shown.now)
        # silence is worth saying when it is long, unless the line already says as much
        if not shown.history and last is not None and last >= 30 and (own is None or abs(own - last) > 5):
            out.append(f"  · no record for {fmt_age(last)}", style="yellow")
        return out
