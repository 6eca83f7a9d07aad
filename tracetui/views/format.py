"""The one way numbers are written (counts, short counts, byte sizes, USD, a count with its noun),
for the views and everything above them: :mod:`tracetui.model.numbers`, where the model's and the
session's messages find it too."""

from __future__ import annotations

from tracetui.model.numbers import fmt_bytes, fmt_bytes_exact, fmt_count, fmt_short, fmt_usd, fmt_usd_known, fmt_usd_part, plural

__all__ = ["fmt_count", "fmt_short", "fmt_bytes", "fmt_bytes_exact", "fmt_usd", "fmt_usd_known", "fmt_usd_part", "plural"]
