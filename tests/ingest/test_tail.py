"""Tail: appended bytes only, torn lines held then completed, EOF objects, truncation, replacement,
and very long lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fixtures import append, assistant, jsonl, line, prompt, text_block, tool_call, tool_result, usage, write

from tracetui.ingest import tail as tail_mod
from tracetui.ingest.tail import Tailer
from tracetui.session.reader import SessionReader
from tracetui.views.state_json import state_to_json


def _lines(t: Tailer) -> list[tuple[int, int, bytes]]:
    return [(n, off, bytes(b)) for n, off, b in t.lines()]


def test_tailer_reads_only_appended_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":2}\n')
    t = Tailer(str(p))
    assert t.check() is None
    assert _lines(t) == [(1, 0, b'{"a":1}'), (2, 8, b'{"b":2}')]
    assert t.offset == 16
    # record every seek/read the tailer does on the next poll
    seeks: list[int] = []

    class Spy:
        def __init__(self, f):
            self.f = f

        def seek(self, pos, *a):
            seeks.append(pos)
            return self.f.seek(pos, *a)

        def read(self, n=-1):
            return self.f.read(n)

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

    real_open = tail_mod.open_regular  # the tailer opens files only through it (never a FIFO)
    monkeypatch.setattr(tail_mod, "open_regular", lambda path: Spy(real_open(path)))
    append(p, b'{"c":3}\n')
    assert t.check() is None
    assert _lines(t) == [(3, 16, b'{"c":3}')]
    assert seeks[0] == 16  # started reading at the resume offset, not at 0
    assert _lines(t) == []  # nothing new


def test_a_new_file_is_opened_once_its_first_bytes_kept_from_that_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a session's first read of 5,000 small subagent files opened each twice: its lines, then
    # its first bytes again for the fingerprint a rewrite is told by
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":2}\n{"c":')
    opened: list[str] = []
    real_open = tail_mod.open_regular
    monkeypatch.setattr(tail_mod, "open_regular", lambda path: opened.append(path) or real_open(path))
    t = Tailer(str(p))
    assert t.check() is None and len(_lines(t)) == 2
    assert len(opened) == 1
    assert t.head == tail_mod.head_key(p.read_bytes())  # the consumed and held bytes, as read
    with open(p, "r+b") as f:  # rewritten in place at the same size: told by those bytes
        f.write(b'{"x":1}')
    assert t.check() is not None


def test_a_small_file_is_read_with_a_buffer_of_its_size_not_a_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a read asks the allocator for all it may return: 1 MiB twice for each of 5,000 small
    # subagent files (and their .meta.json), whatever they held
    from tracetui.ingest import session_files

    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n' * 100)
    asked: list[int] = []
    real_open = tail_mod.open_regular

    class Sized:
        def __init__(self, f):
            self.f = f

        def read(self, n=-1):
            asked.append(n)
            return self.f.read(n)

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

    monkeypatch.setattr(tail_mod, "open_regular", lambda path: Sized(real_open(path)))
    t = Tailer(str(p))
    t.check()
    assert len(_lines(t)) == 100
    assert asked and max(asked) < tail_mod.CHUNK_BYTES // 8
    append(p, b'{"b":2}\n')
    asked.clear()
    t.check()
    assert _lines(t) == [(101, 800, b'{"b":2}')] and max(asked) < tail_mod.CHUNK_BYTES // 8
    meta = tmp_path / "agent-x.meta.json"
    meta.write_text('{"toolUseId": "toolu_1"}')
    asked.clear()
    monkeypatch.setattr(session_files, "open_regular", lambda path: Sized(real_open(path)))
    assert session_files._meta_tool_use_id(tmp_path / "agent-x.jsonl") == "toolu_1"
    assert asked and max(asked) <= 4096


def test_torn_line_is_held_then_completed(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":')
    t = Tailer(str(p))
    t.check()
    assert _lines(t) == [(1, 0, b'{"a":1}')]
    assert t.offset == 8 and t.held == b'{"b":' and t.pending_bytes == 5
    append(p, b"2}")
    t.check()
    assert _lines(t) == [] and t.held == b'{"b":2}'
    append(p, b"\n")
    t.check()
    assert _lines(t) == [(2, 8, b'{"b":2}')]
    assert t.held == b"" and t.offset == 16


def test_crlf_line_endings_tolerated(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\r\n')
    t = Tailer(str(p))
    t.check()
    assert _lines(t) == [(1, 0, b'{"a":1}')]


def test_reader_holds_torn_record_then_counts_it(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    full = line(prompt("hello there"))
    p.write_bytes(jsonl([prompt("first")]) + full[:20])
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    st = r.snapshot()
    assert st.counters.records == 1
    assert st.sources[0].pending_bytes == 20
    assert state_to_json(st)["sources"][0]["pending_bytes"] == 20
    append(p, full[20:] + b"\n")
    assert r.poll()
    st = r.snapshot()
    assert st.counters.records == 2 and st.counters.malformed == 0
    assert st.latest_ask.text == "hello there"
    assert st.sources[0].pending_bytes == 0 and st.sources[0].consumed == p.stat().st_size


def test_complete_object_at_eof_without_newline_counts(tmp_path: Path) -> None:
    p = write(tmp_path / "s.jsonl", [prompt("a"), prompt("b")], final_newline=False)
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    st = r.snapshot()
    assert st.counters.records == 2
    assert st.latest_ask.text == "b"
    assert st.sources[0].pending_bytes == 0
    assert st.sources[0].consumed == p.stat().st_size
    # the writer then finishes the line: the newline adds nothing, the next record is counted once
    append(p, b"\n" + line(prompt("c")) + b"\n")
    r.poll()
    st = r.snapshot()
    assert st.counters.records == 3 and st.counters.malformed == 0
    assert [e.anchor.line for e in st.events(0)] == [1, 2, 3]


def test_torn_line_at_eof_is_held_not_quarantined(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(jsonl([prompt("a")]) + b'{"type":"user","mess')
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    st = r.snapshot()
    assert st.counters.records == 1 and st.counters.malformed == 0
    assert st.sources[0].pending_bytes == len(b'{"type":"user","mess')


def test_non_final_poll_holds_complete_object_without_newline(tmp_path: Path) -> None:
    p = write(tmp_path / "s.jsonl", [prompt("a"), prompt("b")], final_newline=False)
    r = SessionReader(p, subagents=False, price=False)
    r.poll(final=False)
    assert r.snapshot().counters.records == 1


def test_truncation_starts_over_and_says_so(tmp_path: Path) -> None:
    p = write(tmp_path / "s.jsonl", [prompt("one"), prompt("two"), prompt("three")])
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    assert r.snapshot().counters.user_prompts == 3
    p.write_bytes(jsonl([prompt("new")]))  # same inode, shorter
    assert r.poll()
    st = r.snapshot()
    assert st.counters.records == 1 and st.counters.user_prompts == 1
    assert st.goal.text == "new"
    src = st.sources[0]
    assert src.truncated == 1 and src.replaced == 0 and src.resets and src.resets[0].startswith("truncated")
    js = state_to_json(st)["sources"][0]
    assert js["truncated"] is True and js["replaced"] is False


def test_rewrite_with_same_length_is_noticed(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(jsonl([prompt("aaaa")]))
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    with open(p, "r+b") as f:  # same inode, same size, different first bytes, then growth
        f.write(jsonl([prompt("bbbb")]))
    append(p, jsonl([prompt("cccc")]))
    r.poll()
    st = r.snapshot()
    assert st.goal.text == "bbbb" and st.counters.user_prompts == 2
    assert st.sources[0].truncated == 1


def test_replacement_by_new_inode_starts_over_and_says_so(tmp_path: Path) -> None:
    p = write(tmp_path / "s.jsonl", [prompt("one"), tool_call("t1", "Bash", {"command": "ls"})])
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    assert r.snapshot().counters.tool_calls == 1
    tmp = write(tmp_path / "new.jsonl", [prompt("other"), prompt("longer file"), prompt("third")])
    os.replace(tmp, p)
    assert r.poll()
    st = r.snapshot()
    assert st.sources[0].replaced == 1 and st.sources[0].truncated == 0
    assert st.counters.records == 3 and st.counters.tool_calls == 0 and st.counters.user_prompts == 3
    assert st.goal.text == "other" and len(st.events(0)) == 3
    assert state_to_json(st)["sources"][0]["replaced"] is True


def test_reset_drops_tokens_of_old_content(tmp_path: Path) -> None:
    p = write(tmp_path / "s.jsonl", [assistant([text_block("x")], msg_id="m1", u=usage(100, 10))])
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    assert r.snapshot().tokens.input == 100
    p.write_bytes(jsonl([assistant([text_block("y")], msg_id="m2", u=usage(7, 1))]))
    r.poll()
    st = r.snapshot()
    assert st.tokens.input == 7 and st.counters.api_messages == 1


def test_twenty_megabyte_line_is_neither_cut_nor_hangs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tail_mod, "CHUNK_BYTES", 1 << 20)  # force the line across many reads
    big = "x" * (20 << 20)
    recs = [tool_call("t1", "Read", {"file_path": "/a"}), tool_result("t1", big), prompt("after")]
    p = write(tmp_path / "s.jsonl", recs)
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    st = r.snapshot()
    assert st.counters.records == 3 and st.counters.malformed == 0
    assert st.pending == () and st.latest_ask.text == "after"
    ev = [e for e in st.events(0) if e.kind == "tool_result"][0]
    assert ev.excerpt.startswith("xxx") and len(ev.excerpt) <= 100
    # the event's anchor lets us read the whole payload back from the file, uncut
    with open(p, "rb") as f:
        f.seek(ev.anchor.offset)
        back = f.readline()
    assert big.encode() in back
    assert st.sources[0].consumed == p.stat().st_size


def test_twenty_megabyte_line_arriving_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tail_mod, "CHUNK_BYTES", 1 << 20)
    data = line(tool_result("t1", "y" * (20 << 20))) + b"\n"
    p = tmp_path / "s.jsonl"
    p.write_bytes(jsonl([prompt("start")]))
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    step = 7 << 20
    for i in range(0, len(data), step):
        append(p, data[i : i + step])
        r.poll(final=False)
    st = r.snapshot()
    assert st.counters.records == 2 and st.counters.malformed == 0
    assert st.sources[0].pending_bytes == 0


def test_missing_file_is_reported_in_status_not_raised(tmp_path: Path) -> None:
    p = tmp_path / "gone.jsonl"
    r = SessionReader(p, subagents=False, price=False)
    r.poll()
    st = r.snapshot()
    assert st.sources[0].error and "gone.jsonl" in st.sources[0].error


def test_poll_pauses_gc_and_restores_it(tmp_path: Path) -> None:
    import gc

    p = write(tmp_path / "s.jsonl", [prompt("a")])
    r = SessionReader(p, subagents=False, price=False)
    assert gc.isenabled()
    r.poll()
    assert gc.isenabled()
    gc.disable()
    try:
        append(p, jsonl([prompt("b")]))
        r.poll()
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()
    assert r.snapshot().counters.records == 2
