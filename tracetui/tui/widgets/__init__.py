"""The widgets of the monitor: one pane per module."""
