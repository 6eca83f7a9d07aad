"""The session store as the fold cache (issue 9 §1): resume equals one full fold; invalidation;
the codec; CLI use. Concurrency and damage to the database: test_store_db.py."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from fixtures import (
    append,
    assistant,
    compact_boundary,
    envelope,
    jsonl,
    progress,
    prompt,
    system,
    text_block,
    tool_call,
    tool_result,
    usage,
    write,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tracetui.session.store.codec as codec
import tracetui.session.store.opening as store_opening
from tracetui.cli import main
from tracetui.model.fold import FileFold
from tracetui.model.usage import UsageBook
from tracetui.model.usage_old import OldUsage
from tracetui.session.reader import SessionReader
from tracetui.session.store import FP_BYTES, SCHEMA, StoreReader, cache_path, open_cached
from tracetui.session.store.codec import CacheEncodeError, decode_object, decode_value, encode_object, encode_value
from tracetui.session.store.episodes import EpisodeSeq, StoreEpisodes
from tracetui.views.state_json import state_to_json


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(d))
    return d


# -- a strict deep comparison: same types, same values, same attributes --------------------


def assert_same(a: Any, b: Any, where: str = "") -> None:
    # a stored book's episode versions and a snapshot's episodes are read from the database, an
    # in-memory fold's are a list and a tuple: the same items
    a, b = (list(x) if isinstance(x, StoreEpisodes) else tuple(x) if isinstance(x, EpisodeSeq) else x for x in (a, b))
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, msgspec.Struct):
        for f in a.__struct_fields__:
            assert_same(getattr(a, f), getattr(b, f), f"{where}.{f}")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys (or their order) differ"
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, (set, frozenset, str, bytes, int, float, bool, type(None))):
        assert a == b, f"{where}: {a!r} != {b!r}"
    elif callable(a) and not hasattr(a, "__dict__"):
        pass  # callbacks (on_usage) are re-attached, not saved
    elif isinstance(a, OldUsage):
        # by what it saves: its filter of ids put is of this process only (hash() of a str), a
        # speed-up that answers nothing
        assert_same(a.to_cache(), b.to_cache(), f"{where}<OldUsage>")
    else:
        assert_same(codec._attrs_of(a), codec._attrs_of(b), f"{where}<{type(a).__name__}>")


@contextlib.contextmanager
def write_locked(db: Path) -> Iterator[None]:
    """Another process's ``BEGIN IMMEDIATE`` on database ``db`` held while the block runs (a
    locked store: its writes fail)."""
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


def fold_state(reader: SessionReader):
    reader.poll()
    return reader.snapshot()


def assert_same_state(s1, s2) -> None:
    assert state_to_json(s1) == state_to_json(s2)
    # a stored ledger or history is a view of the database, an in-memory one a list: the same items
    assert_same([list(x) for x in s1.ledgers], [list(x) for x in s2.ledgers], "ledgers")
    assert_same(list(s1.history), list(s2.history), "history")
    assert_same(s1.main, s2.main, "main")
    assert_same(s1.agents, s2.agents, "agents")
    assert_same(s1.sources, s2.sources, "sources")


def assert_same_folds(r1: SessionReader, r2: SessionReader) -> None:
    assert len(r1.fold.folds) == len(r2.fold.folds)
    for i, (f1, f2) in enumerate(zip(r1.fold.folds, r2.fold.folds)):
        a, b = f1.to_cache(), f2.to_cache()
        # a fold restored from the store keeps its pending calls only: the closed ones are the
        # ledger's rows (store/calls.py open_calls_only), found again when asked for
        for f, mine, other in ((f1, a["calls"], b["calls"]), (f2, b["calls"], a["calls"])):
            for tid, call in other.items():
                if tid not in mine:
                    assert getattr(f.events, "find_call", None) is not None, f"fold[{i}]: call {tid} missing"
                    assert tid not in f.pending, f"fold[{i}]: pending call {tid} not kept"
                    found = f.events.find_call(tid, call.seq + 1)
                    assert found is not None and found.id == tid and found.seq == call.seq, f"fold[{i}]: closed call {tid} not found"
        both = set(a["calls"]) & set(b["calls"])
        a["calls"] = {t: c for t, c in a["calls"].items() if t in both}
        b["calls"] = {t: c for t, c in b["calls"].items() if t in both}
        assert_same(a, b, f"fold[{i}]")
    assert_same(r1.fold.usage, r2.fold.usage, "session usage")


# -- record scripts for the property ---------------------------------------------------------


class Script:
    """Builds a plausible transcript step by step: results answer earlier calls."""

    def __init__(self) -> None:
        self.n = 0
        self.pending: list[tuple[str, str]] = []
        self.out: list[Any] = []

    def step(self, kind: str) -> None:
        self.n += 1
        n = self.n
        ts = f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        if kind == "prompt":
            self.out.append(prompt(f"do task {n}", ts=ts))
        elif kind == "call":
            name = ["Bash", "Read", "Edit", "Write", "TodoWrite", "Task", "Grep"][n % 7]
            inp: dict[str, Any] = {"command": f"echo {n}"}
            if name in ("Read", "Edit", "Write"):
                inp = {"file_path": f"/src/f{n % 3}.py", "old_string": "a", "new_string": "b"}
            elif name == "TodoWrite":
                inp = {"todos": [{"id": "1", "content": f"step {n}", "status": "in_progress"}]}
            elif name == "Task":
                inp = {"description": f"sub {n}", "prompt": "look", "subagent_type": "Explore"}
            self.out.append(tool_call(f"t{n}", name, inp, ts=ts))
            self.pending.append((f"t{n}", name))
        elif kind in ("result", "error") and self.pending:
            tid, name = self.pending.pop(0)
            res = {"status": "completed", "agentId": f"a{n}"} if name == "Task" else None
            self.out.append(tool_result(tid, f"out {n}", is_error=kind == "error" or None, result=res, ts=ts))
        elif kind == "text":
            self.out.append(assistant([text_block(f"thinking about {n}")], msg_id=f"m{n}", u=usage(n, 2 * n, 10, 100), ts=ts))
        elif kind == "multi":  # one API message in several records, usage growing
            for k in range(3):
                self.out.append(assistant([text_block(f"part {k}")], msg_id=f"mm{n}", u=usage(5, k + 1, 0, 7), ts=ts))
        elif kind == "compact":
            self.out.append(compact_boundary(1000 + n, ts=ts))
        elif kind == "interrupt":
            self.out.append(prompt("[Request interrupted by user]", ts=ts))
        elif kind == "progress":
            self.out.append(
                progress({"type": "agent_progress", "agentId": f"p{n}"}, parent_tool=self.pending[0][0] if self.pending else None, ts=ts)
            )
        elif kind == "system":
            self.out.append(system("api_error", content="overloaded", ts=ts))
        elif kind == "malformed":
            self.out.append(b"{not json " + str(n).encode())
        elif kind == "unknown":
            self.out.append(envelope("brand-new-type", ts=ts))
        elif kind == "blank":
            self.out.append(b"")
        elif kind == "title":
            self.out.append({"type": "ai-title", "aiTitle": f"title {n}", "sessionId": "s"})


KINDS = [
    "prompt",
    "call",
    "result",
    "error",
    "text",
    "multi",
    "compact",
    "interrupt",
    "progress",
    "system",
    "malformed",
    "unknown",
    "blank",
    "title",
]


def script_bytes(kinds: list[str], final_newline: bool = True) -> bytes:
    s = Script()
    s.step("prompt")
    for k in kinds:
        s.step(k)
    return jsonl(s.out, final_newline)


def resume_in_parts(path: Path, data: bytes, cuts: list[int], subagents: bool = False) -> StoreReader:
    """Write ``data`` in parts; after each part open from the store, fold, save."""
    path.write_bytes(b"")
    prev = 0
    reader = None
    for c in [*sorted(set(cuts)), len(data)]:
        append(path, data[prev:c])
        prev = c
        if path.stat().st_size == 0:
            continue
        reader = open_cached([path], subagents=subagents, price=False)
        reader.poll()
        reader.save_cache()
    assert reader is not None
    return reader


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=40),
    fracs=st.lists(st.floats(0, 1), min_size=1, max_size=3),
    final_newline=st.booleans(),
)
def test_resume_from_cache_equals_one_full_fold(tmp_path: Path, kinds: list[str], fracs: list[float], final_newline: bool) -> None:
    data = script_bytes(kinds, final_newline)
    path = tmp_path / "prop" / "s.jsonl"
    path.parent.mkdir(exist_ok=True)
    cache_path([path], False).unlink(missing_ok=True)
    cuts = [int(f * len(data)) for f in fracs]  # any byte: mid-line cuts included
    resumed = resume_in_parts(path, data, cuts)
    full = SessionReader([path], subagents=False, price=False)
    s_full = fold_state(full)
    s_res = resumed.snapshot()
    assert_same_state(s_res, s_full)
    assert_same_folds(resumed, full)
    # the tailer resumes exactly where a full read ends
    assert [(t.offset, t.line_no) for t in resumed.tailers] == [(t.offset, t.line_no) for t in full.tailers]


def test_warm_open_reads_nothing_new_and_matches(tmp_path: Path) -> None:
    p = write(tmp_path / "s.jsonl", [prompt("goal"), tool_call("t1", "Bash", {"command": "ls"}), tool_result("t1", "x")])
    r = open_cached([p], price=False)
    assert r.cache_status == "cold"
    s1 = fold_state(r)
    assert r.save_cache() is True
    assert r.save_cache() is False  # nothing new since the save
    r2 = open_cached([p], price=False)
    assert r2.cache_status == "warm"
    assert r2.tailers[0].offset == p.stat().st_size  # resumes at the end: nothing to re-read
    assert r2.poll() is False
    assert_same_state(r2.snapshot(), s1)
    assert r2.save_cache() is False


def test_a_warm_open_reads_the_ledger_and_history_from_the_store(tmp_path: Path) -> None:
    p = write(tmp_path / "s.jsonl", [prompt("one"), tool_call("t1", "Bash", {"command": "ls"}), tool_result("t1", "x"), prompt("two")])
    r = open_cached([p], price=False)
    ref = fold_state(r)
    r.save_cache()
    append(p, jsonl([tool_call("t2", "Read", {"file_path": "/a"}), prompt("three")]))
    for lazy in (False, True):  # ``lazy`` (the hook's) is accepted; nothing is read until asked for
        w = open_cached([p], price=False, lazy=lazy)
        assert w.cache_status == "warm"
        s = fold_state(w)
        s_full = fold_state(SessionReader([p], price=False))
        assert len(s.ledgers[0]) == len(s_full.ledgers[0]) > len(ref.ledgers[0])
        assert_same_state(s, s_full)
        # the events saved before and those folded since read as one ledger, by index or slice
        assert s.ledgers[0][-1] == s_full.ledgers[0][-1] and s.ledgers[0][1:4] == s_full.ledgers[0][1:4]
        assert s.events(0) == s_full.events(0) and len(s.history) == 2


def _folded(p: Path) -> SessionReader:
    r = SessionReader([p], price=False)
    r.poll()
    r.snapshot()  # a snapshot settles derive's pending work, as the reader under test had
    return r


def test_resume_with_subagent_files(tmp_path: Path) -> None:
    main_p = write(
        tmp_path / "sess.jsonl",
        [prompt("main goal", session="sess"), tool_call("tA", "Task", {"description": "sub", "prompt": "w"}, session="sess")],
    )
    sub_dir = tmp_path / "sess" / "subagents"
    write(sub_dir / "agent-bbb.jsonl", [prompt("sub work", sidechain=True, agentId="bbb", session="sess")])
    r = open_cached([main_p], price=False)
    fold_state(r)
    r.save_cache()
    # both files grow; a new subagent file appears that sorts after the known one
    append(main_p, jsonl([tool_result("tA", "done", result={"status": "completed", "agentId": "bbb"}, session="sess")]))
    append(
        sub_dir / "agent-bbb.jsonl",
        jsonl([assistant([text_block("sub says")], msg_id="ms", u=usage(3, 4), sidechain=True, agentId="bbb", session="sess")]),
    )
    write(sub_dir / "agent-ccc.jsonl", [prompt("more", sidechain=True, agentId="ccc", session="sess")])
    r2 = open_cached([main_p], price=False)
    assert r2.cache_status == "warm"
    s2 = fold_state(r2)
    fresh = SessionReader([main_p], price=False)
    assert_same_state(s2, fold_state(fresh))
    assert_same_folds(r2, fresh)
    r2.save_cache()
    # a new subagent file that sorts before a known one would change source indices: refold
    write(sub_dir / "agent-aaa.jsonl", [prompt("early", sidechain=True, agentId="aaa", session="sess")])
    r3 = open_cached([main_p], price=False)
    assert r3.cache_status == "invalid: subagent files changed"
    assert_same_state(fold_state(r3), fold_state(SessionReader([main_p], price=False)))


def test_cost_memo_is_saved_with_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path / "s.jsonl", [prompt("goal"), assistant([text_block("a")], msg_id="m1", u=usage(1000, 100))])
    r = open_cached([p])
    s1 = fold_state(r)
    ref = fold_state(SessionReader([p]))
    assert (s1.cost_usd, s1.cost_note) == (ref.cost_usd, ref.cost_note)
    r.save_cache()
    import tracetui.model.pricing as pricing

    def boom(*a: Any, **k: Any) -> Any:
        raise AssertionError("priced again although tokens did not change")

    monkeypatch.setattr(pricing, "estimate_cost", boom)
    r2 = open_cached([p])
    assert r2.cache_status == "warm"
    s2 = fold_state(r2)
    assert (s2.cost_usd, s2.cost_note) == (ref.cost_usd, ref.cost_note)


# -- invalidation ---------------------------------------------------------------------------


def _saved(tmp_path: Path, n: int = 6) -> Path:
    s = Script()
    s.step("prompt")
    for k in ["call", "result", "text", "call", "error", "prompt"][:n]:
        s.step(k)
    p = write(tmp_path / "s.jsonl", s.out)
    r = open_cached([p], price=False)
    fold_state(r)
    assert r.save_cache()
    return p


def _check_refolds(p: Path, why: str) -> None:
    r = open_cached([p], price=False)
    assert r.cache_status.startswith("invalid"), r.cache_status
    assert why in r.cache_status
    s = fold_state(r)
    assert all(st.truncated == 0 and st.replaced == 0 for st in s.sources)  # a fresh fold, no reset
    assert_same_state(s, fold_state(SessionReader([p], price=False)))


def test_invalid_when_truncated(tmp_path: Path) -> None:
    p = _saved(tmp_path)
    data = p.read_bytes()
    with open(p, "r+b") as f:
        f.truncate(len(data) // 2)
    _check_refolds(p, "truncated")


def test_invalid_when_rewritten_in_place(tmp_path: Path) -> None:
    p = _saved(tmp_path)
    data = p.read_bytes()
    # same inode, same size or more, other bytes: the fingerprint catches it
    with open(p, "r+b") as f:
        f.seek(len(data) - 40)
        f.write(b"X" * 20)
    _check_refolds(p, "rewritten")


def test_invalid_when_rewritten_in_place_beyond_the_fingerprints(tmp_path: Path) -> None:
    # an edit of the same size in the middle of a long file (outside both fingerprinted 4 KB
    # windows) used to resume from the cache with the old figures
    recs = [prompt("go")]
    for i in range(120):
        recs += [tool_call(f"t{i}", "Bash", {"command": f"echo {i}"}), tool_result(f"t{i}", "ok " * 20)]
    p = write(tmp_path / "s.jsonl", recs)
    r = open_cached([p], price=False)
    fold_state(r)
    assert r.save_cache()
    data = p.read_bytes()
    at = data.index(b'"name":"Bash"', len(data) // 2)
    assert FP_BYTES < at < len(data) - 2 * FP_BYTES
    before = os.stat(p).st_mtime_ns
    with open(p, "r+b") as f:
        f.seek(at)
        f.write(b'"name":"Bosh"')
    os.utime(p, ns=(before + 10**9, before + 10**9))  # the edit's own mtime (coarse clocks: not left to chance)
    _check_refolds(p, "rewritten in place")
    assert fold_state(SessionReader([p], price=False)).tools_by_name.get("Bosh") == 1


def test_a_reset_seen_by_the_saving_run_is_not_replayed_from_the_cache(tmp_path: Path) -> None:
    # the run that saw a truncation said so; a later run resuming from the cache must say what a
    # fresh fold of the same bytes says (nothing), not replay that news at every start
    p = _saved(tmp_path)
    r = open_cached([p], price=False)
    fold_state(r)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2].rsplit(b"\n", 2)[0] + b"\n")
    r.poll()
    assert r.snapshot().sources[0].truncated == 1
    assert r.save_cache()
    again = open_cached([p], price=False)
    assert again.cache_status == "warm", again.cache_status
    s = fold_state(again)
    assert s.sources[0].truncated == 0 and s.sources[0].resets == ()
    assert_same_state(s, fold_state(SessionReader([p], price=False)))


def test_invalid_when_replaced(tmp_path: Path) -> None:
    p = _saved(tmp_path)
    data = p.read_bytes()
    tmp = tmp_path / "new.jsonl"
    tmp.write_bytes(data + jsonl([prompt("more")]))
    os.replace(tmp, p)  # another inode at the same path
    _check_refolds(p, "replaced")


def test_invalid_on_version_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _saved(tmp_path)
    monkeypatch.setattr(store_opening, "__version__", "999.0")
    _check_refolds(p, "written by tracetui")


def test_invalid_when_the_fold_code_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _saved(tmp_path)
    monkeypatch.setattr(store_opening, "code_fingerprint", lambda: "other code")
    _check_refolds(p, "other fold code")


def test_invalid_on_schema_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _saved(tmp_path)
    monkeypatch.setattr(store_opening, "SCHEMA", SCHEMA + 1)
    _check_refolds(p, "schema")


def test_cache_naming_a_foreign_class_is_refused(tmp_path: Path) -> None:
    raw = encode_object(UsageBook())
    with pytest.raises(ValueError):
        decode_value(("obj", "os:system"), raw)


def test_missing_attribute_in_cache_refolds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _saved(tmp_path)
    # this version's FileFold has an attribute the saved one did not
    orig = FileFold.__init__

    def init(self: FileFold, *a: Any, **k: Any) -> None:
        orig(self, *a, **k)
        self.new_attr = 0

    monkeypatch.setattr(FileFold, "__init__", init)
    _check_refolds(p, "attributes differ")


# -- the codec: every attribute, loudly -----------------------------------------------------


def test_to_cache_covers_every_attribute_but_callbacks_and_memos() -> None:
    f = FileFold(3, "agent", on_usage=lambda *a: None)
    assert set(f.to_cache()) == set(vars(f)) - set(FileFold.CACHE_SKIP)
    assert "on_usage" in FileFold.CACHE_SKIP


def test_file_fold_round_trip_is_exact(tmp_path: Path) -> None:
    data = script_bytes(KINDS * 3 + ["call", "error", "call", "call"])
    r = SessionReader([write(tmp_path / "s.jsonl", [])], subagents=False, price=False)
    (tmp_path / "s.jsonl").write_bytes(data)
    r.poll()
    f = r.fold.folds[0]
    assert f.pending and f.calls and f.history and f._tool_error_ids  # the script covers these
    g = decode_object(FileFold, encode_object(f))
    assert_same(f.to_cache(), g.to_cache(), "fold")
    # a call both pending and in ``calls`` is one object after the round trip, as before
    for tid, call in g.pending.items():
        assert g.calls[tid] is call


def test_unencodable_attribute_fails_loudly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = FileFold()
    f.gadget = object()  # someone adds an attribute the cache cannot hold
    with pytest.raises(CacheEncodeError, match="gadget"):
        encode_object(f, "FileFold")
    f2 = FileFold()
    f2.hook = print  # a callback that is not in CACHE_SKIP
    with pytest.raises(CacheEncodeError, match="hook"):
        encode_object(f2, "FileFold")
    # through the reader: no entry written, one line on stderr
    p = write(tmp_path / "s.jsonl", [prompt("goal")])
    r = open_cached([p], price=False)
    r.poll()
    r.fold.folds[0].gadget = object()
    assert r.save_cache() is False
    err = capsys.readouterr().err
    assert "gadget" in err and err.count("\n") == 1
    assert open_cached([p], price=False).cache_status == "cold"  # nothing saved


class _Derived:
    """A stand-in for derive state: nested containers, structs, sets, a tuple-keyed dict."""

    def __init__(self) -> None:
        self.episodes: list[dict[str, Any]] = []
        self.seen: set[tuple[int, int]] = set()
        self.by_pair: dict[tuple[str, int], list[float]] = {}
        self.last: Any = None


def test_plain_objects_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_Derived, "__module__", "tracetui.test_stub")
    orig = codec._resolve
    monkeypatch.setattr(codec, "_resolve", lambda path: _Derived if path.endswith("_Derived") else orig(path))
    d = _Derived()
    d.episodes = [{"n": 1, "anchors": (1, 2)}, {"n": 2, "anchors": (3, 4)}]
    d.seen = {(1, 2), (3, 4)}
    d.by_pair = {("a", 1): [1.5, 2.0]}
    d.last = msgspec.structs.replace(UsageBook().tokens())
    desc, raw = encode_value(d, "derive")
    back = decode_value(desc, raw)
    assert_same(back, d)


def test_objects_with_their_own_to_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    class Own:
        def __init__(self, x: int = 0) -> None:
            self.x = x
            self.cb: Callable[[], None] = lambda: None

        def to_cache(self) -> dict[str, int]:
            return {"x": self.x}

        @classmethod
        def from_cache(cls, d: dict[str, int]) -> "Own":
            return cls(d["x"])

    monkeypatch.setattr(Own, "__module__", "tracetui.test_stub")
    monkeypatch.setattr(codec, "_resolve", lambda path: Own)
    back = decode_value(*encode_value(Own(7)))
    assert isinstance(back, Own) and back.x == 7


# -- the CLI ----------------------------------------------------------------------------------


def test_state_uses_the_cache_and_no_cache_bypasses_it(tmp_path: Path, capsys: pytest.CaptureFixture[str], _cache_dir: Path) -> None:
    p = write(tmp_path / "s.jsonl", [prompt("goal"), tool_call("t1", "Bash", {"command": "ls"})])
    assert main(["state", "--json", "--no-cache", str(p)]) == 0
    out0 = capsys.readouterr().out
    assert not cache_path([p]).exists()
    assert main(["state", "--json", str(p)]) == 0
    out1 = capsys.readouterr().out
    assert cache_path([p]).exists()
    append(p, jsonl([tool_result("t1", "x")]))
    assert main(["state", "--json", str(p)]) == 0  # warm: resumes, reads the new line only
    out2 = capsys.readouterr().out
    assert main(["state", "--json", "--no-cache", str(p)]) == 0
    out3 = capsys.readouterr().out
    assert out0 == out1 and out2 == out3 and out1 != out2


def test_unwritable_cache_dir_costs_one_stderr_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(blocker))
    p = write(tmp_path / "s.jsonl", [prompt("goal")])
    assert main(["state", "--json", str(p)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["goal"]["text"] == "goal"
    # the cache folder's note, the same from every command (session/store/cache_note.py), not the store's
    assert err == f"tracetui: note: the cache folder cannot be used ({blocker}: not a folder); this run works without it" + (
        " (each transcript folded from the start, nothing kept for the next run)\n"
    )
    # many sessions, one cause: said once a process, naming the folder (seventh user trial: one
    # line a session, each naming a hashed database file)
    import tracetui.session.store.cache_note as cache_note
    import tracetui.session.store.reader as store_reader

    monkeypatch.setattr(store_reader, "_SAID", set())
    monkeypatch.setattr(cache_note, "_SAID", set())
    q = write(tmp_path / "t.jsonl", [prompt("other goal")])
    assert main(["state", "--json", str(p)]) == 0 and main(["state", "--json", str(q)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{blocker}: not a folder" in err and ".sqlite" not in err
    # the store's own line when the folder is fine but its store folder is not
    monkeypatch.setattr(store_reader, "_SAID", set())
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "store").write_text("a file where the store should be")
    assert main(["state", "--json", str(q)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("tracetui: fold cache not saved:") and err.count("\n") == 1


# -- a resumed fold pairs and saves as a full one (the former lazy open's cases) --------------


def _saved_calls(tmp_path: Path) -> Path:
    p = write(
        tmp_path / "calls.jsonl",
        [
            prompt("goal"),
            tool_call("t1", "Bash", {"command": "ls"}),
            tool_result("t1", "x"),
            tool_call("t2", "Read", {"file_path": "/a"}),
            tool_call("t3", "TodoWrite", {"todos": [{"content": "a", "status": "pending"}]}),
        ],
    )
    r = open_cached([p], price=False)
    fold_state(r)
    assert r.save_cache()
    return p


def test_a_warm_open_with_nothing_new_saves_nothing(tmp_path: Path) -> None:
    p = _saved_calls(tmp_path)
    w = open_cached([p], price=False, lazy=True)
    s = fold_state(w)
    assert [c.id for c in s.pending] == ["t2", "t3"]
    assert w.save_cache() is False  # nothing read since: no save
    # the pending calls only: the closed one is the ledger's row, found there when asked for
    assert set(w.fold.folds[0].calls) == {"t2", "t3"}
    t1 = w.fold.folds[0].events.find_call("t1", 10**9)
    assert t1 is not None and t1.name == "Bash" and t1.id == "t1"
    assert_same_state(w.snapshot(), fold_state(SessionReader([p], price=False)))
    assert_same_folds(w, _folded(p))


def test_a_result_for_a_saved_call_pairs_as_in_a_full_fold(tmp_path: Path) -> None:
    p = _saved_calls(tmp_path)
    append(p, jsonl([tool_result("t2", "contents"), tool_result("t3", "ok"), prompt("next")]))
    w = open_cached([p], price=False, lazy=True)
    s = fold_state(w)
    assert [c.id for c in s.pending] == []
    assert_same_state(w.snapshot(), fold_state(SessionReader([p], price=False)))
    assert_same_folds(w, _folded(p))
    assert w.save_cache()
    again = open_cached([p], price=False)
    assert again.cache_status == "warm"
    assert_same_folds(again, _folded(p))
