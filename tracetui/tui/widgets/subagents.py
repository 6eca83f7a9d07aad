"""The Subagents pane: each Task/Agent call as a tree node, its transcript's state beneath."""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widgets import Tree

from tracetui.model.state import AgentState, RunState, SubagentLink
from tracetui.tui.format import fmt_tokens, one_line
from tracetui.tui.widgets.pane import Folded, Shown, guarded, set_title, short_anchor

__all__ = ["SubagentsTree"]

_STATUS = {"running": "bold yellow", "completed": "green", "error": "bold red", "async_launched": "cyan"}


def _label(state: RunState, link: SubagentLink, idle: bool = False) -> Text:
    """One Task/Agent call: tool, description, type, status, tokens, anchor. With ``idle`` (the
    session's files not written within ``format.LIVE_WINDOW``) a ``running`` call is said to
    have no result recorded: nothing runs it now."""
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f"{one_line(link.tool)} ", style="bold")
    t.append(one_line(link.description, 60))
    if link.subagent_type:
        t.append(f" [{one_line(link.subagent_type, 30)}]", style="dim")
    if idle and link.status == "running":
        t.append(" no result recorded", style="yellow")
    else:
        t.append(f" {link.status}", style=_STATUS.get(link.status, "magenta"))
    if link.total_tokens is not None:
        t.append(f" {fmt_tokens(link.total_tokens)} tok", style="dim")
    t.append(f" {short_anchor(state, link.anchor)}", style="dim")
    return t


def _agent_label(state: RunState, a: AgentState) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(one_line(state.source_name(a.src)), style="dim")
    t.append(f" {a.counters.tool_calls} calls", style="")
    if a.counters.tool_errors:
        t.append(f" {a.counters.tool_errors} err", style="bold red")
    if a.pending:
        t.append(f" {len(a.pending)} pending", style="yellow")
    if a.frontier is not None:
        t.append(" · " + one_line(a.frontier.text, 50), style="italic")
    return t


class SubagentsTree(Tree[int]):
    """Subagents under the main thread; nested subagents under their parent agent."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(Text("main thread"), id=id, classes=classes)
        self.show_root = False
        self.border_title = "Subagents"
        self._key: object = None
        #: what of the state the key holds, and the state it is of (made once a state)
        self._links_key: object = None
        self._links_of: object = None
        #: the title without the ``+N more`` of entries out of view (:meth:`_say_hidden`)
        self._title = "Subagents"
        #: the one-line summary :meth:`fold` gives, made with the tree
        self._fold = Folded("Subagents", 0)

    def render_label(self, node, base_style: Style, style: Style) -> Text:
        """Textual's label, cut with ``…`` to the width left after the node's indentation (the
        tree crops its lines at the pane's edge without saying so: third user trial)."""
        text = super().render_label(node, base_style, style)
        depth, p = 0, node
        while p.parent is not None:
            depth, p = depth + 1, p.parent
        if not self.show_root:  # the hidden root takes no indentation
            depth -= 1
        room = self.scrollable_content_region.width - max(0, depth) * self.guide_depth
        if 0 < room < text.cell_len:
            text.truncate(room, overflow="ellipsis")
            # never end on a figure's first digits ("1.…" for 1.2k tok): drop the whole word
            plain = text.plain[:-1]
            start = plain.rfind(" ") + 1
            if start > 0 and any(ch.isdigit() for ch in plain[start:]):
                text.truncate(cell_len(plain[:start].rstrip()), overflow="crop")
                text.append(" …")
        return text

    def fold(self) -> Folded:
        """The pane's one-line summary in a column too short for it (tui/layout.py): its
        entries are the Task/Agent calls and the unlinked transcripts, as :meth:`hidden` counts."""
        return self._fold

    @guarded
    def show(self, shown: Shown) -> None:
        st = shown.state
        # an idle session's running calls have no result recorded (a past state, scrubbed, is as it was)
        idle = not shown.history and shown.activity != "live"
        if st is not self._links_of:  # once a state, not at every tick (thousands of subagents)
            self._links_key = (
                tuple((l.tool_use_id, l.status, l.source, l.total_tokens) for l in st.main.subagents),
                tuple((a.src, a.ledger_len, len(a.pending)) for a in st.agents),
            )
            self._links_of = st
        key = (self._links_key, shown.history, idle)
        if key == self._key:
            return
        self._key = key
        agents = {a.src: a for a in st.agents}
        linked: set[int] = set()
        self.clear()
        self._title = f"Subagents ({len(st.main.subagents)})" if st.main.subagents else "Subagents"

        live_src = {l.tool_use_id: l.source for l in shown.live.main.subagents}

        def add(node, links, depth: int) -> None:
            for link in links:
                child = node.add(_label(st, link, idle), data=link.source, expand=True)
                a = agents.get(link.source) if link.source is not None else None
                if a is None:
                    if link.inline_records:
                        # an older Claude Code's subagent: its records are in the main file
                        lines = f"lines {link.inline_first.line}–{link.inline_last.line}" if link.inline_first and link.inline_last else ""
                        why = (
                            f"inline in the main file: {link.inline_records} records, {link.inline_tool_calls} tool calls, {lines}".rstrip(
                                ", "
                            )
                        )
                    elif shown.history and (link.source is not None or live_src.get(link.tool_use_id) is not None):
                        why = "its transcript's state is kept live only (not as of this episode)"
                    elif link.status == "running" and not idle:
                        why = "transcript not found yet"
                    else:
                        why = "no transcript file"
                    child.add_leaf(Text(why, style="dim italic"))
                    continue
                linked.add(a.src)
                child.add_leaf(_agent_label(st, a), data=a.src)
                if depth < 4 and a.subagents:
                    add(child, a.subagents, depth + 1)

        add(self.root, st.main.subagents, 0)
        orphans = [a for a in st.agents if a.src not in linked]
        for a in orphans:
            self.root.add_leaf(Text.assemble(("unlinked ", "yellow"), _agent_label(st, a)), data=a.src)
        if not st.main.subagents and not orphans:
            self.root.add_leaf(Text("no subagents", style="dim italic"))
            self._fold = Folded(self._title, 0)
        else:
            first = self.root.children[0].label
            self._fold = Folded(self._title, len(st.main.subagents) + len(orphans), first.plain if isinstance(first, Text) else str(first))
        self.root.expand()
        self._say_hidden()

    def hidden(self) -> int:
        """How many entries (a Task/Agent call with what is beneath it, or an unlinked
        transcript) have their first line out of the pane's view, above or below."""
        top = round(self.scroll_y)
        rows = self.scrollable_content_region.height
        line, out = 0, 0
        for node in self.root.children:
            if not top <= line < top + rows:
                out += 1
            line += _lines(node)
        return out

    def _say_hidden(self) -> None:
        """The title with ``+N more`` when entries are out of view, as Files and Todos say it."""
        n = self.hidden() if self.root.children and self.size.height else 0
        set_title(self, f"{self._title} +{n} more" if n else self._title)

    def on_resize(self) -> None:
        self._say_hidden()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value):
            self._say_hidden()


def _lines(node) -> int:
    """Lines ``node`` takes in the tree: its own and its expanded children's."""
    return 1 + (sum(_lines(c) for c in node.children) if node.is_expanded else 0)
