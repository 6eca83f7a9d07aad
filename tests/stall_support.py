"""The user trial's stalled session, generated: two files edited five times each in the open
episode (two open edit thrashes), one in the episode before (cleared), and a Bash call pending
since the last record. Once ``now`` is five minutes past that record the stall detector fires
too, and every surface must count 3 open, 1 cleared, and list each of them."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from tracetui.demo.transcript import TranscriptBuilder

SID = "870afbf1-0000-4000-8000-000000000001"
CWD = "/home/dev/shop-api"
#: the transcript's first record
START = "2026-03-02T09:00:00.000Z"


def thrash_stalled(start: str = START) -> TranscriptBuilder:
    """The session's builder (its clock ends at the last record: the pending Bash call)."""
    b = TranscriptBuilder(session_id=SID, start=start, cwd=CWD)
    b.prompt("Refactor the billing")
    for i in range(5):
        b.tick(5).tool("Edit", {"file_path": f"{CWD}/old.py", "old_string": f"a{i}", "new_string": f"b{i}"}, "ok", took=0.5)
    b.tick(2).text("Done.")
    b.tick(0.2).system("turn_duration", durationMs=3200)
    b.tick(10).prompt("Now the invoices")
    for name in ("inv.py", "tax.py"):
        for i in range(5):
            b.tick(5).tool("Edit", {"file_path": f"{CWD}/{name}", "old_string": f"a{i}", "new_string": f"b{i}"}, "ok", took=0.5)
    b.tick(1).tool_use("Bash", {"command": "pytest -q"})
    return b


def write_thrash_stalled(root: Path, now: float, quiet: float) -> Path:
    """The session under ``root/projects/-home-dev-shop-api/`` with its last record (and its
    file time) ``quiet`` seconds before ``now`` (epoch seconds); returns its path."""
    probe = thrash_stalled()
    span = probe.t.timestamp() - probe.t0.timestamp()
    t0 = now - quiet - span
    start = datetime.fromtimestamp(t0, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(t0 * 1000) % 1000:03d}Z"
    b = thrash_stalled(start)
    p = b.write(root / "projects" / "-home-dev-shop-api" / f"{SID}.jsonl")
    t = b.t.timestamp()
    os.utime(p, (t, t))
    return p
