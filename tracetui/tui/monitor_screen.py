"""The monitor's screen: its footer draws the keys that fit the terminal's width."""

from __future__ import annotations

from textual.binding import ActiveBinding
from textual.screen import Screen

from tracetui.tui.footer import COMPACT_BELOW, PALETTE, TAB_KEY, FooterItem, key_cells, left_out, palette_cells

__all__ = ["MonitorScreen"]


class MonitorScreen(Screen):
    """The monitor's screen (the app's default screen). Its :attr:`active_bindings`, which the
    footer draws, leave out the optional keys that do not fit the terminal's width
    (:func:`tracetui.tui.footer.left_out`); key handling does not read them, so every key works.

    The tab key's room is kept with one tab too (it is not shown then), so the other keys are
    the same with one tab and with several (fourth user trial: with one tab Pause and the
    palette key showed at 80 columns, with two the tab key took their room)."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        bindings = super().active_bindings
        app = self.app
        compact = app.size.width < COMPACT_BELOW
        items = []
        for key, active in bindings.items():
            b = active.binding
            if key == app.COMMAND_PALETTE_BINDING:
                items.append(FooterItem(PALETTE, palette_cells(app.get_key_display(b), b.description, compact)))
            elif b.show:
                items.append(FooterItem(b.id or b.action, key_cells(app.get_key_display(b), b.description, compact)))
        if not any(i.id == TAB_KEY for i in items):
            tab = next((b for b in app.BINDINGS if getattr(b, "id", None) == TAB_KEY), None)
            if tab is not None:  # its room, kept for it
                items.append(FooterItem(TAB_KEY, key_cells(app.get_key_display(tab), tab.description, compact)))
        drop = left_out(items, app.size.width)
        if not drop:
            return bindings
        return {
            k: a
            for k, a in bindings.items()
            if (PALETTE if k == app.COMMAND_PALETTE_BINDING else (a.binding.id or a.binding.action)) not in drop
        }
