"""The palette's Screenshot action saves where the copies go (the exports folder, made when
missing), never into a ~/Downloads that does not exist."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import app_for, small_session, wait_for_state, wait_until


async def test_screenshot_is_saved_without_a_downloads_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    path = tmp_path / "projects" / "-home-dev-web" / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path)
    said: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_state(pilot)
        notify = app.notify

        def spy(message, *a, **kw):  # type: ignore[no-untyped-def]
            said.append(str(message))
            return notify(message, *a, **kw)

        app.notify = spy  # type: ignore[method-assign]
        # the palette's own command, as the palette runs it
        command = next(c for c in app.get_system_commands(app.screen) if c.title == "Screenshot")
        command.callback()
        exports = tmp_path / "exports"
        # the file is written by Textual's delivery thread and said when complete (DeliveryComplete):
        # read only after that (it exists, empty, while the thread writes it)
        await wait_until(pilot, lambda: any("screenshot" in s.lower() for s in said), 300, 0.02)
        shots = list(exports.glob("*.svg"))
        assert len(shots) == 1 and shots[0].read_text(encoding="utf-8").startswith("<svg")
    assert not (home / "Downloads").exists()
    assert not any("Failed" in s for s in said), said
