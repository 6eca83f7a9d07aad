"""The ``folder`` fixture: the generated projects folder and Codex home of report_folder.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_folder import Folder


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Folder:
    claude = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    folder = Folder(claude / "projects")
    monkeypatch.setenv("CODEX_HOME", str(folder.codex))
    return folder
