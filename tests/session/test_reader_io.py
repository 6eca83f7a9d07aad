"""What a reader says of its files' bytes: the size it reports is never below what it read of
a file (a file that grows while it is read is read on to its end, past the size taken when the
read began: seventh user trial, "86,771,919 of 80,729,644 bytes")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracetui.demo.transcript import TranscriptBuilder
from tracetui.ingest.tail import Tailer
from tracetui.session.reader import SessionReader


def test_a_file_that_grew_during_the_read_reports_at_least_what_was_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = TranscriptBuilder(session_id="5e55105e-0000-4000-8000-0000000000bb")
    for i in range(20):
        b.prompt(f"step {i}")
        b.tick(1).text("ok")
    path = tmp_path / "s.jsonl"
    data = b.data()
    half = data[: data.index(b"\n", len(data) // 2) + 1]
    path.write_bytes(half)
    check = Tailer.check

    def grows_after_the_stat(self: Tailer):  # the rest written just after the size was taken
        got = check(self)
        path.write_bytes(data)
        return got

    monkeypatch.setattr(Tailer, "check", grows_after_the_stat)
    r = SessionReader([path], price=False)
    r.poll()
    src = r.snapshot().sources[0]
    assert src.consumed == len(data) and src.size >= src.consumed
