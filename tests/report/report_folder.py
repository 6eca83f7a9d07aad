"""A generated projects folder of several sessions, and an independent recount of its tokens.

The folder (``folder`` fixture, under ``$CLAUDE_CONFIG_DIR/projects``):

* ``-work-alpha``: session ``a1`` (2026-03-02, claude-opus-4-6) and ``a2`` (2026-03-03,
  claude-sonnet-4-5), a resumed session whose file starts with a copy of ``a1``'s records
  (the same message ids: counted once, under ``a1``);
* ``-work-beta``: session ``b1`` (2026-03-10) with a nested subagent file, one API message of
  a model genai-prices does not know, a malformed line, a prompt holding a secret; session
  ``b2`` (2026-03-11), written only in part: :meth:`Folder.grow` appends the rest (an API
  message whose records span the split);
* ``-work-gamma``: session ``c1`` (2026-03-20, two days), :meth:`Folder.truncate` cuts it.

And a Codex CLI home beside it (``<tmp>/codex``, ``$CODEX_HOME``; tracetui/demo/codex_records.py):

* ``sessions/2026/03/05/``: thread :data:`CODEX_MAIN` (cwd ``/work/delta``, gpt-5.4, into
  2026-03-06): a prompt, an ``exec_command``, a token total written twice, an ``apply_patch``,
  a ``spawn_agent``, then a total below the one before (a new count); and its child rollout
  :data:`CODEX_CHILD`, which starts with the replayed copy of the parent's history (its token
  totals included) and then does its own work;
* ``archived_sessions/``: thread :data:`CODEX_OLD` (cwd ``/work/omega``, 2026-03-12), one
  response of a model genai-prices does not know (:data:`CODEX_UNPRICED`).

The recount (:func:`recount`) reads the files as plain JSON lines, sharing no code with the
fold: per message id over every file, the max of each token field, the earliest UTC day, and
the file that has it earliest; for a rollout, one message per change of the cumulative
``total_token_usage`` (:func:`_codex_messages`); then groups them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, date, datetime
from pathlib import Path

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.demo.transcript import TranscriptBuilder

SECRET = "sk-ant-api03-" + "Q7x" * 30 + "AA"
UNPRICED = "mystery-model-9"
CODEX_MAIN = "0199c0de-0000-7000-8000-00000000d001"
CODEX_CHILD = "0199c0de-0000-7000-8000-00000000d002"
CODEX_OLD = "0199c0de-0000-7000-8000-00000000e001"
CODEX_UNPRICED = "gpt-mystery-9"
#: the Claude Code files and the Codex rollouts the folder holds
CLAUDE_FILES, CODEX_FILES = 6, 3


def codex_home_of(root: Path) -> Path:
    """The Codex home beside the projects folder ``root`` (``<tmp>/claude/projects`` → ``<tmp>/codex``)."""
    return root.parent.parent / "codex"


def two_prompt_session(folder: Path, session_id: str) -> Path:
    """Write a two-prompt session (two API messages, cwd ``/work/zeta``, claude-opus-4-6,
    2026-03-02) as ``folder/<session_id>.jsonl``; returns its path. The session the report's
    tests copy under another name or behind a stray line."""
    b = TranscriptBuilder(session_id=session_id, cwd="/work/zeta", model="claude-opus-4-6", start="2026-03-02T10:00:00.000Z")
    b.prompt("refactor the parser module")
    b.text("Looking at it.")
    b.prompt("and the lexer")
    b.text("Done.")
    return b.write_session(folder)


def _a1() -> TranscriptBuilder:
    b = TranscriptBuilder(session_id="a1", cwd="/work/alpha", model="claude-opus-4-6", start="2026-03-02T10:00:00.000Z")
    b.prompt("refactor the parser module")
    with b.message():
        b.thinking()
        b.text("Looking at it.")
        b.tool_use("Read", {"file_path": "/work/alpha/parser.py"})
    b.tick(3)
    b.text("The parser is fine.")
    return b


class Folder:
    """The generated projects folder (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.codex = codex_home_of(root)
        self._codex()
        alpha, beta, gamma = root / "-work-alpha", root / "-work-beta", root / "-work-gamma"
        a1 = _a1()
        a1.write_session(alpha)
        a2 = TranscriptBuilder(session_id="a2", cwd="/work/alpha", model="claude-sonnet-4-5", start="2026-03-03T08:00:00.000Z")
        a2.prompt("continue the parser refactor")
        a2.text("Continuing.")
        self.a2 = alpha / "a2.jsonl"
        self.a2.write_bytes(a1.data() + a2.data())

        b1 = TranscriptBuilder(session_id="b1", cwd="/work/beta", model="claude-opus-4-6", start="2026-03-10T23:59:00.000Z")
        b1.prompt(f"deploy with the key {SECRET} please")
        self.b1_prompt_line = len(b1.records)
        task = b1.tool_use("Task", {"description": "check logs", "prompt": "check the logs", "subagent_type": "general-purpose"})
        sub = b1.subagent("0abc", task)
        sub.prompt("check the logs")
        sub.tool("Grep", {"pattern": "ERROR", "path": "/var/log"}, "3 matches")
        sub.text("3 errors found")
        b1.sync(sub).tick(90)  # into the next UTC day
        b1.task_result(sub, "3 errors found")
        b1.model = UNPRICED
        b1.text("Deployed by the other model.")
        b1.model = "claude-opus-4-6"
        self.b1_bash_line = len(b1.records) + 1
        b1.tool("Bash", {"command": "kubectl rollout status deploy/web"}, "ok")
        self.b1 = b1.write_session(beta)
        lines = self.b1.read_bytes().split(b"\n")
        lines.insert(3, b'{"type": "assistant", "message": {oops')  # a malformed line
        self.b1.write_bytes(b"\n".join(lines))
        if self.b1_bash_line > 3:
            self.b1_bash_line += 1

        b2 = TranscriptBuilder(session_id="b2", cwd="/work/beta", model="claude-sonnet-4-5", start="2026-03-11T12:00:00.000Z")
        b2.prompt("write the release notes")
        with b2.message():
            b2.text("Drafting.")
            self.b2_split = len(b2.records)
            b2.tool_use("Write", {"file_path": "/work/beta/NOTES.md", "content": "notes"})
        b2.prompt("now tag the release")
        b2.text("Tagged.")
        self.b2_lines = b2.lines()
        self.b2 = beta / "b2.jsonl"
        self.b2.write_bytes(b"".join(x + b"\n" for x in self.b2_lines[: self.b2_split]))

        c1 = TranscriptBuilder(session_id="c1", cwd="/work/gamma", model="claude-haiku-4-5", start="2026-03-20T09:00:00.000Z")
        for i in range(4):
            c1.prompt(f"step {i}")
            c1.text(f"did step {i}")
            c1.tick(86400 / 2)
        self.c1 = c1.write_session(gamma)

    def _codex(self) -> None:
        m = RolloutBuilder(CODEX_MAIN, start="2026-03-05T09:00:00.000Z", cwd="/work/delta")
        m.turn("migrate the schema to version two")
        self.codex_prompt_line = len(m.lines)
        m.exec("pytest -q tests/db", "3 passed")
        m.tokens(12_000, 8_000, 900, reasoning=300, repeat=True)  # the same total twice: one response
        m.patch("*** Update File: db/schema.sql\n+version 2\n")
        m.tokens(15_000, 12_000, 400)
        m.tick(2)
        child = m.child(CODEX_CHILD)  # the copy of m's history so far, its totals included
        m.spawn(CODEX_CHILD, "check the migration logs")
        child.tick(5).turn("check the migration logs")
        self.codex_child_call_line = len(child.lines) + 1
        child.call("exec_command", {"cmd": "grep FAILED migrate.log"}, "no match")
        child.tokens(3_000, 1_000, 200).done("nothing failed")
        m.tokens(9_000, 7_500, 300).say("Migrated.").done()
        m.tick(86_400)  # the next UTC day: a new count (the total below the one before)
        m.totals = dict.fromkeys(m.totals, 0)
        m.turn("now drop the old table")
        m.tokens(2_000, 0, 100).done()
        day = self.codex / "sessions" / "2026" / "03" / "05"
        self.codex_main = m.write(day / f"rollout-2026-03-05T09-00-00-{CODEX_MAIN}.jsonl")
        self.codex_child = child.write(day / f"rollout-2026-03-05T09-00-20-{CODEX_CHILD}.jsonl")

        old = RolloutBuilder(CODEX_OLD, start="2026-03-12T10:00:00.000Z", cwd="/work/omega", model=CODEX_UNPRICED)
        old.turn("summarise the incident")
        old.tokens(1_000, 0, 10).say("Done.").done()
        self.codex_old = old.write(self.codex / "archived_sessions" / f"rollout-2026-03-12T10-00-00-{CODEX_OLD}.jsonl")

    def grow(self) -> None:
        """Append the rest of ``b2`` (same inode)."""
        with self.b2.open("ab") as f:
            f.write(b"".join(x + b"\n" for x in self.b2_lines[self.b2_split :]))

    def truncate(self) -> None:
        """Cut ``c1`` to its first half, in place (same inode, smaller)."""
        data = self.c1.read_bytes()
        lines = data.split(b"\n")
        keep = b"\n".join(lines[: len(lines) // 2]) + b"\n"
        with self.c1.open("r+b") as f:
            f.truncate(len(keep))


def _records(root: Path):
    """``(path, project, session, record)`` of every JSON object line under ``root``."""
    for p in sorted(root.rglob("*.jsonl")):
        rel = p.relative_to(root).parts
        project = rel[0]
        session = rel[1] if len(rel) > 2 else p.stem
        for raw in p.read_bytes().split(b"\n"):
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            if isinstance(rec, dict):
                yield str(p), project, session, rec


def _lines(p: Path) -> list[dict]:
    out = []
    for raw in p.read_bytes().split(b"\n"):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _codex_parent(meta: dict) -> str | None:
    src = meta.get("source")
    sub = src.get("subagent") if isinstance(src, dict) else None  # a dict, or a word ("review")
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    if isinstance(spawn, dict) and spawn.get("parent_thread_id"):
        return spawn["parent_thread_id"]
    return meta.get("forked_from_id") or None


def _codex_totals(rec: dict) -> tuple[int, int, int, int] | None:
    p = rec.get("payload") or {}
    if rec.get("type") != "event_msg" or p.get("type") != "token_count" or not p.get("info"):
        return None
    t = p["info"].get("total_token_usage")
    if not t:
        return None
    return (t["input_tokens"], t["cached_input_tokens"], t["output_tokens"], t.get("cache_write_input_tokens", 0))


def _codex_messages(home: Path):
    """``(key, [input, output, cache_creation, cache_read], day, path, project, session,
    model)`` of every response of every rollout under ``home``, by Codex's token rules: one per
    change of the cumulative ``total_token_usage`` (a repeated total adds nothing; a total with
    a field below the one before starts a new count, taken whole), input = ``input_tokens`` -
    ``cached_input_tokens``, cache read = ``cached_input_tokens``, output = ``output_tokens``;
    a child rollout's replayed copy of its parent (its second line the parent's
    ``session_meta``, then every line stamped in the same second as its first) is no response
    of its own, its last total the child's starting point. The model is the latest
    ``turn_context``'s (outside the copy). The key is the thread and the response's number in
    it: two copies of one rollout (one a snapshot of the other) have the same responses."""
    files = sorted((home / "sessions").rglob("*.jsonl")) + sorted((home / "archived_sessions").rglob("*.jsonl"))
    threads: dict[str, tuple[str | None, str]] = {}
    parsed = []
    for p in files:
        recs = _lines(p)
        if not recs or recs[0].get("type") != "session_meta" or not (recs[0].get("payload") or {}).get("id"):
            continue
        meta = recs[0]["payload"]
        parent = _codex_parent(meta)
        threads[meta["id"]] = (parent, meta.get("cwd") or "?")
        parsed.append((p, meta["id"], parent, recs))
    for p, thread, parent, recs in parsed:
        # the top of its parent chain: the last thread on disk (a session of its own when its
        # parent is not); a loop is filed under its first rollout's thread (by path)
        chain = [thread]
        while threads[chain[-1]][0] in threads and threads[chain[-1]][0] not in chain:
            chain.append(threads[chain[-1]][0])
        nxt = threads[chain[-1]][0]
        if nxt in chain:
            loop = chain[chain.index(nxt) :]
            top = min(loop, key=lambda t: min(str(q) for q, th, _p, _r in parsed if th == t))
        else:
            top = chain[-1]
        session = top
        project = threads[top][1]
        prev = None
        own = recs[1:]
        if parent and len(recs) > 1 and recs[1].get("type") == "session_meta" and recs[1]["payload"].get("id") == parent:
            stamp = recs[0]["timestamp"][:19]
            i = 1
            while i < len(recs) and (i == 1 or recs[i].get("timestamp", "")[:19] == stamp):
                prev = _codex_totals(recs[i]) or prev
                i += 1
            own = recs[i:]
        model, n = "unknown", 0
        for rec in own:
            if rec.get("type") == "turn_context" and rec["payload"].get("model"):
                model = rec["payload"]["model"]
            cur = _codex_totals(rec)
            if cur is None or cur == prev:
                continue
            if prev is None or any(c < q for c, q in zip(cur, prev)):
                d = cur
            else:
                d = tuple(c - q for c, q in zip(cur, prev))
            prev = cur
            yield f"{thread}#{n}", [max(d[0] - d[1], 0), d[2], d[3], d[1]], rec["timestamp"][:10], str(p), project, session, model
            n += 1


def recount(root: Path, kind: str, since: str | None = None, until: str | None = None, agent: str | None = None) -> dict[str, dict]:
    """Group key → ``{messages, input, output, cache_creation, cache_read, models: set,
    usd (None when a model has no price)}``, recounted from the files' plain JSON: the Claude
    Code files under ``root`` and the rollouts of :func:`codex_home_of` ``(root)``; ``agent``
    (``"claude"`` | ``"codex"``) keeps one agent's."""
    msgs: dict[str, dict] = {}
    first_ts: dict[str, str] = {}
    if agent != "claude":
        for key, u, day, path, project, session, model in _codex_messages(codex_home_of(root)):
            cur = msgs.setdefault(key, {"u": [0, 0, 0, 0], "where": []})
            cur["u"] = [max(a, b) for a, b in zip(cur["u"], u)]
            cur["where"].append((day, path, project, session, model))
            first_ts[path] = ""
    for path, project, session, rec in _records(root) if agent != "codex" else ():
        ts = rec.get("timestamp")
        if ts and path not in first_ts:
            first_ts[path] = ts
        m = rec.get("message")
        if rec.get("type") != "assistant" or not isinstance(m, dict) or not m.get("usage") or not m.get("id"):
            continue
        u = m["usage"]
        day = ts[:10]
        cur = msgs.setdefault(m["id"], {"u": [0, 0, 0, 0], "where": []})
        for i, k in enumerate(("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")):
            cur["u"][i] = max(cur["u"][i], u.get(k, 0))
        cur["where"].append((day, path, project, session, m["model"]))
    out: dict[str, dict] = defaultdict(
        lambda: {"messages": 0, "input": 0, "output": 0, "cache_creation": 0, "cache_read": 0, "models": set(), "usd": 0.0}
    )
    for m in msgs.values():
        day, path, project, session, model = min(m["where"], key=lambda w: (w[0], first_ts[w[1]], w[1]))
        if (since and day < since) or (until and day > until):
            continue
        if kind == "daily":
            key = day
        elif kind == "weekly":
            y, w, _ = date.fromisoformat(day).isocalendar()
            key = f"{y}-W{w:02d}"
        elif kind == "monthly":
            key = day[:7]
        elif kind == "project":
            key = project
        else:
            key = session
        g = out[key]
        g["messages"] += 1
        for i, k in enumerate(("input", "output", "cache_creation", "cache_read")):
            g[k] += m["u"][i]
        g["models"].add(model)
        usd = _price(model, m["u"], day)
        g["usd"] = None if usd is None or g["usd"] is None else g["usd"] + usd
    return dict(out)


def _price(model: str, u: list[int], day: str) -> float | None:
    from genai_prices import Usage, calc_price

    inp, out, cw, cr = u
    when = datetime.fromisoformat(day + "T12:00:00+00:00").astimezone(UTC)
    try:
        res = calc_price(
            Usage(input_tokens=inp + cw + cr, output_tokens=out, cache_write_tokens=cw, cache_read_tokens=cr),
            model_ref=model,
            provider_id="openai" if model.startswith("gpt-") else "anthropic",
            genai_request_timestamp=when,
        )
    except LookupError:
        return None
    return float(res.total_price)
