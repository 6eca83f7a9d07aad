"""Every corpus file folds to the same state with the derive hook in a second process as in
process (session/derive_proc.py): the same RunState, history and deriver."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tracetui.session.derive_proc as dp
from tracetui.session.reader import SessionReader

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the derive process runs on Linux only (a fork)")


def test_the_corpus_folds_alike_in_two_processes(corpus_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dp, "MIN_BYTES", 0)
    monkeypatch.setattr(dp, "_single_threaded", lambda: True)
    monkeypatch.setattr(dp, "_spare_cpu", lambda: True)
    folds = []
    for process in (False, True):
        reader = SessionReader([corpus_file], subagents=False, derive_process=process)
        reader.poll()
        folds.append(reader)
    a, b = folds
    assert a.snapshot() == b.snapshot()
    assert a.fold.folds[0].history == b.fold.folds[0].history
    assert a.fold.folds[0].derive == b.fold.folds[0].derive
