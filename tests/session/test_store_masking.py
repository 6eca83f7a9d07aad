"""What the store writes keeps no secret (issue 9): a large value is masked item by item, and
gives what masking it whole gives; a string met again is masked from the memo, as the first time."""

from __future__ import annotations

import msgspec
import pytest

from tracetui.session.store import masking

AWS = "AKIAQ3EGRTYU7VWXZ2AB"
VALUE = {
    "calls": {f"toolu_{i}": {"brief": f"Bash(echo {i})", "tokens": i} for i in range(50)} | {"toolu_x": {"brief": f"export K={AWS}"}},
    f"token {AWS}": [1, 2, f"key={AWS}"],
    (1, 2): ["plain", "tokens", ["nested", f"secret {AWS}\u2026"]],
}


def test_a_large_value_is_masked_item_by_item_as_it_is_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = msgspec.msgpack.encode(VALUE)
    whole = msgspec.msgpack.decode(masking.masked(raw))
    monkeypatch.setattr(masking, "SPLIT_BYTES", 16)
    split = masking.masked(raw)
    assert msgspec.msgpack.decode(split) == whole
    assert AWS not in split.decode("latin-1") and AWS[4:-4] not in split.decode("latin-1")
    plain = msgspec.msgpack.encode({"a": ["tokens"] * 40, "b": list(range(40))})
    assert masking.masked(plain) is plain  # nothing to mask: the same bytes


def test_the_memo_gives_what_the_detectors_give() -> None:
    texts = [f"export K={AWS}", "the tokens of a model", f"{AWS[:12]}\u2026", "plain"]
    first = [masking.mask_text(t) for t in texts]
    again = [masking.mask_text(str(t)) for t in texts]  # equal strings, met again
    assert first == again
    assert first[1] is texts[1] and first[3] is texts[3] and AWS not in first[0] and AWS[:12] not in first[2]


def test_bytes_are_kept_as_they_are_and_not_copied_to_be_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    blob = b"key=" + AWS.encode() + bytes(range(256)) * 64  # packed arrays, a digest: no text
    raw = msgspec.msgpack.encode([b"x" * 10, {"parts": [blob, f"key={AWS}"]}])
    monkeypatch.setattr(masking, "SPLIT_BYTES", 16)
    out = msgspec.msgpack.decode(masking.masked(raw))
    assert out[1]["parts"][0] == blob and AWS not in out[1]["parts"][1]
    assert masking.masked(msgspec.msgpack.encode(blob)) == msgspec.msgpack.encode(blob)


def test_a_tool_name_holding_a_secret_is_stored_masked(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    # tool names are chosen by the user (an MCP server's name): the events table keeps them
    # masked like the excerpts, so no file of the store holds the key
    from fixtures import prompt, tool_call, tool_result, write

    from tracetui.session.store import open_cached

    cache = tmp_path / "cache"
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(cache))
    name = f"mcp__{AWS}__deploy"
    path = write(tmp_path / "s.jsonl", [prompt("deploy it"), tool_call("toolu_1", name, {"env": "prod"}), tool_result("toolu_1", "done")])
    r = open_cached([path], price=False)
    r.poll()
    st = r.snapshot()
    assert st.counters.tool_calls == 1
    r.save_cache()
    r.store.close()
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert files
    for p in files:
        data = p.read_bytes()
        assert AWS.encode() not in data and AWS[4:-4].encode() not in data, p


def test_a_huge_text_met_again_in_a_save_is_masked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """One huge prompt is the goal, a prompt and an ask of the same save: the detectors read it
    once, and each copy is masked alike."""
    big = "deploy " + f"with {AWS} now " * 20_000
    calls: list[int] = []
    real = masking.redact

    def counted(text: str, cut: bool = False) -> tuple[str, tuple[str, ...]]:
        calls.append(len(text))
        return real(text, cut)

    monkeypatch.setattr(masking, "redact", counted)
    outs = [masking.mask_text("".join(list(big))) for _ in range(3)]  # equal strings, not the same object
    assert outs[0] == outs[1] == outs[2] and AWS not in outs[0]
    assert calls.count(len(big)) == 1, calls


def test_a_secret_found_once_is_stored_masked_where_it_comes_again(tmp_path) -> None:
    # a key and a password given in the goal with what tells them, then alone in results folded
    # by a later run of the store (eighth user trial): no file of the store holds them
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent.parent))
    from trial_secrets import RECURRING, recurring_session

    from tracetui.session.open import load_state, save_store
    from tracetui.session.store.db import cache_dir

    projects = tmp_path / "projects"
    save_store(load_state([recurring_session(projects, later=False)])[0])
    reader, _ = load_state([recurring_session(projects)])
    assert reader.save_cache()
    data = b"".join(p.read_bytes() for p in sorted((cache_dir() / "store").glob("*")) if p.is_file())
    assert data and [s for s in RECURRING if s.encode() in data or s[:12].encode() in data] == []


def test_a_subagent_files_state_saved_in_one_compressed_row_keeps_no_secret(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the small folds of subagent files are one zlib row each (codec.fold_rows): compressed,
    # a secret would not show in the file's bytes, so the rows are read as the store reads them
    import sqlite3
    import zlib

    from fixtures import assistant, prompt, text_block, tool_call, tool_result, usage, write

    from tracetui.session.store import cache_path, open_cached
    from tracetui.session.store.codec import PACKED

    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    sid = "5e55a0c1-0000-4000-8000-0000000000aa"
    main = write(tmp_path / f"{sid}.jsonl", [prompt("fan out", session=sid), tool_call("toolu_t", "Task", {"prompt": "go"}, session=sid)])
    sub = tmp_path / sid / "subagents" / "agent-a1.jsonl"
    kw = {"sidechain": True, "agentId": "a1", "session": sid}
    write(
        sub,
        [
            prompt(f"deploy with key={AWS} now", **kw),
            tool_call("toolu_s", "Bash", {"command": f"export AWS_ACCESS_KEY_ID={AWS}"}, **kw),
            tool_result("toolu_s", "ok", **kw),
            assistant([text_block(f"used {AWS}")], msg_id="msg_s", u=usage(1, 2), **kw),
        ],
    )
    r = open_cached([main], price=False)
    r.poll()
    r.snapshot()
    assert r.save_cache()
    r.store.close()
    c = sqlite3.connect(cache_path([main]))
    rows = c.execute("SELECT owner, name, raw FROM fold").fetchall()
    c.close()
    packed = [zlib.decompress(raw) for owner, name, raw in rows if name == PACKED]
    assert [owner for owner, name, _raw in rows if name == PACKED] == [1]
    text = b"".join(packed).decode("latin-1")
    assert "«redacted: " in text and AWS not in text and AWS[4:-4] not in text
    w = open_cached([main], price=False)
    assert w.cache_status == "warm"
    w.poll()
    assert AWS not in repr(w.snapshot().agents[0])
