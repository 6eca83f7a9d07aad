"""Open only regular files: a FIFO, socket or device among a session's files must never block.

``open()`` of a FIFO waits for a writer forever, and a read of a character device may never
end. Every transcript, subagent file and ``.meta.json`` is checked (``stat`` + ``S_ISREG``)
before it is opened, and opened with ``O_NONBLOCK`` so that a file replaced by a FIFO between
the check and the open does not block either (``O_NONBLOCK`` changes nothing for a regular file).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["NotRegularFile", "file_kind", "is_regular", "check_regular", "open_regular"]

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISLNK, "a symbolic link"),
)


class NotRegularFile(OSError):
    """``path`` is a FIFO, socket, device or directory, not a regular file; ``str()`` is one
    line: ``"PATH: a FIFO (named pipe), not a regular file"``."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", str(path))
        self.kind = kind

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words (``"a FIFO (named pipe)"``, ``"a regular file"``)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a special file"


def is_regular(path: str | os.PathLike[str]) -> bool:
    """``True`` when ``path`` (symbolic links followed) is a regular file; ``False`` for a
    special file or one that cannot be stat'ed. Never blocks."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def check_regular(path: str | os.PathLike[str]) -> os.stat_result:
    """``os.stat(path)`` when it is a regular file. Raises :class:`NotRegularFile` for a special
    file, ``OSError`` when it cannot be stat'ed."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFile(path, file_kind(st.st_mode))
    return st


def open_regular(path: str | os.PathLike[str] | Path) -> BinaryIO:
    """``path`` opened for binary reading, when it is a regular file. Never blocks: the open
    uses ``O_NONBLOCK`` and the opened file is checked with ``fstat``. Raises
    :class:`NotRegularFile` for a special file, ``OSError`` for the rest (missing, permission)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, file_kind(mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a regular file: ordinary reads from here on
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
