"""The rates of genai-prices' prices kept in the cache folder (:class:`FileRates`), so a command
prices a session's messages (``tracetui state``, ``report``) without importing genai-prices
(~0.3 s of pydantic and httpx) for a model, day and tier band an earlier run priced.

The rates are genai-prices' own (``tracetui.model.pricing.probe_rates`` reads them from its
prices and checks them against one more); the file is read again from genai-prices when it
was written from another install of it or another build of ``tracetui/model/pricing.py``.
"""

from __future__ import annotations

import importlib.util
import os
from decimal import Decimal
from pathlib import Path

from tracetui.model import pricing

__all__ = ["RATES_FILE", "FileRates"]

#: the file under the cache folder (``tracetui.session.store.cache_dir``)
RATES_FILE = "price-rates.json"


def _key() -> str:
    """What the kept rates were read from: genai-prices' install (its modules' paths and
    modification times, found without importing it) and this build's ``pricing.py``; ``""``
    when unknown (then nothing is kept)."""
    found = importlib.util.find_spec("genai_prices")
    if found is None or not found.submodule_search_locations:
        return ""
    folder = Path(list(found.submodule_search_locations)[0])
    try:
        parts = [f"{p}:{os.stat(p).st_mtime_ns}" for p in (folder / "__init__.py", folder / "data.py", folder / "types.py")]
        if pricing.__file__:
            parts.append(f"{pricing.__file__}:{os.stat(pricing.__file__).st_mtime_ns}")
    except OSError:
        return ""
    return "|".join(parts)


def _rates_value(v: object) -> bool:
    """``v`` is six decimal strings of numbers below 1,000 USD (``probe_rates``' list: a rate
    per token or per message, far below that)."""
    if not isinstance(v, list) or len(v) != 6:
        return False
    for x in v:
        if not isinstance(x, str) or len(x) > 64:
            return False
        try:
            d = Decimal(x)
            if not d.is_finite() or abs(d) >= 1000:
                return False
        except ArithmeticError:  # InvalidOperation, Overflow
            return False
    return True


class FileRates:
    """A :class:`tracetui.model.pricing.RateStore` kept in :data:`RATES_FILE` (0600), read at
    the first :meth:`get` and written again at each :meth:`put` (a few hundred bytes a model
    and day). Never raises for the file: one unreadable or of another install is read as
    empty, one that cannot be written leaves the rates in memory."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._rates: dict[str, list[str] | str] | None = None
        self._key = ""

    def _file(self) -> Path:
        if self._path is None:
            from tracetui.session.store import cache_dir

            self._path = cache_dir() / RATES_FILE
        return self._path

    def _load(self) -> dict[str, list[str] | str]:
        import orjson

        self._key = _key()
        rates: dict[str, list[str] | str] = {}
        if self._key:
            try:
                obj = orjson.loads(self._file().read_bytes())
            except (OSError, ValueError):
                obj = None
            if isinstance(obj, dict) and obj.get("key") == self._key and isinstance(obj.get("rates"), dict):
                for k, v in obj["rates"].items():
                    if v in (pricing.NO_PRICE, pricing.NOT_LINEAR) or _rates_value(v):
                        rates[k] = v  # anything else is left out: its key is probed again
        self._rates = rates
        return rates

    def get(self, key: str) -> list[str] | str | None:
        rates = self._rates if self._rates is not None else self._load()
        return rates.get(key)

    def put(self, key: str, value: list[str] | str) -> None:
        rates = self._rates if self._rates is not None else self._load()
        rates[key] = value
        if not self._key:
            return
        import orjson

        from tracetui.ingest.private import write_private

        try:
            write_private(self._file(), orjson.dumps({"key": self._key, "rates": rates}))
        except OSError:
            pass
