"""Screens pushed over the monitor: help, episode drill-down, session switcher."""
