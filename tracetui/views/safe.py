"""Terminal safety for text taken from transcripts and paths: control characters become visible
symbols.

A transcript (or a file name) can hold any control sequence (``ESC ] 0 ; title BEL``,
``ESC ] 52`` clipboard writes, colour codes). Text the views print, and text the monitor draws,
must never carry them raw to a terminal, so every C0 control except newline and tab, DEL, and
the C1 controls are replaced by a visible stand-in: C0 by its Unicode control picture (ESC →
``␛``), DEL by ``␡``, C1 and the bidirectional overrides and isolates by U+FFFD. One character becomes one character, so character budgets
stay exact. This is the one rule: the headless commands, the hook, the monitor's panes and its
last-line guard (``tracetui.tui.terminal_safe``) and the CLI's stderr all apply it.

Text given out (a view, an export, the hook's card, ``state --json``) also has its secrets
masked (:func:`export_text`, :func:`redact_json`, by :mod:`tracetui.ingest.secrets`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracetui.ingest.secret_values import SeenSecrets

__all__ = [
    "CONTROL_MAP",
    "json_safe",
    "safe_text",
    "has_controls",
    "redacted",
    "cut_whole",
    "cut_redacted",
    "line_redacted",
    "masks_in",
    "export_text",
    "redact_json",
    "state_secrets",
]

#: str.translate table: control code point → visible stand-in
CONTROL_MAP: dict[int, str] = {c: chr(0x2400 + c) for c in range(0x20) if c not in (0x0A, 0x09)}
CONTROL_MAP[0x7F] = "\u2421"
CONTROL_MAP.update({c: "\ufffd" for c in range(0x80, 0xA0)})
#: the bidirectional embeddings, overrides and isolates (and the Arabic letter mark): a
#: terminal that reorders text would draw a path or a command in another order than it is
#: ("Trojan Source", CVE-2021-42574); U+FFFD as for C1. The marks a right-to-left text uses
#: (U+200E, U+200F) and the joiners emoji need stay.
BIDI_CONTROLS = (0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
CONTROL_MAP.update({c: "\ufffd" for c in BIDI_CONTROLS})

#: any character :data:`CONTROL_MAP` replaces
_CONTROLS = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(CONTROL_MAP)) + "]")


def safe_text(text: str) -> str:
    """``text`` with every terminal control character replaced (newline and tab kept)."""
    return text.translate(CONTROL_MAP)


def has_controls(text: str) -> bool:
    """``text`` holds a character :func:`safe_text` would replace (a cheap check: one regex
    search, no copy)."""
    return _CONTROLS.search(text) is not None


def redacted(text: str, cut: bool = False, seen: SeenSecrets | None = None) -> tuple[str, tuple[str, ...]]:
    """``text`` with its secrets masked in place, and their kinds
    (:func:`tracetui.ingest.secrets.redact`; ``cut``: the text was cut at its end, so a
    secret running into it is masked by its head; ``seen``: the session's secrets, every copy
    of one masked too, :func:`state_secrets`)."""
    from tracetui.ingest.secrets import redact

    return redact(text, cut=cut, seen=seen)


def state_secrets(state: Any) -> SeenSecrets | None:
    """The secrets found in the session of ``state`` (a ``RunState``), for the masking of its
    texts (:func:`redacted`, :func:`export_text`, :func:`redact_json` take it as ``seen``):
    :func:`tracetui.model.secret_scan.state_secrets`."""
    from tracetui.model.secret_scan import state_secrets as found

    return found(state)


#: a secret's mask (:func:`tracetui.ingest.secrets.mask`), its kind in group 1 (a kind never
#: holds ``…``: ``«redacted: o…»`` is a mask cut short and a quote's end, not a kind ``o…``)
_MASK = re.compile("\u00abredacted: ([^\u00ab\u00bb\n\u2026]+)\u00bb")
#: characters before a cut point that a mask spanning it can start at, at most (its kind is short)
_MASK_REACH = 120


def masks_in(text: str) -> list[str]:
    """The kind of every secret mask ``text`` holds (``«redacted: KIND»``), in order: secrets
    masked before the text reached an export (a view's line cut after masking, an excerpt the
    session store kept masked) are counted with the ones the export masks."""
    return _MASK.findall(text) if "\u00abredacted: " in text else []


def cut_whole(text: str, limit: int, mark: str = "\u2026") -> str:
    """``text`` cut to ``limit`` characters ending in ``mark`` when longer (``text`` as it is
    when it fits; ``limit`` <= 0 gives ``""``). A secret's mask is never cut: a cut that would
    fall inside ``«redacted: KIND»`` falls before it, so the mask is left out whole (a mask
    shown in part reads as another kind, ``«redacted: o…»``, and is counted as one)."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    n = max(limit - 1, 0)
    if "\u00abredacted: " in text:
        for m in _MASK.finditer(text, max(0, n - _MASK_REACH)):
            if m.start() >= n:
                break
            if m.end() > n:
                n = m.start()
                break
    return text[:n] + mark


def cut_redacted(text: str, limit: int, mark: str = "\u2026") -> str:
    """``text`` cut to ``limit`` characters ending in ``mark`` when longer, its secrets masked
    first, so a cut never leaves the head of a secret that its detector no longer matches, and
    never falls inside a mask (:func:`cut_whole`); ``text`` as it is when it fits. ``limit``
    <= 0 gives ``""``. Only a window of the text past the cut is masked
    (:func:`tracetui.ingest.secrets.redact_head`): the same line as masking the whole text, at a
    cost bounded by ``limit``, not by the text."""
    from tracetui.ingest.secrets import redact_head

    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    return cut_whole(redact_head(text, limit), limit, mark)


def line_redacted(text: str, limit: int, mark: str = "\u2026", safe: bool = False) -> str:
    """:func:`cut_redacted` of ``text`` with its runs of whitespace folded to one space
    (``" ".join(text.split())``; with ``safe``, of :func:`safe_text` of it, so a ``\\r`` shows
    as ``␍`` and is not folded), folding only the head the line shows and a window past it
    (:func:`_folded_head`), so a line of a 60 MB prompt costs what a line of a short one does."""
    from tracetui.ingest.secrets import REDACT_MARGIN, redact_head

    if limit <= 0:
        return ""
    head, whole = _folded_head(text, limit + REDACT_MARGIN, safe)
    if len(head) <= limit and whole:
        return head
    return cut_whole(redact_head(text, limit, head=lambda t, room: _folded_head(t, room, safe)), limit, mark)


def _folded_head(text: str, room: int, safe: bool = False) -> tuple[str, bool]:
    """``(head, whole)``: ``text`` (made :func:`safe_text` with ``safe``) with whitespace runs
    folded to one space, whole when it is at most ``room`` characters; otherwise the prefix of
    it folded, at least ``room`` long, ending just after a whitespace character when one lies
    near (:func:`tracetui.ingest.secrets.window_end`). Costs O(``room``) unless the text is
    mostly whitespace."""
    from tracetui.ingest.secrets import window_end

    at = room
    while True:
        if len(text) <= at:
            text = safe_text(text) if safe else text
            return " ".join(text.split()), True
        end = window_end(text, at)
        head = safe_text(text[:end]) if safe else text[:end]  # one character for one
        # a prefix folded is a prefix of the text folded; ending in whitespace, the space the
        # whole text folded holds there is kept
        folded = " ".join(head.split())
        if len(folded) >= room:
            return folded + (" " if head[-1:].isspace() else ""), False
        at = 2 * end  # mostly whitespace: fold more


def export_text(text: str, redact: bool = True, seen: SeenSecrets | None = None) -> str:
    """``text`` as every view and export gives it out: with ``redact``, secrets masked in place
    (``seen``: the session's secrets, :func:`state_secrets`) and counted on a last line
    (``[2 secrets redacted (…) by tracetui]``: the masks the text already held counted too,
    :func:`masks_in`), then made terminal-safe by :func:`safe_text`."""
    from tracetui.ingest.secrets import summary

    kinds: tuple[str, ...] | list[str] = ()
    if redact:
        text, _ = redacted(text, seen=seen)
        kinds = masks_in(text)
    note = summary(kinds)
    return safe_text(text + (f"\n[{note} by tracetui]" if note else ""))


def redact_json(obj: object, seen: SeenSecrets | None = None) -> tuple[object, list[str]]:
    """A JSON value (dicts, lists, strings, numbers) with every string's secrets masked
    (keys included; ``seen``: the session's secrets, :func:`state_secrets`), and the kinds of
    the masks it holds (:func:`masks_in`); a value without a secret is returned as it is."""
    kinds: list[str] = []

    def walk(v: object) -> object:
        if isinstance(v, str):
            out, _ = redacted(v, seen=seen)
            kinds.extend(masks_in(out))
            return out
        if isinstance(v, dict):
            return {walk(k): walk(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [walk(x) for x in v]
        return v

    return walk(obj), kinds


#: DEL and the C1 controls, which JSON allows raw in strings, written as ``\\u`` escapes instead
#: (the same JSON value; a terminal never sees them raw)
_JSON_CONTROLS = {c: f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0), *BIDI_CONTROLS)}


def json_safe(data: bytes | str) -> str:
    """JSON text (orjson output as UTF-8 bytes, or decoded) with DEL, the C1 controls and the
    bidirectional overrides (:data:`BIDI_CONTROLS`) escaped (orjson escapes only C0): the same
    JSON value, never a raw control on a terminal."""
    text = data.decode() if isinstance(data, bytes) else data
    return text.translate(_JSON_CONTROLS)
