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
#: the largest such file read (~0.1 KB a model, day and band): a bigger one is read as empty
MAX_BYTES = 4 << 20


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
    """``v`` is a list :func:`tracetui.model.pricing.probe_rates` could have written: six
    decimal strings in the form ``str(Decimal)`` writes them, each below 1,000 USD, and every
    token and the message itself of a price no lower than zero (an uncached input token, an
    output token, a cache write, a 1-hour cache write, a cache read: the cache-read rate is
    below the input rate, so it may be negative on its own). Anything else is probed again."""
    if not isinstance(v, list) or len(v) != 6:
        return False
    ds = []
    for x in v:
        if not isinstance(x, str) or len(x) > 64:
            return False
        try:
            d = Decimal(x)
            if not d.is_finite() or abs(d) >= 1000 or str(d) != x:
                return False
        except ArithmeticError:  # InvalidOperation, Overflow (of an exponent past the context's)
            return False
        ds.append(d)
    c, r_in, r_out, r_cw, r_cr, r_1h = ds
    try:
        return min(c, r_in, r_out, r_in + r_cw, r_in + r_cw + r_1h, r_in + r_cr) >= 0
    except ArithmeticError:
        return False


class FileRates:
    """A :class:`tracetui.model.pricing.RateStore` kept in :data:`RATES_FILE` (0600): read at
    the first :meth:`get`, the rates this process found written once, at its exit (merged
    with what another process wrote there meanwhile), or by :meth:`save`. Never raises for the
    file: one unreadable, of another install, bigger than :data:`MAX_BYTES` or that is no
    regular file (a FIFO, a device) is read as empty; a value it holds that
    :func:`tracetui.model.pricing.probe_rates` could not have written is left out (its key is
    probed again); one that cannot be written leaves the rates in memory."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._rates: dict[str, list[str] | str] | None = None
        self._new: dict[str, list[str] | str] = {}
        self._key = ""
        self._at_exit = False

    def _file(self) -> Path:
        if self._path is None:
            from tracetui.session.store import cache_dir

            self._path = cache_dir() / RATES_FILE
        return self._path

    def _read(self) -> dict[str, list[str] | str]:
        import orjson

        from tracetui.ingest.private import read_small

        rates: dict[str, list[str] | str] = {}
        if not self._key:
            return rates
        try:
            obj = orjson.loads(read_small(self._file(), MAX_BYTES) or b"null")
        except ValueError:
            obj = None
        if isinstance(obj, dict) and obj.get("key") == self._key and isinstance(obj.get("rates"), dict):
            for k, v in obj["rates"].items():
                if isinstance(k, str) and (v in (pricing.NO_PRICE, pricing.NOT_LINEAR) or _rates_value(v)):
                    rates[k] = v
        return rates

    def _load(self) -> dict[str, list[str] | str]:
        self._key = _key()
        self._rates = self._read()
        return self._rates

    def get(self, key: str) -> list[str] | str | None:
        rates = self._rates if self._rates is not None else self._load()
        return rates.get(key)

    def put(self, key: str, value: list[str] | str) -> None:
        rates = self._rates if self._rates is not None else self._load()
        rates[key] = value
        self._new[key] = value
        if self._key and not self._at_exit:
            import atexit

            atexit.register(self.save)
            self._at_exit = True

    def save(self) -> bool:
        """Write the rates found since the last save into the file, over what it holds now;
        ``True`` when it was written (or there was nothing to write)."""
        if not self._new or not self._key:
            return True
        import orjson

        from tracetui.ingest.private import write_private

        merged = self._read()
        merged.update(self._new)
        try:
            write_private(self._file(), orjson.dumps({"key": self._key, "rates": merged}))
        except OSError:
            return False
        self._new = {}
        return True
