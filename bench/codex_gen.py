"""Generate a synthetic OpenAI Codex CLI rollout for the benchmark, with the project's rollout
builder (``tracetui/demo/codex_records.py``; shapes from ``../shared/docs/codex-format.md``).

The mix is near ``../shared/corpus-codex``: per turn a user message with its environment block,
then responses of reasoning (encrypted, a few KB), commentary, one to three ``exec_command``
calls with their end events and outputs (up to tens of KB), an ``apply_patch`` every few
responses, a ``token_count`` (often written twice) after each response. Deterministic for a seed.

Usage: ``python bench/codex_gen.py OUT.jsonl [--mb 100] [--seed 1]``
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tracetui.demo.codex_records import RolloutBuilder  # noqa: E402

WORDS = "the rollout folds tokens calls patch plan turn agent exec command output test build file module error result".split()


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _turn(b: RolloutBuilder, rng: random.Random) -> None:
    b.turn(_text(rng, rng.randint(8, 60)))
    for _ in range(rng.randint(3, 12)):
        b.tick(1).item("reasoning", summary=[], encrypted_content="gAAAA" + "x" * rng.randint(500, 4000))
        if rng.random() < 0.5:
            b.say(_text(rng, rng.randint(10, 40)))
        for _ in range(rng.choice((1, 1, 2, 3))):
            out = "\n".join(_text(rng, 12) for _ in range(rng.choice((1, 5, 20, 80, 300))))
            b.exec(f"rg {rng.choice(WORDS)} src", out, exit_code=0 if rng.random() < 0.9 else 1, end_first=rng.random() < 0.8)
        if rng.random() < 0.2:
            body = "".join(
                f"*** Update File: src/{rng.choice(WORDS)}.py\n@@\n-{_text(rng, 6)}\n+{_text(rng, 6)}\n" for _ in range(rng.randint(1, 3))
            )
            b.patch(body)
        b.tokens(rng.randint(5000, 60000), rng.randint(0, 5000), rng.randint(50, 2000), repeat=rng.random() < 0.6)
    b.say(_text(rng, 50)).done(_text(rng, 20))


def generate(path: Path, mb: float, seed: int = 1) -> int:
    """Write at least ``mb`` megabytes (10^6 bytes) of rollout to ``path``; returns bytes written."""
    target = int(mb * 1_000_000)
    rng = random.Random(seed)
    b = RolloutBuilder()
    written = 0
    with open(path, "wb") as f:
        while written < target:
            _turn(b, rng)
            chunk = b.data()
            b.lines.clear()  # the builder keeps its clock, ids and totals; its lines are written
            f.write(chunk)
            written += len(chunk)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="write a synthetic Codex CLI rollout")
    ap.add_argument("out", type=Path)
    ap.add_argument("--mb", type=float, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ns = ap.parse_args(argv)
    n = generate(ns.out, ns.mb, ns.seed)
    print(f"{ns.out}: {n / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
