"""Time ``tracetui report daily`` over 1,000 sessions with a warm cross-session index.

Usage: ``python bench/report.py [--sessions 1000] [--codex 200] [--out DIR] [--runs 5]``

Generates ``--sessions`` small sessions with tracetui/demo/transcript.py's builder in
``--out`` (default: a fresh folder under the system temp dir) as ``<out>/claude/projects``: 20
projects, 30 days, three models, a few prompts and tool calls each, a subagent file in one
session of ten, and one session of twenty a resumed one whose file starts with a copy of
another's records (message ids repeated across files). And ``--codex`` Codex CLI sessions
(tracetui/demo/codex_records.py's builder) in ``<out>/codex`` (``$CODEX_HOME``): dated
``sessions/YYYY/MM/DD/`` rollouts and a few ``archived_sessions/``, each with a first line as
long as a real one (its ``base_instructions``, ~20 KB), a few turns, token totals (some written
twice), and one session of five a child rollout with the replayed copy of its parent. Then:

* cold: ``tracetui report daily`` with an empty index (builds it), in a fresh process;
* warm: the same again, nothing changed (median of ``--runs``), in a fresh process: the figure
  the target is about (it includes Python's start-up and tracetui's imports);
* warm in-process: :func:`refresh` + :func:`build_report` + the table, in this process;
* after an append: one session grown by a turn, then a report (one file read from its resume
  point); and one rollout grown by a turn (read from its resume point too).

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

from tracetui.demo.codex_records import RolloutBuilder  # noqa: E402
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


#: what makes a rollout's first line as long as a real one (Codex CLI 0.118-0.139: ~20-30 KB)
BASE_INSTRUCTIONS = "You are Codex, a coding agent. " * 650


def _rollout(i: int) -> tuple[RolloutBuilder, RolloutBuilder | None]:
    """Codex session ``i``: its main rollout and, one in five, a child rollout."""
    day = 1 + i % 30
    b = RolloutBuilder(
        f"0199c0de-{i:04x}-7000-8000-{i:012x}", start=f"2026-10-{day:02d}T{8 + i % 12:02d}:30:00.000Z", cwd=f"/work/project-{i % 20}"
    )
    b.meta["base_instructions"] = {"text": BASE_INSTRUCTIONS}
    child = None
    for k in range(3):
        b.turn(f"task {k} of codex session {i}: make the build pass in module_{i % 50}")
        b.exec(f"pytest tests/test_module_{i % 50}.py -q", "1 failed", exit_code=1)
        b.tokens(20_000 + 1_000 * k, 15_000, 600, reasoning=200, repeat=k == 1)
        b.patch(f"*** Update File: src/module_{i % 50}.py\n@@\n-a\n+b\n")
        b.tokens(8_000, 7_000, 300)
        b.say("Fixed.").done()
        b.tick(30)
        if k == 1 and i % 5 == 0:
            child = b.child(f"0199c0de-{i:04x}-7000-9000-{i:012x}")
            b.spawn(child.thread_id, f"review codex session {i}")
            child.tick(5).turn(f"review codex session {i}")
            child.call("exec_command", {"cmd": "git diff --stat"}, "1 file changed")
            child.tokens(5_000, 1_000, 200).done("Looks good.")
    return b, child


def generate_codex(home: Path, n: int) -> int:
    """Write ``n`` Codex sessions under ``home`` (a ``$CODEX_HOME``), one in ten archived;
    returns the bytes written."""
    total = 0
    for i in range(n):
        b, child = _rollout(i)
        for r in (b, child):
            if r is None:
                continue
            stamp = r.lines[0]["timestamp"]  # type: ignore[index]
            name = f"rollout-{stamp[:19].replace(':', '-')}-{r.thread_id}.jsonl"
            folder = home / "archived_sessions" if i % 10 == 9 else home / "sessions" / stamp[:4] / stamp[5:7] / stamp[8:10]
            total += r.write(folder / name).stat().st_size
    return total


def _cli(env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tracetui.cli", "report", "daily"], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--codex", type=int, default=200, help="Codex CLI sessions besides (default 200)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--runs", type=int, default=5)
    ns = ap.parse_args()
    out = ns.out or Path(tempfile.mkdtemp(prefix="tracetui-bench-report-"))
    claude, cache, codex = out / "claude", out / "cache", out / "codex"
    env = {
        **os.environ,
        "CLAUDE_CONFIG_DIR": str(claude),
        "TRACETUI_CACHE_DIR": str(cache),
        "CODEX_HOME": str(codex),
        "PYTHONPATH": str(ROOT),
    }
    # an installed tracetui runs from compiled bytecode (pip compiles it): so do the timed runs,
    # even where the environment says not to write it (the first run writes __pycache__)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ.update(CLAUDE_CONFIG_DIR=str(claude), TRACETUI_CACHE_DIR=str(cache), CODEX_HOME=str(codex))
    t = time.perf_counter()
    size = generate(claude / "projects", ns.sessions)
    files = sum(1 for _ in (claude / "projects").rglob("*.jsonl"))
    print(f"generated {ns.sessions:,} sessions ({files:,} files, {size / 1e6:.1f} MB) in {time.perf_counter() - t:.1f} s under {claude}")
    t = time.perf_counter()
    size = generate_codex(codex, ns.codex)
    files = sum(1 for _ in codex.rglob("*.jsonl"))
    print(
        f"generated {ns.codex:,} Codex sessions ({files:,} rollouts, {size / 1e6:.1f} MB) in {time.perf_counter() - t:.1f} s under {codex}"
    )

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
    rollout = max(codex.rglob("*.jsonl"), key=lambda p: p.stat().st_size, default=None)
    if rollout is not None:
        r = RolloutBuilder("0199c0de-ffff-7000-8000-000000000000", start="2026-10-31T11:00:00.000Z")
        r.lines.clear()
        r.turn("one more codex turn")
        r.tokens(1_000, 0, 10).done()
        with rollout.open("ab") as f:
            f.write(r.data())
        after = _cli(env)
        print(f"report daily after one rollout grew by a turn ({rollout.stat().st_size / 1e3:.0f} KB): {after:.3f} s")

    med = statistics.median(warm)
    n = f"{ns.sessions:,} sessions" + (f" and {ns.codex:,} Codex sessions" if ns.codex else "")
    print(f"target: warm report over {n} <= {TARGET_S:.1f} s: {'met' if med <= TARGET_S else 'NOT met'} ({med:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
