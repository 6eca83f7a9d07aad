"""Benchmark the cold fold behind ``tracetui state`` against ``orjson.loads`` of every line.

Builds a transcript of at least ``--mb`` megabytes (10^6 bytes) in a temporary folder, by
concatenating the files of ``$TRACETUI_CORPUS`` or ``../shared/corpus`` when present (else from ``bench/gen.py``), then
in the same run, each in a fresh subprocess (so imports and earlier runs do not count):

* the baseline: read the file and ``orjson.loads`` every line;
* the fold: ``tracetui.session.open.load_state`` without the persistent cache (SessionReader poll +
  snapshot, as ``tracetui state --no-cache`` does);
* the same fold with the ``FileFold.derive`` hook off (episodes, facts, anomalies), to show
  the share of each;
* the fold of a ``--rss-mb`` file, for its peak RSS (``os.wait4`` rusage of that child);
* the stages of the fold, each cumulative in its own child: the reader alone (``Tailer.lines``), then
  with the msgspec decode of every record and content block, then with the SHA-256 of every payload.
  Differences between these runs and the fold's give the time per record of each stage, so the
  bench shows where the time goes, not only how much there is.

Prints MB/s of both, their ratio, and peak RSS (MB = 2^20 bytes for RSS). Targets (issue 2 §8):
the fold at least as fast as the baseline; peak RSS under 200 MB while folding 500 MB.

Usage: ``python bench/fold.py [--mb 300] [--rss-mb 500] [--source corpus|gen] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the corpus folder: ``$TRACETUI_CORPUS`` when set (as the tests use it), else ``../shared/corpus``
CORPUS = Path(os.environ["TRACETUI_CORPUS"]).expanduser() if os.environ.get("TRACETUI_CORPUS") else ROOT.parent / "shared" / "corpus"

BASELINE = r"""
import json, sys, time, orjson
path = sys.argv[1]
t = time.perf_counter()
c = time.process_time()
n = bad = 0
with open(path, "rb") as f:
    held = b""
    while True:
        data = f.read(8 << 20)
        if not data:
            break
        buf = held + data if held else data
        mv = memoryview(buf)
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            try:
                orjson.loads(mv[start:nl])
                n += 1
            except orjson.JSONDecodeError:
                bad += 1
            start = nl + 1
        held = bytes(mv[start:])
        mv.release()
print(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - c, "lines": n, "bad": bad}))
"""

FOLD = r"""
import json, sys, time
from pathlib import Path
from tracetui.session.open import load_state
import tracetui.model.pricing  # import the price table up front: timed is the fold, not imports
import genai_prices  # (pricing.py imports it lazily, at the first price: ~0.1 s of imports, not fold)
import tracetui.model.fold as fold_mod
if len(sys.argv) > 2 and sys.argv[2] == "core":  # the fold without its derive hook (episodes, facts, anomalies)
    _init = fold_mod.FileFold.__init__
    def _no_derive(self, *a, **k):
        _init(self, *a, **k)
        self.derive = None
    fold_mod.FileFold.__init__ = _no_derive
path = Path(sys.argv[1])
t = time.perf_counter()
c = time.process_time()
reader, state = load_state([path], subagents=True, use_cache=False)
dt = time.perf_counter() - t
print(json.dumps({"seconds": dt, "cpu": time.process_time() - c, "records": state.counters.records, "events": sum(len(l) for l in state.ledgers)}))
"""


STAGES = r"""
import hashlib, json, sys, time
from tracetui.ingest.decode import decode_block, decode_line, decode_record_fast
from tracetui.ingest.tail import Tailer
path, upto = sys.argv[1], sys.argv[2]
decode, digest = upto in ("decode", "hash"), upto == "hash"
sha = hashlib.sha256
t = time.perf_counter()
c = time.process_time()
n = 0
for line_no, offset, buf in Tailer(path).lines():
    n += 1
    if not decode or not buf:
        continue
    try:
        recs = [decode_record_fast(buf)] if buf[0] == 123 and buf[-1] == 125 else None
        payloads = [buf]
    except Exception:
        recs = None
    if recs is None:
        items = [(r, p) for _, r, p in decode_line(buf) if hasattr(r, "message")]
        recs, payloads = [r for r, _ in items], [p for _, p in items]
    for rec, payload in zip(recs, payloads):
        msg = rec.message
        content = getattr(msg, "content", None)
        if isinstance(content, list) and content:
            for raw in content:
                decode_block(raw)
                if digest:
                    sha(raw).digest()
        elif digest:
            sha(payload).digest()
print(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - c, "lines": n}))
"""


def build(out: Path, mb: float, source: str) -> str:
    """Write at least ``mb`` MB of transcript to ``out``; returns a description of the input."""
    target = int(mb * 1_000_000)
    files = sorted(CORPUS.rglob("*.jsonl")) if source == "corpus" and CORPUS.is_dir() else []
    if not files and source == "corpus" and os.environ.get("TRACETUI_CORPUS"):
        sys.exit(f"bench/fold.py: TRACETUI_CORPUS={CORPUS}: no *.jsonl file under it")
    if not files:
        sys.path.insert(0, str(ROOT / "bench"))
        from gen import generate

        generate(out, mb)
        return "generated by bench/gen.py"
    blobs = []
    for p in files:
        b = p.read_bytes()
        blobs.append(b if b.endswith(b"\n") else b + b"\n")
    corpus_bytes = sum(len(b) for b in blobs)
    written = 0
    rounds = 0
    with open(out, "wb") as f:
        while written < target:
            for b in blobs:
                f.write(b)
                written += len(b)
                if written >= target:
                    break
            rounds += 1
    return f"{len(files)} corpus files ({corpus_bytes / 1e6:.1f} MB) concatenated, {rounds} round(s)"


def run_child(code: str, path: Path, *args: str) -> tuple[dict, float]:
    """Run ``code`` in a fresh interpreter; returns its JSON result and its peak RSS in MB."""
    proc = subprocess.Popen([sys.executable, "-c", code, str(path), *args], stdout=subprocess.PIPE, cwd=ROOT)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"bench child failed with exit code {proc.returncode}")
    return json.loads(out), usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="fold speed and memory against orjson.loads of every line")
    ap.add_argument("--mb", type=float, default=300, help="size of the timed transcript, MB (default 300)")
    ap.add_argument("--rss-mb", type=float, default=500, help="size of the transcript folded for peak RSS, MB (0: skip)")
    ap.add_argument("--source", choices=("corpus", "gen"), default="corpus")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each timing; the best is reported")
    ns = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tracetui-bench-") as d:
        path = Path(d) / "bench-session.jsonl"
        t = time.perf_counter()
        how = build(path, ns.mb, ns.source)
        size = path.stat().st_size
        print(f"input     {size / 1e6:.1f} MB, {how} (built in {time.perf_counter() - t:.1f} s)")
        print(
            f"machine   {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (wall-clock MB/s; read the CPU seconds on a busy machine)"
        )
        base = min((run_child(BASELINE, path) for _ in range(ns.repeat)), key=lambda r: r[0]["seconds"])
        fold = min((run_child(FOLD, path) for _ in range(ns.repeat)), key=lambda r: r[0]["seconds"])
        core = min((run_child(FOLD, path, "core") for _ in range(ns.repeat)), key=lambda r: r[0]["seconds"])
        b_mbs = size / 1e6 / base[0]["seconds"]
        f_mbs = size / 1e6 / fold[0]["seconds"]
        c_mbs = size / 1e6 / core[0]["seconds"]
        print(
            f"baseline  orjson.loads of every line: {b_mbs:7.1f} MB/s  ({base[0]['seconds']:.2f} s, CPU {base[0]['cpu']:.2f} s, {base[0]['lines']:,} lines)"
        )
        print(
            f"fold      tracetui state, cold:       {f_mbs:7.1f} MB/s  ({fold[0]['seconds']:.2f} s, CPU {fold[0]['cpu']:.2f} s, {fold[0]['records']:,} records, {fold[0]['events']:,} events)"
        )
        print(f"ratio     fold / baseline:            {f_mbs / b_mbs:7.2f}   (target >= 1.00)")
        print(
            f"          without the derive hook:    {c_mbs:7.1f} MB/s  ({core[0]['seconds']:.2f} s, CPU {core[0]['cpu']:.2f} s; ratio {c_mbs / b_mbs:.2f}; peak RSS {core[1]:.1f} MB)"
        )
        print(f"peak RSS  fold of {size / 1e6:.0f} MB:            {fold[1]:7.1f} MB")
        # where the time goes: cumulative stages, each in its own child (best of --repeat)
        stages = {
            upto: min((run_child(STAGES, path, upto)[0] for _ in range(ns.repeat)), key=lambda r: r["seconds"])
            for upto in ("read", "decode", "hash")
        }
        recs = fold[0]["records"]
        us = lambda sec: sec / max(recs, 1) * 1e6  # noqa: E731 (microseconds per record)
        steps = [
            ("read and split lines (Tailer)", stages["read"]["seconds"], stages["read"]["seconds"]),
            ("+ msgspec decode, records+blocks", stages["decode"]["seconds"], stages["decode"]["seconds"] - stages["read"]["seconds"]),
            ("+ SHA-256 of every payload", stages["hash"]["seconds"], stages["hash"]["seconds"] - stages["decode"]["seconds"]),
            ("+ fold into RunState (no derive)", core[0]["seconds"], core[0]["seconds"] - stages["hash"]["seconds"]),
            ("+ derive hook (episodes, facts, ...)", fold[0]["seconds"], fold[0]["seconds"] - core[0]["seconds"]),
        ]
        print(f"stages    cumulative, each in its own process; µs per record ({recs:,} records) of the step alone:")
        print(f"          {'orjson.loads baseline':36s} {b_mbs:7.1f} MB/s  {us(base[0]['seconds']):5.2f} µs/record in all")
        for label, total, step in steps:
            print(f"          {label:36s} {size / 1e6 / total:7.1f} MB/s  {us(step):5.2f} µs/record")
        cpus = os.cpu_count() or 1
        bound = cpus * base[0]["seconds"] / fold[0]["cpu"]
        print(f"bound     the fold's CPU time split perfectly over {cpus} CPUs would give a ratio of at most {bound:.2f}")
        if ns.rss_mb:
            path.unlink()
            build(path, ns.rss_mb, ns.source)
            size = path.stat().st_size
            res, rss = run_child(FOLD, path)
            print(
                f"peak RSS  fold of {size / 1e6:.0f} MB:            {rss:7.1f} MB   (target < 200 MB; {size / 1e6 / res['seconds']:.1f} MB/s)"
            )
            res, rss = run_child(FOLD, path, "core")
            print(f"          without the derive hook:    {rss:7.1f} MB   ({size / 1e6 / res['seconds']:.1f} MB/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
