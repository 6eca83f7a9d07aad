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


#: the detectors as plain data, under the cache folder: reading detect-secrets' plugins costs
#: ~80 ms a process (the hook answers in ~0.3 s), compiling them from this file ~10 ms
RULES_FILE = "secret-rules.json"


def _load_rules() -> None:
    """Install the secret detectors in this process, from :data:`RULES_FILE` when it was
    written from the same detect-secrets and the same ``tracetui.ingest.secrets``, else from
    detect-secrets (and write the file, private). Never raises for the file."""
    import importlib.util
    import os

    import orjson

    from tracetui.ingest import secrets
    from tracetui.ingest.private import write_private
    from tracetui.session.cache import cache_dir

    if secrets.rules_loaded():
        return
    found = importlib.util.find_spec("detect_secrets")
    origin = found.origin if found is not None else None
    try:
        key = f"{origin}:{os.stat(origin).st_mtime_ns if origin else 0}:{os.stat(secrets.__file__).st_mtime_ns}"
    except OSError:
        key = ""
    path = cache_dir() / RULES_FILE
    if key:
        try:
            obj = orjson.loads(path.read_bytes())
            if isinstance(obj, dict) and obj.get("key") == key:
                secrets.use_rules(obj["spec"])
                return
        except (OSError, ValueError, KeyError, TypeError, AssertionError, re.error):
            pass
    spec = secrets.rules_spec()
    secrets.use_rules(spec)
    if key:
        try:
            write_private(path, orjson.dumps({"key": key, "spec": spec}))
        except OSError:
            pass


def redacted(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with its secrets masked in place, and their kinds
    (:func:`tracetui.ingest.secrets.redact`)."""
    from tracetui.ingest.secrets import redact

    _load_rules()
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
