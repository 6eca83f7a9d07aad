"""Shared test set-up: the persistent fold cache writes under a per-test folder, never the
user's cache directory."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_fold_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "tracetui-cache"))
