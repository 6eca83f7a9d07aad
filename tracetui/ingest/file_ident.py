"""Which file a path names: ``(st_dev, st_ino)``, the same for every path to one file (a
relative path, one through a symlinked folder, a hard link), so that paths given by the user
and paths found under the projects folder are matched as files, not as strings."""

from __future__ import annotations

import os

__all__ = ["file_ident", "file_stat"]


def file_stat(path: str | os.PathLike[str]) -> tuple[tuple[int, int] | None, int]:
    """``((st_dev, st_ino), size in bytes)`` of the file at ``path`` (symlinks followed, a
    relative path from the working folder), ``(None, 0)`` when it cannot be stat'ed. Never raises."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):  # gone, unreadable folder, a NUL in the path
        return None, 0
    return (st.st_dev, st.st_ino), st.st_size


def file_ident(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """``(st_dev, st_ino)`` of the file at ``path`` (:func:`file_stat`), ``None`` when it cannot be stat'ed."""
    return file_stat(path)[0]
