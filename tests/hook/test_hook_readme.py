"""The README shows the hook command as install writes it."""

from __future__ import annotations

from pathlib import Path


def test_readme_shows_the_hook_command_as_install_writes_it() -> None:
    from tracetui.hook.install import _shell_quote

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for path in ("/path/to/venv/bin/tracetui", "/home/me/my venv/bin/tracetui"):
        assert f"`{_shell_quote(path)} hook`" in readme, path
