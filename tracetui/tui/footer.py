"""Which keys the monitor's footer shows: every essential key at any width from
:data:`tracetui.tui.app.MIN_SIZE` up, and the optional ones while they fit.

The footer is one row. At 60 columns the whole key set did not fit and Textual cut the row at
its right edge, so the last keys (``s Sessions``, ``q Quit``) could not be seen. Here the
optional keys (:data:`OPTIONAL`) leave the footer, least wanted first, until the row fits; in a
row narrower than the essential keys (below ``MIN_SIZE``, or beside Textual's Keys panel) the
essential ones leave too, the rightmost first, but ``F1 Help`` and ``q Quit`` (:data:`KEPT`):
the footer shows whole keys only, never one cut in the middle (``q Qu``). A key that leaves the
footer still works, and the help screen (F1, always in the footer) and the command palette list
it. The width is the footer's own, which Textual's Keys panel narrows.

Widths are terminal cells, counted as Textual's ``Footer`` lays its keys out (textual 8.x):
compact footer, ``key`` + space + ``description`` + a one-cell margin; full footer, a cell of
padding on each side of the key and one after the description; the command-palette key is
docked right behind a one-cell bar.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["OPTIONAL", "KEPT", "PALETTE", "TAB_KEY", "COMPACT_BELOW", "FooterItem", "key_cells", "palette_cells", "left_out"]

#: the id :func:`left_out` gives the command-palette key (``^p palette``), which has no binding id
PALETTE = "palette"
#: the binding id of the tab key: in the footer with several tabs only, its room kept with one
#: (``MonitorScreen.active_bindings``) so the other keys do not change with the number of tabs
TAB_KEY = "next-tab"
#: optional keys, most wanted first: with too little room the last ones leave the footer first.
#: Every other key the footer would show is essential and always stays.
OPTIONAL = (TAB_KEY, "sessions", "fleet", "pause", PALETTE)
#: keys that stay in the footer at any width: help and quit
KEPT = ("help", "quit")
#: below this many columns the footer is compact (less padding); ``TraceApp`` sets it so
COMPACT_BELOW = 120


@dataclass(frozen=True)
class FooterItem:
    """One key the footer would show: its binding id (``palette`` for the palette key) and its
    width in cells."""

    id: str
    cells: int


def key_cells(key_display: str, description: str, compact: bool) -> int:
    """Cells a footer key takes: ``F1 Help`` plus its margin (compact: 8) or its padding (9)."""
    return len(key_display) + len(description) + (2 if compact else 3)


def palette_cells(key_display: str, description: str, compact: bool) -> int:
    """Cells the command-palette key takes at the right end (its bar, key, description, padding)."""
    return 1 + len(key_display) + 1 + len(description) + (1 if compact else 3)


def left_out(items: list[FooterItem], width: int) -> set[str]:
    """The ids of the items to leave out so that ``items`` (in the footer's order) fit ``width``
    cells.

    Essential items (ids not in :data:`OPTIONAL`) stay while they fit; when they alone are wider
    than ``width``, they leave from the right, but the :data:`KEPT` ones, until the rest fits,
    and every optional one is left out. Else optional ones are added back in the order of :data:`OPTIONAL` while they fit, so a
    shorter, less wanted key can take room a longer one could not.
    """
    essential = [i for i in items if i.id not in OPTIONAL]
    room = width - sum(i.cells for i in essential)
    out = {i.id for i in items if i.id in OPTIONAL}
    if room < 0:  # no room for an optional key: essential ones leave, whole, from the right
        for item in reversed(essential):
            if room >= 0:
                break
            if item.id not in KEPT:
                out.add(item.id)
                room += item.cells
        return out
    by_id = {i.id: i for i in items}
    for oid in OPTIONAL:
        item = by_id.get(oid)
        if item is not None and item.cells <= room:
            room -= item.cells
            out.discard(oid)
    return out
