"""The hook's own deadline: late is nothing, never a stalled Claude Code session.

Claude Code waits for a command hook up to its configured timeout, with the user's turn on
hold. A stdin that is never closed, a file that blocks, or a fold slower than expected must not
cost that long: past :data:`HOOK_DEADLINE` seconds the hook prints nothing, says so in one line
on stderr, and exits 0.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["HOOK_DEADLINE", "HookLate", "Deadline", "deadline_seconds"]

#: seconds the hook may take to read its input and do its work (``$TRACETUI_HOOK_DEADLINE``
#: overrides): past it, it prints nothing and exits 0, so a stdin that never closes or a file
#: that blocks costs the user this long at most, never Claude Code's own timeout
HOOK_DEADLINE = 8.0


class HookLate(BaseException):
    """The hook's deadline passed (raised by its timer; a ``BaseException`` so that no
    ``except Exception`` on the way swallows it)."""


def deadline_seconds() -> float:
    """:data:`HOOK_DEADLINE`, or ``$TRACETUI_HOOK_DEADLINE`` when that is a positive number."""
    try:
        v = float(os.environ.get("TRACETUI_HOOK_DEADLINE", ""))
    except ValueError:
        return HOOK_DEADLINE
    return v if v > 0 else HOOK_DEADLINE


class Deadline:
    """A real-time timer (``setitimer``) that raises :class:`HookLate` in the main thread after
    ``seconds``; it interrupts a blocking read or open too. Does nothing off the main thread
    or without ``setitimer``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._old: Any = None
        self.armed = False

    def _fire(self, _signum: int, _frame: Any) -> None:
        raise HookLate(f"past its {self.seconds:g} s deadline (reading its input and folding the transcript); printed nothing")

    def __enter__(self) -> Deadline:
        import signal
        import threading

        if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            self.armed = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.armed:
            import signal

            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)
            self.armed = False
