"""The command palette's commands: each calls the same ``action_*`` method as its key."""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import SystemCommand
from textual.screen import Screen

__all__ = ["PaletteCommands"]


class PaletteCommands:
    """The app's palette commands after Textual's own; mixed into
    :class:`tracetui.tui.app.TraceApp`, whose actions they call."""

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Copy card", "Copy the trace-as-state card of the state shown (also written to a file)", self.action_copy_card)
        yield SystemCommand("Copy worker view", "Copy the worker view of the state shown (also written to a file)", self.action_copy_worker)
        yield SystemCommand("Episode back", "Scrub one episode back (panes show the state as of its end)", self.action_history_back)
        yield SystemCommand("Episode forward", "Scrub one episode forward", self.action_history_forward)
        yield SystemCommand("Back to live", "Leave history mode and show the live state", self.action_live)
        yield SystemCommand("Open episode", "Drill down into the selected episode", self.action_drill_down)
        yield SystemCommand("Pause / resume", "Hold updates on screen (folding continues)", self.action_toggle_pause)
        yield SystemCommand("Sessions", "Switch to another session", self.action_sessions)
        yield SystemCommand("Fleet", "Every session at a glance: which one needs you, and what they cost", self.action_fleet)
        yield SystemCommand("Next tab", "Show the next session's tab", self.action_next_tab)
        yield SystemCommand("Previous tab", "Show the previous session's tab", self.action_previous_tab)
        yield SystemCommand("Help", "Show keys and what the panes mean", self.action_help)
