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

The recount (:func:`recount`) reads the files as plain JSON lines, sharing no code with the
fold: per message id over every file, the max of each token field, the earliest UTC day, and
the file that has it earliest; then groups them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, date, datetime
from pathlib import Path

from tracetui.demo.transcript import TranscriptBuilder

SECRET = "sk-ant-api03-" + "Q7x" * 30 + "AA"
UNPRICED = "mystery-model-9"


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


def recount(root: Path, kind: str, since: str | None = None, until: str | None = None) -> dict[str, dict]:
    """Group key → ``{messages, input, output, cache_creation, cache_read, models: set,
    usd (None when a model has no price)}``, recounted from the files' plain JSON."""
    msgs: dict[str, dict] = {}
    first_ts: dict[str, str] = {}
    for path, project, session, rec in _records(root):
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
            provider_id="anthropic",
            genai_request_timestamp=when,
        )
    except LookupError:
        return None
    return float(res.total_price)
