"""Views: pure functions that compile a RunState into text."""
