"""The session header: status (LIVE, PAUSED, HISTORY), agent, session, project, model, watermark."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tracetui.ingest.agents import agent_name
from tracetui.model.state import unknown_text
from tracetui.tui.fields import append_fields
from tracetui.tui.format import file_label, fmt_bytes, fmt_count, one_line
from tracetui.tui.view_model import main_model
from tracetui.tui.widgets.pane import Shown, guarded, short_anchor, update_text
from tracetui.views.format import plural

__all__ = ["SessionHeader", "status_of"]


def status_of(shown: Shown) -> str:
    """``HISTORY``, ``PAUSED``, ``LIVE`` (the files were written within
    ``format.LIVE_WINDOW``), or ``IDLE 3h`` (how long since the last write)."""
    if shown.history:
        return "HISTORY"
    if shown.paused:
        return "PAUSED"
    return shown.live_status


class SessionHeader(Static):
    """Two lines: who (status, agent, session, project, model) and the watermark (what is covered).

    The agent (:attr:`agent`, set by the session view from the main file's first record): a
    Codex CLI session is named by a badge after the status, and its version as ``codex X``; a
    Claude Code session, the default, by its version alone (``cc 2.1.30``).

    Every value comes from the state the panes show (``shown.state``). In HISTORY that is the
    state as of the end of the scrubbed episode (its own project, branch, version, model, and
    watermark: the bytes before the closing prompt, main thread only), and the header says so
    (``as of end of ep 2/5``); the one live figure it adds is labelled ``live:``.
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes)
        self.demo = False
        #: the agent that wrote the session: ``"claude"`` | ``"codex"``
        self.agent = "claude"
        self.mode = ""
        #: snapshots folded but held while PAUSED (said first on line 2, so it stays in view)
        self.held = 0
        #: the episode whose state is being read for a scrub step (the panes show the one
        #: before it meanwhile), or ``None``
        self.reading: int | None = None
        self.shown: Shown | None = None

    def on_resize(self) -> None:
        if self.shown is not None:
            self.show(self.shown)

    @guarded
    def show(self, shown: Shown) -> None:
        self.shown = shown
        st = shown.state
        m = st.main
        status = status_of(shown)
        self.set_class(status == "HISTORY", "-history")
        self.set_class(status == "PAUSED", "-paused")
        self.set_class(status.startswith("IDLE"), "-idle")
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f" {status} ", style="bold reverse")
        if shown.history:
            t.append(f" as of end of ep {shown.episode}/{len(shown.rows)} ", style="bold")
        if self.reading is not None:
            t.append(f" reading ep {self.reading}… ", style="bold reverse")
        if self.demo:
            t.append(" DEMO ", style="bold reverse magenta")
        if self.agent != "claude":
            t.append(f" {agent_name(self.agent)} ", style="bold reverse cyan")
        t.append(" ")
        # the id's first 8 characters; before it is known (an empty, unreadable or truncated
        # file), the file's whole name (trial 11: "UNREADABLE  adir.jso", "LIVE  poll.jso")
        sid = one_line(m.session_id[:8]) if m.session_id else file_label(st.sources[0].name) if st.sources else "?"
        t.append(one_line(m.title, 40) if m.title else sid, style="bold")
        if m.title:
            t.append(f" {sid}", style="dim")
        t.append("  ")
        t.append(one_line(m.cwd or "?", 50))
        if m.git_branch:
            t.append(f" ({one_line(m.git_branch, 30)})", style="dim")
        model, others = main_model(st)
        width = self.size.width or WIDE
        # the model and the version are dropped whole on a narrow screen, never cut inside
        tail = [(f"  {one_line(model or 'no model yet', 40)}", "bold")]
        if others:
            tail.append((f" +{others} more", "dim"))
        if m.version:
            tail.append((f"  {'cc' if self.agent == 'claude' else self.agent} {one_line(m.version, 12)}", "dim"))
        append_fields(t, tail, width)
        t.append("\n")
        t.append_text(watermark(shown, self.mode, width, self.held if shown.paused else 0))
        update_text(self, t)


#: from this many columns the watermark names the whole file; below, a long name is cut to its
#: first 8 characters (:func:`short_anchor`) so the bytes and counts after it stay in view
WIDE = 100


def watermark(shown: Shown, mode: str = "", width: int = WIDE, held: int = 0) -> Text:
    """Through which file:line the state shown is folded, bytes read, malformed, unknown,
    pending bytes, files: all of ``shown.state`` (in HISTORY, as of the end of the episode,
    main thread only), then the live reader's ``mode`` (labelled ``live`` in HISTORY, with the
    live watermark's line and bytes). ``width`` (cells): below :data:`WIDE` a long file name
    is shortened. ``held``: updates folded and held while PAUSED, said first (``2 update(s)
    held ·``) so the line's cut end never takes it (third user trial, 120 columns)."""
    st = shown.state
    t = Text(no_wrap=True, overflow="ellipsis", style="dim")
    if held:
        t.append(f" {plural(held, 'update')} held ·", style="bold yellow")
    if not st.sources:
        t.append(" no source")
        return t
    s = st.sources[0]
    through = st.main.last_anchor
    if shown.history:
        t.append(" main thread:", style="bold")
    where = one_line(st.fmt_anchor(through)) if width >= WIDE else short_anchor(st, through)
    t.append(f" through {where}" if through else " through nothing yet")
    mal = sum(x.malformed for x in st.sources)
    unk = st.counters.unknown_records + st.counters.unknown_blocks
    pend = sum(x.pending_bytes for x in st.sources)
    # whole fields, dropped from the right on a narrow screen, never cut inside a figure
    fields = [
        (f" @{fmt_bytes(s.consumed)}", "dim"),
        (f" · {fmt_count(mal)} malformed", "bold yellow" if mal else "dim"),
        (f" · {unknown_text(st.counters.unknown_records, st.counters.unknown_blocks)}", "yellow" if unk else "dim"),
        (f" · {fmt_bytes(pend)} pending", "dim"),
        (f" · {plural(len(st.sources), 'file')}", "dim"),
    ]
    if shown.history:
        live = shown.live
        lt = live.main.last_anchor
        at = f"@{fmt_bytes(live.sources[0].consumed)}" if live.sources else "no source"
        fields.append((" · live: " + (f"line {fmt_count(lt.line)} " if lt else "") + at + (f", {mode}" if mode else ""), "bold"))
    elif mode:
        fields.append((f" · {mode}", "dim"))
    append_fields(t, fields, width)
    return t
