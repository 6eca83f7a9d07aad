"""Every corpus file folds to the same state with the derive hook in a second process as in
process (session/derive_proc.py): the same RunState, history and deriver."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tracetui.session.reader import SessionReader

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the derive process runs on Linux only (a fork)")


def test_the_corpus_folds_alike_in_two_processes(corpus_file: Path, derive_process: list[tuple[str, int]]) -> None:
    folds = []
    for process in (False, True):
        reader = SessionReader([corpus_file], subagents=False, derive_process=process)
        reader.poll()
        folds.append(reader)
    a, b = folds
    assert derive_process == [("FileFold", 0)]
    assert a.snapshot() == b.snapshot()
    assert a.fold.folds[0].history == b.fold.folds[0].history
    assert a.fold.folds[0].derive == b.fold.folds[0].derive
