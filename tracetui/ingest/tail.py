"""Tail one transcript file: read only appended bytes, hold a torn last line, notice truncation.

A :class:`Tailer` keeps a resume offset (bytes consumed), the number of complete lines consumed,
and the bytes of a line whose newline has not arrived yet. It never reads the file whole: it
reads in chunks of :data:`CHUNK_BYTES`, so memory grows with the longest line, not the file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from tracetui.ingest.files import check_regular, open_regular

__all__ = ["CHUNK_BYTES", "HEAD_BYTES", "Tailer", "TailReset", "Line"]

#: bytes read per system call; bounds the memory of one read (a longer line spans chunks)
CHUNK_BYTES = 1 << 20
#: bytes a read asks for past what the file held at its last check (it may have grown since)
_SLACK = 1 << 16
#: bytes at the start of a file whose fingerprint tells a replaced file from a grown one
HEAD_BYTES = 256

#: one complete line: (1-based line number, byte offset of its first byte, its bytes without ``\n``)
Line = tuple[int, int, memoryview]


@dataclass(frozen=True)
class TailReset:
    """Why a tailer started over from byte 0: ``"truncated"`` (the file shrank below the resume
    offset, or its first bytes changed) or ``"replaced"`` (another inode at the same path)."""

    reason: str
    detail: str


def head_key(head: bytes) -> bytes:
    """A file's first bytes as the tailer keeps them: their length (4 bytes, big-endian) and
    their SHA-256 (32 bytes); ``b""`` for none. Two heads match exactly when their keys do."""
    if not head:
        return b""
    return len(head).to_bytes(4, "big") + hashlib.sha256(head).digest()


def head_length(key: bytes) -> int:
    """The number of bytes :func:`head_key` ``key`` stands for."""
    return int.from_bytes(key[:4], "big") if key else 0


class Tailer:
    """Incremental reader of one append-only JSONL file.

    Usage: call :meth:`check` (may return a :class:`TailReset`), then iterate :meth:`lines`.
    After the iteration, :attr:`held` holds the torn last line, if any; :meth:`consume_held`
    consumes it when the caller decided it is a complete record (a complete JSON object at end
    of file). Raises ``OSError`` (missing file, permission denied; ``NotRegularFile`` for a
    FIFO, socket or device, which is never opened) from :meth:`check` and :meth:`lines`; the
    caller turns it into a one-line error.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        #: byte offset of the first byte not yet consumed (the resume offset)
        self.offset = 0
        #: complete lines consumed (newlines seen)
        self.line_no = 0
        #: bytes read past ``offset``: the start of a line whose newline has not arrived
        self.held = b""
        self.inode: int | None = None
        #: the file's first bytes as :func:`head_key` gives them (their length and SHA-256, not
        #: the bytes: the store keeps this, and a transcript's first line may hold a secret)
        self.head = b""
        #: file size at the last check, in bytes
        self.size = 0
        #: modification time (ns) at the last check: an unchanged (size, mtime) needs no re-read
        self.mtime_ns: int | None = None

    # -- state for the persistent cache ----------------------------------------------------
    def position(self) -> tuple[int, int, int | None, bytes]:
        """``(offset, line_no, inode, head)``: what a resume needs (the held bytes are re-read)."""
        return self.offset, self.line_no, self.inode, self.head

    def restore(self, offset: int, line_no: int, inode: int | None, head: bytes) -> None:
        """Resume at a position from :meth:`position`."""
        self.offset, self.line_no, self.inode, self.head = offset, line_no, inode, head
        self.held = b""
        self.mtime_ns = None

    def reset(self) -> None:
        self.offset = 0
        self.line_no = 0
        self.held = b""
        self.inode = None
        self.head = b""
        self.mtime_ns = None

    def check(self) -> TailReset | None:
        """Stat the file; start over (and say why) if it was truncated or replaced. A file whose
        inode, size and modification time are those of the last check was not written to: it is
        not opened (an idle session costs one ``stat`` per file and poll)."""
        st = check_regular(self.path)
        unchanged = st.st_ino == self.inode and st.st_size == self.size and st.st_mtime_ns == self.mtime_ns
        self.size = st.st_size
        self.mtime_ns = st.st_mtime_ns
        reset: TailReset | None = None
        if unchanged:
            pass
        elif self.inode is not None and st.st_ino != self.inode:
            reset = TailReset("replaced", f"inode {self.inode} -> {st.st_ino}")
        elif st.st_size < self.offset + len(self.held):
            reset = TailReset("truncated", f"size {st.st_size} < offset {self.offset + len(self.held)}")
        elif self.head:
            with open_regular(self.path) as f:
                now = f.read(head_length(self.head))
            if head_key(now) != self.head:
                reset = TailReset("truncated", "the first bytes changed (rewritten)")
        if reset is not None:
            self.reset()
        self.inode = st.st_ino
        return reset

    def lines(self) -> Iterator[Line]:
        """Yield every complete line appended since the last call, in file order.

        Blank lines are yielded too (as empty views); the caller decides what they count as.
        Lines inside a chunk are views of the chunk (no copy); only a line that spans chunks is
        joined from its pieces, once, so a line of any length costs its own size, not more.
        """
        read_pos = self.offset + len(self.held)
        if read_pos >= self.size and self.mtime_ns is not None:
            return  # nothing new at the last check: no open, no read
        first: bytes | None = None  # the file's first bytes, when this read starts at 0
        with open_regular(self.path) as f:
            f.seek(read_pos)
            pieces = [self.held] if self.held else []  # the start of a line that spans chunks
            # a read of CHUNK_BYTES allocates them whatever it reads: a small file (or what a
            # file grew by since the last check) asks for what the check saw it hold, and more
            left = self.size - read_pos
            while True:
                data = f.read(min(CHUNK_BYTES, max(left, 0) + _SLACK))
                if not data:
                    break
                left -= len(data)
                if first is None and read_pos == 0:
                    first = data[:HEAD_BYTES]
                find = data.find
                nl = find(b"\n")
                if nl < 0:
                    pieces.append(data)
                    continue
                start = 0
                if pieces:
                    pieces.append(data[:nl])
                    line = b"".join(pieces)
                    pieces = []
                    self.held = b""
                    self.line_no += 1
                    base = self.offset
                    n = len(line)
                    yield self.line_no, base, memoryview(line)[: n - 1 if n and line[-1] == 13 else n]
                    self.offset = base + n + 1
                    start = nl + 1
                    nl = find(b"\n", start)
                mv = memoryview(data)
                base = self.offset - start  # file offset of data[0]
                line_no = self.line_no
                while nl >= 0:
                    line_no += 1
                    self.line_no = line_no
                    yield line_no, base + start, mv[start : nl - 1 if nl > start and data[nl - 1] == 13 else nl]  # tolerate \r\n
                    start = nl + 1
                    self.offset = base + start
                    nl = find(b"\n", start)
                if start < len(data):
                    pieces.append(data[start:])
            self.held = b"".join(pieces)
        if head_length(self.head) < HEAD_BYTES:
            n = min(HEAD_BYTES, self.offset + len(self.held))
            if first is not None and len(first) >= n:
                self.head = head_key(first[:n])  # read above: no second open of a new file
            else:
                with open_regular(self.path) as f:
                    self.head = head_key(f.read(n))

    def consume_held(self, n: int | None = None) -> None:
        """Consume the first ``n`` held bytes (all by default) without a newline: the caller
        found complete records there.

        The line number does not advance: the rest of that line, if the writer adds any, keeps it.
        """
        if n is None or n >= len(self.held):
            self.offset += len(self.held)
            self.held = b""
        else:
            self.offset += n
            self.held = self.held[n:]

    @property
    def pending_bytes(self) -> int:
        """Bytes read but not consumed: the torn last line."""
        return len(self.held)
