"""Generated sessions in each fleet state, with their last record's time, for the fleet tests.

Each builder writes a session under ``root`` (``projects/<project>/<id>.jsonl``) and sets its
file time (``os.utime``) to its last record's, so the test chooses ``now`` and with it the state.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from tracetui.demo.transcript import TranscriptBuilder
from tracetui.session.reader import SessionReader

#: the first record of every generated session
START = "2026-03-02T09:00:00.000Z"
T0 = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC).timestamp()


def state_of(path: Path):
    r = SessionReader(path)
    r.poll()
    return r.snapshot()


def last_time(b: TranscriptBuilder) -> float:
    """The builder's clock (its last record's time), epoch seconds."""
    return b.t.timestamp()


def write(b: TranscriptBuilder, root: Path, project: str, sid: str) -> Path:
    """Write ``b`` as ``root/projects/<project>/<sid>.jsonl`` with its mtime at its clock."""
    p = b.write(root / "projects" / project / f"{sid}.jsonl")
    t = last_time(b)
    os.utime(p, (t, t))
    return p


def iso(t: float) -> str:
    """Epoch seconds as a transcript timestamp."""
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(t * 1000) % 1000:03d}Z"


#: every state's builder, by the state it is in shortly after its last record (see each)
ALL = ("working", "permission", "turn_ended", "failing", "stalled", "interrupted")


def builder(sid: str, start: str = START, cwd: str = "/home/dev/shop-api") -> TranscriptBuilder:
    return TranscriptBuilder(session_id=sid, start=start, cwd=cwd)


def working(sid: str = "11111111-0000-4000-8000-000000000001", start: str = START) -> TranscriptBuilder:
    """A prompt and a read answered, assistant text last (records just written)."""
    b = builder(sid, start=start)
    b.prompt("Add a health endpoint")
    b.tick(2).tool("Read", {"file_path": "/home/dev/shop-api/app.py"}, "app = Flask()", took=0.5)
    b.tick(1).thinking()
    return b


def permission(sid: str = "22222222-0000-4000-8000-000000000002", start: str = START) -> TranscriptBuilder:
    """A Bash call with no result: a permission prompt once the file is quiet."""
    b = builder(sid, start=start)
    b.prompt("Deploy the staging build")
    b.tick(2).tool_use("Bash", {"command": "./deploy.sh staging"})
    return b


def turn_ended(sid: str = "33333333-0000-4000-8000-000000000003", marker: bool = True, start: str = START) -> TranscriptBuilder:
    """An answer, then (``marker``) the ``system/turn_duration`` record of the turn's end."""
    b = builder(sid, start=start)
    b.prompt("What does the cache layer do?")
    b.tick(3).text("It keeps rendered pages for five minutes.")
    if marker:
        b.tick(0.2).system("turn_duration", durationMs=3200)
    return b


def failing(sid: str = "44444444-0000-4000-8000-000000000004", start: str = START) -> TranscriptBuilder:
    """Three failing tool results in a row (an error streak), then a Read in flight."""
    b = builder(sid, start=start)
    b.prompt("Make the tests pass")
    for i in range(3):
        b.tick(1).tool("Bash", {"command": f"pytest -q tests/test_{i}.py"}, "Exit code 1\n2 failed", is_error=True, took=2)
    b.tick(1).tool_use("Read", {"file_path": "/home/dev/shop-api/tests/test_app.py"})
    return b


def stalled(sid: str = "55555555-0000-4000-8000-000000000005", start: str = START) -> TranscriptBuilder:
    """A Read in flight (a tool that never asks): quiet means stalled, not a prompt."""
    b = builder(sid, start=start)
    b.prompt("Summarise the log")
    b.tick(1).tool_use("Read", {"file_path": "/var/log/big.log"})
    return b


def interrupted(sid: str = "66666666-0000-4000-8000-000000000006", start: str = START) -> TranscriptBuilder:
    """A Bash call interrupted by the user: it dangles, but nothing is in flight."""
    b = builder(sid, start=start)
    b.prompt("Run the migrations")
    b.tick(1).tool_use("Bash", {"command": "alembic upgrade head"})
    b.tick(3).interrupt()
    return b


def busy(sid: str, minutes: int, per_minute: int = 2, start: str = START) -> TranscriptBuilder:
    """``minutes`` minutes of work, ``per_minute`` answered calls a minute (usage each)."""
    b = builder(sid, start=start)
    b.prompt("Refactor the billing module")
    for _ in range(minutes):
        for _ in range(per_minute):
            b.tick(60 / per_minute / 2).tool("Grep", {"pattern": "invoice"}, "billing.py:3", took=60 / per_minute / 2)
    return b


def ended(sid: str = "77777777-0000-4000-8000-000000000007", start: str = START) -> TranscriptBuilder:
    """A finished turn long ago (ended by the time the test looks)."""
    b = builder(sid, start=start, cwd="/home/dev/old-tool")
    b.prompt("Tidy the README")
    b.tick(2).tool("Edit", {"file_path": "/home/dev/old-tool/README.md", "old_string": "a", "new_string": "b"}, "ok", took=0.5)
    b.tick(1).text("Done.")
    return b


#: the fleet of :func:`write_fleet`: builder, seconds from its last record to ``now``, its
#: working folder, and the state it is in at ``now``
FLEET = (
    ("turn_ended", 120, "/home/dev/cache-docs", "waiting on you"),
    ("permission", 60, "/home/dev/deploy", "waiting on you"),
    ("failing", 2, "/home/dev/shop-api", "failing"),
    ("stalled", 400, "/home/dev/logs", "stalled"),
    ("working", 3, "/home/dev/health", "working"),
    ("interrupted", 100, "/home/dev/migrate", "idle"),
    ("ended", 4 * 3600, "/home/dev/old-tool", "ended"),
)


def at(name: str, after: float, now: float, sid: str, cwd: str) -> TranscriptBuilder:
    """Builder ``name`` made again so that its last record is ``after`` seconds before ``now``."""
    fn = globals()[name]
    probe = fn(sid=sid)
    span = last_time(probe) - probe.t0.timestamp()
    b = fn(sid=sid, start=iso(now - after - span))
    if cwd:
        for rec in b.records:
            if "cwd" in rec:
                rec["cwd"] = cwd
    return b


def write_fleet(root: Path, now: float) -> list[Path]:
    """One session per row of :data:`FLEET` under ``root/projects``, file times at their last record."""
    out = []
    for i, (name, after, cwd, _state) in enumerate(FLEET):
        sid = f"{i:x}{i:x}{i:x}{i:x}f1ee-0000-4000-8000-00000000000{i:x}"
        b = at(name, after, now, sid, cwd)
        out.append(write(b, root, "-home-dev-" + cwd.rsplit("/", 1)[-1], sid))
    return out
