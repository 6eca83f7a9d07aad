"""The session store: one SQLite database per session holding its ledger, its per-prompt
history, its episodes and the fold state to resume from (it is the fold cache).

``open_cached(paths, subagents=..., price=...)`` returns a reader (``poll``, ``snapshot``,
``check_transcript``, ``save_cache``); see store/reader.py for when a saved state is resumed
from, store/ledger.py for how the ledger is written and read, store/db.py for the schema.
"""

from tracetui.session.store.codec import CacheEncodeError
from tracetui.session.store.db import FP_BYTES, SCHEMA, cache_dir, cache_path, code_fingerprint
from tracetui.session.store.reader import StoreReader, open_cached, open_private

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
