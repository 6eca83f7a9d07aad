"""The monitor's last line of defence: no control character of a transcript or a file name
reaches the terminal, whichever widget, title, tab, notification or screen drew it.

Textual applies an app's line filters to every line of every widget (panes, trees, tabs,
toasts, the command palette, borders and their titles) just before the compositor writes it.
:class:`TerminalSafe` is such a filter: each text segment goes through the one rule,
:func:`tracetui.views.safe.safe_text` (``ESC`` → ``␛``, C1 → U+FFFD), so the terminal is never
retitled (``ESC ] 0``), its clipboard never written (``ESC ] 52``), its screen never cleared by
data. The app's own sequences are control segments (cursor moves) or styles turned into
sequences after the filters, never segment text, so they pass untouched.

Rich measures a control character as zero cells and its stand-in as one, so a segment keeps the
width it was laid out with (its end is cut by as many cells as stand-ins were added): the
layout, borders and the lines around stay exact. The panes' own formatters
(``tracetui.tui.format.clean``) apply the same rule before layout, so their text is measured
with its stand-ins and this filter finds nothing to do; it catches what reaches a widget by any
other way.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from tracetui.views.safe import has_controls, safe_text

__all__ = ["TerminalSafe", "safe_segments"]


def safe_segments(segments: list[Segment]) -> list[Segment]:
    """``segments`` with every control character in a text segment replaced by
    :func:`safe_text` (tab and newline, which a line must not hold either, by a space), each
    segment kept at its cell width; the same list when there is nothing to replace."""
    if not any(not seg.control and has_controls(seg.text) for seg in segments):
        return segments
    out: list[Segment] = []
    for seg in segments:
        text = seg.text
        if seg.control or not has_controls(text):
            out.append(seg)
            continue
        width = cell_len(text)
        safe = safe_text(text).replace("\t", " ").replace("\n", " ")
        if cell_len(safe) != width:
            safe = set_cell_size(safe, width)
        if safe:
            out.append(Segment(safe, seg.style, seg.control))
    return out


class TerminalSafe(LineFilter):
    """A Textual line filter applying :func:`safe_segments` to every line drawn."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return safe_segments(segments)
