"""Terminal safety for text taken from transcripts and paths: control characters become visible
symbols.

A transcript (or a file name) can hold any control sequence (``ESC ] 0 ; title BEL``,
``ESC ] 52`` clipboard writes, colour codes). Text the views print, and text the monitor draws,
must never carry them raw to a terminal, so every C0 control except newline and tab, DEL, and
the C1 controls are replaced by a visible stand-in: C0 by its Unicode control picture (ESC →
``␛``), DEL by ``␡``, C1 by U+FFFD. One character becomes one character, so character budgets
stay exact. This is the one rule: the headless commands, the hook, the monitor's panes and its
last-line guard (``tracetui.tui.terminal_safe``) and the CLI's stderr all apply it.

Text given out (a view, an export, the hook's card, ``state --json``) also has its secrets
masked (:func:`export_text`, :func:`redact_json`, by :mod:`tracetui.ingest.secrets`).
"""

from __future__ import annotations

import re

__all__ = ["CONTROL_MAP", "safe_text", "has_controls", "redacted", "export_text", "redact_json"]

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


def redacted(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with its secrets masked in place, and their kinds
    (:func:`tracetui.ingest.secrets.redact`)."""
    from tracetui.ingest.secrets import redact

    return redact(text)


def export_text(text: str, redact: bool = True) -> str:
    """``text`` as every view and export gives it out: with ``redact``, secrets masked in place
    and counted on a last line (``[2 secrets redacted (…) by tracetui]``), then made
    terminal-safe by :func:`safe_text`."""
    from tracetui.ingest.secrets import summary

    kinds: tuple[str, ...] = ()
    if redact:
        text, kinds = redacted(text)
    note = summary(kinds)
    return safe_text(text + (f"\n[{note} by tracetui]" if note else ""))


def redact_json(obj: object) -> tuple[object, list[str]]:
    """A JSON value (dicts, lists, strings, numbers) with every string's secrets masked
    (keys included), and the kinds masked; a value without a secret is returned as it is."""
    kinds: list[str] = []

    def walk(v: object) -> object:
        if isinstance(v, str):
            out, k = redacted(v)
            kinds.extend(k)
            return out
        if isinstance(v, dict):
            return {walk(k): walk(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [walk(x) for x in v]
        return v

    return walk(obj), kinds
