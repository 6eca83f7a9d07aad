"""Time ``tracetui report daily`` over 1,000 sessions with a warm cross-session index.

Usage: ``python bench/report.py [--sessions 1000] [--out DIR] [--runs 5]``

Generates ``--sessions`` small sessions with tracetui/demo/transcript.py's builder in
``--out`` (default: a fresh folder under the system temp dir) as ``<out>/claude/projects``: 20
projects, 30 days, three models, a few prompts and tool calls each, a subagent file in one
session of ten, and one session of twenty a resumed one whose file starts with a copy of
another's records (message ids repeated across files). Then:

* cold: ``tracetui report daily`` with an empty index (builds it), in a fresh process;
* warm: the same again, nothing changed (median of ``--runs``), in a fresh process: the figure
  the target is about (it includes Python's start-up and tracetui's imports);
* warm in-process: :func:`refresh` + :func:`build_report` + the table, in this process;
* after an append: one session grown by a turn, then a report (one file read from its resume
  point).

Target (issue 12): a warm report over 1,000 sessions within 1 s. Prints the figures and
whether the target is met.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tracetui.demo.transcript import TranscriptBuilder  # noqa: E402

MODELS = ("claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5")
TARGET_S = 1.0


def _session(i: int) -> TranscriptBuilder:
    day = 1 + i % 30
    b = TranscriptBuilder(
        session_id=f"{i:08x}-0000-4000-8000-{i:012x}",
        cwd=f"/work/project-{i % 20}",
        model=MODELS[i % 3],
        start=f"2026-10-{day:02d}T{8 + i % 12:02d}:00:00.000Z",
    )
    for k in range(3):
        b.prompt(f"task {k} of session {i}: fix the failing test in module_{i % 50}")
        with b.message():
            b.thinking()
            b.text("Looking into it.")
            tid = b.tool_use("Bash", {"command": f"pytest tests/test_module_{i % 50}.py -q"})
        b.tick(2)
        b.tool_result(tid, "1 failed")
        b.tool("Edit", {"file_path": f"/work/project-{i % 20}/module_{i % 50}.py", "old_string": "a", "new_string": "b"}, "ok")
        b.text("Fixed.")
        b.tick(30)
    if i % 10 == 0:
        task = b.tool_use("Task", {"description": "review", "prompt": f"review session {i}", "subagent_type": "general-purpose"})
        sub = b.subagent(f"{i:016x}", task)
        sub.prompt(f"review session {i}")
        sub.tool("Read", {"file_path": "/work/README.md"}, "ok")
        sub.text("Looks good.")
        b.sync(sub).tick(1)
        b.task_result(sub, "Looks good.")
    return b


def generate(root: Path, n: int) -> int:
    """Write ``n`` sessions under ``root`` (a projects folder); returns the bytes written."""
    total = 0
    prev: bytes | None = None
    for i in range(n):
        b = _session(i)
        dest = root / f"-work-project-{i % 20}"
        main = b.write_session(dest)
        if i % 20 == 19 and prev is not None:
            main.write_bytes(prev + main.read_bytes())  # a resumed session: the earlier records copied
        prev = main.read_bytes()
        total += main.stat().st_size + sum(p.stat().st_size for p in (dest / b.session_id).rglob("*.jsonl"))
    return total


def _cli(env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tracetui.cli", "report", "daily"], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--runs", type=int, default=5)
    ns = ap.parse_args()
    out = ns.out or Path(tempfile.mkdtemp(prefix="tracetui-bench-report-"))
    claude, cache = out / "claude", out / "cache"
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(claude), "TRACETUI_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    # an installed tracetui runs from compiled bytecode (pip compiles it): so do the timed runs,
    # even where the environment says not to write it (the first run writes __pycache__)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ.update(CLAUDE_CONFIG_DIR=str(claude), TRACETUI_CACHE_DIR=str(cache))
    t = time.perf_counter()
    size = generate(claude / "projects", ns.sessions)
    files = sum(1 for _ in (claude / "projects").rglob("*.jsonl"))
    print(f"generated {ns.sessions:,} sessions ({files:,} files, {size / 1e6:.1f} MB) in {time.perf_counter() - t:.1f} s under {claude}")

    floor = []
    for _ in range(ns.runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import tracetui.cli"], env=env, check=True)
        floor.append(time.perf_counter() - t)
    cold = _cli(env)
    print(f"cold report daily (builds the index):      {cold:.2f} s")
    warm = [_cli(env) for _ in range(ns.runs)]
    print(f"warm report daily, fresh process (median of {ns.runs}): {statistics.median(warm):.3f} s (worst {max(warm):.3f} s)")
    print(f"  of which Python start-up and 'import tracetui.cli' (median of {ns.runs}): {statistics.median(floor):.3f} s")

    from tracetui.session.index import build_report, refresh
    from tracetui.views.report import render_report

    inproc = []
    for _ in range(ns.runs):
        t = time.perf_counter()
        index, stats = refresh()
        rep = build_report(index.conn, "daily")
        render_report(rep)
        inproc.append(time.perf_counter() - t)
        index.conn.close()
    t = time.perf_counter()
    index, stats = refresh()
    t_refresh = time.perf_counter() - t
    t = time.perf_counter()
    rep = build_report(index.conn, "daily")
    t_query = time.perf_counter() - t
    print(
        f"warm in-process (median of {ns.runs}): {statistics.median(inproc):.3f} s "
        f"(stat {stats.files:,} files {t_refresh * 1000:.0f} ms, {rep.total.messages:,} API messages grouped and priced {t_query * 1000:.0f} ms)"
    )
    index.conn.close()

    grown = next((claude / "projects").rglob("*.jsonl"))
    b = TranscriptBuilder(session_id="grown", start="2026-10-31T10:00:00.000Z")
    b.prompt("one more turn")
    b.text("Done.")
    with grown.open("ab") as f:
        f.write(b.data())
    after = _cli(env)
    print(f"report daily after one session grew by a turn: {after:.3f} s")

    med = statistics.median(warm)
    print(f"target: warm report over {ns.sessions:,} sessions <= {TARGET_S:.1f} s: {'met' if med <= TARGET_S else 'NOT met'} ({med:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
