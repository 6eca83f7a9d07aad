"""Every real rollout of ../shared/corpus-codex is recognised by its first record, with the
thread id, working folder and parent an independent reading (plain ``json``) finds; skipped when
there is no Codex corpus (``$TRACETUI_CODEX_CORPUS``, else ``../shared/corpus-codex``: tests/codex_corpus.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codex_corpus import FILES, ROOT, skip_reason

from tracetui.ingest.codex_discover import rollout_meta

CORPUS = ROOT


def _expected(p: Path) -> tuple[str, str, str | None]:
    with p.open("rb") as f:
        first = json.loads(f.readline())
    pay = first["payload"]
    src = pay.get("source")
    spawn = src.get("subagent") if isinstance(src, dict) else None
    parent = spawn.get("thread_spawn", {}).get("parent_thread_id") if isinstance(spawn, dict) else None
    return pay["id"], pay.get("cwd") or "", parent or pay.get("forked_from_id") or None


@pytest.mark.skipif(not FILES, reason=skip_reason(ROOT))
def test_every_corpus_rollout_is_recognised_with_its_thread_and_parent() -> None:
    children = 0
    for p in FILES:
        m = rollout_meta(p)
        assert m is not None, p
        assert (m.thread_id, m.cwd, m.parent_id) == _expected(p), p
        children += m.parent_id is not None
    assert 0 < children < len(FILES)
