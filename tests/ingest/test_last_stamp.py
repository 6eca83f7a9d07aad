"""The newest record time read from a transcript's end (ingest/last_stamp.py): the session
switcher's way to tell a copy (written long after its last record) from a live session."""

from __future__ import annotations

import os
from pathlib import Path

from tracetui.ingest.last_stamp import last_stamp


def _write(tmp_path: Path, data: bytes) -> Path:
    p = tmp_path / "s.jsonl"
    p.write_bytes(data)
    return p


def test_the_last_complete_record_with_a_time_is_read(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        b'{"type":"user","timestamp":"2026-01-01T00:00:00.000Z"}\n'
        b'{"type":"assistant","timestamp":"2026-01-01T00:00:05.000Z"}\n'
        b'{"type":"summary","summary":"no time"}\n'
        b"not json\n"
        b'["an","array"]\n'
        b'{"type":"user","timestamp":17}\n'
        b'{"type":"user","timestamp":"2026-09-09T00:00:00.000Z"',  # torn: not written to its end
    )
    assert last_stamp(p) == "2026-01-01T00:00:05.000Z"


def test_a_line_cut_by_the_tail_read_is_not_taken(tmp_path: Path) -> None:
    first = b'{"type":"user","timestamp":"2026-01-01T00:00:00.000Z","pad":"' + b"x" * 200 + b'"}\n'
    p = _write(tmp_path, first + b'{"type":"user","timestamp":"2026-01-02T00:00:00.000Z"}\n')
    assert last_stamp(p, tail_bytes=100) == "2026-01-02T00:00:00.000Z"
    # only the end of the first line falls in the tail: no record is whole there
    p = _write(tmp_path, first)
    assert last_stamp(p, tail_bytes=100) is None


def test_an_escaped_lone_surrogate_or_bad_utf8_is_read_as_the_fold_reads_it(tmp_path: Path) -> None:
    p = _write(tmp_path, b'{"type":"user","text":"\\ud800 \xff","timestamp":"2026-02-02T00:00:00Z"}\n')
    assert last_stamp(p) == "2026-02-02T00:00:00Z"


def test_nothing_to_read_is_none_never_an_error(tmp_path: Path) -> None:
    assert last_stamp(_write(tmp_path, b"")) is None
    assert last_stamp(_write(tmp_path, b"\x00\x01\x02\n")) is None
    assert last_stamp(tmp_path / "missing.jsonl") is None
    assert last_stamp(tmp_path) is None  # a folder
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert last_stamp(fifo) is None  # never opened for a read that would block
