"""Claude Code's hook protocol as the hook reads it: limits, events, gates, errors, the input."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_CHARS",
    "MIN_HOOK_CHARS",
    "GATES",
    "DEFAULT_GATE",
    "EVENTS",
    "SESSION_START_MATCHER",
    "SESSION_END_MATCHER",
    "HOOK_TIMEOUT",
    "HookError",
    "HookSkip",
    "HookInput",
    "MAX_INPUT_BYTES",
    "parse_input",
    "read_input",
]

#: hard cap on what the hook prints, in characters: Claude Code shows hook output over 10,000
#: characters only as a preview (hooks documentation), so the card stays below with a margin
MAX_CHARS = 9_500
#: the smallest ``--max-chars`` accepted (0 read as "no value" and gave the whole output); a cap
#: too small for the card's frame is said at run time with the frame's size
MIN_HOOK_CHARS = 1


#: UserPromptSubmit gate conditions (seed 000 §7.3 rule 0)
GATES = ("compaction", "anomaly")
#: the default gate, overridable by ``--gate`` or ``$TRACETUI_HOOK_GATE``
DEFAULT_GATE = "compaction,anomaly"
#: the events ``hook install`` registers by default, and the ones it knows
EVENTS = ("SessionStart", "UserPromptSubmit", "SessionEnd")
#: SessionStart sources the hook answers (``startup`` prints nothing, so it is not matched)
SESSION_START_MATCHER = "compact|resume|clear"
#: SessionEnd reasons the hook answers: ``clear``, to tell the next SessionStart which session ended
SESSION_END_MATCHER = "clear"
#: seconds Claude Code waits for the hook (set in the installed entry)
HOOK_TIMEOUT = 30


#: the most bytes of hook input read (Claude Code's JSON is a few KB; a UserPromptSubmit's holds
#: the prompt, which a paste can make megabytes): past it the hook prints nothing and says so,
#: rather than hold a runaway producer's gigabytes in memory past its deadline
MAX_INPUT_BYTES = 32 << 20
#: bytes read from stdin at a time: the hook's deadline (a signal) is checked between reads,
#: which a single read of a huge input would hold off until it returned
_READ_BYTES = 1 << 20


class HookError(Exception):
    """The hook input or settings file is unusable; the message is one line."""


class HookSkip(Exception):
    """The hook has nothing to say this time, and says why on stderr (one line)."""


def _parse_gate(text: str | None) -> tuple[str, ...]:
    raw = text if text is not None else os.environ.get("TRACETUI_HOOK_GATE", DEFAULT_GATE)
    items = tuple(x.strip() for x in raw.replace(" ", ",").split(",") if x.strip())
    bad = [x for x in items if x not in GATES and x != "none"]
    if bad:
        raise HookError(f"unknown gate {', '.join(bad)} (known: {', '.join(GATES)}, none)")
    return tuple(x for x in items if x != "none")


def _json_type(v: Any) -> str:
    """The JSON name of a decoded value's type (``number``, ``array``, …)."""
    if isinstance(v, bool):
        return "boolean"
    return {int: "number", float: "number", list: "array", dict: "object"}.get(type(v), type(v).__name__)


#: what a hook input asks for: the event, the SessionStart source, the transcript, the session id
HookInput = tuple[str, Any, Path, str]


def parse_input(data: bytes | str) -> HookInput | None:
    """The event, source, transcript path and session id of one hook input; ``None`` when the
    hook prints nothing for it (an event it does not answer, a SessionStart ``startup``, a
    SessionEnd that is not a ``/clear``). Raises :class:`HookError` (one line) when ``data`` is
    not UTF-8 JSON, not an object, or lacks ``hook_event_name`` or a string ``transcript_path``."""
    import orjson

    try:
        # orjson's own message for bad bytes ("str is not valid UTF-8: surrogates not allowed")
        # names the wrong thing: say what the input is not
        if isinstance(data, str):
            data.encode("utf-8")
        else:
            bytes(data).decode("utf-8")
    except UnicodeError:
        raise HookError("hook input is not UTF-8 JSON") from None
    try:
        inp = orjson.loads(data)
    except ValueError as exc:
        raise HookError(f"hook input is not JSON: {exc}") from None
    if not isinstance(inp, dict):
        raise HookError("hook input is not a JSON object")
    event = inp.get("hook_event_name")
    if not isinstance(event, str):
        raise HookError("hook input has no hook_event_name")
    if event not in EVENTS:
        return None
    source = inp.get("source")
    if event == "SessionStart" and source not in ("compact", "resume", "clear"):
        return None  # startup (or a source this version does not know): nothing to restore
    if event == "SessionEnd" and inp.get("reason") != "clear":
        return None  # only a /clear is followed by a SessionStart that needs to know
    tp = inp.get("transcript_path")
    if tp is None or tp == "":
        raise HookError(f"{event} hook input has no transcript_path")
    if not isinstance(tp, str):
        raise HookError(f"{event} hook input: transcript_path is not a string (a JSON {_json_type(tp)}: {orjson.dumps(tp).decode()[:60]})")
    path = Path(tp).expanduser()
    sid = inp.get("session_id") if isinstance(inp.get("session_id"), str) else path.stem
    return event, source, path, sid


def read_input(stream: Any, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The hook's input: ``stream`` (a binary file: stdin's buffer) read to its end, in chunks
    of 1 MiB so that the deadline's signal interrupts it between them. Raises
    :class:`HookSkip` when it holds more than ``limit`` bytes (what was read is dropped)."""
    read = getattr(stream, "read1", stream.read)
    parts: list[bytes] = []
    n = 0
    while True:
        chunk = read(_READ_BYTES)
        if not chunk:
            return b"".join(parts)
        n += len(chunk)
        if n > limit:
            raise HookSkip(f"its input is over {limit >> 20} MiB (Claude Code's is a few KB); printed nothing")
        parts.append(chunk)
