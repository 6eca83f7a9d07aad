"""Which session a ``/clear`` ended: the link the SessionStart ``clear`` hook needs.

The SessionStart input after ``/clear`` names only the *new* session; nothing in it, in the new
transcript (not written yet) or in the old one (no ``/clear`` record is written there) names the
session that was cleared, and the newest other transcript in the project folder may be another
session running in the same project. The certain link is Claude Code itself: ``/clear`` first
runs the SessionEnd hook (``reason: "clear"``) with the ending session's ``session_id`` and
``transcript_path``, then the SessionStart hook (``source: "clear"``), both from the same Claude
Code process. So the SessionEnd call writes a marker keyed by that process's identity (pid and
start time, which a reused pid does not share), and the SessionStart call of the same process
takes it, once. No marker for this process, a stale one, or one from another project folder:
no card.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

__all__ = ["CLEARED_MARKER_SECONDS", "claude_process", "record_cleared", "take_cleared"]

#: a marker older than this (seconds) is not the session this /clear ended: SessionStart runs
#: right after SessionEnd, so this only bounds a marker whose SessionStart never came
CLEARED_MARKER_SECONDS = 120.0
#: process names skipped on the way up from the hook to Claude Code: the shell it runs the
#: hook's command line with (``sh -c '…/tracetui hook'``), when that shell did not exec, and
#: launchers a command line may put in front (each is a new process per call, so stopping at
#: one would never match; skipping it can only find the same Claude Code process)
_SHELLS = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "busybox", "env", "timeout", "nice", "nohup", "stdbuf", "uv", "uvx"}
)
#: ancestors examined at most
_MAX_DEPTH = 8


def _proc_stat(pid: int) -> tuple[int, str, str] | None:
    """``(ppid, name, start time)`` of ``pid`` from ``/proc`` (Linux), else from ``ps``;
    ``None`` when neither says."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        raw = ""
    if raw:
        head, _, tail = raw.rpartition(")")  # the name may itself hold spaces and parentheses
        name = head.partition("(")[2]
        fields = tail.split()
        try:  # fields after the name: state ppid ... starttime is the 20th (stat field 22)
            return int(fields[1]), name, fields[19]
        except (IndexError, ValueError):
            return None
    try:
        out = subprocess.run(
            ["ps", "-o", "ppid=", "-o", "lstart=", "-o", "comm=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=2,
            check=False,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    if len(out) < 7 or not out[0].isdigit():  # ppid, lstart (5 words), comm
        return None
    return int(out[0]), Path(" ".join(out[6:])).name, " ".join(out[1:6])


def claude_process() -> str | None:
    """The identity (``"<pid>@<start time>"``) of the process that ran this hook: the nearest
    ancestor that is not a shell. ``None`` when it cannot be told (no ``/proc`` and no ``ps``,
    or only ``init`` above us)."""
    pid = os.getppid()
    for _ in range(_MAX_DEPTH):
        if pid <= 1:
            return None
        st = _proc_stat(pid)
        if st is None:
            return None
        ppid, name, start = st
        if name not in _SHELLS:
            return f"{pid}@{start}"
        pid = ppid
    return None


def _marker(cache: Path, ident: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "@.-" else "_" for c in ident)[:120]
    return cache / "cleared" / f"{safe}.json"


def record_cleared(cache: Path, session_id: str, transcript: Path, ident: str | None) -> bool:
    """Remember, for the SessionStart ``clear`` call of the same Claude Code process ``ident``,
    that ``/clear`` ended ``session_id`` (main transcript ``transcript``). ``cache``: the folder
    of the hook's own files. Returns whether a marker was written (not without ``ident``)."""
    import orjson

    if ident is None:
        return False
    p = _marker(cache, ident)
    p.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    now = time.time()
    for old in p.parent.glob("*.json"):  # markers whose SessionStart never came
        try:
            if now - old.stat().st_mtime > CLEARED_MARKER_SECONDS:
                old.unlink()
        except OSError:
            pass
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)  # it names a transcript: private
    with os.fdopen(fd, "wb") as f:
        f.write(orjson.dumps({"session_id": session_id, "transcript_path": str(transcript), "ended": now}))
    os.replace(tmp, p)
    return True


def take_cleared(cache: Path, new_transcript: Path, ident: str | None, now: float | None = None) -> tuple[Path | None, str]:
    """The main transcript of the session this process's ``/clear`` just ended, and ``""``; or
    ``None`` and why not (one line). The marker is removed either way: it answers once.

    ``new_transcript``: the new session's transcript path (from the SessionStart input); the
    cleared one must be in the same project folder. ``now``: seconds since the epoch."""
    import orjson

    if ident is None:
        return None, "cannot tell which Claude Code process ran this hook, so not which session /clear ended"
    p = _marker(cache, ident)
    try:
        obj: Any = orjson.loads(p.read_bytes())
    except FileNotFoundError:
        return None, "no SessionEnd record of the cleared session from this Claude Code process (is the SessionEnd hook installed?)"
    except (OSError, ValueError):
        obj = None
    try:
        p.unlink()
    except OSError:
        pass
    if not isinstance(obj, dict) or not isinstance(obj.get("transcript_path"), str) or not isinstance(obj.get("ended"), (int, float)):
        return None, f"{p}: unreadable record of the cleared session"
    age = (time.time() if now is None else now) - float(obj["ended"])
    if not 0 <= age <= CLEARED_MARKER_SECONDS:
        return None, f"the record of the cleared session is {age:.0f} s old, so not of this /clear"
    old = Path(obj["transcript_path"]).expanduser()
    if old.parent != new_transcript.parent:
        return None, f"the cleared session {old.name} is in another project folder than {new_transcript.name}"
    if not old.is_file():
        return None, f"{old}: the cleared session's transcript is not a file"
    return old, ""
