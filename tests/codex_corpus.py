"""Where the Codex corpus walks find the Codex corpus (real rollouts, not part of the
repository): ``$TRACETUI_CODEX_CORPUS`` (a folder) when set, else ``../shared/corpus-codex``
beside the checkout. Without rollouts there, the walks skip with :func:`skip_reason`, which
names the folder and the variable. (The Claude Code corpus: tests/conftest.py.)"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["CODEX_CORPUS_ENV", "DEFAULT_CODEX_CORPUS", "codex_corpus_root", "codex_corpus_files", "skip_reason", "ROOT", "FILES"]

#: the environment variable naming the Codex corpus folder
CODEX_CORPUS_ENV = "TRACETUI_CODEX_CORPUS"
#: where the Codex corpus is without the variable: beside the checkout
DEFAULT_CODEX_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus-codex"


def codex_corpus_root(environ: Mapping[str, str] = os.environ) -> Path:
    """``$TRACETUI_CODEX_CORPUS`` (an empty value counts as unset), else the default folder."""
    asked = environ.get(CODEX_CORPUS_ENV, "")
    return Path(asked).expanduser() if asked else DEFAULT_CODEX_CORPUS


def codex_corpus_files(root: Path) -> list[Path]:
    """Every ``*.jsonl`` under ``root``, sorted; ``[]`` when it is no folder."""
    return sorted(root.rglob("*.jsonl")) if root.is_dir() else []


def skip_reason(root: Path) -> str:
    """Why a Codex corpus walk skips: where it looked, and the variable that names another folder."""
    return f"no Codex corpus at {root} (not part of the repository; set {CODEX_CORPUS_ENV} to a folder of rollouts)"


ROOT = codex_corpus_root()
FILES = codex_corpus_files(ROOT)
