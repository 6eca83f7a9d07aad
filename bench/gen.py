"""Generate synthetic Claude Code transcripts for the benchmark (used when ../shared/corpus is absent).

The records follow the shapes of ``../shared/docs/transcript-format.md`` and the size mix of real
sessions (a few KB a line on average, tool results up to hundreds of KB, one record per content
block with the usage repeated, progress and file-history records in between). Deterministic for a
given seed. Nothing here is copied from real transcripts.

Usage: ``python bench/gen.py OUT.jsonl [--mb 300] [--seed 1] [--mix light|dense]``
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

WORDS = (
    "the fold reads appended bytes decodes records keeps counters tokens files todos subagents "
    "prompt tool result error compact session agent anchor ledger event state view card worker "
    "python test bench memory speed line offset json msgspec orjson struct raw excerpt digest"
).split()
#: tool names and their weights (roughly the mix of the corpus: Bash and Read most, Task rare)
TOOLS = ("Bash", "Read", "Edit", "Write", "Grep", "Glob", "TodoWrite", "Task", "WebFetch", "MultiEdit")
TOOL_WEIGHTS = (30, 25, 15, 5, 8, 5, 4, 1, 2, 2)


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def _code(rng: random.Random, n_lines: int) -> str:
    return "\n".join(f"{i:>6}\u2192    {_text(rng, rng.randint(2, 12))}" for i in range(1, n_lines + 1))


#: the record mixes :func:`generate` writes: per API message the chance of a thinking and of a
#: text block, of a second (parallel) tool call, the progress records after each call and the
#: result sizes (lines of output). ``light`` is near ``../shared/corpus`` (3.2 KB a record, 0.2
#: tool calls a record, 30% progress); ``dense`` near the real sessions of issue 9 that the tests
#: cannot see (about 4 KB a record, one tool call per three records, 10% progress, some lines
#: over 100 KB)
MIXES: dict[str, dict] = {
    "light": {
        "thinking": 0.6,
        "text": 0.5,
        "parallel": 0.0,
        "progress": (0, 0, 1, 2, 5),
        "sizes": (5, 10, 20, 40, 60, 100, 200, 600, 2500),
    },
    "dense": {
        "thinking": 0.35,
        "text": 0.25,
        "parallel": 0.3,
        "progress": (0, 0, 0, 0, 0, 1, 1),
        "sizes": (3, 5, 10, 20, 40, 60, 100, 150, 200, 300, 2000),
    },
}


class Gen:
    """A stream of records of one synthetic session (``mix``: a key of :data:`MIXES`)."""

    def __init__(self, seed: int = 1, session: str = "5e55105e-0000-4000-8000-000000000001", mix: str = "light") -> None:
        self.mix = MIXES[mix]
        self.rng = random.Random(seed)
        self.session = session
        self.n = 0
        self.parent: str | None = None
        self.tool_n = 0
        self.msg_n = 0

    def _env(self, type_: str, **kw) -> dict:
        self.n += 1
        uuid = f"{self.n:08x}-0000-4000-8000-{self.rng.getrandbits(48):012x}"
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/user/project",
            "sessionId": self.session,
            "version": "2.1.30",
            "gitBranch": "main",
            "type": type_,
            "uuid": uuid,
            "timestamp": f"2026-01-01T{(self.n // 3600) % 24:02d}:{(self.n // 60) % 60:02d}:{self.n % 60:02d}.000Z",
        }
        rec.update(kw)
        self.parent = uuid
        return rec

    def _usage(self, out: int) -> dict:
        return {
            "input_tokens": self.rng.randint(1, 20),
            "cache_creation_input_tokens": self.rng.randint(0, 5000),
            "cache_read_input_tokens": self.rng.randint(10000, 150000),
            "output_tokens": out,
            "service_tier": "standard",
        }

    def _assistant(self, block: dict, msg_id: str, usage: dict) -> dict:
        msg = {
            "model": "claude-opus-4-5-20251101",
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        return self._env("assistant", message=msg, requestId=f"req_{msg_id[4:]}")

    def turn(self) -> list[dict]:
        """One prompt and a few API messages with tool calls and their results."""
        rng = self.rng
        mix = self.mix
        out = [self._env("user", message={"role": "user", "content": _text(rng, rng.randint(5, 80))}, permissionMode="default")]
        for _ in range(rng.randint(2, 8)):
            self.msg_n += 1
            mid = f"msg_{self.msg_n:024d}"
            u = self._usage(rng.randint(1, 50))
            if rng.random() < mix["thinking"]:
                out.append(
                    self._assistant(
                        {
                            "type": "thinking",
                            "thinking": _text(rng, rng.randint(10, 200)),
                            "signature": "Eu" + "A" * rng.randint(200, 1500),
                        },
                        mid,
                        dict(u),
                    )
                )
            if rng.random() < mix["text"]:
                u["output_tokens"] += rng.randint(10, 300)
                out.append(self._assistant({"type": "text", "text": _text(rng, rng.randint(10, 150))}, mid, dict(u)))
            for _ in range(2 if rng.random() < mix["parallel"] else 1):
                self.tool_n += 1
                tid = f"toolu_{self.tool_n:020d}"
                name = rng.choices(TOOLS, TOOL_WEIGHTS)[0]
                inp = (
                    {"file_path": f"/home/user/project/src/mod{rng.randint(1, 40)}.py"}
                    if name in ("Read", "Edit", "Write", "MultiEdit")
                    else {"command": _text(rng, 6), "description": _text(rng, 4)}
                )
                if name == "Edit":
                    inp.update(old_string=_text(rng, 20), new_string=_text(rng, 25))
                u["output_tokens"] += rng.randint(10, 300)
                out.append(self._assistant({"type": "tool_use", "id": tid, "name": name, "input": inp}, mid, dict(u)))
                for _ in range(rng.choice(mix["progress"])):
                    out.append(
                        self._env(
                            "progress",
                            data={
                                "type": "hook_progress",
                                "hookEvent": "PostToolUse",
                                "hookName": f"PostToolUse:{name}",
                                "command": "echo ok",
                            },
                            parentToolUseID=tid,
                            toolUseID=tid,
                        )
                    )
                size = rng.choice(mix["sizes"])
                body = _code(rng, size) if name == "Read" else _text(rng, size)
                err = rng.random() < 0.05
                res = {"type": "tool_result", "tool_use_id": tid, "content": body}
                if err:
                    res["is_error"] = True
                tur = (
                    "Error: failed"
                    if err
                    else (
                        {"type": "text", "file": {"filePath": inp.get("file_path"), "content": body, "numLines": size}}
                        if name == "Read"
                        else {"stdout": body[:2000], "stderr": "", "interrupted": False}
                    )
                )
                out.append(
                    self._env("user", message={"role": "user", "content": [res]}, toolUseResult=tur, sourceToolAssistantUUID=self.parent)
                )
        if rng.random() < 0.3:
            out.append(
                {
                    "type": "file-history-snapshot",
                    "messageId": self.parent,
                    "snapshot": {"messageId": self.parent, "trackedFileBackups": {}, "timestamp": "2026-01-01T00:00:00.000Z"},
                    "isSnapshotUpdate": False,
                }
            )
        out.append(self._env("system", subtype="turn_duration", durationMs=rng.randint(1000, 90000), isMeta=False))
        return out


def generate(path: Path, mb: float, seed: int = 1, mix: str = "light") -> int:
    """Write at least ``mb`` megabytes (10^6 bytes) of transcript of ``mix`` (a key of
    :data:`MIXES`) to ``path``; returns bytes written."""
    target = int(mb * 1_000_000)
    g = Gen(seed, mix=mix)
    written = 0
    with open(path, "wb") as f:
        while written < target:
            chunk = b"".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for r in g.turn())
            f.write(chunk)
            written += len(chunk)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--mb", type=float, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mix", choices=sorted(MIXES), default="light")
    ns = ap.parse_args(argv)
    n = generate(ns.out, ns.mb, ns.seed, ns.mix)
    print(f"wrote {n / 1e6:.1f} MB to {ns.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
