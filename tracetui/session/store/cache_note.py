"""The one note every command gives when the cache folder cannot be used at all.

The cache folder (``$TRACETUI_CACHE_DIR`` or the user cache folder: store/db.py ``cache_dir``)
holds the fold store and the cross-session index. When it is a regular file, or cannot be
made or written, every command still works (folding from the start, with a private index),
and each says so in the same one line on stderr, once a process a cause (:func:`note_unusable_cache`);
the store's and the index's own notes about that folder are then not said again (:func:`said`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tracetui.ingest.files import path_text
from tracetui.session.store.db import cache_dir

__all__ = ["unusable_cache", "note_unusable_cache", "said"]

#: the causes said in this process
_SAID: set[str] = set()


def unusable_cache(folder: Path | None = None) -> str | None:
    """Why the cache folder (``folder``, default ``cache_dir()``) cannot be used, in words
    (``"/x: not a folder"``), or ``None`` when it can (it is a folder this process may write
    in, or one it can make: its nearest existing parent is). Makes nothing; never raises."""
    d = folder or cache_dir()
    p = d
    try:
        while not os.path.lexists(p) and p.parent != p:
            p = p.parent
        if not p.is_dir():
            return f"{path_text(p)}: not a folder"
        if not os.access(p, os.W_OK | os.X_OK):
            return f"{path_text(p)}: permission denied"
    except (OSError, ValueError) as exc:
        return f"{path_text(d)}: {exc}"
    return None


def note_unusable_cache() -> bool:
    """Say on stderr, once a process, that the cache folder cannot be used and the command
    works without it (``tracetui: note: the cache folder cannot be used (PATH: not a folder);
    ...``), when :func:`unusable_cache` says so. Returns whether it was said (now or before)."""
    why = unusable_cache()
    if why is None:
        return False
    if why in _SAID:
        return True
    _SAID.add(why)
    print(
        f"tracetui: note: the cache folder cannot be used ({why}); this run works without it"
        " (each transcript folded from the start, nothing kept for the next run)",
        file=sys.stderr,
    )
    return True


def said() -> bool:
    """Whether :func:`note_unusable_cache` said in this process why the cache folder cannot be used."""
    why = unusable_cache() if _SAID else None
    return why is not None and why in _SAID
