"""Open only regular files: a FIFO, socket or device among a session's files must never block.

``open()`` of a FIFO waits for a writer forever, and a read of a character device may never
end. Every transcript, subagent file and ``.meta.json`` is checked (``stat`` + ``S_ISREG``)
before it is opened, and opened with ``O_NONBLOCK`` so that a file replaced by a FIFO between
the check and the open does not block either (``O_NONBLOCK`` changes nothing for a regular file).

A name need not be UTF-8 (POSIX allows any bytes but ``/`` and NUL), and Python gives the bytes
that do not decode as lone surrogates (``surrogateescape``), which no UTF-8 encoder, SQLite
binding or terminal takes. :func:`path_text` is the one text of a path for everything that
is kept, keyed or shown; the path itself (a ``Path``) is what is opened, and :func:`file_of`
finds the file a kept text names.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO, TypeVar

T = TypeVar("T")

__all__ = ["NotRegularFile", "file_kind", "is_regular", "check_regular", "open_regular", "path_text", "file_of", "first_names"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def _stand_in(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c - 0xDC00:02x}" if 0xDC80 <= c <= 0xDCFF else f"\\u{c:04x}"


def path_text(path: str | os.PathLike[str]) -> str:
    """The text of ``path`` for what is stored, encoded or shown (model state, store and index
    keys, JSON, the terminal): always valid UTF-8, and the same name always gives the same text.

    The rule: a name that decodes as UTF-8 is itself; each byte that does not (a
    ``surrogateescape`` stand-in, U+DC80..U+DCFF) is written ``\\xNN`` (two lowercase hex
    digits, as Python's ``backslashreplace`` writes it), any other lone surrogate (a Windows
    name) ``\\uNNNN``. Different names give different texts but for a name that holds the
    four characters ``\\xNN`` themselves. The text is not a path: open the ``Path`` it came
    from (map a stored text back through the listing that found the file)."""
    text = os.fspath(path)
    return text if text.isascii() or not _SURROGATE.search(text) else _SURROGATE.sub(_stand_in, text)


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


def first_names(named: Iterable[tuple[Path, Path, tuple[int, int], T]]) -> list[T]:
    """Of ``(folder, path, (st_dev, st_ino), item)``, the item of each file once: of the names of
    one file (a symlinked project folder or transcript reaches it twice) the file's own name (a
    real folder, then a real file), then the folder and path that sort first. That name is the
    session's; the others are the same session, never another one (list_sessions, and the files
    report and search index: session_files.all_transcripts). In that order; two ``lstat`` a name."""
    ranked = sorted(((f.is_symlink(), p.is_symlink(), f.name, str(p)), ident, i, item) for i, (f, p, ident, item) in enumerate(named))
    seen: set[tuple[int, int]] = set()
    out = []
    for _rank, ident, _i, item in ranked:
        if ident not in seen:
            seen.add(ident)
            out.append(item)
    return out


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


def file_of(text: str) -> str:
    """The path of the file whose :func:`path_text` is ``text`` (a path kept in a state or a
    row, to be opened): ``text`` itself when it holds no stand-in or names a file as it is;
    else each component that does not exist as written is looked up in its folder's listing
    (the first name, sorted, whose text it is). ``text`` when nothing matches (opening it then
    fails as for a file that is gone). Raises nothing."""
    if "\\" not in text or os.path.lexists(text):
        return text
    out = ""
    for i, part in enumerate(text.split(os.sep)):
        if i == 0 and not part:
            out = os.sep
            continue
        cand = os.path.join(out, part) if out else part
        if "\\" in part and not os.path.lexists(cand):
            try:
                names = sorted(os.listdir(out or "."))
            except (OSError, ValueError):
                return text
            match = next((n for n in names if path_text(n) == part), None)
            if match is None:
                return text
            cand = os.path.join(out, match) if out else match
        out = cand
    return out
