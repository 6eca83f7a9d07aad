"""The hook's fold cache: a large cold session built in the background, saves held until the answer is out."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["BUILD_MARKER_SECONDS"]

#: a background build younger than this (seconds) is not started again
BUILD_MARKER_SECONDS = 600


def _session_bytes(path: Path) -> int:
    """Bytes of the main transcript and its subagent files."""
    from tracetui.ingest.session_files import subagent_files

    total = path.stat().st_size
    for sf in subagent_files(path):
        try:
            total += sf.path.stat().st_size
        except OSError:
            pass
    return total


def _warm_in_background(path: Path) -> bool:
    """Fold ``path`` (with subagents) and save its cache entry in a detached child process;
    ``False`` when one is already at it (a ``.building`` marker younger than
    :data:`BUILD_MARKER_SECONDS`)."""
    import time

    from tracetui.session.store import cache_path, open_cached

    marker = cache_path([path], True).with_suffix(".building")
    from tracetui.ingest.private import private_dir

    private_dir(marker.parent)
    try:
        if time.time() - marker.stat().st_mtime < BUILD_MARKER_SECONDS:
            return False
        marker.unlink()
    except FileNotFoundError:
        pass
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    for f in (sys.stdout, sys.stderr):
        f.flush()
    if os.fork():
        return True
    code = 0
    try:  # the child, detached from Claude Code's pipes
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for n in (0, 1, 2):
            os.dup2(null, n)
        reader = open_cached([path], subagents=True, price=False)
        reader.poll()
        reader.save_cache()
    except BaseException:  # noqa: BLE001 - nowhere left to report it; the next call tries again
        code = 1
    finally:
        try:
            marker.unlink()
        except OSError:
            pass
        os._exit(code)


#: readers whose cache entry is saved once the hook's answer is out (see :func:`_save_pending`)
_PENDING_SAVES: list[Any] = []


def _save_pending(background: bool) -> list[Any]:
    """Save the fold cache of the sessions folded by this call; with ``background``, a large
    session is saved by a detached child process, so the hook returns without waiting.
    Returns the readers saved: a caller about to end the process keeps them until then (freeing
    a large fold object by object costs ~35 ms, and after a fork for the background save each
    freed object's page is copied first)."""
    done = []
    while _PENDING_SAVES:
        done.append(_PENDING_SAVES.pop())
        done[-1].save_cache(background=background)
    return done
