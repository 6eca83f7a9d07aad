"""What each part of the Codex CLI fold costs: the floor of ``bench/fold.py``'s Codex mixes.

``bench/fold.py`` prints this section under each Codex mix (``codex``, ``codex-corpus``); run
alone: ``python bench/codex_parts.py ROLLOUT.jsonl [--repeat 3]``. One fresh process a round,
best of ``--repeat`` rounds; CPU time (``time.process_time``) of each pass over the whole file,
the garbage collector off as the session reader has it, each pass cumulative over the one
before, the parts stubbed out in turn:

* ``read``: ``Tailer.lines`` alone (read and split lines);
* ``decode``: ``CodexFold.feed_line`` with its record rule stubbed out (the one-pass msgspec
  decode of every line, and its ``Anchor``);
* ``events``: every record one ledger event and nothing else (``FileFold._event``: the
  ``Event``, the SHA-256 of the payload, the append); ``SHA-256`` is that pass less the same
  with the digest of an empty payload;
* ``rules``: the whole fold without its derive hook (``fold.derive = None``), less ``events``;
* ``hooks``: the fold with the derive process's stand-in (``session/derive_proc.py``) whose
  batches are dropped, not encoded nor sent: the fold side's calls to its hook;
* ``encode``: the same with each batch encoded (MessagePack), not sent;
* ``derive``: the fold with the derive hook in process, less the fold without it (what the
  derive process does, less its decoding of the batches).

Figures are for the file given; the baseline is ``bench/fold.py``'s (``orjson.loads`` of every
line), its CPU time in each round, so a ``ratio`` is baseline / the passes up to that part.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PARTS = r"""
import gc, hashlib, json, sys, time
from tracetui.ingest.tail import Tailer
from tracetui.model.codex_fold import CodexFold
import tracetui.model.fold as fold_mod
import tracetui.session.derive_proc as dp

path = sys.argv[1]
gc.disable()

def timed(fn):
    t = time.process_time()
    n = fn()
    return time.process_time() - t, n

def read():
    n = 0
    for _ in Tailer(path).lines():
        n += 1
    return n

def fold(mode):
    f = CodexFold()
    proc = None
    if mode in ("decode", "events", "core"):
        f.derive = None
    if mode == "decode":
        f.feed_record = lambda rec, anchor, payload: None
    elif mode == "events":
        def one_event(rec, anchor, payload, f=f):
            f.counters.records += 1
            f._event("metadata", anchor, rec, 0, payload, "x")
        f.feed_record = one_event
    elif mode in ("hooks", "encode"):
        proc = dp.DeriveProcess(f)  # its child gets nothing and is ended after the pass
        enc = dp._encoder.encode
        def drop(self=proc, encode=mode == "encode"):
            if encode and (self._evs or self._extras):
                enc((self._evs, self._extras))
            self._evs, self._extras = [], []
            self._bytes = 0
        proc._flush = drop
    feed = f.feed_line
    for line_no, offset, buf in Tailer(path).lines():
        feed(line_no, offset, buf)
    if proc is not None:
        proc._close(kill=True)
    return f.counters.records

out = {"read": timed(read)[0]}
for mode in ("decode", "events", "core", "hooks", "encode", "inproc"):
    out[mode], n = timed(lambda: fold(mode))
    out["records"] = n
real_sha = fold_mod._sha
fold_mod._sha = lambda b, _e=b"": real_sha(_e)
out["events_nosha"] = timed(lambda: fold("events"))[0]
fold_mod._sha = real_sha
print(json.dumps(out))
"""


def measure(path: Path, repeat: int) -> dict[str, float]:
    """The best CPU seconds of each pass over ``path`` (``repeat`` rounds, a fresh process each),
    and of ``bench/fold.py``'s baseline (``base``), run the same way in each round."""
    sys.path.insert(0, str(ROOT / "bench"))
    import fold  # type: ignore[import-not-found]  # bench/fold.py: its baseline, not a copy

    best: dict[str, float] = {}
    for _ in range(max(repeat, 1)):
        base = fold.run_child(fold.BASELINE, path)[0]["cpu"]
        best["base"] = min(best.get("base", base), base)
        out = subprocess.run([sys.executable, "-c", PARTS, str(path)], cwd=ROOT, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise SystemExit(f"bench/codex_parts.py: the child failed: {out.stderr.strip().splitlines()[-1:]}")
        for k, v in json.loads(out.stdout).items():
            best[k] = min(best.get(k, v), v)
    return best


def lines_for(m: dict[str, float]) -> list[str]:
    """The section's lines from :func:`measure`'s figures."""
    n = max(int(m["records"]), 1)
    base = m["base"]
    parts = [
        ("read and split lines (Tailer)", m["read"]),
        ("+ decode (feed_line, no record rule)", m["decode"] - m["read"]),
        ("+ one ledger event a record", m["events"] - m["decode"]),
        ("  of which the SHA-256 of the payload", m["events"] - m["events_nosha"]),
        ("+ the Codex rules (fold, no derive)", m["core"] - m["events"]),
        ("+ the derive process's hook calls", m["hooks"] - m["core"]),
        ("+ encoding its batches (MessagePack)", m["encode"] - m["hooks"]),
        ("derive step in process (its CPU)", m["inproc"] - m["core"]),
    ]
    out = [f"parts     CPU of each pass over the file, best of the rounds (bench/codex_parts.py); baseline {base * 1e3:.0f} ms:"]
    for label, sec in parts:
        out.append(f"            {label:40s} {sec * 1e3:6.1f} ms  {sec / n * 1e6:5.2f} µs/record")
    floor = m["events"]
    out.append(
        f"            floor (read + decode + events)           {floor * 1e3:6.1f} ms  ratio {base / floor:.2f}; fold without derive"
        f" ratio {base / m['core']:.2f}; fold side with the derive process (no send) ratio {base / m['encode']:.2f}"
    )
    return out


def fold_section(path: Path, mix: str, size: int, repeat: int) -> list[str]:
    """``bench/fold.py``'s section (``SECTIONS``): the parts of a Codex mix, nothing for others."""
    if not mix.startswith("codex"):
        return []
    return lines_for(measure(path, repeat))


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="what each part of the Codex CLI fold costs (CPU time, stubbed parts)")
    ap.add_argument("rollout", type=Path, help="a Codex CLI rollout (.jsonl)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (a fresh process each); the best is kept")
    ns = ap.parse_args(argv)
    for line in lines_for(measure(ns.rollout, ns.repeat)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
