"""The UserPromptSubmit gate: the open anomalies that open it, and what the last injection carried."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["GATE_SEVERITIES", "GateUnavailable", "gate_lock"]

#: anomaly severities that open the gate (the detectors use ``info``, ``warn``, ``error``)
GATE_SEVERITIES = ("warn", "error")


def _hook_state_path(session_id: str) -> Path:
    from tracetui.session.store import cache_dir

    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session_id)[:120] or "unknown"
    return cache_dir() / "hook" / f"{safe}.json"


class GateUnavailable(Exception):
    """The gate's lock could not be taken (``OSError`` opening or locking it, or the hook's
    deadline passed while waiting): the gate stays closed."""


@contextlib.contextmanager
def gate_lock(session_id: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``<session>.lock`` beside the gate's state file, so that
    concurrent hook calls of one session (Claude Code runs matching hooks in parallel) decide
    the gate one at a time: exactly one card per compaction or anomaly. Waits for the lock
    until the hook's :class:`~tracetui.hook.deadline.Deadline` interrupts the wait.

    Raises :class:`GateUnavailable` (with the ``OSError`` as ``__cause__`` when there is one)
    when the lock file cannot be opened or locked, or the deadline passed while waiting."""
    import fcntl
    import os

    from tracetui.hook.deadline import HookLate

    path = _hook_state_path(session_id).with_suffix(".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as exc:
        raise GateUnavailable(str(exc)) from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # interrupted by the deadline's SIGALRM (HookLate)
        except HookLate:
            raise GateUnavailable(f"{path}: locked by another hook call past the hook's deadline") from None
        except OSError as exc:
            raise GateUnavailable(str(exc)) from exc
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def _load_hook_state(session_id: str) -> dict[str, Any]:
    import orjson

    try:
        obj = orjson.loads(_hook_state_path(session_id).read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(obj, dict):
        return {}
    # a damaged file (another shape, edited by hand) is as none: the gate starts afresh (seventh
    # user trial: "ValueError: invalid literal for int()" on every prompt)
    c, a, h = obj.get("compactions", 0), obj.get("anomalies", []), obj.get("head", "")
    if type(c) is not int or not isinstance(a, list) or not all(isinstance(x, str) for x in a) or not isinstance(h, str):
        return {}
    return obj


def _save_hook_state(session_id: str, state: dict[str, Any]) -> None:
    import orjson

    from tracetui.ingest.private import write_private

    write_private(_hook_state_path(session_id), orjson.dumps(state))


def _open_anomalies(state: Any, now: Any) -> list[Any]:
    """Open anomalies of severity warn or above, from the incremental detectors of every file
    (``AgentState.derived.anomalies``). The view-time detectors stay out of the gate: the stall
    detector measures idle time, which at a turn boundary is the user's, and the cost-spike
    detector needs the price table (0.3 s to import, more than the hook's budget)."""
    out = []
    for st in (state.main, *state.agents):
        d = getattr(st, "derived", None)
        for a in getattr(d, "anomalies", ()) or ():
            if a.open and a.severity in GATE_SEVERITIES:
                out.append(a)
    return out


def _anomaly_key(a: Any) -> str:
    began = getattr(a, "began", None)
    where = f"{began.src}:{began.line}" if began is not None else "-"
    return f"{a.key}@{where}"
