"""The cross-session index over the real rollouts of ``../shared/corpus-codex`` (as a Codex
home's ``archived_sessions``, linked, never copied): every file indexed without error, and the
report's tokens per day and per session agree with report_folder.py's plain-json recount of
Codex's token rules. Skips, saying where it looked, when the corpus is not beside the checkout
(``$TRACETUI_CODEX_CORPUS`` names another folder)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from codex_corpus import ROOT, skip_reason
from report_folder import _codex_messages

from tracetui.ingest.codex_discover import rollout_meta
from tracetui.session.index import build_report, open_index, update


def test_codex_corpus_report_matches_the_recount(tmp_path: Path) -> None:
    if not ROOT.is_dir() or not any(ROOT.rglob("*.jsonl")):
        pytest.skip(skip_reason(ROOT))
    home = tmp_path / "codex"
    home.mkdir()
    (home / "archived_sessions").symlink_to(ROOT.resolve(), target_is_directory=True)
    index = open_index(tmp_path / "idx.sqlite")
    stats = update(index, tmp_path / "no-projects", codex_home=home)
    # the corpus holds snapshots of one rollout taken at different times (each a prefix of the
    # next): one file a thread is read, the largest (codex_discover.copy_rank), and the recount
    # of every file, a response counted once across them by its thread and number, agrees
    threads = {m.thread_id for p in ROOT.rglob("*.jsonl") if (m := rollout_meta(p)) is not None}
    assert stats.errors == [] and stats.files == len(threads)
    msgs = {}
    for key, u, day, _path, _project, session, _model in _codex_messages(home):
        assert msgs.setdefault(key, (u, day, session)) == (u, day, session), key
    want: dict[str, dict[str, list[int]]] = {"daily": defaultdict(lambda: [0, 0, 0, 0, 0]), "session": defaultdict(lambda: [0, 0, 0, 0, 0])}
    for u, day, session in msgs.values():
        for kind, k in (("daily", day), ("session", session)):
            w = want[kind][k]
            w[0] += 1
            for i in range(4):
                w[i + 1] += u[i]
    assert want["daily"], "the corpus has no token counts"
    for kind in ("daily", "session"):
        got = {
            g.key: [g.messages, g.tokens.input, g.tokens.output, g.tokens.cache_creation, g.tokens.cache_read]
            for g in build_report(index.conn, kind).rows
        }
        assert got == dict(want[kind]), kind
