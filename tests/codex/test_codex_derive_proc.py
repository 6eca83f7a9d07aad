"""A Codex rollout folds to the same state with the derive hook in a second process
(session/derive_proc.py) as in process: generated rollouts (turns, calls, failed commands,
patches, plans, repeated totals, an interrupted turn, a compaction, a child with its replayed
prefix) and every rollout of ``../shared/corpus-codex``."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from codex_corpus import FILES, ROOT, skip_reason

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.session.reader import SessionReader

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the derive process runs on Linux only (a fork)")


def _rollout(rng: random.Random) -> RolloutBuilder:
    b = RolloutBuilder()
    for n in range(25):
        b.turn(f"turn {n}: make sure the tests pass, don't touch the API")
        for _ in range(rng.randint(1, 5)):
            k = rng.randrange(6)
            if k == 0:
                b.exec(
                    "pytest -q",
                    "=== 1 failed, 3 passed in 0.2s ===" if rng.random() < 0.5 else "=== 4 passed in 0.2s ===",
                    exit_code=rng.choice((0, 1)),
                )
            elif k == 1:
                b.patch("*** Update File: src/a.py\n@@\n-a = 1\n+a = 2\n", success=rng.random() < 0.8)
            elif k == 2:
                b.plan([("write the test", rng.choice(("pending", "in_progress", "completed"))), ("fix it", "pending")])
            elif k == 3:
                b.call("view_image", {"path": "shot.png"})
            else:
                b.say("working on it")
            b.tokens(rng.randint(5000, 60000), rng.randint(0, 5000), rng.randint(50, 2000), repeat=rng.random() < 0.3)
        if n == 10:
            b.compact()
        if n == 17:
            b.abort()
        else:
            b.done("done")
    return b


def _same(paths: list[Path]) -> None:
    folds = []
    for process in (False, True):
        reader = SessionReader(paths, subagents=False, derive_process=process)
        reader.poll()
        folds.append(reader)
    a, b = folds
    assert a.snapshot() == b.snapshot()
    for fa, fb in zip(a.fold.folds, b.fold.folds, strict=True):
        assert fa.history == fb.history
        assert fa.derive == fb.derive


def test_generated_rollouts_fold_alike(tmp_path: Path, derive_process: list[tuple[str, int]]) -> None:
    for seed in range(3):
        path = _rollout(random.Random(seed)).write(tmp_path / f"rollout-{seed}.jsonl")
        _same([path])
    assert [kind for kind, _ in derive_process] == ["CodexFold"] * 3


def test_a_child_with_its_replayed_prefix(tmp_path: Path, derive_process: list[tuple[str, int]]) -> None:
    parent = _rollout(random.Random(9))
    child = parent.child("0199c0de-0000-7000-8000-0000000000c1")
    child.turn("explore the module")
    child.exec("rg upload src", "src/upload.py")
    child.tokens(9000, 1000, 300)
    child.done("found it")
    p = parent.write(tmp_path / "rollout-parent.jsonl")
    c = child.write(tmp_path / "rollout-child.jsonl")
    _same([p, c])
    assert [kind for kind, _ in derive_process] == ["CodexFold", "CodexFold"]


@pytest.mark.skipif(not FILES, reason=skip_reason(ROOT))
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_codex_corpus_folds_alike(path: Path, derive_process: list[tuple[str, int]]) -> None:
    _same([path])
