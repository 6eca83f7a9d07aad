"""The session store: one SQLite database per session holding its ledger, its per-prompt
history, its episodes and the fold state to resume from (it is the fold cache).

``open_cached(paths, subagents=..., price=...)`` returns a reader (``poll``, ``snapshot``,
``check_transcript``, ``save_cache``); see store/opening.py for when a saved state is resumed
from, store/ledger.py for how the ledger is written and read, store/db.py for the schema.

The names below are imported when first read (PEP 562), not with the package: the store's
writer process (store/writer_proc.py, a fresh interpreter) imports only its own modules, not
the reader and the folds behind it (~0.1 s of imports without cached bytecode).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracetui.session.store.codec import CacheEncodeError
    from tracetui.session.store.db import FP_BYTES, SCHEMA, cache_dir, cache_path, code_fingerprint
    from tracetui.session.store.opening import open_cached, open_private
    from tracetui.session.store.reader import StoreReader

#: each public name, and the module it is read from
_FROM = {
    "CacheEncodeError": "codec",
    "FP_BYTES": "db",
    "SCHEMA": "db",
    "cache_dir": "db",
    "cache_path": "db",
    "code_fingerprint": "db",
    "StoreReader": "reader",
    "open_cached": "opening",
    "open_private": "opening",
}

__all__ = [
    "CacheEncodeError",
    "FP_BYTES",
    "SCHEMA",
    "StoreReader",
    "cache_dir",
    "cache_path",
    "code_fingerprint",
    "open_cached",
    "open_private",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module at the first read. Raises ``AttributeError``
    for any other name (so ``from tracetui.session.store import history`` imports the module)."""
    module = _FROM.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
