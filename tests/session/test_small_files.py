"""The small files a command reads from the cache folder at start (``secret-rules.json``,
``price-rates.json``) are read only when they are regular files within a bound
(``ingest/private.read_small``): a FIFO in their place does not hang a command, nor a link to
``/dev/zero`` fill its memory (user trial 27)."""

from __future__ import annotations

import os
from pathlib import Path

from tracetui.ingest.private import read_small


def test_read_small_reads_a_regular_file_within_its_bound_only(tmp_path: Path) -> None:
    small = tmp_path / "small"
    small.write_bytes(b"{}")
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    assert read_small(small, 100) == b"{}"
    assert read_small(big, 100) is None
    assert read_small(fifo, 100) is None
    assert read_small(zero, 100) is None
    assert read_small(tmp_path, 100) is None
    assert read_small(tmp_path / "missing", 100) is None


def test_a_fifo_in_place_of_the_secret_rules_file_is_not_read(tmp_path: Path, monkeypatch) -> None:
    from tracetui.ingest import secret_detectors
    from tracetui.session.secret_rules import RULES_FILE, cached_rules

    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path))
    os.mkfifo(tmp_path / RULES_FILE)
    spec = cached_rules()  # read from detect-secrets; the write over the FIFO replaces it
    assert spec == secret_detectors.rules_spec()
