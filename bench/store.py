"""Benchmark the session store: what a user meets opening a large session through it.

Each measurement runs in a fresh subprocess (imports and earlier runs do not count towards its
memory), with ``$TRACETUI_CACHE_DIR`` pointing at a temporary folder, and the secret detectors read from
their cache file there as the commands read them (``session/secret_rules.py``; the file is
written before the clock starts, as any earlier run of tracetui would have):

* :func:`cold` — the first open of a session: fold every byte and write the store (``open_cached``,
  ``poll``, ``snapshot``, ``save_cache``); its seconds, peak RSS (``ru_maxrss``) and the
  database's size (with its WAL) as a share of the transcript's;
* :func:`warm` — reopen the saved session (``open_cached``, ``poll``, ``snapshot``): seconds
  from the call to the state, and the process's peak RSS;
* :func:`append_to_state` — with the session open, append one record to the transcript and
  time ``poll`` + ``snapshot`` until the state has it (median over ``n`` appends).

Input: the files of ``$TRACETUI_CORPUS`` or ``../shared/corpus`` concatenated until ``--mb``
megabytes (10^6 bytes), or ``python bench/gen.py --mb N`` (``--source gen``). Files are made
under the temporary folder and deleted afterwards.

The baseline, measured in the same run on the same file: ``orjson.loads`` of every line
(bench/fold.py's); the first open's ratio is the baseline's seconds over the open's.

Targets (issue 9 §4): the first open ≥ 0.4× the baseline on the dense mix; peak RSS ≤ 120 MB at 500 MB and ≤ 150 MB at 2 GB; warm reopen ≤ 100 ms
and ≤ 80 MB; append → state ≤ 10 ms; the database ≤ 15 % of the transcript.

Usage: ``python bench/store.py [--mb 500 2000] [--source corpus|gen] [--keep]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from fold import BASELINE  # bench/fold.py's orjson.loads of every line (this folder is on sys.path)

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ["TRACETUI_CORPUS"]).expanduser() if os.environ.get("TRACETUI_CORPUS") else ROOT.parent / "shared" / "corpus"
MB = 1_000_000
MIB = 1 << 20

_PRELUDE = r"""
import json, os, resource, sys, time
from pathlib import Path
from tracetui.ingest import secret_detectors
from tracetui.session.secret_rules import cached_rules
from tracetui.session.store import cache_path, open_cached
path = Path(sys.argv[1])
# the detectors as the commands read them (cli.py): from their cache file, which any earlier
# run of tracetui on this machine wrote (read here before the clock starts: a first open of a
# session is not the first run of tracetui; importing detect-secrets instead costs ~0.1 s)
secret_detectors.set_source(cached_rules)
cached_rules()
def rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
def db_bytes():
    db = cache_path([path])
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists())
"""

COLD = (
    _PRELUDE
    + r"""
t = time.perf_counter()
r = open_cached([path], price=False)
assert r.cache_status in ("cold",) or r.cache_status.startswith("invalid"), r.cache_status
r.poll()
st = r.snapshot()
saved = r.save_cache()
dt = time.perf_counter() - t
print(json.dumps({"seconds": dt, "rss_mib": rss_mib(), "saved": saved, "db_bytes": db_bytes(),
                  "records": st.counters.records, "events": sum(len(l) for l in st.ledgers)}))
"""
)

WARM = (
    _PRELUDE
    + r"""
base = rss_mib()
t = time.perf_counter()
r = open_cached([path], price=False)
r.poll()
st = r.snapshot()
dt = time.perf_counter() - t
assert r.cache_status == "warm", r.cache_status
print(json.dumps({"seconds": dt, "rss_mib": rss_mib(), "rss_before_open_mib": base, "records": st.counters.records}))
"""
)

APPEND = (
    _PRELUDE
    + r"""
import statistics
n = int(sys.argv[2])
r = open_cached([path], price=False)
r.poll()
r.snapshot()
times = []
with open(path, "ab") as f:
    for i in range(n):
        rec = {"type": "user", "uuid": f"bench-{i}", "parentUuid": None, "sessionId": "bench", "timestamp": "2026-01-01T00:00:00Z",
               "message": {"role": "user", "content": f"appended prompt {i}"}}
        f.write(json.dumps(rec).encode() + b"\n")
        f.flush()
        t = time.perf_counter()
        r.poll()
        st = r.snapshot()
        times.append(time.perf_counter() - t)
        assert st.latest_ask is not None and st.latest_ask.text == f"appended prompt {i}"
print(json.dumps({"median_ms": statistics.median(times) * 1000, "max_ms": max(times) * 1000, "n": n}))
"""
)


def _run(script: str, *args: str, cache: Path) -> dict:
    env = dict(os.environ, TRACETUI_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def make_input(dest: Path, mb: int, source: str = "corpus") -> Path:
    """A transcript of at least ``mb`` megabytes at ``dest``: the corpus's files concatenated
    (each a whole number of lines) until large enough, or ``bench/gen.py``'s light mix (``gen``)
    or dense mix (``dense``: 4 KB records, a tool call per three, as dense as real sessions)."""
    if source in ("gen", "dense") or not CORPUS.is_dir():
        mix = "dense" if source == "dense" else "light"
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen.py"), "--mb", str(mb), "--mix", mix, str(dest)], check=True)
        return dest
    files = sorted(CORPUS.rglob("*.jsonl"))
    if not files:
        raise SystemExit(f"no *.jsonl under {CORPUS}")
    want = mb * MB
    with open(dest, "wb") as out:
        while out.tell() < want:
            for f in files:
                data = f.read_bytes()
                if data and not data.endswith(b"\n"):
                    data += b"\n"
                out.write(data)
                if out.tell() >= want:
                    break
    return dest


def cold(path: Path, cache: Path) -> dict:
    """First open of ``path`` writing the store (a fresh subprocess): seconds, peak RSS in MiB,
    the database's bytes and their share of the transcript's."""
    res = _run(COLD, str(path), cache=cache)
    res["db_share"] = res["db_bytes"] / path.stat().st_size
    return res


def warm(path: Path, cache: Path) -> dict:
    """Reopen of ``path`` from its saved store (a fresh subprocess): seconds, peak RSS in MiB."""
    return _run(WARM, str(path), cache=cache)


def append_to_state(path: Path, cache: Path, n: int = 20) -> dict:
    """One record appended to ``path`` until the open reader's state has it, ``n`` times:
    median and max milliseconds. Appends to the file (use a copy)."""
    return _run(APPEND, str(path), str(n), cache=cache)


def measure(mb: int, source: str, tmp: Path, full: bool) -> dict:
    """Every measurement of one size; ``full`` adds the warm reopen and the append."""
    path = make_input(tmp / f"bench-{mb}.jsonl", mb, source)
    cache = tmp / f"cache-{mb}"
    try:
        out = {"mb": path.stat().st_size / MB, "base": _run(BASELINE, str(path), cache=cache), "cold": cold(path, cache)}
        if full:
            out["warm"] = warm(path, cache)
            out["append"] = append_to_state(path, cache)
        return out
    finally:
        path.unlink(missing_ok=True)
        for p in sorted(cache.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=int, nargs="+", default=[500, 2000], help="transcript sizes (10^6 bytes)")
    ap.add_argument("--source", choices=["corpus", "gen", "dense"], default="corpus")
    ap.add_argument("--tmp", default=None, help="folder for the generated files (default: a new one under the system's)")
    args = ap.parse_args(argv)
    if args.tmp:
        Path(args.tmp).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.tmp, prefix="tracetui-bench-store-") as d:
        for mb in args.mb:
            # every size: the warm reopen's target holds at any size (issue 9 §4)
            r = measure(mb, args.source, Path(d), full=True)
            c = r["cold"]
            print(
                f"{args.source} {r['mb']:.0f} MB: cold open + store {c['seconds']:.1f} s, peak RSS {c['rss_mib']:.0f} MiB, "
                f"database {c['db_bytes'] / MB:.0f} MB = {c['db_share']:.1%} of the transcript ({c['records']} records, {c['events']} events)"
            )
            if "warm" in r:
                w, a = r["warm"], r["append"]
                print(
                    f"  warm reopen {w['seconds'] * 1000:.0f} ms, peak RSS {w['rss_mib']:.0f} MiB (of which {w['rss_before_open_mib']:.0f} before the open)"
                )
                print(f"  append -> state {a['median_ms']:.1f} ms median, {a['max_ms']:.1f} ms max ({a['n']} appends)")
            ratio = r["base"]["seconds"] / c["seconds"]
            print(
                f"  baseline orjson.loads of every line {r['base']['seconds']:.2f} s; first open / baseline {ratio:.2f}x "
                f"(target on the dense mix >= 0.40: {'met' if ratio >= 0.4 else 'not met'})"
            )
            print(json.dumps(r), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
