"""The secret detectors kept as plain data in the cache folder, so a short-lived process (the
hook, a headless command) compiles them (~10 ms) instead of importing detect-secrets (~80 ms)."""

from __future__ import annotations

import importlib.util
import os

from tracetui.ingest import secret_detectors, secret_patterns

__all__ = ["RULES_FILE", "cached_rules"]

#: the file under the cache folder (``tracetui.session.store.cache_dir``)
RULES_FILE = "secret-rules.json"
#: the largest such file read (the detectors are ~10 KB): a bigger one, or one that is no
#: regular file (a FIFO, a device), is read from detect-secrets again
MAX_BYTES = 1 << 20


def _key() -> str:
    """What the cached detectors were read from: detect-secrets' install and this build's
    ``tracetui.ingest.secret_detectors`` and ``tracetui.ingest.secret_patterns`` (the detectors it adds),
    their paths and modification times; ``""`` when unknown."""
    found = importlib.util.find_spec("detect_secrets")
    origin = found.origin if found is not None else None
    try:
        ours = ":".join(f"{m.__file__}:{os.stat(m.__file__).st_mtime_ns}" for m in (secret_detectors, secret_patterns) if m.__file__)
        return f"{origin}:{os.stat(origin).st_mtime_ns if origin else 0}:{ours}"
    except OSError:
        return ""


def cached_rules() -> dict[str, object]:
    """The detectors (:func:`tracetui.ingest.secret_detectors.rules_spec`'s value): from
    :data:`RULES_FILE` when it was written from the same detect-secrets and the same
    ``tracetui.ingest.secret_detectors``, else read from detect-secrets and written there (0600).
    Never raises for the file; a source for :func:`tracetui.ingest.secret_detectors.set_source`."""
    import orjson

    from tracetui.ingest.private import read_small, write_private
    from tracetui.session.store import cache_dir

    key = _key()
    path = cache_dir() / RULES_FILE
    if key:
        try:
            obj = orjson.loads(read_small(path, MAX_BYTES) or b"null")
            if isinstance(obj, dict) and obj.get("key") == key and isinstance(obj.get("spec"), dict):
                return obj["spec"]
        except (OSError, ValueError):
            pass
    spec = secret_detectors.rules_spec()
    if key:
        try:
            write_private(path, orjson.dumps({"key": key, "spec": spec}))
        except OSError:
            pass
    return spec
