"""Lines made of fields that are dropped whole when the line is too narrow, never cut inside.

A figure cut to its first digits (``cache w 3…``) reads as another number; a line of fields
shows the ones that fit, in order, and ends with ``…`` where the others were dropped.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.text import Text

__all__ = ["append_fields", "MORE"]

#: what ends a line whose last fields were dropped
MORE = " …"


def append_fields(out: Text, fields: Iterable[tuple[str, str]], width: int) -> int:
    """Append ``fields`` (``(text, style)``, each with its own leading separator) to the last line
    of ``out`` while they fit in ``width`` cells; the first one that does not fit is dropped with
    all after it, and :data:`MORE` said in their place when it fits. Returns how many were dropped."""
    items = list(fields)
    used = cell_len(out.plain.rsplit("\n", 1)[-1])
    for k, (text, style) in enumerate(items):
        n = cell_len(text)
        last = k == len(items) - 1
        # the last field needs only its own room; another leaves room for the marker too
        if used + n <= width - (0 if last else cell_len(MORE)) or (last and used + n <= width):
            out.append(text, style=style)
            used += n
            continue
        if used + cell_len(MORE) <= width:
            out.append(MORE, style="dim")
        return len(items) - k
    return 0
