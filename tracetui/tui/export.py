"""Export: the text a copy key produces goes to the clipboard (OSC 52, tmux-wrapped, capped)
and always to a file, whose path the notification names."""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path

from tracetui.views.format import fmt_bytes_exact

__all__ = ["export_dir", "write_export", "osc52", "tmux_wrap", "cap_text"]


def export_dir(override: Path | None = None) -> Path:
    """Where copies are written: ``override`` (``--export-dir``), else ``$TRACETUI_EXPORT_DIR``,
    else ``exports`` in the cache folder, by the one rule of every file tracetui keeps
    (session/store/db.py ``cache_dir``: ``$TRACETUI_CACHE_DIR`` or the user cache folder)."""
    if override is not None:
        return Path(override)
    env = os.environ.get("TRACETUI_EXPORT_DIR")
    if env:
        return Path(env).expanduser()
    from tracetui.session.store.db import cache_dir

    return cache_dir() / "exports"


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def write_export(text: str, kind: str, session: str, episode: int | None, directory: Path) -> Path:
    """Write ``text`` to ``<directory>/<session>-<kind>-<live|epN>.txt`` (UTF-8, 0600 in a
    folder made 0700: it holds transcript text), ending in a newline as a text file does (the
    clipboard gets the text as it is: a pasted card should not bring a blank line into a
    prompt), returning the path. Raises ``OSError`` when the folder cannot be made or written."""
    from tracetui.ingest.private import write_private

    name = f"{_SAFE.sub('_', session)[:40]}-{kind}-{'live' if episode is None else f'ep{episode}'}.txt"
    body = text if text.endswith("\n") else text + "\n"
    return write_private(directory / name, body.encode("utf-8"))


def cap_text(text: str, cap: int, path: Path | None = None) -> tuple[str, bool]:
    """``(text, False)`` when its UTF-8 form fits ``cap`` bytes, else the head of it with a last
    line naming the file holding the whole text, and ``True``."""
    raw = text.encode("utf-8")
    if len(raw) <= cap:
        return text, False
    note = (
        f"\n[cut at {fmt_bytes_exact(cap)} for the clipboard; the whole text is in {path}]\n"
        if path
        else f"\n[cut at {fmt_bytes_exact(cap)}]\n"
    )
    head = raw[: max(0, cap - len(note.encode()))].decode("utf-8", "ignore")
    return head + note, True


def osc52(text: str) -> str:
    """The OSC 52 sequence that puts ``text`` on the system clipboard."""
    return "\x1b]52;c;" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "\a"


def tmux_wrap(seq: str) -> str:
    """``seq`` inside a tmux DCS passthrough (``ESC P tmux; … ESC \\``, every ESC doubled), so
    it reaches the outer terminal (needs ``set -g allow-passthrough on`` in tmux ≥ 3.3)."""
    return "\x1bPtmux;" + seq.replace("\x1b", "\x1b\x1b") + "\x1b\\"
