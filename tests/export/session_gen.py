"""A generated session for the export tests (tracetui.demo builders, nothing copied): two
episodes; the first with a Task call whose subagent runs a Read, then three failing Bash calls
in a row (a tool error and the error-streak anomaly) and a fix; the second a short answer.
A secret sits in the first prompt and in a tool result, so --content shows it masked."""

from __future__ import annotations

from pathlib import Path

from tracetui.demo.transcript import TranscriptBuilder

SESSION = "0e7a0c1e-0000-4000-8000-00000000e701"
AGENT = "a1b2c3d4e5"
#: a fake key the redaction knows (an Anthropic API key's shape); never a real one
SECRET = "sk-ant-api03-" + "Zx9_kLm2-Qw8" * 7 + "AA"


START = "2026-03-02T09:00:00.000Z"


def build(dest: Path, second_prompt: bool = True, start: str = START) -> tuple[Path, TranscriptBuilder]:
    """Write the session under ``dest`` (main file and subagent); returns the main path and
    the builder (for its ids). The same arguments give the same bytes; without
    ``second_prompt`` the file is the first part of the one with it."""
    b = TranscriptBuilder(session_id=SESSION, start=start)
    b.prompt(f"fix the failing test; the key is {SECRET}")
    b.tick(2).text("Looking at the code first.")
    tid = b.tool_use("Task", {"description": "Find the test", "prompt": "find the failing test", "subagent_type": "Explore"})
    sub = b.subagent(AGENT, tid, agent_type="Explore", description="Find the test")
    sub.prompt("find the failing test")
    sub.tick(1).tool("Read", {"file_path": "/home/dev/shop-api/tests/test_cart.py"}, "def test_total(): ...", took=0.5)
    sub.tick(1).text("It is tests/test_cart.py::test_total.")
    b.sync(sub).tick(0.5)
    b.task_result(sub, "It is tests/test_cart.py::test_total.")
    for _ in range(3):
        b.tick(1).tool("Bash", {"command": "pytest -q"}, f"FAILED tests/test_cart.py::test_total token={SECRET}", is_error=True, took=2)
    b.tick(1).tool("Edit", {"file_path": "cart.py", "old_string": "a", "new_string": "b"}, "ok", took=0.2)
    b.tick(1).tool("Bash", {"command": "pytest -q"}, "1 passed", took=2)
    b.tick(1).text("Fixed: the total now rounds once.")
    if second_prompt:
        b.tick(30).prompt("thanks, commit it")
        b.tick(2).tool("Bash", {"command": "git commit -am fix"}, "[main 1a2b3c4] fix", took=1)
        b.tick(1).text("Committed.")
    return b.write_session(dest), b
