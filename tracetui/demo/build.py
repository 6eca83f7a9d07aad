"""Write Claude Code transcripts record by record: the bundled demo session and test fixtures.

:class:`TranscriptBuilder` produces records shaped like the ones Claude Code 2.1.x writes
(``../shared/docs/transcript-format.md`` §3–§10): one record per content block, usage repeated
per record of an API message, tool_result records chained to their tool_use, subagent files with
``isSidechain`` records and an ``agentId``. Uuids and message ids are derived from a counter, so
the same calls always give the same bytes. ``python -m tracetui.demo.build`` rewrites the demo
files shipped in ``tracetui/demo/data/``.
"""

from __future__ import annotations

import uuid as _uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

__all__ = ["TranscriptBuilder", "build_demo", "write_demo", "subagent_meta", "DEMO_SESSION_ID", "DEMO_AGENT_ID", "DATA_DIR"]

DEMO_SESSION_ID = "d3m0c0de-5e55-4a1e-9d00-7e5717ace001"
DEMO_AGENT_ID = "a7f3c2e91d"
DATA_DIR = Path(__file__).resolve().parent / "data"
_NS = _uuid.UUID("6f1c1f4e-3a0b-4d55-9a49-7a7ce7e7e7e7")


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class TranscriptBuilder:
    """Builds the records of one transcript file in order.

    ``start`` is the ISO timestamp of the first record; :meth:`tick` advances the clock in
    seconds. ``agent_id`` makes a subagent transcript (every record ``isSidechain: true``).
    ``context`` is the prompt size in tokens the first API call sees; each call's
    ``cache_read_input_tokens`` grows with the conversation, so a context gauge moves.
    """

    def __init__(
        self,
        session_id: str = "5e55a0c1-0000-4000-8000-000000000001",
        cwd: str = "/home/dev/shop-api",
        model: str = "claude-sonnet-4-5-20250929",
        version: str = "2.1.30",
        start: str = "2026-03-02T09:00:00.000Z",
        agent_id: str | None = None,
        git_branch: str = "main",
        context: int = 18_000,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.model = model
        self.version = version
        self.agent_id = agent_id
        self.git_branch = git_branch
        self.t = datetime.strptime(start, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        self.records: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.context = context
        self._n = 0
        self._tool_n = 0
        #: for a subagent: the Task/Agent tool_use id that started it (written to ``.meta.json``)
        self.parent_tool_use_id: str | None = None

    # -- plumbing ---------------------------------------------------------------------------
    def tick(self, seconds: float) -> "TranscriptBuilder":
        """Advance the clock by ``seconds``."""
        self.t += timedelta(seconds=seconds)
        return self

    def _id(self, kind: str) -> str:
        self._n += 1
        return str(_uuid.uuid5(_NS, f"{self.session_id}/{self.agent_id}/{kind}/{self._n}"))

    def _base(self, type_: str) -> dict[str, Any]:
        uid = self._id("rec")
        rec: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": self.agent_id is not None,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": self.git_branch,
        }
        if self.agent_id is not None:
            rec["agentId"] = self.agent_id
        rec.update({"type": type_, "uuid": uid, "timestamp": _iso(self.t)})
        self.parent = uid
        return rec

    def add(self, rec: dict[str, Any]) -> dict[str, Any]:
        """Append a record as given (for shapes the helpers do not cover)."""
        self.records.append(rec)
        return rec

    def _usage(self, output: int) -> dict[str, int]:
        created = 600 + (self._n * 37) % 900
        u = {
            "input_tokens": 4 + self._n % 7,
            "cache_creation_input_tokens": created,
            "cache_read_input_tokens": self.context,
            "output_tokens": output,
        }
        self.context += created + output
        return u

    def _assistant(self, block: dict[str, Any], output: int = 120) -> dict[str, Any]:
        rec = self._base("assistant")
        rec["requestId"] = "req_" + self._id("req").replace("-", "")[:24]
        rec["message"] = {
            "model": self.model,
            "id": "msg_" + self._id("msg").replace("-", "")[:24],
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": self._usage(output),
        }
        return self.add(rec)

    # -- user side --------------------------------------------------------------------------
    def prompt(self, text: str) -> dict[str, Any]:
        """A human prompt (string content)."""
        rec = self._base("user")
        rec["message"] = {"role": "user", "content": text}
        rec["permissionMode"] = "default"
        return self.add(rec)

    def slash(self, name: str, args: str = "") -> dict[str, Any]:
        """A slash command as Claude Code writes it (``/name args`` once folded)."""
        text = f"<command-name>/{name}</command-name>\n<command-message>{name}</command-message>\n<command-args>{args}</command-args>"
        return self.prompt(text)

    def interrupt(self, for_tool: bool = True) -> dict[str, Any]:
        """``[Request interrupted by user…]`` as a text block."""
        rec = self._base("user")
        text = "[Request interrupted by user for tool use]" if for_tool else "[Request interrupted by user]"
        rec["message"] = {"role": "user", "content": [{"type": "text", "text": text}]}
        return self.add(rec)

    def tool_result(self, tool_use_id: str, content: str, is_error: bool = False, result: Any = None) -> dict[str, Any]:
        """The user record carrying the tool_result of ``tool_use_id``."""
        rec = self._base("user")
        block: dict[str, Any] = {"tool_use_id": tool_use_id, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        rec["message"] = {"role": "user", "content": [block]}
        rec["toolUseResult"] = (
            result
            if result is not None
            else (f"Error: {content}" if is_error else {"stdout": content, "stderr": "", "interrupted": False, "isImage": False})
        )
        return self.add(rec)

    # -- assistant side ---------------------------------------------------------------------
    def text(self, text: str, output: int = 180) -> dict[str, Any]:
        """An assistant text block."""
        return self._assistant({"type": "text", "text": text}, output)

    def thinking(self, output: int = 90) -> dict[str, Any]:
        """A thinking block (text empty, signature only, as 2.1.9x+ writes it)."""
        return self._assistant({"type": "thinking", "thinking": "", "signature": "EuYBCkYIBBgCKkD" + "x" * 40}, output)

    def tool_use(self, name: str, inp: dict[str, Any], output: int = 80) -> str:
        """An assistant tool_use block; returns its tool_use id."""
        self._tool_n += 1
        tid = "toolu_01" + _uuid.uuid5(_NS, f"{self.session_id}/{self.agent_id}/tool/{self._tool_n}").hex[:22]
        self._assistant({"type": "tool_use", "id": tid, "name": name, "input": inp}, output)
        return tid

    def tool(self, name: str, inp: dict[str, Any], result: str, is_error: bool = False, took: float = 1.0, structured: Any = None) -> str:
        """A tool_use, ``took`` seconds, then its tool_result; returns the tool_use id."""
        tid = self.tool_use(name, inp)
        self.tick(took)
        self.tool_result(tid, result, is_error, structured)
        return tid

    def api_error(self, status: int = 529, text: str = "Overloaded") -> dict[str, Any]:
        """A retry notice (``system/api_error``) then the synthetic API-error assistant record."""
        sysrec = self._base("system")
        sysrec.update(
            {"subtype": "api_error", "level": "error", "error": {"status": status}, "retryInMs": 2000, "retryAttempt": 1, "maxRetries": 10}
        )
        self.add(sysrec)
        rec = self._base("assistant")
        rec["isApiErrorMessage"] = True
        rec["error"] = "unknown"
        rec["message"] = {
            "model": "<synthetic>",
            "id": self._id("apierr"),
            "type": "message",
            "role": "assistant",
            "content": [
                {"type": "text", "text": f'API Error: {status} {{"type":"error","error":{{"type":"overloaded_error","message":"{text}"}}}}'}
            ],
            "stop_reason": "stop_sequence",
            "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        }
        return self.add(rec)

    def compaction(self, summary: str, trigger: str = "manual") -> None:
        """``system/compact_boundary`` then the ``isCompactSummary`` user record (§10)."""
        pre = self.context
        leaf = self.parent
        self.parent = None
        rec = self._base("system")
        rec.update(
            {
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "level": "info",
                "logicalParentUuid": leaf,
                "compactMetadata": {"trigger": trigger, "preTokens": pre},
            }
        )
        self.add(rec)
        rec = self._base("user")
        rec["message"] = {
            "role": "user",
            "content": "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n"
            + summary,
        }
        rec["isCompactSummary"] = True
        rec["isVisibleInTranscriptOnly"] = True
        self.add(rec)
        self.context = 9_000

    def meta(self, type_: str, **fields: Any) -> dict[str, Any]:
        """A metadata record (``ai-title``, ``last-prompt``, …): no uuid chain."""
        rec = {"type": type_, **fields, "sessionId": self.session_id}
        return self.add(rec)

    def system(self, subtype: str, **fields: Any) -> dict[str, Any]:
        """A system record with ``subtype``."""
        rec = self._base("system")
        rec.update({"subtype": subtype, "level": "info", **fields})
        return self.add(rec)

    # -- output -----------------------------------------------------------------------------
    def lines(self) -> list[bytes]:
        """Each record as one compact JSON line (without the newline)."""
        return [orjson.dumps(r) for r in self.records]

    def data(self) -> bytes:
        """The whole file: every record followed by ``\\n``."""
        return b"".join(line + b"\n" for line in self.lines())

    def write(self, path: Path) -> Path:
        """Write the whole file at ``path`` (parents created); returns ``path``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.data())
        return path


_PYTEST_FAIL = """============================= test session starts ==============================
collected 14 items

tests/test_upload.py ......F.F.....                                      [100%]

=================================== FAILURES ===================================
___________________________ test_upload_rate_limited ___________________________
    assert resp.status_code == 429
E   assert 200 == 429
___________________________ test_limit_resets_after_window _____________________
E   AttributeError: 'RateLimiter' object has no attribute 'reset_at'
=========================== short test summary info ============================
FAILED tests/test_upload.py::test_upload_rate_limited - assert 200 == 429
FAILED tests/test_upload.py::test_limit_resets_after_window - AttributeError
========================= 2 failed, 12 passed in 1.84s ========================="""

_PYTEST_OK = """============================= test session starts ==============================
collected 14 items

tests/test_upload.py ..............                                      [100%]

============================== 14 passed in 1.71s =============================="""


def build_demo(start: str = "2026-03-02T09:00:00.000Z") -> tuple[TranscriptBuilder, TranscriptBuilder]:
    """The demo session: ``(main, subagent)`` builders.

    Five episodes: a feature with a failing then passing test run, a subagent that explores the
    code, an edit streak, a rejected command and an API error; a follow-up interrupted during a
    long command, whose result arrives late, after the next prompt (a second version of that
    episode); a manual ``/compact``; then a documentation task with a repeated search that ends
    with a long-running command still in flight.
    """
    m = TranscriptBuilder(DEMO_SESSION_ID, "/home/dev/shop-api", start=start)
    a = TranscriptBuilder(DEMO_SESSION_ID, "/home/dev/shop-api", start=start, agent_id=DEMO_AGENT_ID, context=9_500)
    m.meta("ai-title", aiTitle="Rate-limit the upload endpoint")

    # episode 1 -----------------------------------------------------------------------------
    m.prompt(
        "Add rate limiting to POST /api/upload (10 requests per minute per API key) and make the tests pass. Don't add new dependencies."
    )
    m.tick(2.5).thinking()
    m.tick(1.5)
    todo_in = {
        "todos": [
            {"content": "Find how middleware is wired", "status": "in_progress", "activeForm": "Finding middleware"},
            {"content": "Implement RateLimiter", "status": "pending", "activeForm": "Implementing RateLimiter"},
            {"content": "Run the upload tests", "status": "pending", "activeForm": "Running tests"},
        ]
    }
    m.tool(
        "TodoWrite", todo_in, "Todos have been modified successfully.", took=0.3, structured={"oldTodos": [], "newTodos": todo_in["todos"]}
    )
    m.tick(1.2)
    task_prompt = "Find where HTTP middleware is registered in this FastAPI app and whether anything already limits request rates. Report file paths and line numbers."
    task_id = m.tool_use("Task", {"description": "Explore middleware wiring", "prompt": task_prompt, "subagent_type": "Explore"})
    a.parent_tool_use_id = task_id
    # the subagent's own transcript, interleaved by time with the main file
    a.t = m.t
    a.tick(0.4).prompt(task_prompt)
    a.tick(2.0).tool(
        "Grep",
        {"pattern": "add_middleware", "path": "app"},
        "app/main.py:14:    app.add_middleware(CORSMiddleware, allow_origins=ORIGINS)\napp/main.py:15:    app.add_middleware(RequestIdMiddleware)",
        took=0.6,
        structured={"mode": "content", "numFiles": 1},
    )
    a.tick(1.5).tool(
        "Read",
        {"file_path": "/home/dev/shop-api/app/main.py"},
        "     1\tfrom fastapi import FastAPI\n     2\tfrom app.middleware import RequestIdMiddleware\n    14\t    app.add_middleware(CORSMiddleware)",
        took=0.4,
        structured={"type": "text", "file": {"filePath": "/home/dev/shop-api/app/main.py", "numLines": 40}},
    )
    a.tick(1.8).tool("Grep", {"pattern": "rate|throttle", "path": "app"}, "No matches found", took=0.5)
    a.tick(2.2).tool(
        "Read", {"file_path": "/home/dev/shop-api/app/middleware.py"}, "     1\tclass RequestIdMiddleware:\n     2\t    ...", took=0.3
    )
    a.tick(3.0).text(
        "Middleware is registered in app/main.py:14-15 (CORS, RequestId). Nothing limits request rates today; app/middleware.py holds the only custom middleware."
    )
    m.t = a.t
    m.tick(0.5).tool_result(
        task_id,
        "Middleware is registered in app/main.py:14-15 (CORS, RequestId). Nothing limits request rates today.\nagentId: "
        + DEMO_AGENT_ID
        + " (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 14210\ntool_uses: 4\nduration_ms: 11800</usage>",
        result={
            "status": "completed",
            "agentId": DEMO_AGENT_ID,
            "totalTokens": 14210,
            "totalToolUseCount": 4,
            "totalDurationMs": 11800,
            "content": [{"type": "text", "text": "Middleware is registered in app/main.py:14-15."}],
        },
    )
    m.tick(2.0).tool(
        "Read",
        {"file_path": "/home/dev/shop-api/app/routes/upload.py"},
        "     1\tfrom fastapi import APIRouter, UploadFile\n     2\t\n     3\trouter = APIRouter()\n     4\t\n     5\t@router.post('/api/upload')\n     6\tasync def upload(file: UploadFile, api_key: str = Header()):",
        took=0.2,
    )
    m.tick(3.5).tool(
        "Write",
        {"file_path": "/home/dev/shop-api/app/ratelimit.py", "content": "class RateLimiter: ..."},
        "File created successfully at: /home/dev/shop-api/app/ratelimit.py",
        took=0.2,
    )
    m.tick(2.0).tool(
        "Edit",
        {
            "file_path": "/home/dev/shop-api/app/routes/upload.py",
            "old_string": "async def upload(",
            "new_string": "@limiter.limit('10/minute')\nasync def upload(",
        },
        "The file /home/dev/shop-api/app/routes/upload.py has been updated.",
        took=0.2,
    )
    m.tick(1.5).tool(
        "Edit",
        {
            "file_path": "/home/dev/shop-api/app/routes/upload.py",
            "old_string": "from fastapi import",
            "new_string": "from app.ratelimit import limiter\nfrom fastapi import",
        },
        "The file /home/dev/shop-api/app/routes/upload.py has been updated.",
        took=0.2,
    )
    m.tick(1.0).tool(
        "TodoWrite",
        {
            "todos": [
                {"content": "Find how middleware is wired", "status": "completed", "activeForm": "Finding middleware"},
                {"content": "Implement RateLimiter", "status": "completed", "activeForm": "Implementing RateLimiter"},
                {"content": "Run the upload tests", "status": "in_progress", "activeForm": "Running tests"},
            ]
        },
        "Todos have been modified successfully.",
        took=0.2,
    )
    m.tick(1.0).tool(
        "Bash",
        {"command": "python -m pytest tests/test_upload.py -q", "description": "Run upload tests"},
        "Exit code 1\n" + _PYTEST_FAIL,
        is_error=True,
        took=9.0,
    )
    m.tick(3.0).text("Two failures: the limiter is not applied per API key, and `reset_at` is missing. Fixing both.")
    m.tick(2.0).tool(
        "Edit",
        {
            "file_path": "/home/dev/shop-api/app/ratelimit.py",
            "old_string": "class RateLimiter: ...",
            "new_string": "class RateLimiter:\n    def __init__(self, per_minute): ...",
        },
        "The file /home/dev/shop-api/app/ratelimit.py has been updated.",
        took=0.2,
    )
    m.tick(1.2).tool(
        "Edit",
        {
            "file_path": "/home/dev/shop-api/app/ratelimit.py",
            "old_string": "    def __init__(self, per_minute): ...",
            "new_string": "    def __init__(self, per_minute):\n        self.reset_at = {}",
        },
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        is_error=True,
        took=0.2,
    )
    m.tick(1.0).tool(
        "Read",
        {"file_path": "/home/dev/shop-api/app/ratelimit.py"},
        "     1\tclass RateLimiter:\n     2\t    def __init__(self, per_minute): ...",
        took=0.1,
    )
    m.tick(1.4).tool(
        "Edit",
        {
            "file_path": "/home/dev/shop-api/app/ratelimit.py",
            "old_string": "(self, per_minute): ...",
            "new_string": "(self, per_minute):\n        self.per_minute = per_minute\n        self.reset_at = {}",
        },
        "The file /home/dev/shop-api/app/ratelimit.py has been updated.",
        took=0.2,
    )
    m.tick(1.1).tool(
        "Edit",
        {
            "file_path": "/home/dev/shop-api/app/ratelimit.py",
            "old_string": "        self.reset_at = {}",
            "new_string": "        self.reset_at: dict[str, float] = {}\n        self.hits: dict[str, int] = {}",
        },
        "The file /home/dev/shop-api/app/ratelimit.py has been updated.",
        took=0.2,
    )
    m.tick(1.0).tool(
        "Bash",
        {"command": "pip install slowapi", "description": "Install slowapi"},
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
        is_error=True,
        took=2.5,
    )
    m.tick(2.0).text("Understood, no new dependency. Keeping the in-process limiter.")
    m.tick(1.0).api_error()
    m.tick(4.0).tool(
        "Bash", {"command": "python -m pytest tests/test_upload.py -q", "description": "Run upload tests"}, _PYTEST_OK, took=8.0
    )
    m.tick(1.0).tool(
        "Bash",
        {"command": "git commit -am 'Rate-limit POST /api/upload per API key'", "description": "Commit"},
        "[main 4e1d2a9] Rate-limit POST /api/upload per API key\n 3 files changed, 58 insertions(+), 2 deletions(-)",
        took=0.6,
    )
    m.tick(1.5).text(
        "Done: POST /api/upload is limited to 10 requests/minute per API key (app/ratelimit.py); all 14 upload tests pass; committed as 4e1d2a9."
    )
    m.system("turn_duration", durationMs=96_000)

    # episodes 2 and 3: interrupted with a call dangling, then redirected ---------------------
    m.tick(14.0).prompt("Make the limit configurable with RATE_LIMIT_PER_MINUTE and run the whole test suite.")
    m.tick(2.0).tool(
        "Grep", {"pattern": "os.environ|BaseSettings", "path": "app"}, "app/config.py:3:class Settings(BaseSettings):", took=0.4
    )
    m.tick(1.5).tool(
        "Edit",
        {
            "file_path": "/home/dev/shop-api/app/config.py",
            "old_string": "class Settings(BaseSettings):",
            "new_string": "class Settings(BaseSettings):\n    rate_limit_per_minute: int = 10",
        },
        "The file /home/dev/shop-api/app/config.py has been updated.",
        took=0.2,
    )
    m.tick(1.0)
    suite = m.tool_use("Bash", {"command": "python -m pytest -q", "description": "Run the whole test suite"})
    m.tick(12.0).interrupt()
    m.tick(3.0).prompt("stop, the full suite needs the database. Only run tests/test_upload.py and tests/test_config.py")
    # the killed command's result is written after the next prompt: a late result, which makes a
    # new version of episode 2 (its dangling call resolved)
    m.tick(0.8).tool_result(suite, "Exit code 137\nCommand was killed: interrupted by the user", is_error=True)
    m.tick(2.0).tool(
        "Bash",
        {"command": "python -m pytest tests/test_upload.py tests/test_config.py -q", "description": "Run two test files"},
        "================ 19 passed in 2.02s ================",
        took=6.0,
    )
    m.tick(1.0).text("19 passed. RATE_LIMIT_PER_MINUTE now sets the limit (default 10).")

    # episode 4: a manual compaction -----------------------------------------------------------------
    m.tick(20.0).slash("compact")
    m.tick(6.0).compaction(
        "1. Primary request: rate-limit POST /api/upload per API key, configurable via RATE_LIMIT_PER_MINUTE.\n2. Files: app/ratelimit.py (new), app/routes/upload.py, app/config.py.\n3. Tests: tests/test_upload.py and tests/test_config.py pass (19)."
    )

    # episode 5: docs, a repeated search, a long command still running ----------------------
    m.tick(10.0).prompt(
        "Document RATE_LIMIT_PER_MINUTE in the README, then start the dev server so I can try it. Literal text in my prompt: [bold]not markup[/bold] \x1b[31mnot red\x1b[0m"
    )
    m.tick(2.0).tool(
        "Read", {"file_path": "/home/dev/shop-api/README.md"}, "     1\t# shop-api\n     2\t\n     3\t## Configuration", took=0.2
    )
    for _ in range(3):
        m.tick(1.3).tool("Grep", {"pattern": "RATE_LIMIT", "path": "."}, "app/config.py:4:    rate_limit_per_minute: int = 10", took=0.3)
    m.tick(1.5).tool(
        "Edit",
        {
            "file_path": "/home/dev/shop-api/README.md",
            "old_string": "## Configuration",
            "new_string": "## Configuration\n\n- `RATE_LIMIT_PER_MINUTE` (default 10): uploads per minute per API key.",
        },
        "The file /home/dev/shop-api/README.md has been updated.",
        took=0.2,
    )
    m.tick(1.0).text("README updated. Starting the dev server.")
    m.tick(1.0).tool_use("Bash", {"command": "uvicorn app.main:app --reload --port 8000", "description": "Start the dev server"})
    return m, a


def subagent_meta(a: TranscriptBuilder) -> dict[str, Any]:
    """The ``agent-<id>.meta.json`` object of subagent builder ``a`` (late 2.1.x layout)."""
    return {"agentType": "Explore", "description": "Explore middleware wiring", "toolUseId": a.parent_tool_use_id, "spawnDepth": 1}


def write_demo(dest: Path, start: str = "2026-03-02T09:00:00.000Z") -> tuple[Path, Path]:
    """Write the demo's main and subagent transcripts under ``dest`` (Claude Code 2.1 layout:
    ``<sid>.jsonl`` and ``<sid>/subagents/agent-<id>.jsonl`` with its ``.meta.json``)."""
    m, a = build_demo(start)
    main = m.write(dest / f"{DEMO_SESSION_ID}.jsonl")
    sub = a.write(dest / DEMO_SESSION_ID / "subagents" / f"agent-{DEMO_AGENT_ID}.jsonl")
    sub.with_name(f"agent-{DEMO_AGENT_ID}.meta.json").write_bytes(orjson.dumps(subagent_meta(a)))
    return main, sub


if __name__ == "__main__":  # pragma: no cover
    main, sub = write_demo(DATA_DIR)
    print(main)
    print(sub)
