"""The Subagents pane: each Task/Agent call as a tree node, its transcript's state beneath."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widgets import Tree

from tracetui.model.state import AgentState, RunState, SubagentLink
from tracetui.tui.format import fmt_tokens, one_line
from tracetui.tui.widgets.pane import Folded, Shown, guarded, set_title, short_anchor
from tracetui.views.format import plural

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
    t.append(f" {plural(a.counters.tool_calls, 'call')}", style="")
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
        #: the entries shown, in order: ``(identity, key)`` (:meth:`_patch`)
        self._rows: list[tuple[tuple[str, object], object]] = []

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
        ctx = _Entries(st, shown, idle)
        rows: list[_Row] = [(("link", link.tool_use_id), ctx.link_key(link, 0), link) for link in st.main.subagents]
        rows += [(("orphan", a.src), ctx.agent_key(a), a) for a in st.agents if a.src not in ctx.linked]
        self._title = _title(len(st.main.subagents), len(rows) - len(st.main.subagents))
        if not self._patch(ctx, rows):
            self._rebuild(ctx, rows)
        self._rows = [(ident, row_key) for ident, row_key, _ in rows]
        if not rows:
            self._fold = Folded(self._title, 0)
        else:
            first = self.root.children[0].label
            self._fold = Folded(self._title, len(rows), first.plain if isinstance(first, Text) else str(first))
        self._say_hidden()

    def _rebuild(self, ctx: "_Entries", rows: list["_Row"]) -> None:
        """Every entry made afresh (the first show, or entries gone, moved or put between others)."""
        self.clear()
        for _, _, item in rows:
            ctx.add_entry(self.root, item)
        if not rows:
            self.root.add_leaf(Text("no subagents", style="dim italic"))
        self.root.expand()

    def _patch(self, ctx: "_Entries", rows: list["_Row"]) -> bool:
        """Bring the tree to ``rows`` in place when the entries shown are the first of them, in
        the same order: an entry whose key changed is made again where it stands (its node kept,
        expanded or collapsed as the user left it), new ones are added at the end. ``False``
        (nothing changed) when that cannot be done: :meth:`_rebuild` then. One running
        subagent's new call costs one entry, not all of them (5,000 subagents took 1.2 s to
        build on the UI thread, then 0.7 s to draw)."""
        old = self._rows
        nodes = self.root.children
        if not old or len(old) > len(rows) or len(nodes) != len(old):
            return False
        if any(o[0] != r[0] for o, r in zip(old, rows)):
            return False
        for i, ((_, old_key), (_, row_key, item)) in enumerate(zip(old, rows)):
            if old_key != row_key:
                node = nodes[i]
                node.set_label(ctx.entry_label(item))
                node.data = item.source if isinstance(item, SubagentLink) else item.src
                node.remove_children()
                ctx.add_beneath(node, item)
        for _, _, item in rows[len(old) :]:
            ctx.add_entry(self.root, item)
        return True

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


def _title(calls: int, unlinked: int) -> str:
    """The pane's title: the Task/Agent calls and the transcripts no call links, the two kinds of
    entry it lists, so the count and the ``+N more`` of those out of view add up (trial 13:
    ``Subagents (300) +597 more`` of 300 calls and 300 unlinked transcripts):
    ``Subagents (300)``, ``Subagents (300, 300 unlinked)``, ``Subagents (2 unlinked)``."""
    counts = [str(calls)] if calls else []
    if unlinked:
        counts.append(f"{unlinked} unlinked")
    return f"Subagents ({', '.join(counts)})" if counts else "Subagents"


def _lines(node) -> int:
    """Lines ``node`` takes in the tree: its own and its expanded children's."""
    return 1 + (sum(_lines(c) for c in node.children) if node.is_expanded else 0)


#: one entry of the tree's top level: ``(identity, key, item)``: a Task/Agent call (its
#: ``tool_use_id``) or an unlinked transcript (its source); the key holds everything its lines show
_Row = tuple[tuple[str, object], object, "SubagentLink | AgentState"]


class _Entries:
    """The entries of one state: their keys (what their lines show, so an entry whose key is
    unchanged needs no new lines) and their nodes. ``linked``: the sources reached from a
    Task/Agent call, filled by :meth:`link_key` (the rest are unlinked transcripts)."""

    def __init__(self, st: RunState, shown: Shown, idle: bool) -> None:
        self.st, self.idle, self.history = st, idle, shown.history
        self.agents = {a.src: a for a in st.agents}
        self.live_src = {l.tool_use_id: l.source for l in shown.live.main.subagents} if shown.history else {}
        self.linked: set[int] = set()

    def why(self, link: SubagentLink) -> str:
        """The line beneath a call with no transcript folded: why there is none."""
        if link.inline_records:
            # an older Claude Code's subagent: its records are in the main file
            lines = f"lines {link.inline_first.line}–{link.inline_last.line}" if link.inline_first and link.inline_last else ""
            return f"inline in the main file: {plural(link.inline_records, 'record')}, {plural(link.inline_tool_calls, 'tool call')}, {lines}".rstrip(
                ", "
            )
        if self.history and (link.source is not None or self.live_src.get(link.tool_use_id) is not None):
            return "its transcript's state is kept live only (not as of this episode)"
        if link.status == "running" and not self.idle:
            return "transcript not found yet"
        return "no transcript file"

    def _agent(self, link: SubagentLink) -> AgentState | None:
        return self.agents.get(link.source) if link.source is not None else None

    def agent_key(self, a: AgentState) -> object:
        """What :func:`_agent_label` shows of ``a``."""
        f = a.frontier
        return (a.src, a.counters.tool_calls, a.counters.tool_errors, len(a.pending), f.text if f is not None else None)

    def link_key(self, link: SubagentLink, depth: int) -> object:
        """What a call's lines show, its nested calls' (to depth 4) included."""
        a = self._agent(link)
        if a is None:
            return (link, self.idle, self.why(link))
        self.linked.add(a.src)
        nested = tuple(self.link_key(sub, depth + 1) for sub in a.subagents) if depth < 4 else ()
        return (link, self.idle, self.agent_key(a), nested)

    def entry_label(self, item: "SubagentLink | AgentState") -> Text:
        if isinstance(item, SubagentLink):
            return _label(self.st, item, self.idle)
        return Text.assemble(("unlinked ", "yellow"), _agent_label(self.st, item))

    def add_entry(self, parent: Any, item: "SubagentLink | AgentState") -> None:
        """A top-level entry and what is beneath it."""
        if isinstance(item, SubagentLink):
            self.add_link(parent, item, 0)
        else:
            parent.add_leaf(self.entry_label(item), data=item.src)

    def add_beneath(self, node: Any, item: "SubagentLink | AgentState") -> None:
        """What is beneath a top-level entry (an unlinked transcript has nothing)."""
        if isinstance(item, SubagentLink):
            self._beneath(node, item, 0)

    def add_link(self, parent: Any, link: SubagentLink, depth: int) -> None:
        child = parent.add(_label(self.st, link, self.idle), data=link.source, expand=True)
        self._beneath(child, link, depth)

    def _beneath(self, child: Any, link: SubagentLink, depth: int) -> None:
        a = self._agent(link)
        if a is None:
            child.add_leaf(Text(self.why(link), style="dim italic"))
            return
        child.add_leaf(_agent_label(self.st, a), data=a.src)
        if depth < 4 and a.subagents:
            for sub in a.subagents:
                self.add_link(child, sub, depth + 1)
