"""The session store of a session whose path is not UTF-8: saved (its paths kept as their
text, ingest/files.py ``path_text``), resumed warm with the files mapped back to the paths on
disk, and the state after appends and a new subagent file that of a fresh fold.

The sessions are written by the tests (tests/non_utf8_home.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from non_utf8_home import BAD_FOLDER_TEXT, BAD_SID, bad_home, session
from tui_support import FROZEN_NOW

from tracetui.session.reader import SessionReader
from tracetui.session.store import open_cached
from tracetui.views.state_json import state_to_json


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))


def _fresh(path: Path) -> dict[str, Any]:
    r = SessionReader([path])
    r.poll()
    return state_to_json(r.snapshot())


def test_a_session_under_such_a_folder_resumes_warm(tmp_path: Path) -> None:
    home = bad_home(tmp_path / "claude", FROZEN_NOW)
    r = open_cached([home.bad])
    r.poll()
    assert [s.path for s in r.snapshot().sources] == [
        f"{home.projects}/{BAD_FOLDER_TEXT}/{BAD_SID}.jsonl",
        f"{home.projects}/{BAD_FOLDER_TEXT}/{BAD_SID}/subagents/agent-a1b2c3.jsonl",
    ]
    assert r.save_cache()
    r.store.close()
    # more records, and a second subagent file
    more = session(BAD_SID)
    more.tick(1).prompt("and again")
    more.tick(1).text("again")
    with open(home.bad, "ab") as f:
        f.write(b"".join(line + b"\n" for line in more.lines()[-2:]))
    second = home.bad_sub.with_name("agent-d4e5f6.jsonl")
    second.write_bytes(home.bad_sub.read_bytes().replace(b"a1b2c3", b"d4e5f6"))
    r = open_cached([home.bad])
    assert r.cache_status == "warm"
    r.poll()
    state = r.snapshot()
    assert [os.fsencode(t.path) for t in r.tailers][:2] == [os.fsencode(home.bad), os.fsencode(home.bad_sub)]
    assert len(state.sources) == 3  # the saved subagent file known, not added twice
    assert state_to_json(state) == _fresh(home.bad)
    assert r.save_cache()
    r.store.close()
    r = open_cached([home.bad])
    assert r.cache_status == "warm"
    r.poll()
    assert state_to_json(r.snapshot()) == _fresh(home.bad)
    r.store.close()
