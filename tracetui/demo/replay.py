"""Replay the bundled demo session: append its records to fresh files at a realistic pace.

The demo is two transcripts the project wrote itself (``data/``, made by
``python -m tracetui.demo.build``): a main session and one subagent. :class:`DemoReplay` lays out
a Claude Code projects folder in a temporary directory and appends the records of both files in
time order from a background thread, stamping each with the wall-clock time it is written, so
ages and stalls in the app are real.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import orjson

from tracetui.demo.build import DATA_DIR, DEMO_AGENT_ID, DEMO_SESSION_ID

__all__ = ["DemoReplay", "demo_files"]

#: the encoded project folder the demo lives in (``/home/dev/shop-api``)
PROJECT_DIR = "-home-dev-shop-api"


def demo_files(data_dir: Path = DATA_DIR) -> tuple[Path, Path, Path]:
    """The shipped demo files: main transcript, subagent transcript, subagent meta (paths)."""
    sub = data_dir / DEMO_SESSION_ID / "subagents"
    return data_dir / f"{DEMO_SESSION_ID}.jsonl", sub / f"agent-{DEMO_AGENT_ID}.jsonl", sub / f"agent-{DEMO_AGENT_ID}.meta.json"


def _parse(ts: str | None) -> float | None:
    if not ts:
        return None
    try:
        return datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


def _iso(t: float) -> str:
    d = datetime.fromtimestamp(t, UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"


class DemoReplay:
    """Appends the demo's records to files under ``root`` (default: a new temporary folder).

    ``speed`` scales the recorded gaps between records (0.35: about a minute for the whole
    demo); each gap is clamped to ``[min_gap, max_gap]`` seconds. :meth:`prepare` writes the
    first ``head`` records synchronously, so the main file exists before anyone watches it;
    :meth:`start` appends the rest from a daemon thread; :meth:`stop` ends it. ``clock`` and
    ``sleep`` are injectable for tests.
    """

    def __init__(
        self,
        root: Path | None = None,
        speed: float = 0.35,
        min_gap: float = 0.05,
        max_gap: float = 3.0,
        head: int = 2,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self._own_root = root is None
        self.root = Path(tempfile.mkdtemp(prefix="tracetui-demo-")) if root is None else Path(root)
        self.project = self.root / "projects" / PROJECT_DIR
        self.main_path = self.project / f"{DEMO_SESSION_ID}.jsonl"
        self.agent_path = self.project / DEMO_SESSION_ID / "subagents" / f"agent-{DEMO_AGENT_ID}.jsonl"
        self.speed = speed
        self.min_gap = min_gap
        self.max_gap = max_gap
        self.head = head
        self.clock = clock
        self._stop = threading.Event()
        self._sleep = sleep or (lambda s: self._stop.wait(s))
        self._thread: threading.Thread | None = None
        #: records written so far, and in all
        self.written = 0
        self.total = 0
        self.done = threading.Event()
        self._queue: list[tuple[float | None, Path, dict]] = []

    def _load(self) -> list[tuple[float | None, Path, dict]]:
        main, sub, _meta = demo_files()
        out: list[tuple[float, int, int, Path, dict]] = []
        for order, (src, dest) in enumerate(((main, self.main_path), (sub, self.agent_path))):
            last = 0.0
            for n, line in enumerate(src.read_bytes().splitlines()):
                if not line.strip():
                    continue
                rec = orjson.loads(line)
                t = _parse(rec.get("timestamp"))
                last = t if t is not None else last
                out.append((last, order, n, dest, rec))
        # time order; within one instant, main before subagent, then file order
        out.sort(key=lambda x: (x[0], x[1], x[2]))
        return [(t, dest, rec) for t, _o, _n, dest, rec in out]

    def _write(self, dest: Path, rec: dict) -> None:
        if "timestamp" in rec:
            rec = {**rec, "timestamp": _iso(self.clock())}
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest == self.agent_path:
                _m, _s, meta = demo_files()
                shutil.copyfile(meta, dest.with_name(meta.name))
        with open(dest, "ab") as f:
            f.write(orjson.dumps(rec) + b"\n")
        self.written += 1

    def prepare(self) -> Path:
        """Create the folders and write the first records; returns the main transcript path."""
        self.project.mkdir(parents=True, exist_ok=True)
        self._queue = self._load()
        self.total = len(self._queue)
        self.main_path.touch()
        for _t, dest, rec in self._queue[: self.head]:
            self._write(dest, rec)
        return self.main_path

    def run(self) -> None:
        """Append the remaining records, sleeping the scaled gaps (the thread's body)."""
        prev = self._queue[self.head - 1][0] if 0 < self.head <= len(self._queue) else None
        for t, dest, rec in self._queue[self.head :]:
            if self._stop.is_set():
                return
            gap = 0.0 if prev is None or t is None else max(0.0, t - prev) * self.speed
            self._sleep(min(self.max_gap, max(self.min_gap, gap)))
            if self._stop.is_set():
                return
            self._write(dest, rec)
            prev = t
        self.done.set()

    def start(self) -> Path:
        """:meth:`prepare`, then append the rest from a daemon thread; returns the main path."""
        path = self.prepare()
        self._thread = threading.Thread(target=self.run, name="tracetui-demo", daemon=True)
        self._thread.start()
        return path

    def stop(self, cleanup: bool = True) -> None:
        """Stop appending; with ``cleanup``, remove the temporary folder this replay made."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if cleanup and self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)
