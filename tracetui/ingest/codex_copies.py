"""Which file of a Codex CLI thread is read when the thread is in several: a rollout and its
copies (a snapshot of it kept in ``archived_sessions/``, a backup restored beside it). One file a
thread is read everywhere (sessions, the fleet, ``state ID``, ``report``, ``search``): the
largest, as a copy is a snapshot of a rollout, which only grows; on equal sizes the one under
``sessions/``, then the path that sorts first.
"""

from __future__ import annotations

import os

__all__ = ["copy_rank", "one_each"]


def copy_rank(path: str, archived: bool, size: int) -> tuple[int, bool, str]:
    """The order in which the files of one thread id are taken (the least first), the others
    being copies of it left out of every list: the largest (``size`` in bytes), then one under
    ``sessions/`` before one under ``archived_sessions/`` (``archived``), then ``path``."""
    return (-size, archived, path)


def one_each(found: list[tuple[str, bool, str]]) -> set[str]:
    """The paths of ``found`` (``(path, archived, thread id)``) that are read: all but the
    copies of a thread found in several files (:func:`copy_rank`; only those files are
    stat'ed, and one that cannot be is left out). Never raises."""
    by_thread: dict[str, list[tuple[str, bool]]] = {}
    for p, archived, thread in found:
        by_thread.setdefault(thread, []).append((p, archived))
    keep = {files[0][0] for files in by_thread.values() if len(files) == 1}
    for files in (f for f in by_thread.values() if len(f) > 1):
        ranked = []
        for p, archived in files:
            try:
                ranked.append(copy_rank(p, archived, os.stat(p).st_size))
            except OSError:
                continue
        if ranked:
            keep.add(min(ranked)[2])
    return keep
