"""The monitor's screen: its footer draws the keys that fit the footer's width."""

from __future__ import annotations

from textual import events
from textual.binding import ActiveBinding, Binding
from textual.screen import Screen
from textual.widgets import Footer

from tracetui.tui.footer import COMPACT_BELOW, PALETTE, TAB_KEY, FooterItem, key_cells, left_out, palette_cells

__all__ = ["MonitorScreen", "MonitorFooter"]


class MonitorFooter(Footer):
    """The monitor's footer. Textual's Keys panel (the command palette's "Keys") narrows it
    when it opens beside it: the keys that fit are counted again whenever its width changes."""

    def on_resize(self, event: events.Resize) -> None:
        self.screen.refresh_bindings()


class MonitorScreen(Screen):
    """The monitor's screen (the app's default screen). Its :attr:`active_bindings`, which the
    footer draws, leave out the optional keys that do not fit the terminal's width
    (:func:`tracetui.tui.footer.left_out`); key handling does not read them, so every key works.

    The tab key's room is kept with one tab too (it is not shown then), so the other keys are
    the same with one tab and with several (fourth user trial: with one tab Pause and the
    palette key showed at 80 columns, with two the tab key took their room).

    ``Esc`` (the back key) closes Textual's Keys panel when it is open."""

    BINDINGS = [Binding("escape", "close_keys_panel", "Close keys", show=False, id="close-keys")]

    def action_close_keys_panel(self) -> None:
        """Close Textual's Keys panel (``HelpPanel``), if it is open."""
        self.query("HelpPanel").remove()

    def _footer_width(self) -> int:
        """Cells of the footer's row: the terminal's width, less the Keys panel's when it is
        open beside it (before the footer is laid out, the terminal's)."""
        footer = next(iter(self.query_children(Footer)), None)
        return footer.size.width if footer is not None and footer.size.width else self.app.size.width

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
        drop = left_out(items, self._footer_width())
        if not drop:
            return bindings
        return {
            k: a
            for k, a in bindings.items()
            if (PALETTE if k == app.COMMAND_PALETTE_BINDING else (a.binding.id or a.binding.action)) not in drop
        }
