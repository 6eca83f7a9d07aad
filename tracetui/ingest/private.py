"""Files only their owner may read: folders made 0700, files written 0600, atomically.

Every file tracetui writes can hold transcript text (exports, the hook's state, the fold cache),
so none is created readable by others whatever the umask.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["private_dir", "write_private", "read_small", "FILE_MODE", "DIR_MODE"]

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    """Make folder ``path`` and its missing parents, each new one 0700; returns ``path``.
    Raises ``OSError`` as ``Path.mkdir`` does. An existing folder keeps its mode."""
    missing = []
    p = path
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(d, DIR_MODE)  # mkdir's mode is masked by the umask
    return path


def read_small(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes, else ``None``
    (missing, unreadable, a folder, a FIFO or a device: opened without blocking and never read,
    so a FIFO in its place does not hang the reader, nor ``/dev/zero`` fill its memory). For the
    small files a command reads from the cache folder at start. Never raises."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def write_private(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file created 0600 in the same folder
    (made by :func:`private_dir`), then renamed over ``path``; returns ``path``. Raises
    ``OSError`` when the folder cannot be made or written."""
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path
