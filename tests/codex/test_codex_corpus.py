"""Every rollout of ``../shared/corpus-codex`` folds without error, and its figures agree with a
recount written here with plain ``json`` (no code shared with the fold; the rules as issue 11 and
``shared/docs/codex-format.md`` state them). Skips, saying where it looked, when the corpus is
not beside the checkout (``$TRACETUI_CODEX_CORPUS`` names another folder).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from codex_corpus import FILES, ROOT, skip_reason

from tracetui.model.session_fold import fold_bytes

CALLS = ("function_call", "custom_tool_call", "local_shell_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")
_PATCH = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$", re.M)
#: what a unified exec tool's output says first (Codex CLI 0.120 and later)
_EXEC = re.compile(r"\A(?:Chunk ID: \w+\n)?Wall time: [\d.]+ seconds\nProcess (?:exited with code (-?\d+)|running with session ID (\d+))\n")


def _objects(data: bytes) -> tuple[list[dict], int]:
    """The JSON objects of a file's lines in order (a line may hold several), and how many
    lines (or rests of lines) are not JSON."""
    dec = json.JSONDecoder()
    out: list[dict] = []
    bad = 0
    for raw in data.split(b"\n"):
        s = raw.decode("utf-8", "replace")
        i = 0
        while True:
            while i < len(s) and s[i] in " \t\r":
                i += 1
            if i >= len(s):
                break
            try:
                obj, i = dec.raw_decode(s, i)
            except json.JSONDecodeError:
                bad += 1
                break
            out.append(obj)
    return out, bad


def _parent(meta: dict) -> str | None:
    src = meta.get("source")
    if isinstance(src, dict):
        sub = src.get("subagent")  # an object, or a string ("review")
        spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
        if isinstance(spawn, dict) and spawn.get("parent_thread_id"):
            return spawn["parent_thread_id"]
    return meta.get("forked_from_id")


def recount(data: bytes) -> dict:
    """The figures of one rollout, counted from its JSON alone."""
    recs, bad = _objects(data)
    skip = 0
    first = recs[0] if recs else {}
    parent = _parent(first.get("payload") or {}) if first.get("type") == "session_meta" else None
    base = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "cache_write_input_tokens": 0}
    if parent and len(recs) > 1 and recs[1].get("type") == "session_meta" and (recs[1].get("payload") or {}).get("id") == parent:
        second = str(first.get("timestamp", ""))[:19]
        skip = 1
        while skip < len(recs) and str(recs[skip].get("timestamp") or "")[:19] == second and len(second) == 19:
            skip += 1
        for r in recs[1:skip]:
            p = r.get("payload") or {}
            if r.get("type") == "event_msg" and p.get("type") == "token_count" and (p.get("info") or {}).get("total_token_usage"):
                base = p["info"]["total_token_usage"]
        skip -= 1  # the first record is the child's own
    own = [recs[0], *recs[1 + skip :]] if recs else []
    calls: dict[str, str] = {}
    answered: set[str] = set()
    failed: set[str] = set()
    # a command that outlived its first output: its session, the polls of it, and the commands
    # whose failure a poll's output said (their end event, read later, says it again)
    sessions: dict[str, str] = {}
    polls: dict[str, str] = {}
    said_by_poll: set[str] = set()
    fig = dict.fromkeys(("prompts", "interrupts", "compactions", "tool_calls"), 0)
    files: dict[str, list[int]] = {}
    segments: list[list[dict]] = [[base]]
    windows: dict[str, tuple] = {}
    for r in own:
        t, p = r.get("type"), r.get("payload") or {}
        pt = p.get("type")
        if t == "compacted":
            fig["compactions"] += 1
        elif t == "response_item" and pt in CALLS:
            cid = p.get("call_id")
            if cid in calls:
                continue
            fig["tool_calls"] += 1
            if cid:
                calls[cid] = p.get("name")
            if p.get("name") == "write_stdin":
                args = json.loads(p.get("arguments") or "{}")
                if isinstance(args, dict) and args.get("session_id") is not None:
                    polls[cid] = str(args["session_id"])
            if p.get("name") == "apply_patch" and isinstance(p.get("input"), str):
                for op, path in _PATCH.findall(p["input"]):
                    f = files.setdefault(path.rstrip("\r"), [0, 0])
                    f[op == "Update File"] += 1
        elif t == "response_item" and pt in OUTPUTS:
            cid = p.get("call_id")
            answered.add(cid)
            m = _EXEC.match(p["output"]) if isinstance(p.get("output"), str) and calls.get(cid) in ("exec_command", "write_stdin") else None
            if m and m.group(2) and calls.get(cid) == "exec_command":
                sessions[m.group(2)] = cid
            elif m and m.group(1) and calls.get(cid) == "exec_command" and m.group(1) != "0":
                failed.add(cid)
            elif m and m.group(1) and calls.get(cid) == "write_stdin":
                command = sessions.get(polls.get(cid, ""))
                if m.group(1) != "0" and command not in failed:
                    failed.add(cid)
                    said_by_poll.add(command or "")
        elif t == "event_msg" and pt == "user_message":
            fig["prompts"] += 1
        elif t == "event_msg" and pt == "turn_aborted" and p.get("reason") == "interrupted":
            fig["interrupts"] += 1
        elif t == "event_msg" and pt == "exec_command_end" and isinstance(p.get("exit_code"), int) and p["exit_code"] != 0:
            failed.add(p.get("call_id"))
        elif t == "event_msg" and pt == "patch_apply_end" and p.get("success") is False:
            failed.add(p.get("call_id"))
        if t == "event_msg" and pt == "token_count" and isinstance(p.get("rate_limits"), dict):
            for name in ("primary", "secondary"):
                w = p["rate_limits"].get(name)
                if isinstance(w, dict):
                    windows[name] = (w.get("used_percent"), w.get("window_minutes"), w.get("resets_at"))
        if t == "event_msg" and pt == "token_count" and (p.get("info") or {}).get("total_token_usage"):
            tot = p["info"]["total_token_usage"]
            last = segments[-1][-1]
            if any(tot.get(k, 0) < last.get(k, 0) for k in base):
                segments.append([{}])  # a total below the one before: a new count, from zero
            segments[-1].append(tot)
    tokens = {"input": 0, "output": 0, "cache_creation": 0, "cache_read": 0}
    for seg in segments:
        a, b = seg[0], seg[-1]

        def d(k: str, a: dict = a, b: dict = b) -> int:
            return b.get(k, 0) - a.get(k, 0)

        tokens["input"] += d("input_tokens") - d("cached_input_tokens")
        tokens["cache_read"] += d("cached_input_tokens")
        tokens["output"] += d("output_tokens")
        tokens["cache_creation"] += d("cache_write_input_tokens")
    fig.update(
        records=len(recs),
        malformed=bad,
        replayed=skip,
        tool_errors=len((failed - said_by_poll) & set(calls)),
        pending=len(set(calls) - answered),
        tokens=tokens,
        files={k: tuple(v) for k, v in files.items()},
        rate_limits=windows,
    )
    return fig


@pytest.mark.skipif(not FILES, reason=skip_reason(ROOT))
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) if ROOT in p.parents else p.name for p in FILES])
def test_corpus_rollout_figures_agree_with_a_recount(path: Path) -> None:
    data = path.read_bytes()
    want = recount(data)
    st = fold_bytes(data, path.name, price=True)
    c = st.counters
    assert st.agent == "codex" and st.sources[0].agent == "codex"
    got = {
        "records": c.records,
        "malformed": c.malformed,
        "replayed": st.sources[0].replayed,
        "tool_calls": c.tool_calls,
        "tool_errors": c.tool_errors,
        "pending": len(st.pending),
        "prompts": c.user_prompts,
        "interrupts": c.interrupts,
        "compactions": c.compactions,
        "tokens": {
            "input": st.tokens.input,
            "output": st.tokens.output,
            "cache_creation": st.tokens.cache_creation,
            "cache_read": st.tokens.cache_read,
        },
        "files": {f.path: (f.writes, f.edits) for f in st.files},
        "rate_limits": {w.name: (w.used_percent, w.window_minutes, w.resets_at) for w in st.main.rate_limits},
    }
    assert got == want
    assert c.unknown_records == 0, st.main.unknown[:3]
    # every error is some episode's (a failure read after the call's output too)
    assert sum(e.tool_errors for e in st.episodes if e.lifecycle != "superseded") == c.tool_errors
    # every model of the corpus has a price: the estimate is a figure, never a made-up zero
    assert st.cost_usd is not None and (st.cost_usd > 0) == (st.tokens.total > 0), st.cost_note
    assert len(st.episodes) >= 1


@pytest.mark.skipif(not FILES, reason=skip_reason(ROOT))
def test_the_corpus_has_replayed_children_and_their_copies_are_not_counted() -> None:
    replayed = [p for p in FILES if recount(p.read_bytes())["replayed"]]
    assert replayed, "the corpus holds forked children whose second line is the parent's session_meta"
    for p in replayed[:3]:
        st = fold_bytes(p.read_bytes(), p.name)
        # the child's first prompt is its own (the spawn message), not the parent's goal
        assert st.main.goal is not None and st.counters.user_prompts == recount(p.read_bytes())["prompts"]
