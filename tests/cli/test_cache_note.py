"""An unusable cache folder (``$TRACETUI_CACHE_DIR`` a regular file, say) is the same one line on
stderr from every command that uses it, and each still works (a user trial: ``sessions`` and
``search`` said it, each in its own words, ``state`` and ``report`` said nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import small_session

import tracetui.session.store.cache_note as cache_note
import tracetui.session.store.reader as store_reader
from tracetui.cli import main

SID = "5e55a0c1-0000-4000-8000-00000000cafe"


@pytest.mark.parametrize(
    "argv",
    [["state", SID[:8]], ["view", SID[:8]], ["card", SID[:8]], ["sessions", "--all"], ["report", "daily"], ["search", "test"]],
)
def test_every_command_gives_the_same_note(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    (tmp_path / "no-settings.toml").write_text("")
    small_session(tmp_path / "claude" / "projects" / "-home-dev-web" / f"{SID}.jsonl")
    blocker = tmp_path / "cachefile"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(blocker))
    monkeypatch.setattr(cache_note, "_SAID", set())  # once a process: each command is a process
    monkeypatch.setattr(store_reader, "_SAID", set())
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.strip()
    assert err == (
        f"tracetui: note: the cache folder cannot be used ({blocker}: not a folder); this run works without it"
        " (each transcript folded from the start, nothing kept for the next run)\n"
    )
    assert "could not be used" not in out  # the report's own note on the index is not said again


def test_nothing_is_said_of_a_usable_folder_or_with_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    small_session(tmp_path / "claude" / "projects" / "-home-dev-web" / f"{SID}.jsonl")
    monkeypatch.setattr(cache_note, "_SAID", set())
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "not" / "made" / "yet"))
    assert cache_note.unusable_cache() is None
    assert main(["state", SID[:8]]) == 0
    assert capsys.readouterr().err == ""
    blocker = tmp_path / "cachefile"
    blocker.write_text("")
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(blocker / "below"))
    assert cache_note.unusable_cache() == f"{blocker}: not a folder"
    assert main(["state", "--no-cache", SID[:8]]) == 0  # no cache asked for: nothing to say
    assert capsys.readouterr().err == ""
