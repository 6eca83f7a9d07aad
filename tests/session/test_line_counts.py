"""A source's ``lines`` figure agrees with its records and anchors: a complete record on a last
line without newline is a line (the anchor ``file:N`` it gets is within ``N lines``); only
``\\n`` ends a line (a ``\\r`` inside a line splits nothing); consecutive bad parts of one line
are one malformed part; a held last line is said for what it is."""

from __future__ import annotations

from pathlib import Path

from tracetui.cli import main
from tracetui.demo.transcript import TranscriptBuilder
from tracetui.model.session_fold import fold_bytes
from tracetui.session.reader import SessionReader


def _state(path: Path):
    r = SessionReader(path)
    r.poll()
    return r.snapshot()


def _session() -> bytes:
    b = TranscriptBuilder()
    b.prompt("Fix the parser")
    b.tick(1).tool("Bash", {"command": "pytest -q"}, "1 passed", took=1)
    b.tick(1).text("Done.")
    return b.data()


def test_a_complete_last_line_without_newline_is_counted_as_a_line(tmp_path: Path, capsys) -> None:
    data = _session().rstrip(b"\n")
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    st = _state(path)
    src = st.sources[0]
    n = data.count(b"\n") + 1
    assert st.counters.records == n and src.pending_bytes == 0
    assert src.lines == n == src.last_anchor.line
    assert fold_bytes(data).sources[0].lines == n
    assert main(["state", "--no-cache", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"records  {n} " in out and f"bytes, {n} lines" in out


def test_a_carriage_return_splits_no_line_and_a_bad_line_is_one_malformed_part(tmp_path: Path) -> None:
    # 3 newline-ended lines of junk holding carriage returns, one starting with a number
    path = tmp_path / "binary.jsonl"
    path.write_bytes(b"\x88\r\x01junk\r\r\n" + b"7\x99\rmore\r\n" + b"\x00\x00\r{\n")
    st = _state(path)
    src = st.sources[0]
    assert src.lines == 3 and src.malformed == 3 and src.last_anchor.line == 3


def test_a_held_last_line_is_said_for_what_it_is(tmp_path: Path, capsys) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_session() + b'{"type": "user", "mess')
    assert main(["state", "--no-cache", str(path)]) == 0
    out = capsys.readouterr().out
    assert "22 bytes pending: a last line without its newline, not yet a whole record" in out
