"""The Counters pane: turns, tool calls by name, errors, tokens, cost, and a context gauge."""

from __future__ import annotations

from rich.text import Text

from tracetui.model.pricing import cost_note_extra
from tracetui.tui.format import fmt_tokens, fmt_usd
from tracetui.tui.view_model import context_usage, context_window, main_model
from tracetui.tui.widgets.pane import Pane, Shown

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
        self.border_title = "Counters (main thread)" if shown.history else "Counters"
        w = self.width_available
        out = Text(no_wrap=True, overflow="ellipsis")
        short = w < 56
        out.append("turns ", style="dim")
        out.append(str(st.main.prompts), style="bold")
        out.append("  api " if short else "  api msgs ", style="dim")
        out.append(str(c.api_messages))
        out.append("  intr " if short else "  interrupts ", style="dim")
        out.append(str(c.interrupts), style="yellow" if c.interrupts else "")
        out.append("  compact " if short else "  compactions ", style="dim")
        out.append(str(c.compactions), style="yellow" if c.compactions else "")
        out.append("\ntools ", style="dim")
        out.append(str(c.tool_calls), style="bold")
        by = list(st.tools_by_name.items())
        line = ""
        shown_n = 0
        for name, n in by:
            part = f" {name} {n}"
            if len(line) + len(part) > w - 14:
                break
            line += part
            shown_n += 1
        out.append(line)
        if shown_n < len(by):
            out.append(f" +{len(by) - shown_n} more", style="italic")
        out.append("\nerrors ", style="dim")
        out.append(f"tool {c.tool_errors}", style="bold red" if c.tool_errors else "")
        out.append(f"  api {c.api_errors}", style="bold red" if c.api_errors else "")
        out.append(f"  retries {c.api_retries}", style="yellow" if c.api_retries else "")
        t = st.tokens
        out.append("\ntokens ", style="dim")
        sep = " " if short else "  "
        out.append(
            f"in {fmt_tokens(t.input)}{sep}out {fmt_tokens(t.output)}{sep}cache w {fmt_tokens(t.cache_creation)} r {fmt_tokens(t.cache_read)}"
        )
        out.append("\ncost ", style="dim")
        out.append(fmt_usd(st.cost_usd), style="bold")
        extra = cost_note_extra(st.cost_note)
        # a note beyond the plain estimate (usage rejected, not priced) is shown, not dropped
        out.append((" estimate" + (f"; {extra}" if extra else "")) if st.cost_usd is not None else f" ({st.cost_note})", style="dim")
        used, _anchor = context_usage(st)
        model, _others = main_model(st)
        window = context_window(model, used)
        label = f" {fmt_tokens(used)}/{fmt_tokens(window)} {100 * used // window if window else 0}%"
        out.append("\nctx ", style="dim")
        out.append_text(gauge(used, window, max(5, w - 4 - len(label))))
        out.append(label)
        return out
