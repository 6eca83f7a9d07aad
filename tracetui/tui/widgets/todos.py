"""The Todos pane: TodoWrite items and TaskCreate/TaskUpdate tasks with their status."""

from __future__ import annotations

from rich.text import Text

from tracetui.tui.format import one_line
from tracetui.tui.widgets.pane import Folded, Pane, Shown, set_title

__all__ = ["TodosPane"]

_MARK = {"completed": ("✓", "green"), "in_progress": ("▶", "bold yellow"), "pending": ("○", "")}


class TodosPane(Pane):
    """Todos of the main thread, open ones first."""

    TITLE = "Todos"

    def key(self, shown: Shown) -> object:
        return tuple((t.id, t.status, t.content) for t in shown.state.main.todos)

    @staticmethod
    def _todos(shown: Shown) -> tuple[str, list]:
        """The title and the todos, open ones first."""
        todos = list(shown.state.main.todos)
        done = sum(1 for t in todos if t.status == "completed")
        order = {"in_progress": 0, "pending": 1, "completed": 2}
        todos.sort(key=lambda t: order.get(t.status, 1))
        return (f"Todos {done}/{len(todos)}" if todos else "Todos"), todos

    def fold(self) -> Folded:
        """The pane's one-line summary in a column too short for it (tui/layout.py)."""
        if self.shown is None:
            return Folded(self.TITLE, 0)
        title, todos = self._todos(self.shown)
        first = f"{_MARK.get(todos[0].status, ('?', ''))[0]} {todos[0].content}" if todos else ""
        return Folded(title, len(todos), first)

    def build(self, shown: Shown) -> Text:
        title, todos = self._todos(shown)
        set_title(self, title)
        if not todos:
            return Text("no todos", style="dim italic")
        rows = self.rows_available
        show = todos if len(todos) <= rows else todos[: rows - 1]
        out = Text(no_wrap=True, overflow="ellipsis")
        for i, t in enumerate(show):
            if i:
                out.append("\n")
            mark, style = _MARK.get(t.status, ("?", "magenta"))
            out.append(f"{mark} ", style=style)
            out.append(one_line(t.content, self.width_available - 2), style="dim" if t.status == "completed" else "")
        if len(show) < len(todos):
            # on the first line when a one-row pane lists none above it
            out.append(("\n" if show else "") + f"+{len(todos) - len(show)} more todos", style="italic")
        return out
