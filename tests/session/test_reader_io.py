"""What a reader says of its files' bytes: the size it reports is never below what it read of
a file (a file that grows while it is read is read on to its end, past the size taken when the
read began: seventh user trial, "86,771,919 of 80,729,644 bytes")."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures import append, fan_out, jsonl, prompt, write

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


def _looks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the files each poll looks at from now on (a ``stat`` each: ``Tailer.check``)."""
    seen: list[str] = []
    check = Tailer.check

    def counted(self: Tailer):
        seen.append(self.path)
        return check(self)

    monkeypatch.setattr(Tailer, "check", counted)
    return seen


def test_a_poll_told_which_files_were_written_reads_those_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the monitor's poll at each file event looked at every file of the session (5,000 stat a
    # tenth of a second while its main transcript was written: a fresh-user trial)
    main = fan_out(tmp_path / "proj", 30)
    sub = main.parent / main.stem / "subagents"
    r = SessionReader([main], price=False)
    r.poll()
    seen = _looks(monkeypatch)
    one = sub / "agent-a0000000000000007.jsonl"
    append(one, jsonl([prompt("more", sidechain=True, agentId="a0000000000000007", session=main.stem)]))
    assert r.poll(only={str(one)})
    assert seen == [str(one)]
    # a new file (its folder's event) is found and read; a .meta.json beside it asks for nothing more
    seen.clear()
    new = write(sub / "agent-zz.jsonl", [prompt("late", sidechain=True, agentId="zz", session=main.stem)])
    assert r.poll(only={str(sub), str(sub / "agent-zz.meta.json")})
    assert seen == [str(new)]
    # a transcript the reader does not know by that name: every file is looked at
    seen.clear()
    assert not r.poll(only={str(tmp_path / "elsewhere" / "agent-x.jsonl")})
    assert len(seen) == 32
    fresh = SessionReader([main], price=False)
    fresh.poll()
    assert r.snapshot().counters == fresh.snapshot().counters and r.snapshot().sources == fresh.snapshot().sources


def test_a_spread_poll_looks_at_the_quiet_files_in_turn_and_misses_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    main = fan_out(tmp_path / "proj", 40)
    sub = main.parent / main.stem / "subagents"
    r = SessionReader([main], price=False)
    r.poll(spread=8)  # the first poll looks at every file: none was looked at before
    seen = _looks(monkeypatch)
    assert not r.poll(spread=8) and len(seen) == 41  # and the next: each moved at its last look
    looked: list[set[str]] = []
    for _ in range(8):
        seen.clear()
        assert not r.poll(spread=8)
        looked.append(set(seen))
    assert all(str(main) in s and len(s) <= 1 + 40 // 8 + 1 for s in looked)  # the main at every poll
    assert set().union(*looked) == {str(main), *(str(p) for p in sub.glob("*.jsonl"))}  # each file in 8 polls
    # a quiet file written again is read within 8 polls, then looked at at every poll while it moves
    late = sub / "agent-a0000000000000011.jsonl"
    append(late, jsonl([prompt("again", sidechain=True, agentId="a0000000000000011", session=main.stem)]))
    polls = 1
    while not r.poll(spread=8):
        polls += 1
    assert polls <= 8
    seen.clear()
    r.poll(spread=8)
    assert str(late) in seen  # it moved at its last look
    fresh = SessionReader([main], price=False)
    fresh.poll()
    assert r.snapshot().counters == fresh.snapshot().counters
