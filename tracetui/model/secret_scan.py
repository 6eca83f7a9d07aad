"""The secrets a session's state holds, found by reading its texts once each, never by the fold
(no cost per record): the set every output of the session masks with
(:class:`~tracetui.ingest.secret_values.SeenSecrets`, ``RunState.secrets``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tracetui.ingest.secret_values import SeenSecrets
from tracetui.ingest.secrets import CUT_MARK, note_secrets
from tracetui.model.state import PromptInfo

__all__ = ["state_secrets", "note_prompts", "scan_excerpts", "scan_texts"]


def note_prompts(seen: SeenSecrets, prompts: Iterable[tuple[str, PromptInfo | None]]) -> None:
    """Keep in ``seen`` the secrets of ``prompts`` (``(name, prompt)``: the goal, the latest
    ask), each text read once (the same text object under a name is not read again)."""
    marks = seen.marks
    for name, p in prompts:
        text = p.text if p is not None else None
        if text and marks.get(name) is not text:
            note_secrets(text, seen)
            marks[name] = text


def scan_excerpts(seen: SeenSecrets, events: Iterable[Any]) -> None:
    """Keep in ``seen`` the secrets of the excerpts of ``events`` (ledger ``Event``s), in their
    order: what :func:`state_secrets` reads of a ledger held in memory, and what the derive
    process reads of the events it is sent (``session/derive_wire.py``), the same rule in both."""
    scan_texts(seen, [ev.excerpt for ev in events])


def scan_texts(seen: SeenSecrets, excerpts: Iterable[str]) -> None:
    """:func:`scan_excerpts` of the events' excerpts alone (``""``: an event without one)."""
    for x in excerpts:
        if x:
            note_secrets(x, seen, x.endswith(CUT_MARK))


def state_secrets(state: Any) -> SeenSecrets | None:
    """The secrets found in the session of ``state`` (a ``RunState``), for the masking of its
    texts (``tracetui.views.safe``'s ``redacted``, ``export_text``, ``redact_json`` take it as ``seen``):
    what the session store's writer found in the events it wrote (their excerpts are kept masked
    there), and what this reads of the texts the state holds in memory, read once each: the
    events of a ledger kept in memory (a fold without the store) past where it read last, the
    goal and the latest ask. ``None`` for a state without a set."""
    seen = getattr(state, "secrets", None)
    if seen is None:
        return None
    marks = seen.marks
    for src, ledger in enumerate(state.ledgers):
        if type(ledger) is not list:
            continue  # the store's: its writer read them
        start = marks.get(("events", src), 0)
        end = len(ledger)
        if not isinstance(start, int) or start >= end:
            continue
        scan_excerpts(seen, ledger[start:end])
        marks[("events", src)] = end
    note_prompts(seen, (("goal", state.goal), ("latest_ask", state.latest_ask)))
    return seen
