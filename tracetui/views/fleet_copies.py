"""One fleet row per session when the fleet holds several files of it: a tab opened by a
relative path or through a symlinked folder beside the same file found under the projects
folder, two tabs of one file, or a copy of a transcript kept elsewhere under the same session id.
Their rows were the same session counted twice (the same API messages in the burn rates and
the state counts: eighth user trial). Pure: the caller stats the files.

The rule, in order:

1. The same file (its ``(st_dev, st_ino)``) under several paths is one: the path of a tab
   (the user's, which the row opens), then the path that sorts first.
2. Several files of one session (:func:`session_name`) are one, read from the file
   :func:`tracetui.ingest.codex_copies.copy_rank` takes for a Codex thread in several files:
   the largest (a copy is a snapshot of a transcript that only grows), then one outside
   ``archived_sessions/``, then a tab's, then the path that sorts first.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import PurePath
from typing import NamedTuple

from tracetui.views.fleet_facts import SessionFacts

__all__ = ["FileOf", "session_name", "one_per_session"]

#: what marks a Codex rollout archived (``<CODEX_HOME>/archived_sessions/``) in its path
_ARCHIVED = os.sep + "archived_sessions" + os.sep


class FileOf(NamedTuple):
    """What the fleet knows of the file behind a key: its ``(st_dev, st_ino)`` (``None`` when
    it could not be stat'ed), its size in bytes, and whether a tab shows it (else the fleet
    follows it by itself)."""

    ident: tuple[int, int] | None
    size: int
    tab: bool


def session_name(facts: SessionFacts) -> tuple[str, str]:
    """``(agent, id)`` naming the session of ``facts``: a Claude Code transcript's file name
    (the session id; the first record's ``sessionId`` can be that of the session it resumed:
    transcript-format.md §1), or for subagent files whose transcript is gone
    (``<session id>/subagents/agent-*.jsonl``) their session's folder; a Codex rollout's thread
    id; the key itself when no id is known."""
    if facts.agent == "claude":
        path = PurePath(facts.key)
        parts = path.parts
        if facts.orphan and "subagents" in parts[1:]:
            return ("claude", parts[parts.index("subagents", 1) - 1])
        return ("claude", path.stem or facts.key)
    return (facts.agent, facts.session_id or facts.key)


def _rank(key: str, f: FileOf) -> tuple[int, bool, bool, str]:
    return (-f.size, _ARCHIVED in key, not f.tab, key)


def one_per_session(
    pairs: Sequence[tuple[SessionFacts, float | None]], files: dict[str, FileOf]
) -> list[tuple[SessionFacts, float | None]]:
    """``pairs`` (``(facts, written)``, as :func:`tracetui.views.fleet_table.fleet_rows` takes
    them) with one pair per session by the module's rule; ``files`` holds each key's
    :class:`FileOf` (a key missing from it is a file of its own, of size 0, followed). The
    order of ``pairs`` is kept."""
    none = FileOf(None, 0, False)
    # 1. one path per file: a tab's, then the first by path; the file's size is its largest
    # seen (two paths stat'ed a moment apart while it grows)
    by_file: dict[tuple[int, int], tuple[str, FileOf]] = {}
    for facts, _ in pairs:
        f = files.get(facts.key, none)
        if f.ident is None:
            continue
        seen = by_file.get(f.ident)
        if seen is None:
            by_file[f.ident] = (facts.key, f)
            continue
        size = max(f.size, seen[1].size)
        best = min((facts.key, f), seen, key=lambda kf: (not kf[1].tab, kf[0]))
        by_file[f.ident] = (best[0], best[1]._replace(size=size))
    kept = {key: f for key, f in by_file.values()}
    # 2. one file per session
    best_of: dict[tuple[str, str], tuple[tuple[int, bool, bool, str], str]] = {}
    for facts, _ in pairs:
        key = facts.key
        f = files.get(key, none)
        if f.ident is not None and key not in kept:
            continue
        rank = _rank(key, kept.get(key, f))
        name = session_name(facts)
        got = best_of.get(name)
        if got is None or rank < got[0]:
            best_of[name] = (rank, key)
    keep = {key for _, key in best_of.values()}
    return [p for p in pairs if p[0].key in keep]
