"""Terminal safety for text taken from transcripts and paths: control characters become visible
symbols.

A transcript (or a file name) can hold any control sequence (``ESC ] 0 ; title BEL``,
``ESC ] 52`` clipboard writes, colour codes). Text the views print, and text the monitor draws,
must never carry them raw to a terminal, so every C0 control except newline and tab, DEL, and
the C1 controls are replaced by a visible stand-in: C0 by its Unicode control picture (ESC →
``␛``), DEL by ``␡``, C1 by U+FFFD. One character becomes one character, so character budgets
stay exact. This is the one rule: the headless commands, the hook, the monitor's panes and its
last-line guard (``tracetui.tui.terminal_safe``) and the CLI's stderr all apply it.
"""

from __future__ import annotations

import re

__all__ = ["CONTROL_MAP", "safe_text", "has_controls"]

#: str.translate table: control code point → visible stand-in
CONTROL_MAP: dict[int, str] = {c: chr(0x2400 + c) for c in range(0x20) if c not in (0x0A, 0x09)}
CONTROL_MAP[0x7F] = "\u2421"
CONTROL_MAP.update({c: "\ufffd" for c in range(0x80, 0xA0)})

#: any character :data:`CONTROL_MAP` replaces
_CONTROLS = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(CONTROL_MAP)) + "]")


def safe_text(text: str) -> str:
    """``text`` with every terminal control character replaced (newline and tab kept)."""
    return text.translate(CONTROL_MAP)


def has_controls(text: str) -> bool:
    """``text`` holds a character :func:`safe_text` would replace (a cheap check: one regex
    search, no copy)."""
    return _CONTROLS.search(text) is not None
