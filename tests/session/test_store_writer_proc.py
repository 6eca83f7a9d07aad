"""The first open's writes made by a second process (store/writer_proc.py): the same rows as the
thread writer's, the same figures, and a child that fails (killed, a locked database) costs the
save, never a figure: what it did not commit is kept in memory."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from fixtures import prompt, tool_call, tool_result, write
from test_store import assert_same_state, fold_state, write_locked

from tracetui.session import derive_proc
from tracetui.session.reader import SessionReader
from tracetui.session.store import cache_path, open_cached
from tracetui.session.store.ledger import BATCH
from tracetui.session.store.writer import Writer
from tracetui.session.store.writer_proc import ProcessWriter
from tracetui.views.state_json import state_to_json


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(d))
    # the threads of earlier tests' stores (ended when collected) must not turn the process off
    monkeypatch.setattr(derive_proc, "_single_threaded", lambda: True)
    return d


def _session(tmp_path: Path, n: int = 2100, secrets: bool = False) -> Path:
    """A session of ``n`` calls (more events than a batch: several jobs of each kind); with
    ``secrets``, prompts and commands holding some (the store masks them: its figures then
    differ from an in-memory fold's texts)."""
    key, pw = ("api_key=hunter2hunter2", "password=s3cr3tpass") if secrets else ("api", "pass")
    recs = [prompt(f"goal: the tokens of the {key}")]
    for i in range(n):
        recs += [tool_call(f"t{i}", "Bash", {"command": f"echo {i} tokens {i}"}), tool_result(f"t{i}", f"out {i}", is_error=i % 17 == 0)]
        if i % 10 == 9:
            recs.append(prompt(f"next {i}: {pw}{i}"))
    return write(tmp_path / "s.jsonl", recs)


def _rows(p: Path) -> dict[str, list[tuple]]:
    c = sqlite3.connect(cache_path([p]))
    try:
        return {t: c.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in ("events", "history", "episodes", "sources")}
    finally:
        c.close()


def test_the_process_writes_the_rows_the_thread_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _session(tmp_path, secrets=True)
    got, states = {}, {}
    for how, kind in (("0", Writer), ("always", ProcessWriter)):
        monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / f"cache-{how}"))
        monkeypatch.setenv("TRACETUI_STORE_PROCESS", how)
        r = open_cached([p], price=False)
        st = fold_state(r)
        assert type(r.store._writer) is kind
        states[how] = (state_to_json(st), [list(x) for x in st.ledgers])  # episodes: from memory or the rows, masked
        assert r.save_cache()
        assert type(r.store._writer) is Writer  # the build saved: a thread writes what follows
        r.store.close()
        got[how] = _rows(p)
        assert b"hunter2hunter2" not in repr(got[how]).encode() and b"s3cr3tpass" not in repr(got[how]).encode()
    assert got["0"] == got["always"]
    assert len(got["0"]["events"]) > BATCH and got["0"]["history"] and got["0"]["episodes"]
    assert states["always"] == states["0"]
    again = open_cached([p], price=False)
    assert again.cache_status == "warm"  # (its texts are the saved state's: masked)
    assert state_to_json(fold_state(again))["counters"] == states["0"][0]["counters"]


def test_the_process_build_gives_the_figures_of_an_in_memory_fold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_STORE_PROCESS", "always")
    p = _session(tmp_path)
    r = open_cached([p], price=False)
    assert_same_state(fold_state(r), fold_state(SessionReader([p], price=False)))
    assert type(r.store._writer) is ProcessWriter
    assert r.save_cache()


def test_a_killed_writer_process_costs_the_save_not_the_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_STORE_PROCESS", "always")
    p = _session(tmp_path)
    r = open_cached([p], price=False)
    w = r.store.writer()
    assert type(w) is ProcessWriter
    w._proc.kill()  # before it wrote the ledger: every event is kept in memory
    s = fold_state(r)  # reads the ledger, history and episodes back: from memory
    assert r.store.broken == "the store's writer process ended"
    assert_same_state(s, fold_state(SessionReader([p], price=False)))
    assert r.save_cache() is False
    r.store.close()
    again = open_cached([p], price=False)
    assert again.cache_status == "cold"  # nothing was saved: folded again
    assert_same_state(fold_state(again), fold_state(SessionReader([p], price=False)))


def test_a_locked_database_fails_the_writer_process_and_keeps_the_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_STORE_PROCESS", "always")
    p = _session(tmp_path)
    open_cached([p], price=False).store.close()  # the database exists, nothing saved in it
    with write_locked(cache_path([p])):  # another process holds the write lock throughout
        r = open_cached([p], price=False)
        assert r.cache_status == "cold"
        s = fold_state(r)
        assert type(r.store._writer) is ProcessWriter
        assert_same_state(s, fold_state(SessionReader([p], price=False)))
        assert r.save_cache() is False
        assert r.store.broken is not None and "locked" in r.store.broken
    r = open_cached([p], price=False)
    assert r.cache_status == "cold"
    assert_same_state(fold_state(r), fold_state(SessionReader([p], price=False)))
    assert r.save_cache()


def test_the_writer_process_is_not_used_for_a_private_database_or_when_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.session.store.writer_proc import MIN_BYTES, usable

    monkeypatch.setenv("TRACETUI_STORE_PROCESS", "always")
    assert not usable(sqlite3.connect(""), 1 << 30)
    db = sqlite3.connect(tmp_path / "x.sqlite")
    assert usable(db, 0)
    monkeypatch.setenv("TRACETUI_STORE_PROCESS", "0")
    assert not usable(db, 1 << 30)
    monkeypatch.setenv("TRACETUI_STORE_PROCESS", "")
    monkeypatch.setattr(derive_proc, "_spare_cpu", lambda: True)
    assert usable(db, MIN_BYTES) and not usable(db, MIN_BYTES - 1)  # a short read: the thread writes
    monkeypatch.setattr(derive_proc, "_spare_cpu", lambda: False)
    assert not usable(db, 1 << 30)  # no CPU to spare: two processes would take turns


def test_a_script_without_a_main_guard_saves_through_the_writer_process(tmp_path: Path) -> None:
    # the child is a fresh interpreter that runs only the writer: not this script again
    import json
    import os
    import subprocess
    import sys

    p = _session(tmp_path, n=300)
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from tracetui.session.store import open_cached\n"
        "r = open_cached([Path(sys.argv[1])], price=False)\n"
        "r.poll(); r.snapshot()\n"
        "kind = type(r.store._writer).__name__\n"
        "print(json.dumps([kind, r.save_cache(), r.store.broken]))\n"
    )
    env = dict(os.environ, TRACETUI_CACHE_DIR=str(tmp_path / "c"), TRACETUI_STORE_PROCESS="always")
    out = subprocess.run([sys.executable, "-c", script, str(p)], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["ProcessWriter", True, None]
    assert out.stdout.count("ProcessWriter") == 1


def test_the_writer_process_imports_the_writer_not_the_folds(tmp_path: Path) -> None:
    """The writer's interpreter (started at a first open, inside its time) imports the modules
    that make the rows and the first job a first open gives it, not the store's reader, the
    folds behind it or the derive rules (the package's names are read lazily,
    store/__init__.py)."""
    import subprocess
    import sys

    from tracetui.session.store.writer_proc import _name_of

    path = write(tmp_path / "s.jsonl", [prompt("go")])
    store = open_cached([path]).store
    first = _name_of(store._before)  # what a cold open's writer process imports and runs first
    assert first is not None
    mod, name = first.split(":")
    code = (
        "import sys\n"
        "from importlib import import_module\n"
        "from tracetui.session.store.writer_proc import main\n"
        f"getattr(import_module({mod!r}), {name!r})\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('tracetui.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]).stdout
    loaded = set(out.split())
    assert "tracetui.session.store.event_rows" in loaded
    assert not loaded & {
        "tracetui.session.store.reader",
        "tracetui.session.store.opening",
        "tracetui.model.fold",
        "tracetui.model.codex_fold",
        "tracetui.model.derive",
        "tracetui.session.reader",
    }


def test_the_store_package_names_are_read_lazily_and_others_refused() -> None:
    import tracetui.session.store as store
    from tracetui.session.store import db, opening

    assert store.open_cached is opening.open_cached and store.cache_dir is db.cache_dir
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = store.nothing  # type: ignore[attr-defined]
