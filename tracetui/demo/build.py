"""The bundled demo session, written with :class:`~tracetui.demo.transcript.TranscriptBuilder`.

``python -m tracetui.demo.build`` rewrites the demo files shipped in ``tracetui/demo/data/``: a
main transcript and one subagent's, in the Claude Code 2.1 layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracetui.demo.records import REJECTED
from tracetui.demo.transcript import TranscriptBuilder

# TranscriptBuilder is re-exported: tests and benches import it from here
__all__ = ["TranscriptBuilder", "build_demo", "write_demo", "subagent_meta", "DEMO_SESSION_ID", "DEMO_AGENT_ID", "DATA_DIR"]

DEMO_SESSION_ID = "d3m0c0de-5e55-4a1e-9d00-7e5717ace001"
DEMO_AGENT_ID = "a7f3c2e91d"
DATA_DIR = Path(__file__).resolve().parent / "data"


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
    # the subagent's own transcript, interleaved by time with the main file
    a = m.subagent(DEMO_AGENT_ID, task_id, agent_type="Explore", description="Explore middleware wiring")
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
    m.sync(a).tick(0.5).task_result(
        a,
        "Middleware is registered in app/main.py:14-15 (CORS, RequestId). Nothing limits request rates today.",
        content="Middleware is registered in app/main.py:14-15.",
        total_tokens=14210,
        duration_ms=11800,
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
        REJECTED,
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
    return a.agent_meta()


def write_demo(dest: Path, start: str = "2026-03-02T09:00:00.000Z") -> tuple[Path, Path]:
    """Write the demo's main and subagent transcripts under ``dest`` (Claude Code 2.1 layout:
    ``<sid>.jsonl`` and ``<sid>/subagents/agent-<id>.jsonl`` with its ``.meta.json``); returns
    both paths."""
    m, _ = build_demo(start)
    return m.write_session(dest), dest / DEMO_SESSION_ID / "subagents" / f"agent-{DEMO_AGENT_ID}.jsonl"


if __name__ == "__main__":  # pragma: no cover
    main, sub = write_demo(DATA_DIR)
    print(main)
    print(sub)
