"""One-line text for the views: whitespace folded, cut with secrets masked, quoted data, and an
item's line that keeps its anchor, closes a cut quote and never cuts a figure."""

from __future__ import annotations

import re

import msgspec

from tracetui.views.safe import line_redacted

__all__ = ["one_line", "quote", "open_quote", "Item"]

#: a secret's mask, kept whole by :func:`quote`
_MASK = re.compile("(\u00abredacted: [^\u00ab\u00bb\n\u2026]+\u00bb)")


def open_quote(text: str) -> bool:
    """``text`` ends inside a quoted datum (``«…``: a ``«`` with no ``»`` after it, a secret's
    mask not counted), as a line cut inside a :func:`quote` does."""
    if "«" not in text:
        return False
    rest = _MASK.sub("", text)
    return rest.rfind("«") > rest.rfind("»")


def one_line(text: str, limit: int) -> str:
    """``text`` with runs of whitespace folded to one space, cut to ``limit`` characters with
    ``…``; a text that is cut has its secrets masked first (:func:`~tracetui.views.safe.line_redacted`)."""
    return line_redacted(str(text), limit, safe=True)


def quote(text: str, limit: int = 120) -> str:
    """Text taken from tool output (or the user's words) as a quoted datum: ``«…»`` on one line,
    guillemets inside replaced (a secret's mask ``«redacted: …»`` kept), at most ``limit``
    characters inside the quotes."""
    text = str(text)
    if "«" in text or "»" in text:
        parts = _MASK.split(text)
        text = "".join(p if i % 2 else p.replace("«", '"').replace("»", '"') for i, p in enumerate(parts))
    return f"«{one_line(text, limit)}»"


def _cut_at_figure(cut: str, whole: str) -> str:
    """``cut`` (``whole`` shortened by :func:`one_line`, ending in ``…``) without a figure cut to
    its first digits (``tool calls 13…`` for 1,342): such a word goes whole, the ``…`` stays. A
    cut inside quoted data (``«…``) is left as it is: an excerpt, not a figure."""
    if not cut.endswith("…") or len(cut) >= len(" ".join(whole.split())):
        return cut
    head = cut[:-1]
    start = head.rfind(" ") + 1
    word = head[start:]
    if start > 0 and "«" not in head[head.rfind("»") + 1 :] and any(ch.isdigit() for ch in word):
        return head[:start].rstrip() + " …"
    return cut


class Item(msgspec.Struct, frozen=True):
    """One line of a section: its text and the anchor it ends with (``""`` for none)."""

    body: str
    anchor: str = ""

    def render(self, limit: int) -> str:
        """The line at most ``limit`` characters long (at least its anchor and 12 of its body):
        a body cut inside a quoted datum closes it (``«spec…»``), a figure goes whole."""
        tail = f" @ {self.anchor}" if self.anchor else ""
        room = max(limit - len(tail), 12)
        body = one_line(self.body, room)
        if body.endswith("…") and open_quote(body):
            body = one_line(self.body, room - 1)
            body = body[:-1].rstrip() + "…"
            return (body + "»" if open_quote(body) else body) + tail
        return _cut_at_figure(body, self.body) + tail
