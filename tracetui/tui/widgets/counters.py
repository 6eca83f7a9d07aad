"""The Counters pane: turns, tool calls by name, errors, tokens, cost, and a context gauge."""

from __future__ import annotations

from rich.text import Text

from tracetui.tui.fields import append_fields
from tracetui.tui.format import fmt_count, fmt_tokens, one_line
from tracetui.tui.view_model import context_usage, context_window, main_model
from tracetui.tui.widgets.pane import Pane, Shown, set_title
from tracetui.views.text import session_cost_text

__all__ = ["CountersPane", "gauge"]


def gauge(used: int, window: int, width: int) -> Text:
    """A bar of ``width`` cells filled ``used/window``; green, then yellow past 60 %, red past 85 %."""
    frac = 0.0 if window <= 0 else min(1.0, used / window)
    fill = round(frac * width)
    style = "red" if frac >= 0.85 else "yellow" if frac >= 0.6 else "green"
    out = Text(no_wrap=True)
    out.append("█" * fill, style=style)
    out.append("░" * (width - fill), style="dim")
    return out


class CountersPane(Pane):
    """The session's counters (main thread only while scrubbing, as the title says)."""

    TITLE = "Counters"

    def key(self, shown: Shown) -> object:
        st = shown.state
        return (st.generation, shown.episode, st.main.ledger_len)

    def build(self, shown: Shown) -> Text:
        st = shown.state
        c = st.counters
        # live, the counters are of every file (subagents included; the Episodes pane's rows
        # are the main thread's): the title says which
        set_title(self, "Counters (main thread)" if shown.history else ("Counters (with subagents)" if st.agents else "Counters"))
        w = self.width_available
        out = Text(no_wrap=True, overflow="ellipsis")
        short = w < 56
        n = fmt_count
        # fields are dropped whole when the pane is narrow, never cut inside a figure
        out.append("turns ", style="dim")
        out.append(n(st.main.prompts), style="bold")
        append_fields(
            out,
            [
                (f"  {'api' if short else 'api msgs'} {n(c.api_messages)}", ""),
                (f"  {'intr' if short else 'interrupts'} {n(c.interrupts)}", "yellow" if c.interrupts else ""),
                (f"  {'compact' if short else 'compactions'} {n(c.compactions)}", "yellow" if c.compactions else ""),
            ],
            w,
        )
        out.append("\ntools ", style="dim")
        out.append(n(c.tool_calls), style="bold")
        by = list(st.tools_by_name.items())
        parts = [f" {one_line(name)} {n(k)}" for name, k in by]
        used = len("tools ") + len(n(c.tool_calls))
        # as many tools as fit with the "+N more" that counts the others
        for shown_n in range(len(parts), -1, -1):
            more = f" +{len(by) - shown_n} more" if shown_n < len(by) else ""
            if used + sum(len(p) for p in parts[:shown_n]) + len(more) <= w:
                break
        out.append("".join(parts[:shown_n]))
        if more:
            out.append(more, style="italic")
        out.append("\nerrors ", style="dim")
        append_fields(
            out,
            [
                (f"tool {n(c.tool_errors)}", "bold red" if c.tool_errors else ""),
                (f"  api {n(c.api_errors)}", "bold red" if c.api_errors else ""),
                (f"  retries {n(c.api_retries)}", "yellow" if c.api_retries else ""),
            ],
            w,
        )
        t = st.tokens
        out.append("\ntokens ", style="dim")
        sep = " " if short else "  "
        append_fields(
            out,
            [
                (f"in {fmt_tokens(t.input)}", ""),
                (f"{sep}out {fmt_tokens(t.output)}", ""),
                (f"{sep}cache w {fmt_tokens(t.cache_creation)}", ""),
                (f" r {fmt_tokens(t.cache_read)}", ""),
            ],
            w,
        )
        out.append("\ncost ", style="dim")
        # the headless outputs' words (``$0.00 (estimate)``, ``unknown (no price known ...)``):
        # the figure bold, what it is (and any note beyond a plain estimate) dim; the note can
        # name a model, transcript text: shown by the header's rule (format.one_line)
        figure, _, what = session_cost_text(st).partition(" ")
        out.append(figure, style="bold")
        out.append(" " + one_line(what), style="dim")
        used, _anchor = context_usage(st)
        model, _others = main_model(st)
        window = context_window(model, used, st.main.context_window)
        pct = f" {100 * used // window if window else 0}%"
        label = f" {fmt_tokens(used)}/{fmt_tokens(window)}{pct}"
        if w - 4 - len(label) < 5:  # too narrow for the figures and a 5-cell gauge: the share alone
            label = pct
        out.append("\nctx ", style="dim")
        out.append_text(gauge(used, window, max(5, w - 4 - len(label))))
        out.append(label)
        return out
