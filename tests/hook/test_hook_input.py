"""The hook's input as it reads it from stdin: to its end, in chunks, and no more than
``MAX_INPUT_BYTES`` (Claude Code's JSON is a few KB; a runaway producer's gigabytes are refused
in one line, not held in memory past the hook's deadline)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tracetui.hook import HookSkip
from tracetui.hook.protocol import MAX_INPUT_BYTES, read_input


class _Chunks(io.RawIOBase):
    """A stream that hands out ``size`` bytes in reads of at most 4 KiB, counting them."""

    def __init__(self, size: int) -> None:
        self.left = size
        self.reads = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[no-untyped-def]
        n = min(len(b), self.left, 4096)
        b[:n] = b"y" * n
        self.left -= n
        self.reads += 1
        return n


def test_the_input_is_read_to_its_end() -> None:
    data = b'{"session_id": "s"}' * 1000
    assert read_input(io.BytesIO(data)) == data
    assert read_input(io.BytesIO(b"")) == b""


def test_an_input_over_the_limit_is_refused_without_reading_the_rest() -> None:
    stream = io.BufferedReader(_Chunks(10 << 20), buffer_size=4096)
    with pytest.raises(HookSkip, match=r"^its input is over 1 MiB \(Claude Code's is a few KB\); printed nothing$"):
        read_input(stream, limit=1 << 20)
    assert stream.raw.left > 8 << 20  # stopped soon after the limit, the rest never read


def test_the_command_refuses_a_huge_input_in_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "TRACETUI_CACHE_DIR": str(tmp_path / "cache")}
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(MAX_INPUT_BYTES + (4 << 20))  # a sparse file of zero bytes
    with open(big, "rb") as stdin:
        run = subprocess.run([sys.executable, "-m", "tracetui.cli", "hook"], stdin=stdin, env=env, capture_output=True, timeout=120)
    assert run.returncode == 0 and run.stdout == b""
    assert (
        run.stderr.decode()
        == f"tracetui hook: its input is over {MAX_INPUT_BYTES >> 20} MiB (Claude Code's is a few KB); printed nothing\n"
    )
