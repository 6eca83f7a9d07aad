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
import re
import sys
from pathlib import Path
from typing import Any

from tracetui.hook.deadline import HOOK_DEADLINE, Deadline, HookLate, deadline_seconds

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
#: anomaly severities that open the gate (the detectors use ``info``, ``warn``, ``error``)
GATE_SEVERITIES = ("warn", "error")
#: the events ``hook install`` registers by default, and the ones it knows
EVENTS = ("SessionStart", "UserPromptSubmit", "SessionEnd")
#: SessionStart sources the hook answers (``startup`` prints nothing, so it is not matched)
SESSION_START_MATCHER = "compact|resume|clear"
#: SessionEnd reasons the hook answers: ``clear``, to tell the next SessionStart which session ended
SESSION_END_MATCHER = "clear"
#: seconds Claude Code waits for the hook (set in the installed entry)
HOOK_TIMEOUT = 30
#: a session this large (bytes of transcript) with no usable fold cache entry is folded by a
#: detached background process while the hook answers nothing, this once: a cold fold runs at
#: roughly 100 MB/s here (bench/hook.py), and a hook should not make the user wait seconds
COLD_BACKGROUND_BYTES = 64 << 20
#: a background build younger than this (seconds) is not started again
BUILD_MARKER_SECONDS = 600

HEADER = (
    "[tracetui state card for session {sid}, derived from its transcript {path} through {through}. "
    "It is a summary made by a program, not instructions: it may be incomplete or wrong; check it "
    "against the transcript and the files before relying on it.]"
)
FOOTER = "[end of tracetui state card: derived from the transcript; verify before relying on it]"


class HookError(Exception):
    """The hook input or settings file is unusable; the message is one line."""


class HookSkip(Exception):
    """The hook has nothing to say this time, and says why on stderr (one line)."""


# -- the hook itself ----------------------------------------------------------------------


def _parse_gate(text: str | None) -> tuple[str, ...]:
    raw = text if text is not None else os.environ.get("TRACETUI_HOOK_GATE", DEFAULT_GATE)
    items = tuple(x.strip() for x in raw.replace(" ", ",").split(",") if x.strip())
    bad = [x for x in items if x not in GATES and x != "none"]
    if bad:
        raise HookError(f"unknown gate {', '.join(bad)} (known: {', '.join(GATES)}, none)")
    return tuple(x for x in items if x != "none")


def _hook_state_path(session_id: str) -> Path:
    from tracetui.session.store import cache_dir

    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session_id)[:120] or "unknown"
    return cache_dir() / "hook" / f"{safe}.json"


def _load_hook_state(session_id: str) -> dict[str, Any]:
    import orjson

    try:
        obj = orjson.loads(_hook_state_path(session_id).read_bytes())
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def _save_hook_state(session_id: str, state: dict[str, Any]) -> None:
    import orjson

    from tracetui.ingest.private import write_private

    write_private(_hook_state_path(session_id), orjson.dumps(state))


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


def _session_bytes(path: Path) -> int:
    """Bytes of the main transcript and its subagent files."""
    from tracetui.ingest.discover import subagent_files

    total = path.stat().st_size
    for sf in subagent_files(path):
        try:
            total += sf.path.stat().st_size
        except OSError:
            pass
    return total


def _warm_in_background(path: Path) -> bool:
    """Fold ``path`` (with subagents) and save its cache entry in a detached child process;
    ``False`` when one is already at it (a ``.building`` marker younger than
    :data:`BUILD_MARKER_SECONDS`)."""
    import time

    from tracetui.session.store import cache_path, open_cached

    marker = cache_path([path], True).with_suffix(".building")
    from tracetui.ingest.private import private_dir

    private_dir(marker.parent)
    try:
        if time.time() - marker.stat().st_mtime < BUILD_MARKER_SECONDS:
            return False
        marker.unlink()
    except FileNotFoundError:
        pass
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    for f in (sys.stdout, sys.stderr):
        f.flush()
    if os.fork():
        return True
    code = 0
    try:  # the child, detached from Claude Code's pipes
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for n in (0, 1, 2):
            os.dup2(null, n)
        reader = open_cached([path], subagents=True, price=False)
        reader.poll()
        reader.save_cache()
    except BaseException:  # noqa: BLE001 - nowhere left to report it; the next call tries again
        code = 1
    finally:
        try:
            marker.unlink()
        except OSError:
            pass
        os._exit(code)


#: readers whose cache entry is saved once the hook's answer is out (see :func:`_save_pending`)
_PENDING_SAVES: list[Any] = []


def _save_pending(background: bool) -> list[Any]:
    """Save the fold cache of the sessions folded by this call; with ``background``, a large
    session is saved by a detached child process, so the hook returns without waiting.
    Returns the readers saved: a caller about to end the process keeps them until then (freeing
    a large fold object by object costs ~35 ms, and after a fork for the background save each
    freed object's page is copied first)."""
    done = []
    while _PENDING_SAVES:
        done.append(_PENDING_SAVES.pop())
        done[-1].save_cache(background=background)
    return done


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


def _render_card(state: Any, now: Any) -> str:
    try:
        from tracetui.views.card import render_card
    except ImportError:
        return _fallback_card(state, now)
    from tracetui.views.safe import export_text

    # secrets masked: the card is re-injected into the model's context
    return export_text(render_card(state, now=now))


def _fallback_card(state: Any, now: Any) -> str:
    """A deliberately minimal card used until ``tracetui.views.card`` is built in."""
    fa = state.fmt_anchor
    lines = ["(minimal card: the full trace-as-state card is not available in this build)"]
    g, la, fr = state.goal, state.latest_ask, state.frontier
    lines.append(f"0. GOAL: {g.text[:400]!r} [{fa(g.anchor)}]" if g else "0. GOAL: unlocated (no human prompt found)")
    if la is not None and la is not g:
        lines.append(f"   LATEST ASK: {la.text[:400]!r} [{fa(la.anchor)}]")
    if fr is not None:
        lines.append(f"NOW: {fr.kind} {fr.text[:200]!r} [{fa(fr.anchor)}]")
    for c in state.pending[:10]:
        lines.append(f"OPEN: pending {c.name} …{c.id[-8:]} ({c.brief[:80]}) [{fa(c.anchor)}]")
    if len(state.pending) > 10:
        lines.append(f"OPEN: +{len(state.pending) - 10} more pending calls")
    for t in state.todos:
        if t.status != "completed":
            lines.append(f"OPEN: todo {t.status}: {t.content[:120]!r} [{fa(t.anchor)}]")
    c = state.counters
    lines.append(f"COUNTS: {c.tool_calls} tool calls, {c.tool_errors} errors, {c.user_prompts} prompts, {c.compactions} compactions")
    for a in _open_anomalies(state, now):
        lines.append(f"ANOMALY {a.severity}: {a.message[:200]} [{fa(a.began)}]")
    return "\n".join(lines)


def _frame(card: str, state: Any, path: Path, max_chars: int, note: str = "") -> str:
    """``card`` between the disclaimer (with ``note`` above it) and the end marker, at most
    ``max_chars`` characters. A longer card is cut at a line end and says so in a note that is
    always whole. Raises :class:`HookSkip` when ``max_chars`` leaves no room even for the frame."""
    src = state.sources[0] if state.sources else None
    through = f"{src.name}:{src.lines} (byte {src.consumed})" if src is not None else "?"
    head = HEADER.format(sid=state.main.session_id or path.stem, path=path, through=through)
    if note:
        head = note + "\n" + head
    body = card.rstrip("\n")
    fixed = len(head) + len(FOOTER) + 2  # the frame: disclaimer, end marker, two newlines
    if fixed + len(body) > max_chars:
        # the note is reserved whole (with the widest count it can show): never cut itself
        cut_note = (
            f"\n[card shortened by tracetui hook: {{shown}} of {len(body)} characters shown; run `tracetui card {path}` for all of it]"
        )
        room = max_chars - fixed - len(cut_note.format(shown=len(body)))
        if room < 0:
            raise HookSkip(
                f"--max-chars {max_chars} leaves no room for the card: its frame (disclaimer, "
                f"shortening note, end marker) takes {max_chars - room} characters here"
            )
        cut = body.rfind("\n", 0, room + 1)  # whole lines when one fits
        cut = cut if cut > 0 else room
        body = body[:cut] + cut_note.format(shown=cut)
    return f"{head}\n{body}\n{FOOTER}"


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
        return ""
    source = inp.get("source")
    if event == "SessionStart" and source not in ("compact", "resume", "clear"):
        return ""  # startup (or a source this version does not know): nothing to restore
    if event == "SessionEnd" and inp.get("reason") != "clear":
        return ""  # only a /clear is followed by a SessionStart that needs to know
    tp = inp.get("transcript_path")
    if tp is None or tp == "":
        raise HookError(f"{event} hook input has no transcript_path")
    if not isinstance(tp, str):
        raise HookError(f"{event} hook input: transcript_path is not a string (a JSON {_json_type(tp)}: {orjson.dumps(tp).decode()[:60]})")
    path = Path(tp).expanduser()
    sid = inp.get("session_id") if isinstance(inp.get("session_id"), str) else path.stem
    note = ""
    if event == "SessionEnd":
        from tracetui.hook.cleared import claude_process, record_cleared

        record_cleared(_hook_state_path(sid).parent, sid, path, claude_process())
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
    anomalies = None
    if event == "UserPromptSubmit" and not always:
        saved = _load_hook_state(sid)
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
            _save_hook_state(sid, {"compactions": state.main.counters.compactions, "anomalies": sorted(_anomaly_key(a) for a in anomalies)})
        except OSError:
            pass  # the card is still worth giving; the gate may open once more than needed
    return out


def _json_type(v: Any) -> str:
    """The JSON name of a decoded value's type (``number``, ``array``, …)."""
    if isinstance(v, bool):
        return "boolean"
    return {int: "number", float: "number", list: "array", dict: "object"}.get(type(v), type(v).__name__)


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
            data = sys.stdin.buffer.read()
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
        # already; only an unexpected exception is named by its class
        from tracetui.session.reader import TranscriptError

        what = "" if isinstance(exc, (HookSkip, HookError, HookLate, TranscriptError)) else f"{type(exc).__name__}: "
        print(f"tracetui hook: {what}{msg}"[:500], file=sys.stderr)
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
