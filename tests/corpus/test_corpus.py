"""Walk the corpus (``$TRACETUI_CORPUS``, else ``../shared/corpus``; see conftest.py): every file folds, and its figures agree with an independent recount.

The recount below uses only the standard library (``json``, ``re``) and shares no code with
tracetui: it re-states issue 2's rules on its own. Where the fold documents a choice the issue
leaves open, the recount re-states that choice here, with its source:

* ``<synthetic>`` model records are not API messages and carry no tokens (fold.py
  ``SYNTHETIC_MODEL``; transcript-format.md §7 "Skip <synthetic> records");
* the known record types are the list in decode.py ``KNOWN_RECORD_TYPES`` (re-stated literally);
* a user record with several text blocks is one prompt whose text is the blocks joined by ``\\n``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from tracetui.session.reader import SessionReader
from tracetui.views.state_json import state_to_json

KNOWN_TYPES = {
    "user",
    "assistant",
    "system",
    "progress",
    "attachment",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "agent-name",
    "ai-title",
    "last-prompt",
    "mode",
    "permission-mode",
    "pr-link",
    "bridge-session",
}
WRAPPERS = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "<system-reminder>",
    "Caveat: The messages below",
)
FILE_OPS = {"Read": "reads", "Write": "writes", "Edit": "edits", "MultiEdit": "edits", "NotebookEdit": "edits"}


def _objects(data: bytes) -> tuple[list[tuple[int, dict]], int]:
    """Every JSON object of a file with its 1-based line number, and the count of malformed parts."""
    out: list[tuple[int, dict]] = []
    bad = 0
    dec = json.JSONDecoder()
    for n, raw in enumerate(data.split(b"\n"), 1):
        text = raw.decode("utf-8", "replace").rstrip("\r")
        pos = 0
        while True:
            while pos < len(text) and text[pos] in " \t\r":
                pos += 1
            if pos >= len(text):
                break
            try:
                obj, pos = dec.raw_decode(text, pos)
            except ValueError:
                bad += 1
                break
            if isinstance(obj, dict):
                out.append((n, obj))
            else:
                bad += 1
    return out, bad


def _user_text(rec: dict) -> str | None:
    """The text of a user record that may be a prompt, else None (issue 2 §5)."""
    if rec.get("isMeta") is True or rec.get("isCompactSummary") is True:
        return None
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        blocks = [b for b in content if isinstance(b, dict)]
        if any(b.get("type") == "tool_result" for b in blocks):
            return None
        texts = [b.get("text") for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
        return "\n".join(texts) if texts else None
    return None


def _prompt_form(text: str) -> str:
    s = text.lstrip()
    m = re.search(r"<command-name>(.*?)</command-name>", s, re.S)
    if m:
        name = m.group(1).strip()
        a = re.search(r"<command-args>(.*?)</command-args>", s, re.S)
        name = name if name.startswith("/") else "/" + name
        return f"{name} {a.group(1).strip() if a else ''}".rstrip()
    if s.startswith("<bash-input>"):
        m = re.search(r"<bash-input>(.*?)</bash-input>", s, re.S)
        if m:
            return f"! {m.group(1).strip()}"
    return text


def recount(data: bytes) -> dict[str, Any]:
    """Issue 2's figures for one file, counted from scratch."""
    objs, malformed = _objects(data)
    c = dict(
        records=len(objs),
        malformed=malformed,
        unknown_records=0,
        tool_calls=0,
        tool_errors=0,
        api_messages=0,
        user_prompts=0,
        interrupts=0,
        compactions=0,
    )
    by_name: dict[str, int] = {}
    usage: dict[str, list[int]] = {}
    models: set[str] = set()
    calls: dict[str, str] = {}
    idless = 0
    answered: set[str] = set()  # tool_use ids with a tool_result anywhere in the file: Claude Code
    # 2.1.x sometimes writes a result's line before its call's, and such a call is not pending
    files: dict[str, dict[str, int]] = {}
    prompts: list[tuple[str, int]] = []
    side_file = None
    for line_no, rec in objs:
        t = rec.get("type")
        if t not in KNOWN_TYPES:
            c["unknown_records"] += 1
            continue
        msg = rec.get("message")
        if t in ("user", "assistant"):
            if side_file is None:
                side_file = rec.get("isSidechain") is True
            if not isinstance(msg, dict):
                c["unknown_records"] += 1
                continue
        main = side_file or rec.get("isSidechain") is not True
        if t == "system" and rec.get("subtype") == "compact_boundary":
            c["compactions"] += 1
        if t == "assistant":
            u = msg.get("usage")
            model = msg.get("model") or "unknown"
            if isinstance(u, dict) and model != "<synthetic>":
                key = msg.get("id") or rec.get("requestId") or rec.get("uuid")
                vals = [u.get(k) or 0 for k in ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")]
                old = usage.get(key)
                usage[key] = vals if old is None else [max(a, b) for a, b in zip(old, vals)]
                models.add(model)
            content = msg.get("content")
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    tid, name = b.get("id"), b.get("name") or "?"
                    if not tid:  # a call without id: each one counted, never pending
                        idless += 1
                    elif tid in calls:
                        continue
                    else:
                        calls[tid] = name
                    by_name[name] = by_name.get(name, 0) + 1
                    inp = b.get("input")
                    if name in FILE_OPS and isinstance(inp, dict):
                        path = inp.get("file_path") or inp.get("notebook_path")
                        if isinstance(path, str) and path:
                            f = files.setdefault(path, {"reads": 0, "writes": 0, "edits": 0})
                            f[FILE_OPS[name]] += 1
        elif t == "user":
            content = msg.get("content")
            if rec.get("isCompactSummary") is not True:
                for b in content if isinstance(content, list) else []:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        if b.get("is_error") is True:
                            c["tool_errors"] += 1
                        answered.add(b.get("tool_use_id"))
            text = _user_text(rec)
            if text is None or not text.strip() or not main:
                continue
            s = text.lstrip()
            if s.startswith("[Request interrupted"):
                c["interrupts"] += 1
            elif not s.startswith(WRAPPERS):
                c["user_prompts"] += 1
                prompts.append((_prompt_form(text), line_no))
    c["tool_calls"] = len(calls) + idless
    c["api_messages"] = len(usage)
    tokens = [sum(v[i] for v in usage.values()) for i in range(4)]
    return {
        "counters": c,
        "tokens": dict(zip(("input", "output", "cache_creation", "cache_read"), tokens)),
        "tool_calls_by_name": by_name,
        "models": sorted(models),
        "files": files,
        "pending": [tid for tid in calls if tid not in answered],
        "goal": prompts[0] if prompts else None,
        "latest_ask": prompts[-1] if prompts else None,
    }


def _fold(path: Path, subagents: bool = False) -> dict[str, Any]:
    r = SessionReader(path, subagents=subagents, price=False)
    r.poll()
    js = state_to_json(r.snapshot())
    orjson.dumps(js)  # what `tracetui state --json` prints: no lone surrogate, nothing unencodable
    return js


def test_fold_agrees_with_independent_recount(corpus_file: Path) -> None:
    path = corpus_file
    js = _fold(path)
    want = recount(path.read_bytes())
    got_c = {k: js["counters"][k] for k in want["counters"]}
    assert got_c == want["counters"]
    assert js["tokens"] == want["tokens"]
    assert js["tool_calls_by_name"] == want["tool_calls_by_name"]
    assert js["models"] == want["models"]
    assert {f["path"]: {k: f[k] for k in ("reads", "writes", "edits")} for f in js["files"]} == want["files"]
    assert [p["id"] for p in js["pending_calls"]] == want["pending"]
    for key in ("goal", "latest_ask"):
        got = js[key]
        assert (None if got is None else (got["text"], got["anchor"]["line"])) == want[key]
    src = js["sources"][0]
    assert src["bytes_consumed"] == path.stat().st_size and src["pending_bytes"] == 0


@pytest.mark.corpus_select(fn=lambda files, root: [p for p in files if "agent-" not in p.name])
def test_session_with_subagents_folds(corpus_file: Path) -> None:
    js = _fold(corpus_file, subagents=True)
    assert js["counters"]["records"] >= recount(corpus_file.read_bytes())["counters"]["records"]


def test_the_corpus_exercises_the_rules(corpus) -> None:
    """The recount is not vacuous: over the corpus, every figure it checks is non-zero."""
    total: dict[str, int] = {}
    for p in corpus.files:
        for k, v in recount(p.read_bytes())["counters"].items():
            total[k] = total.get(k, 0) + v
    assert all(v > 0 for v in total.values()), total


GROWTH_PREFIX = "entireio__cli/refs__heads__entire__checkpoints__v1__ce__258fedd6ee__1__full.jsonl"
GROWTH_FULL = "entireio__cli/refs__heads__entire__checkpoints__v1__b0__dc55b3a1dc__1__full.jsonl"


def test_growth_pair_prefix_then_rest_equals_whole(corpus, tmp_path: Path) -> None:
    prefix, full = corpus.root / GROWTH_PREFIX, corpus.root / GROWTH_FULL
    if not (prefix.exists() and full.exists()):
        pytest.skip("growth pair not in the corpus")
    a, b = prefix.read_bytes(), full.read_bytes()
    assert b.startswith(a)
    live = tmp_path / "live" / "s.jsonl"
    live.parent.mkdir()
    live.write_bytes(a)
    r = SessionReader(live, subagents=False, price=False)
    r.poll()
    mid = r.snapshot().counters.records
    with open(live, "ab") as f:
        f.write(b[len(a) :])
    assert r.poll()
    grown = r.snapshot()
    whole_p = tmp_path / "whole" / "s.jsonl"
    whole_p.parent.mkdir()
    whole_p.write_bytes(b)
    w = SessionReader(whole_p, subagents=False, price=False)
    w.poll()
    whole = w.snapshot()
    js_g, js_w = state_to_json(grown), state_to_json(whole)
    for s in js_g["sources"] + js_w["sources"]:
        s.pop("path")
    assert js_g == js_w
    assert grown.ledgers[0] == whole.ledgers[0]
    assert 0 < mid < whole.counters.records
