"""The episode drill-down: its steps and tool calls with excerpts read back by anchor, its
errors, anchors and version history."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from tracetui.model.state import Anchor, Event, RunState
from tracetui.tui.excerpts import ASK_SHOWN, ask_shown, read_ask, read_excerpt
from tracetui.tui.format import data, data_block, file_place, fmt_age, fmt_tokens, one_line, parse_ts
from tracetui.tui.view_model import EpisodeRow, episode_events
from tracetui.tui.widgets.episodes import STATUS_STYLE
from tracetui.tui.widgets.pane import short_anchor
from tracetui.views.fleet import past_clock
from tracetui.views.format import fmt_count, plural

__all__ = ["EpisodeScreen", "MAX_STEPS", "LATE_SCAN", "RESULT_LINES", "plural", "error_counts"]

#: steps read back from disk at most (the rest show their inline ledger excerpt)
MAX_STEPS = 300
#: lines of a tool result shown at most (its first and last; the characters are bounded too)
RESULT_LINES = 24
#: where a result's lines after the first start: under the text after ``  out ``
_OUT_INDENT = 6
#: ledger events after an episode searched for late results of its calls
LATE_SCAN = 5000
_SHOWN_KINDS = {
    "tool_use",
    "tool_result",
    "assistant_text",
    "interrupt",
    "api_error",
    "compaction",
    "compact_summary",
    "prompt",
    "system",
    "unknown_record",
    "unknown_block",
}


#: what an Errors entry of each category is called (``earlier``: see :meth:`EpisodeScreen.error_entries`)
_ENTRY_LABEL = {
    "tool": lambda ev: ev.name or "tool",
    "api": lambda ev: "API error",
    "interrupt": lambda ev: "interrupt",
    "earlier": lambda ev: f"{ev.name or 'tool'} (a call made before this episode)",
    "retry": lambda ev: "API retry notice",
    "other": lambda ev: ev.name or ev.kind.replace("_", " "),
}


def error_counts(entries: list[tuple[str, Event]], resolved: int = 0) -> str:
    """The counts of an Errors list by category: ``1 tool error · 1 interrupt``; tool errors
    always, the others when there are any; ``(k fixed by retry)`` after the tool errors."""
    n = {c: 0 for c in _ENTRY_LABEL}
    for cat, _ev in entries:
        n[cat] += 1
    parts = [plural(n["tool"], "tool error") + (f" ({resolved} fixed by retry)" if resolved else "")]
    if n["api"]:
        parts.append(plural(n["api"], "API error"))
    if n["interrupt"]:
        parts.append(plural(n["interrupt"], "interrupt"))
    if n["retry"]:
        parts.append(plural(n["retry"], "API retry notice"))
    if n["earlier"]:
        parts.append(plural(n["earlier"], "failed result") + " of earlier calls")
    if n["other"]:
        parts.append(plural(n["other"], "other error"))
    return " · ".join(parts)


class EpisodeScreen(Screen[None]):
    """Everything one episode did. Escape goes back to the monitor; q quits (the app's key)."""

    AUTO_FOCUS = "#episode-body"

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="episode-back"),
        Binding("q", "app.quit", "Quit", id="episode-quit", tooltip="Quit tracetui (esc goes back)"),
    ]

    def __init__(self, state: RunState, row: EpisodeRow, source: object = None) -> None:
        super().__init__(classes="episode-screen")
        self.state = state
        self.row = row
        #: the session view it was opened from; for the open (live) episode that view passes
        #: each new state on (:meth:`follow`), so the drill-down grows with the file
        self.source = source
        self.follows = row.live and source is not None
        #: the monitor is paused: the drill-down is held with it (said in the summary)
        self.held = bool(getattr(source, "paused", False))
        self.events: list[Event] = episode_events(state, row)
        #: results of this episode's calls that arrived after it ended (a late tool_result)
        self.late: dict[str, Event] = self._late_results()
        #: read-back excerpts by (src, offset, block); filled by a thread worker
        self.excerpts: dict[tuple[int, int, int], str] = {}
        #: the ask read back from the file (:func:`~tracetui.tui.excerpts.read_ask`), by anchor
        self.ask_read: tuple[Anchor, tuple[str, bool]] | None = None
        self.loaded = False

    def follow(self, state: RunState, row: EpisodeRow, held: bool = False) -> bool:
        """Show ``row`` of the newer ``state`` (the same episode, grown; it may have ended since).
        Excerpts already read are kept; the new steps are read back in the thread worker.
        ``held``: the monitor is paused, the state is not taken (the summary says held).
        Returns whether anything was redrawn."""
        toggled = held != self.held
        self.held = held
        if held or state is self.state or row.index != self.row.index:
            if toggled:
                self.query_one("#episode-summary", Static).update(self._summary())
            return toggled
        self.state, self.row = state, row
        self.events = episode_events(state, row)
        self.late = self._late_results()
        self.loaded = False
        self.query_one("#episode-summary", Static).update(self._summary())
        self.query_one("#episode-steps", Static).update(self._steps())
        self.query_one("#episode-errors", Static).update(self._errors_and_anchors())
        self.query_one("#episode-versions", Static).update(self._versions())
        if self.events:
            self.read_back()
        return True

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="episode-body"):
            yield Static(self._summary(), id="episode-summary")
            yield Static(self._steps(), id="episode-steps")
            yield Static(self._errors_and_anchors(), id="episode-errors")
            yield Static(self._versions(), id="episode-versions")
        yield Footer()

    def on_mount(self) -> None:
        self.title = f"Episode {self.row.index}"
        if self.events or self.row.ask_anchor is not None:
            self.read_back()

    def _late_results(self) -> dict[str, Event]:
        """Scan at most :data:`LATE_SCAN` events past the episode for results of its open calls."""
        done = {ev.tool_use_id for ev in self.events if ev.kind == "tool_result"}
        open_ids = {ev.tool_use_id for ev in self.events if ev.kind == "tool_use" and ev.tool_use_id not in done}
        if not open_ids or not self.state.ledgers:
            return {}
        led = self.state.ledgers[self.state.main.src]
        end = min(len(led), self.state.main.ledger_len)
        out: dict[str, Event] = {}
        for ev in led[self.row.ledger_end : min(end, self.row.ledger_end + LATE_SCAN)]:
            if ev.kind == "tool_result" and ev.tool_use_id in open_ids and ev.tool_use_id not in out:
                out[ev.tool_use_id] = ev
        return out

    # -- I/O in a thread --------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, name="read-back")
    def read_back(self) -> None:
        """Read the inputs and results of the episode's steps back from the files."""
        got: dict[tuple[int, int, int], str] = {}
        have = self.excerpts  # read before (the drill-down of the open episode grows)
        state = self.state
        ask = self.ask_read
        at = self.row.ask_anchor
        if at is not None and (ask is None or ask[0] != at):
            block = next((ev.block for ev in self.events if ev.kind == "prompt" and ev.anchor == at), 0)
            # no inline head: ask_shown puts the episode's own text before the note
            ask = (at, read_ask(state, at, block, ASK_SHOWN))
        n = 0
        for ev in [*self.events, *self.late.values()]:
            if ev.kind in ("tool_use", "tool_result", "assistant_text", "prompt", "api_error"):
                key = (ev.anchor.src, ev.anchor.offset, ev.block)
                got[key] = have[key] if key in have else read_excerpt(state, ev.anchor, ev.block, inline=ev.excerpt)
                n += 1
                if n >= MAX_STEPS:
                    break
        self.app.call_from_thread(self._loaded, got, ask)

    def _loaded(self, got: dict[tuple[int, int, int], str], ask: tuple[Anchor, tuple[str, bool]] | None = None) -> None:
        self.excerpts = got
        self.ask_read = ask
        self.loaded = True
        self.query_one("#episode-summary", Static).update(self._summary())
        self.query_one("#episode-steps", Static).update(self._steps())

    # -- errors -----------------------------------------------------------------------------
    def error_entries(self) -> list[tuple[str, Event]]:
        """The Errors list: ``(category, event)`` in ledger order, then late results. Categories:
        ``tool`` (a failed result of this episode's call, late ones included), ``api`` (an API
        error), ``interrupt`` (the user interrupted), ``earlier`` (a failed result, in this
        episode, of a call made before it: the episode model counts it in the call's episode),
        ``retry`` (Claude Code's notice that it retries a failed API request), ``other`` (another record marked as an error)."""
        calls = {ev.tool_use_id for ev in self.events if ev.kind == "tool_use" and ev.tool_use_id}
        out: list[tuple[str, Event]] = []
        for ev in self.events:
            if ev.kind == "interrupt":
                out.append(("interrupt", ev))
            elif ev.kind == "api_error":
                out.append(("api", ev))
            elif ev.kind == "tool_result" and ev.is_error:
                out.append(("tool" if ev.tool_use_id in calls or self.row.source is None else "earlier", ev))
            elif ev.kind == "system" and ev.name == "api_error":
                out.append(("retry", ev))
            elif ev.is_error:
                out.append(("other", ev))
        out += [("tool", ev) for ev in self.late.values() if ev.is_error]  # late, but this episode's calls
        return out

    def fixed_by(self) -> dict[str, Anchor]:
        """Where a later successful retry fixed each failed call of the episode (by tool_use
        id), from the episode model's error notes (``ErrorNote.resolved_by``); empty when this
        build has no episode model."""
        notes = getattr(self.row.source, "errors", ()) or ()
        return {
            n.tool_use_id: n.resolved_by for n in notes if getattr(n, "tool_use_id", None) and getattr(n, "resolved_by", None) is not None
        }

    def resolved_errors(self) -> int:
        """Tool errors of the episode a later retry fixed (the episode model's count)."""
        return int(getattr(self.row.source, "resolved_errors", 0) or 0)

    # -- content ----------------------------------------------------------------------------
    def _excerpt(self, ev: Event) -> str:
        return self.excerpts.get((ev.anchor.src, ev.anchor.offset, ev.block), ev.excerpt)

    def _summary(self) -> Text:
        r, st = self.row, self.state
        mark, style = STATUS_STYLE.get(r.status, ("·", ""))
        t = Text()
        t.append(f"Episode {r.index} ", style="bold")
        t.append(f"{mark} {r.status.replace('_', ' ')}", style=style)
        if r.versions:
            t.append(f"  version {getattr(r.source, 'version', len(r.versions))} of {len(r.versions)}", style="dim")
        a, b = parse_ts(r.start), parse_ts(r.end)
        now = getattr(getattr(self.source, "shown", None), "now", None)  # the clock the panes were drawn at
        if past_clock(b, now):
            took = "? (a record time past the clock)"  # the Episodes pane's rule (widgets/episodes.py)
        else:
            took = fmt_age(b - a) if a is not None and b is not None and b >= a else ("running" if r.live else "?")
        t.append(
            f"\n{plural(r.tool_calls, 'tool call')} · {error_counts(self.error_entries(), self.resolved_errors())} · {fmt_tokens(r.tokens)} tokens · took {took}"
        )
        listed = sum(1 for cat, _ev in self.error_entries() if cat in ("tool", "api"))
        if listed != r.tool_errors:
            # the list reads the ledger; the Episodes pane the episode model: say both when apart
            t.append(f" (the Episodes pane counts {plural(r.tool_errors, 'tool or API error')})", style="dim")
        t.append(f" · ledger events {r.ledger_start}–{r.ledger_end}", style="dim")
        if self.follows:
            # the open episode: say how far the file is read, and whether it follows
            last = st.main.last_anchor
            t.append(f"\nas of line {last.line if last else '?'} of the main file; ", style="bold")
            t.append(
                "held: the monitor is paused (p resumes)" if self.held else "follows the file as it grows",
                style="yellow" if self.held else "dim",
            )
        t.append("\n\nAsk ", style="bold")
        t.append(f"{short_anchor(st, r.ask_anchor)}\n", style="dim")
        read = self.ask_read[1] if self.ask_read is not None and self.ask_read[0] == r.ask_anchor else None
        t.append_text(data(ask_shown(r.ask, st.fmt_anchor(r.ask_anchor), read), multiline=True))
        return t

    def _steps(self) -> Text:
        st = self.state
        results = {ev.tool_use_id: ev for ev in self.events if ev.kind == "tool_result" and ev.tool_use_id}
        t = Text()
        t.append("\nSteps", style="bold underline")
        t.append(
            "  (inputs and results read back from the transcript by anchor)" if self.loaded else "  (reading excerpts back…)", style="dim"
        )
        other = 0
        n = 0
        for ev in self.events:
            if ev.kind not in _SHOWN_KINDS or (ev.kind == "system" and not ev.is_error) or ev.kind == "prompt" and n == 0:
                other += ev.kind not in _SHOWN_KINDS or ev.kind == "system"
                if ev.kind == "prompt":
                    n += 1
                continue
            n += 1
            if ev.kind == "tool_result":
                if ev.tool_use_id in results and any(e.kind == "tool_use" and e.tool_use_id == ev.tool_use_id for e in self.events):
                    continue  # shown under its call
                t.append("\n⮑ orphan result ", style="yellow")
                t.append_text(data_block(self._excerpt(ev), 300, RESULT_LINES, 2))
                t.append(f"  {short_anchor(st, ev.anchor)}", style="dim")
                continue
            t.append("\n")
            if ev.kind == "tool_use":
                t.append("▸ ", style="bold cyan")
                t.append(one_line(ev.name) or "?", style="bold")
                t.append(f"  {short_anchor(st, ev.anchor)}  …{(ev.tool_use_id or '')[-8:]}\n", style="dim")
                t.append("  in  ", style="dim")
                t.append_text(data(self._excerpt(ev), limit=900))
                res = results.get(ev.tool_use_id)
                t.append("\n")
                late = self.late.get(ev.tool_use_id or "")
                if res is None and late is not None:
                    t.append("  out ", style="dim")
                    t.append("LATE (after the episode ended) ", style="bold magenta")
                    if late.is_error:
                        t.append("ERROR ", style="bold red")
                    t.append_text(data_block(self._excerpt(late), 900, RESULT_LINES, _OUT_INDENT, "red" if late.is_error else ""))
                    t.append(f"  {short_anchor(st, late.anchor)}", style="dim")
                elif res is None:
                    t.append("  out ", style="dim")
                    t.append("no result yet (pending, or dangling)", style="bold yellow")
                else:
                    t.append("  out ", style="dim")
                    if res.is_error:
                        t.append("ERROR ", style="bold red")
                    t.append_text(data_block(self._excerpt(res), 900, RESULT_LINES, _OUT_INDENT, "red" if res.is_error else ""))
                    t.append(f"  {short_anchor(st, res.anchor)}", style="dim")
            elif ev.kind == "assistant_text":
                t.append("✎ ", style="bold green")
                said = self._excerpt(ev)
                if said.strip():
                    t.append_text(data(said, limit=600, multiline=True))
                else:  # a text block of whitespace only: say so rather than show an empty step
                    t.append("(blank text)", style="dim italic")
                t.append(f"  {short_anchor(st, ev.anchor)}", style="dim")
            elif ev.kind in ("interrupt", "api_error") or ev.is_error:
                t.append(f"✖ {ev.kind.replace('_', ' ')} ", style="bold red")
                t.append_text(data(self._excerpt(ev), limit=300))
                t.append(f"  {short_anchor(st, ev.anchor)}", style="dim")
            else:
                label = ev.kind.replace("_", " ")
                said = one_line(ev.excerpt)
                if said.startswith(label):  # "compaction (manual, …)": the excerpt names it
                    label, said = said[: len(label)], said[len(label) :].lstrip()
                t.append(f"• {label} ", style="bold magenta")
                t.append_text(data(said, limit=200))
                t.append(f"  {short_anchor(st, ev.anchor)}", style="dim")
        if not self.events:
            t.append("\nno events", style="dim italic")
        if other:
            t.append(f"\n+{other} other events (thinking, progress, metadata) not listed", style="italic dim")
        return t

    def _errors_and_anchors(self) -> Text:
        st = self.state
        t = Text()
        entries = self.error_entries()
        t.append("\n\nErrors", style="bold underline")
        if entries:
            t.append(f"  {error_counts(entries, self.resolved_errors())}", style="dim")
        else:
            t.append("\nnone", style="dim italic")
        fixed = self.fixed_by()
        for cat, ev in entries[:50]:
            t.append(f"\n{short_anchor(st, ev.anchor)} ", style="dim")
            t.append(f"{one_line(_ENTRY_LABEL[cat](ev))} ", style="magenta" if cat == "interrupt" else "bold red")
            t.append_text(data(ev.excerpt, limit=160))
            by = fixed.get(ev.tool_use_id or "") if cat in ("tool", "earlier") else None
            if by is not None:
                t.append(f"  ✓ fixed by retry at {short_anchor(st, by)}", style="green")
        if len(entries) > 50:
            t.append(f"\n+{fmt_count(len(entries) - 50)} more errors and interrupts", style="italic")
        t.append("\n\nAnchors", style="bold underline")
        first = self.events[0].anchor if self.events else None
        last = self.events[-1].anchor if self.events else None
        t.append(
            f"\nask {short_anchor(st, self.row.ask_anchor)} · first event {short_anchor(st, first)} · last event {short_anchor(st, last)}"
        )
        if first is not None and 0 <= first.src < len(st.sources):
            src = st.sources[first.src]
            t.append("\nfile ", style="dim")
            t.append(one_line(file_place(src.path, src.agent), 300))
            t.append(f" bytes {fmt_count(first.offset)}–{fmt_count(last.offset if last else first.offset)}", style="dim")
        return t

    def _versions(self) -> Text:
        t = Text()
        t.append("\n\nVersion history", style="bold underline")
        if not self.row.versions:
            t.append(
                "\none version (this build derives episodes from the fold's history; versions need the episode model)", style="dim italic"
            )
            return t
        for ep in self.row.versions:
            t.append(f"\nv{getattr(ep, 'version', '?')} ", style="bold")
            t.append(f"{getattr(ep, 'lifecycle', '?')} · {getattr(ep, 'status', '?')}")
            reason = getattr(ep, "reason", "")
            if reason:
                t.append(" · ")
                t.append_text(data(reason, limit=200))
        return t
