"""Files of other agents' tools that look like transcripts but cannot be folded: say what they
are instead of folding them as a Claude Code session with nothing in it.

An OpenAI Codex CLI rollout (``shared/docs/codex-format.md``) is folded by its own fold (model/
codex_fold.py), chosen by its first line: a ``session_meta`` whose payload names the thread
(``SessionFold.feed_line``). A file of Codex record types whose first line does not (a damaged or
foreign ``session_meta``) is folded as a Claude Code file, every record unknown: this module
names it in one line.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CODEX_ROLLOUT", "CODEX_RECORD_TYPES", "foreign_format", "foreign_message"]

#: what a Codex rollout is called in messages
CODEX_ROLLOUT = "an OpenAI Codex CLI rollout"
#: the top-level ``type`` values of a Codex rollout's lines (codex-format.md, "One line")
CODEX_RECORD_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})


def foreign_format(record_types: Iterable[str]) -> str | None:
    """What another tool's file is, from the ``type`` of its first records (in file order, as the
    fold samples its unknown records), or ``None`` when they are not known to be one:
    :data:`CODEX_ROLLOUT` when the first is ``session_meta`` and all are Codex record types (a
    rollout whose first line the Codex fold could not take)."""
    types = list(record_types)
    if types and types[0] == "session_meta" and all(t in CODEX_RECORD_TYPES for t in types):
        return CODEX_ROLLOUT
    return None


def foreign_message(name: str, what: str) -> str:
    """The one line that says file ``name`` is ``what`` (from :func:`foreign_format`)."""
    return f"{name}: {what} without a thread id in its first line (a session_meta payload with an id); not folded"
