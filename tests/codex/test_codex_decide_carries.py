"""A file's first record choosing the Codex fold (SessionFold._decide) keeps what the owner set
on the fold it replaces: its usage callback and a turned-off deriver (the cross-session index
folds with both, session/index/scan.py)."""

from __future__ import annotations

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.model.codex_fold import CodexFold
from tracetui.model.session_fold import SessionFold


def test_the_codex_fold_keeps_the_owners_callback_and_no_deriver() -> None:
    b = RolloutBuilder()
    b.turn("fix the build")
    b.tokens(1_000, 200, 30)
    sf = SessionFold(price=False)
    sf.add_source("rollout.jsonl", "rollout.jsonl")
    seen: list[tuple[str, tuple[int, ...]]] = []
    sf.folds[0].on_usage = lambda key, _model, u, _day: seen.append((key, u))
    sf.folds[0].derive = None
    offset = 0
    for n, line in enumerate(b.data().split(b"\n")[:-1], 1):
        sf.feed_line(0, n, offset, line)
        offset += len(line) + 1
    f = sf.folds[0]
    assert isinstance(f, CodexFold) and f.derive is None
    assert seen == [(f"{b.thread_id}#0", (800, 30, 0, 200, 0))]
    assert sf.snapshot().main.derived is None
