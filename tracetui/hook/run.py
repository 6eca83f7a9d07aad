"""``tracetui hook``: feed the trace-as-state card back into Claude Code through its hooks.

Claude Code runs a command hook with a JSON object on stdin (``session_id``, ``transcript_path``,
``cwd``, ``hook_event_name``, plus ``source`` for SessionStart and ``prompt`` for
UserPromptSubmit). For SessionStart and UserPromptSubmit, what such a hook prints on stdout with
exit status 0 is added to the model's context. The card goes there, after the history and before
this turn's material: the *intra-turn prefix* of the trace-as-state method (seed 000, §5 row B
and §7.2), so the history and its prompt cache stay untouched.

What it prints:

* SessionStart ``compact`` or ``resume``: the card of this session (compaction loses exactly
  the state the card keeps);
* SessionStart ``clear``: the card of the session this ``/clear`` ended, saying so, when that is
  certain: the SessionEnd call (``reason: "clear"``) of the same Claude Code process recorded it
  (:mod:`tracetui.hook.cleared`); otherwise nothing (never the newest other transcript of the
  folder, which may be another session running in the same project);
* SessionEnd ``clear``: nothing; it records the ending session for the SessionStart call;
* SessionStart ``startup``, any other event: nothing;
* UserPromptSubmit: gated (seed 000 §7.3 rule 0, "inject only when it can pay"): by default
  only when a compaction happened since the last injection, or when an anomaly of severity
  ``warn`` or above opened that the last injection did not carry. ``--gate`` or
  ``$TRACETUI_HOOK_GATE`` choose the conditions; ``--always`` turns the gate off.

The output stays under :data:`MAX_CHARS` characters (Claude Code shows longer hook output only
as a preview) and is framed as derived from the transcript, to be checked against it.

It never breaks the session: on any error it exits 0 with empty stdout and one line on stderr.
``tracetui hook install`` / ``uninstall`` edit ``.claude/settings.json`` (project) or
``<claude dir>/settings.json`` (user), merging with the hooks already there.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from tracetui.hook.cache import _PENDING_SAVES, _save_pending, _session_bytes, _warm_in_background
from tracetui.hook.compose import FOOTER, HEADER, _fallback_card, _frame, _render_card
from tracetui.hook.deadline import HOOK_DEADLINE, Deadline, HookLate, deadline_seconds
from tracetui.hook.gate import (
    GATE_SEVERITIES,
    GateUnavailable,
    _anomaly_key,
    _hook_state_path,
    _load_hook_state,
    _open_anomalies,
    _save_hook_state,
    gate_lock,
)
from tracetui.hook.protocol import (
    DEFAULT_GATE,
    EVENTS,
    GATES,
    HOOK_TIMEOUT,
    MAX_CHARS,
    MIN_HOOK_CHARS,
    SESSION_END_MATCHER,
    SESSION_START_MATCHER,
    HookError,
    HookSkip,
    _parse_gate,
    parse_input,
    read_input,
)

__all__ = [
    "run_hook",
    "run_mode",
    "HookError",
    "HookSkip",
    "MAX_CHARS",
    "MIN_HOOK_CHARS",
    "GATES",
    "DEFAULT_GATE",
    "EVENTS",
    "HOOK_TIMEOUT",
    "HOOK_DEADLINE",
    "HookLate",
    # defined in protocol, gate and compose; imported from here by install and the tests
    "SESSION_START_MATCHER",
    "SESSION_END_MATCHER",
    "GATE_SEVERITIES",
    "HEADER",
    "FOOTER",
    "_fallback_card",
]

#: a session this large (bytes of transcript) with no usable fold cache entry is folded by a
#: detached background process while the hook answers nothing, this once: a cold fold runs at
#: roughly 100 MB/s here (bench/hook.py), and a hook should not make the user wait seconds
COLD_BACKGROUND_BYTES = 64 << 20

#: bytes folded past a warm store's resume point below which the hook does not save: the next
#: call folds them again in milliseconds, while a save of a large session's fold state costs
#: seconds (bench/hook.py: 3.2 s after one turn of a 500 MB session), which Claude Code waits for
SAVE_GAP_BYTES = 8 << 20


def _fold(path: Path, use_cache: bool):
    """``RunState`` of the session whose main transcript is ``path`` (with its subagents).

    Unpriced: the card states no cost, and the price table costs 0.3 s to import."""
    from tracetui.session.reader import SessionReader, open_paths

    open_paths([path])
    if use_cache:
        from tracetui.session.store import open_cached

        reader = open_cached([path], subagents=True, price=False, lazy=True)  # the card reads no ledger
        if reader.cache_status != "warm":
            from tracetui.views.format import fmt_bytes

            todo = _session_bytes(path)
            if todo >= COLD_BACKGROUND_BYTES and hasattr(os, "fork"):
                started = _warm_in_background(path)
                raise HookSkip(
                    f"{path.name}: no fold cache yet for this {fmt_bytes(todo)} session; "
                    + ("building it in the background" if started else "it is being built in the background")
                    + ", so the card comes with a later call"
                )
    else:
        reader = SessionReader([path], subagents=True, price=False)
    resumed_at = sum(t.offset for t in reader.tailers)
    reader.poll()
    reader.check_transcript()
    state = reader.snapshot()
    warm = getattr(reader, "cache_status", "") == "warm"
    gap = sum(t.offset for t in reader.tailers) - resumed_at
    if hasattr(reader, "save_cache") and (not warm or gap >= SAVE_GAP_BYTES):
        _PENDING_SAVES.append(reader)
    return state


def run_hook(
    data: bytes | str,
    *,
    gate: tuple[str, ...] = ("compaction", "anomaly"),
    always: bool = False,
    use_cache: bool = True,
    max_chars: int = MAX_CHARS,
    now: Any = None,
    defer_save: bool = False,
) -> str:
    """The text to print for one hook input (``""`` for nothing).

    ``data``: the JSON object Claude Code writes on stdin. ``now``: the wall clock (a datetime),
    passed to the stall detector. ``defer_save``: leave the fold cache save to the caller
    (:func:`_save_pending`, after the answer is written). Raises :class:`HookError` (bad input)
    or ``OSError`` / ``TranscriptError`` (unreadable transcript); the command turns any error
    into one line on stderr and exit 0.
    """
    try:
        return _run_hook(data, gate, always, use_cache, max_chars, now)
    finally:
        if not defer_save:
            _save_pending(background=False)


def _run_hook(data: bytes | str, gate: tuple[str, ...], always: bool, use_cache: bool, max_chars: int, now: Any) -> str:
    parsed = parse_input(data)
    if parsed is None:
        return ""
    event, source, path, sid = parsed
    note = ""
    if event == "SessionEnd":
        from tracetui.hook.cleared import claude_process, record_cleared

        try:
            record_cleared(_hook_state_path(sid).parent, sid, path, claude_process())
        except OSError as exc:
            from tracetui.session.reader import describe_os_error

            where = exc.filename if exc.filename else _hook_state_path(sid).parent
            raise HookError(f"the cleared session not recorded for the next SessionStart: {describe_os_error(where, exc)}") from None
        return ""
    if event == "SessionStart" and source == "clear":
        from tracetui.hook.cleared import claude_process, take_cleared

        other, why = take_cleared(_hook_state_path(sid).parent, path, claude_process())
        if other is None:
            raise HookSkip(f"/clear: no card, {why}")
        note = (
            f"[This session was started with /clear. The card below is of the PREVIOUS session "
            f"{other.stem} (the one this /clear ended, {other.name}), not of this new one.]"
        )
        path = other
    elif not path.exists():
        # a session with no transcript yet has no state to restore: nothing to print, but say so
        raise HookSkip(f"{path}: no such transcript file yet, so no card")
    from tracetui.ingest.codex_discover import is_rollout

    if is_rollout(path):
        # the hook speaks Claude Code's hook protocol; a Codex rollout's card is 'tracetui card'
        raise HookError(f"{path}: a Codex CLI rollout; the hook is for Claude Code sessions only (use 'tracetui card' for a Codex session)")
    state = _fold(path, use_cache)
    head = _first_line_digest(path)
    if event == "UserPromptSubmit" and not always:
        # decided under the gate's lock, from reading what was given to recording it: hooks of
        # one session run in parallel, and each would else give the same card (user trial)
        try:
            with gate_lock(sid):
                return _give(state, path, sid, event, gate, always, max_chars, now, note, head)
        except GateUnavailable as exc:
            cause = exc.__cause__
            if isinstance(cause, OSError):
                from tracetui.session.reader import describe_os_error

                why = describe_os_error(cause.filename if cause.filename else _hook_state_path(sid), cause)
            else:
                why = str(exc)
            raise HookSkip(f"no card: what it gave cannot be remembered ({why})") from None
    return _give(state, path, sid, event, gate, always, max_chars, now, note, head)


def _give(
    state: Any, path: Path, sid: str, event: str, gate: tuple[str, ...], always: bool, max_chars: int, now: Any, note: str, head: str
) -> str:
    """The framed card, or ``""`` when the UserPromptSubmit gate stays closed; records what it
    gave for the gate (the caller holds the gate's lock for a UserPromptSubmit)."""
    anomalies = None
    if event == "UserPromptSubmit" and not always:
        saved = _load_hook_state(sid)
        if saved.get("head", head) != head:
            # another file under the same path (replaced by a shorter one): what was given of the
            # old one says nothing of this one's compactions (seventh user trial: one was missed)
            saved = {}
        reasons = []
        if "compaction" in gate and state.main.counters.compactions > int(saved.get("compactions", 0) or 0):
            reasons.append("compaction")
        if "anomaly" in gate:
            anomalies = _open_anomalies(state, now)
            seen = set(saved.get("anomalies") or ())
            if any(_anomaly_key(a) not in seen for a in anomalies):
                reasons.append("anomaly")
        if not reasons:
            return ""
    card = _render_card(state, now)
    out = _frame(card, state, path, max_chars, note)
    if note == "":  # remember what this session was given, for the UserPromptSubmit gate
        if anomalies is None:
            anomalies = _open_anomalies(state, now) if "anomaly" in gate or always else []
        try:
            gave = {"compactions": state.main.counters.compactions, "anomalies": sorted(_anomaly_key(a) for a in anomalies), "head": head}
            _save_hook_state(sid, gave)
        except OSError as exc:
            if event == "UserPromptSubmit" and not always:
                # what the gate gave cannot be kept: it would open again on every prompt (a card
                # of ~900 tokens each, seventh user trial); closed, and said why
                from tracetui.session.reader import describe_os_error

                where = exc.filename if exc.filename else _hook_state_path(sid)
                raise HookSkip(f"no card: what it gave cannot be remembered ({describe_os_error(where, exc)})") from None
            # SessionStart's card is given once anyway
    return out


def _first_line_digest(path: Path) -> str:
    """SHA-256 (hex, 16 digits) of the transcript's first line (4 KiB at most): the same while
    the file is appended to, another when it is replaced; ``""`` when it cannot be read."""
    import hashlib

    from tracetui.ingest.files import open_regular

    try:
        with open_regular(path) as f:
            return hashlib.sha256(f.readline(4096)).hexdigest()[:16]
    except OSError:
        return ""


def _is_command() -> bool:
    """Whether this process is the ``tracetui`` command itself (its console script, or
    ``python -m tracetui.cli``), not a program that calls :func:`tracetui.cli.main` in-process
    (a test, an embedding app)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None:
        return spec.name == "tracetui.cli"
    return Path(sys.argv[0] if sys.argv else "").stem == "tracetui"


def _exit_now(rc: int, *alive: Any) -> None:
    """End the hook's process at once: the answer is written, the cache saved or handed to a
    background process. Freeing a large session's folded state object by object, then
    finalising the interpreter, costs ~30-40 ms CPU (500 MB corpus build) for nothing, more
    after a fork. ``alive``: what the caller holds, so that nothing is freed before the end."""
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except (OSError, ValueError):
            pass
    os._exit(rc)


def run_mode(ns: argparse.Namespace) -> int:
    """``tracetui hook`` without install/uninstall: never break the session."""
    try:
        err = getattr(ns, "hook_error", None)
        if err:
            raise HookError(err)
        extra = getattr(ns, "hook_extra", None)
        if extra:
            print(f"tracetui hook: ignoring unknown arguments {' '.join(extra)}", file=sys.stderr)
        gate = _parse_gate(getattr(ns, "gate", None))
        with Deadline(deadline_seconds()):
            data = read_input(sys.stdin.buffer)
            # now=None: the hook runs at turn boundaries, where time since the last record is the
            # user's idle time, not a stalled agent; so the stall detector stays out of the card
            out = run_hook(
                data,
                gate=gate,
                always=bool(getattr(ns, "always", False)),
                use_cache=not getattr(ns, "no_cache", False),
                max_chars=min(int(getattr(ns, "max_chars", MAX_CHARS) or MAX_CHARS), MAX_CHARS),
                now=None,
                defer_save=True,
            )
    except BaseException as exc:  # noqa: BLE001 - the user's session must go on, whatever happened
        _PENDING_SAVES.clear()
        if isinstance(exc, SystemExit) and not exc.code:
            return 0
        msg = str(exc).splitlines()[0] if str(exc) else ""
        # our own errors (and TranscriptError: "FILE: not a transcript ...") say what and where
        # already, and so does an OSError in words; only an unexpected exception is named by
        # its class
        from tracetui.session.reader import TranscriptError, describe_os_error

        what = "" if isinstance(exc, (HookSkip, HookError, HookLate, TranscriptError)) else f"{type(exc).__name__}: "
        if isinstance(exc, OSError) and exc.filename is not None:
            what, msg = "", describe_os_error(exc.filename, exc)
        line = f"tracetui hook: {what}{msg}"
        print(line if len(line) <= 500 else line[:499] + "\u2026", file=sys.stderr)  # a cut says so
        return 0
    if out:
        try:
            from tracetui.views.safe import safe_text

            # the frame names the transcript's path and session id, which may hold escapes too
            sys.stdout.write(safe_text(out) + "\n")
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    kept: list[Any] = []
    try:
        kept = _save_pending(background=True)
    except BaseException as exc:  # noqa: BLE001 - the answer is out; a failed save costs speed only
        print(f"tracetui hook: fold cache not saved: {type(exc).__name__}: {exc}"[:300], file=sys.stderr)
    if _is_command():
        _exit_now(0, kept)
    return 0
