"""The one way numbers are written: counts, short counts (tokens), byte sizes, USD and a count
with its noun (``1 file``, ``2 files``).

Every view, the headless outputs and the monitor (``tracetui.tui.format`` calls these) write a
figure through here, so a card, a worker view and a pane say the same number the same way; it
sits in the model so the model's anomaly messages and the session's notes (a settings file too
large) write theirs the same way too. ``tracetui.views.format`` re-exports it for the views.
Byte sizes are binary (powers of 1024) and labelled so: ``B``, ``KiB``, ``MiB``, ``GiB``.
Counts and USD shown to a person carry thousands separators (``12,345``, ``$1,234.50``); the
``--json`` outputs write bare numbers and never come here.
"""

from __future__ import annotations

__all__ = ["fmt_count", "fmt_short", "fmt_bytes", "fmt_bytes_exact", "fmt_usd", "fmt_usd_known", "fmt_usd_part", "plural"]

_SHORT = (("G", 1e9, 2), ("M", 1e6, 2), ("k", 1e3, 1))
_BINARY = (("GiB", 1 << 30, 2), ("MiB", 1 << 20, 1), ("KiB", 1 << 10, 1))


def fmt_count(n: int | None) -> str:
    """An exact count with thousands separators: ``987``, ``12,345``, ``1,234,567``; ``?`` for
    unknown."""
    if n is None:
        return "?"
    return f"{int(n):,}"


def _unit(x: float, units: tuple[tuple[str, float, int], ...], base: int) -> tuple[str, float, int] | None:
    """The largest of ``units`` (largest first: label, divisor, decimals) that ``x`` reaches once
    rounded as the unit below would write it (999,950 is ``1.00M``, never ``1000.0k``);
    ``None``: below the smallest, written as a whole number of ``base`` units."""
    for i, (label, div, places) in enumerate(units):
        low_div, low_places = (units[i + 1][1], units[i + 1][2]) if i + 1 < len(units) else (base, 0)
        if abs(x) >= div - 0.5 * 10.0**-low_places * low_div:
            return label, div, places
    return None


def fmt_short(n: int | float | None) -> str:
    """A count in short form: ``987``, ``12.3k``, ``4.56M``, ``2.10G`` (SI prefixes); ``?`` for
    unknown."""
    if n is None:
        return "?"
    x = float(n)
    u = _unit(x, _SHORT, 1)
    return f"{round(x):d}" if u is None else f"{x / u[1]:.{u[2]}f}{u[0]}"


def fmt_bytes(n: int | None) -> str:
    """A byte size in short binary form: ``512 B``, ``48.1 KiB``, ``3.2 MiB``, ``1.25 GiB``;
    ``?`` for unknown."""
    if n is None:
        return "?"
    v = int(n)
    u = _unit(v, _BINARY, 1)
    return f"{v} B" if u is None else f"{v / u[1]:.{u[2]}f} {u[0]}"


def fmt_bytes_exact(n: int | None) -> str:
    """An exact byte count with thousands separators and its unit: ``31,457,372 bytes``."""
    return f"{fmt_count(n)} bytes" if n is not None else "? bytes"


def fmt_usd_known(known: float, unpriced: int, noun: str = "session") -> str:
    """A total of which ``unpriced`` parts (``noun``: sessions) have no known price: the known
    part and that the rest is unknown, never a bare ``$0.00``: ``$56.69``, ``$56.69 + unknown
    (1 session unpriced)``, ``unknown (2 sessions unpriced)`` (nothing known)."""
    if unpriced <= 0:
        return fmt_usd(known)
    return fmt_usd_part(known, f"{plural(unpriced, noun)} unpriced")


def fmt_usd_part(known: float, why: str) -> str:
    """A cost of which a part has no known price, the one rule every output follows: the known
    part (USD), then ``+ unknown`` and ``why`` (which models, how many sessions):
    ``$0.01 + unknown (no price known for claude-imaginary-9)``; ``unknown (why)`` when no part
    is known."""
    what = f"unknown ({why})"
    return what if known <= 0 else f"{fmt_usd(known)} + {what}"


def fmt_usd(usd: float | None) -> str:
    """A cost in USD to the cent with thousands separators: ``$1.23``, ``$0.00``,
    ``$1,000,000.00``; ``?`` when there is none (a model without a known price). The caller says
    it is an estimate (``views.text.cost_text``)."""
    if usd is None:
        return "?"
    return f"${usd:,.2f}"


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``n`` (written by :func:`fmt_count`) and ``noun``, plural unless ``n`` is 1: ``1 file``,
    ``0 files``, ``12,345 tool errors``. ``many``: the plural when it is not ``noun + "s"``
    (``plural(n, "anomaly", "anomalies")``)."""
    return f"{fmt_count(n)} {noun if n == 1 else (many or noun + 's')}"
