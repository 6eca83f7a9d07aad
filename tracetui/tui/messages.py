"""Messages the ingest worker posts to the app (toolong's pattern: whole snapshots, coalesced)."""

from __future__ import annotations

from textual.message import Message

from tracetui.model.state import RunState

__all__ = ["SnapshotReady", "IngestProgress", "IngestNotice", "SessionsFound", "AsOfRead"]


class SnapshotReady(Message):
    """A new folded state of session ``key``.

    A snapshot is whole, so a newer one of the same session may replace one still queued:
    dropping the stale one loses nothing (``can_replace``). Deltas are never coalesced.
    """

    def __init__(self, key: str, state: RunState, written: float | None = None, as_of: tuple[int, RunState] | None = None) -> None:
        super().__init__()
        self.key = key
        #: the frozen state; never mutated after it was posted
        self.state = state
        #: the newest modification time of the state's files (seconds since the epoch), or
        #: ``None`` when none could be read: whether the session is live (``format.is_live``)
        self.written = written
        #: ``(k, state as of the end of episode k)`` read ahead by the fold worker for the
        #: first step back (``k`` the last completed episode), or ``None``
        self.as_of = as_of

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SnapshotReady) and message.key == self.key


class IngestProgress(Message):
    """Bytes folded so far of a long read of session ``key`` (``done`` of ``total`` bytes)."""

    def __init__(self, key: str, done: int, total: int) -> None:
        super().__init__()
        self.key = key
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IngestProgress) and message.key == self.key


class IngestNotice(Message):
    """Something the user should know about the files of session ``key``: ``level`` is
    ``information``, ``warning`` or ``error``; ``text`` is one line naming the file."""

    def __init__(self, key: str, level: str, text: str) -> None:
        super().__init__()
        self.key = key
        self.level = level
        self.text = text


class SessionsFound(Message):
    """Sessions that appeared (or became active) under the projects folder since the app
    started: a list of :class:`~tracetui.ingest.discover.SessionInfo`, newest first."""

    def __init__(self, sessions: list) -> None:
        super().__init__()
        self.sessions = sessions


class AsOfRead(Message):
    """The state as of the end of episode ``k`` of live generation ``generation``, read from the
    session's store on a worker thread for a scrub step that found it not read ahead
    (``state``), or the one line saying why it could not be read (``error``)."""

    def __init__(self, k: int, generation: int, state: RunState | None, error: str = "") -> None:
        super().__init__()
        self.k = k
        self.generation = generation
        self.state = state
        self.error = error
