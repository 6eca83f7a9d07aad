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
* SessionStart ``clear``: the card of the newest *other* session in the same project folder
  (the one just cleared), saying so;
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
import functools
import os
import re
import sys
from pathlib import Path
from typing import Any

from tracetui.args import int_at_least

__all__ = [
    "register_hook",
    "run_hook",
    "HookError",
    "HookSkip",
    "MAX_CHARS",
    "GATES",
    "install_hooks",
    "uninstall_hooks",
    "merge_settings",
    "remove_from_settings",
    "settings_path",
    "default_command",
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
EVENTS = ("SessionStart", "UserPromptSubmit")
#: SessionStart sources the hook answers (``startup`` prints nothing, so it is not matched)
SESSION_START_MATCHER = "compact|resume|clear"
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
    from tracetui.ingest.cache import cache_dir

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

    p = _hook_state_path(session_id)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    tmp.write_bytes(orjson.dumps(state))
    os.replace(tmp, p)


def _fold(path: Path, use_cache: bool):
    """``RunState`` of the session whose main transcript is ``path`` (with its subagents).

    Unpriced: the card states no cost, and the price table costs 0.3 s to import."""
    from tracetui.ingest.session import SessionReader, open_paths

    open_paths([path])
    if use_cache:
        from tracetui.ingest.cache import open_cached

        reader = open_cached([path], subagents=True, price=False, lazy=True)  # the card reads no ledger
        if reader.cache_status != "warm":
            todo = _session_bytes(path)
            if todo >= COLD_BACKGROUND_BYTES and hasattr(os, "fork"):
                started = _warm_in_background(path)
                raise HookSkip(
                    f"{path.name}: no fold cache yet for this {todo / 1e6:.0f} MB session; "
                    + ("building it in the background" if started else "it is being built in the background")
                    + ", so the card comes with a later call"
                )
    else:
        reader = SessionReader([path], subagents=True, price=False)
    reader.poll()
    reader.check_transcript()
    state = reader.snapshot()
    if hasattr(reader, "save_cache"):
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

    from tracetui.ingest.cache import cache_path, open_cached

    marker = cache_path([path], True).with_suffix(".building")
    marker.parent.mkdir(parents=True, exist_ok=True)
    try:
        if time.time() - marker.stat().st_mtime < BUILD_MARKER_SECONDS:
            return False
        marker.unlink()
    except FileNotFoundError:
        pass
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
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
    from tracetui.views.safe import safe_text

    return safe_text(render_card(state, now=now))


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
        cut_note = f"\n[card shortened by tracetui hook: {{shown}} of {len(body)} characters shown; run `tracetui card {path}` for all of it]"
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


def _newest_other_session(transcript: Path, session_id: str | None) -> Path | None:
    """The most recently modified other main transcript in ``transcript``'s project folder."""
    best: tuple[float, str] | None = None
    found: Path | None = None
    try:
        entries = list(transcript.parent.iterdir())
    except OSError:
        return None
    for p in entries:
        if p.suffix != ".jsonl" or p.name.startswith("agent-") or p.name == transcript.name or p.stem == session_id:
            continue
        try:
            st = p.stat()
        except OSError:
            continue
        if st.st_size == 0 or not p.is_file():
            continue
        key = (st.st_mtime, p.name)
        if best is None or key > best:
            best, found = key, p
    return found


def run_hook(data: bytes | str, *, gate: tuple[str, ...] = ("compaction", "anomaly"), always: bool = False, use_cache: bool = True, max_chars: int = MAX_CHARS, now: Any = None, defer_save: bool = False) -> str:
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
    tp = inp.get("transcript_path")
    if tp is None or tp == "":
        raise HookError(f"{event} hook input has no transcript_path")
    if not isinstance(tp, str):
        raise HookError(f"{event} hook input: transcript_path is not a string (a JSON {_json_type(tp)}: {orjson.dumps(tp).decode()[:60]})")
    path = Path(tp).expanduser()
    sid = inp.get("session_id") if isinstance(inp.get("session_id"), str) else path.stem
    note = ""
    if event == "SessionStart" and source == "clear":
        other = _newest_other_session(path, sid)
        if other is None:
            return ""
        note = (
            f"[This session was started with /clear. The card below is of the PREVIOUS session "
            f"{other.stem} in this project (the newest other transcript, {other.name}), not of this new one.]"
        )
        path = other
    elif not path.exists():
        # a session with no transcript yet has no state to restore: nothing to print, but say so
        raise HookSkip(f"{path}: no such transcript file yet, so no card")
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


def _cmd_hook(ns: argparse.Namespace) -> int:
    action = getattr(ns, "hook_action", None)
    if action in ("install", "uninstall"):
        return _cmd_install(ns, action)
    import gc

    gc_was = gc.isenabled()
    gc.disable()  # the hook keeps what it builds until it exits: the cyclic GC only costs time
    try:
        return _run_mode(ns)
    finally:
        if gc_was:
            gc.enable()


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


def _run_mode(ns: argparse.Namespace) -> int:
    """``tracetui hook`` without install/uninstall: never break the session."""
    try:
        err = getattr(ns, "hook_error", None)
        if err:
            raise HookError(err)
        extra = getattr(ns, "hook_extra", None)
        if extra:
            print(f"tracetui hook: ignoring unknown arguments {' '.join(extra)}", file=sys.stderr)
        gate = _parse_gate(getattr(ns, "gate", None))
        data = sys.stdin.buffer.read()
        # now=None: the hook runs at turn boundaries, where time since the last record is the
        # user's idle time, not a stalled agent; so the stall detector stays out of the card
        out = run_hook(data, gate=gate, always=bool(getattr(ns, "always", False)), use_cache=not getattr(ns, "no_cache", False), max_chars=min(int(getattr(ns, "max_chars", MAX_CHARS) or MAX_CHARS), MAX_CHARS), now=None, defer_save=True)
    except BaseException as exc:  # noqa: BLE001 - the user's session must go on, whatever happened
        _PENDING_SAVES.clear()
        if isinstance(exc, SystemExit) and not exc.code:
            return 0
        msg = str(exc).splitlines()[0] if str(exc) else ""
        # our own errors (and TranscriptError: "FILE: not a transcript ...") say what and where
        # already; only an unexpected exception is named by its class
        from tracetui.ingest.session import TranscriptError

        what = "" if isinstance(exc, (HookSkip, HookError, TranscriptError)) else f"{type(exc).__name__}: "
        print(f"tracetui hook: {what}{msg}"[:500], file=sys.stderr)
        return 0
    if out:
        try:
            sys.stdout.write(out + "\n")
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


# -- settings.json ------------------------------------------------------------------------
_OURS = re.compile(r"(^|[\s/\\\"'])tracetui(\.exe)?[\"']?\s+hook(\s|$)|tracetui\.cli[\"']?\s+hook(\s|$)")


def _is_ours(h: Any) -> bool:
    if not isinstance(h, dict):
        return False
    cmd = h.get("command")
    return isinstance(cmd, str) and bool(_OURS.search(cmd)) and not re.search(r"\bhook\s+(install|uninstall)\b", cmd)


def settings_path(scope: str, project_dir: Path | None = None) -> Path:
    """``<project>/.claude/settings.json`` or ``<claude dir>/settings.json`` (the claude dir is
    ``$CLAUDE_CONFIG_DIR`` when set, else ``~/.claude``)."""
    if scope == "user":
        from tracetui.ingest.discover import claude_dir

        return claude_dir() / "settings.json"
    return (project_dir or Path.cwd()) / ".claude" / "settings.json"


def _check_shape(settings: Any, where: str) -> None:
    if not isinstance(settings, dict):
        raise HookError(f"{where}: not a JSON object; not touching it")
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HookError(f"{where}: 'hooks' is not an object; not touching it")
    for ev, groups in hooks.items():
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise HookError(f"{where}: hooks.{ev} is not a list of objects; not touching it")
        for g in groups:
            if "hooks" in g and not isinstance(g["hooks"], list):
                raise HookError(f"{where}: a hooks.{ev} entry has 'hooks' that is not a list; not touching it")


def _strip(hooks: dict[str, Any], events: tuple[str, ...] | None) -> dict[str, Any]:
    """``hooks`` without our command entries (in ``events``, or all); emptied groups go."""
    out: dict[str, Any] = {}
    for ev, groups in hooks.items():
        if events is not None and ev not in events:
            out[ev] = groups
            continue
        kept = []
        for g in groups:
            hs = g.get("hooks")
            if isinstance(hs, list) and any(_is_ours(h) for h in hs):
                rest = [h for h in hs if not _is_ours(h)]
                if not rest:
                    continue
                g = {**g, "hooks": rest}
            kept.append(g)
        if kept:
            out[ev] = kept
    return out


def _entry(event: str, command: str) -> dict[str, Any]:
    h = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    if event == "SessionStart":
        return {"matcher": SESSION_START_MATCHER, "hooks": [h]}
    return {"hooks": [h]}


def merge_settings(settings: dict[str, Any], events: tuple[str, ...], command: str, where: str = "settings") -> dict[str, Any]:
    """A copy of ``settings`` with our hook for each of ``events`` (and for no other event).

    Every other hook stays as it was, in its place; an earlier entry of ours is replaced by one
    entry at the end of its event's list, so installing twice gives the same result.
    Raises :class:`HookError` when the file's shape is not the documented one."""
    _check_shape(settings, where)
    hooks = _strip(dict(settings.get("hooks", {})), None)
    for ev in events:
        hooks[ev] = [*hooks.get(ev, []), _entry(ev, command)]
    out = dict(settings)
    out["hooks"] = hooks
    return out


def remove_from_settings(settings: dict[str, Any], where: str = "settings") -> dict[str, Any]:
    """A copy of ``settings`` without any hook entry of ours; others untouched."""
    _check_shape(settings, where)
    out = dict(settings)
    if "hooks" in out:
        hooks = _strip(out["hooks"], None)
        if hooks:
            out["hooks"] = hooks
        elif out["hooks"] != {}:
            del out["hooks"]
    return out


def _dump(obj: Any) -> str:
    import json

    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def _read_settings(path: Path) -> tuple[dict[str, Any], str | None]:
    import json

    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        raise HookError(f"{path}: {exc.strerror or exc}") from None
    if not text.strip():
        return {}, text
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise HookError(f"{path}: not valid JSON ({exc}); not touching it") from None
    return obj, text


def _write_settings(path: Path, new_text: str, old_text: str | None) -> Path | None:
    """Write atomically; back up the old file first. Returns the backup path, if any."""
    import time

    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if old_text is not None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = path.with_name(f"{path.name}.bak-{stamp}")
        n = 1
        while backup.exists():
            n += 1
            backup = path.with_name(f"{path.name}.bak-{stamp}-{n}")
        backup.write_text(old_text, "utf-8")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(new_text, "utf-8")
    os.replace(tmp, path)
    return backup


def _change(path: Path, new: dict[str, Any], old: dict[str, Any], old_text: str | None, dry_run: bool, out) -> tuple[bool, Path | None]:
    import difflib

    new_text = _dump(new)
    if old_text is not None and new == old:
        return False, None
    if old_text is None and new == {}:
        return False, None
    if dry_run:
        before = _dump(old) if old_text is not None else ""
        diff = difflib.unified_diff(before.splitlines(True), new_text.splitlines(True), f"{path} (now)", f"{path} (after)")
        out.write("".join(diff))
        return True, None
    return True, _write_settings(path, new_text, old_text)


def install_hooks(path: Path, events: tuple[str, ...], command: str, dry_run: bool = False, out=None) -> tuple[bool, Path | None]:
    """Merge our hook into the settings file at ``path``: ``(changed, backup path)``.
    With ``dry_run``, writes a unified diff to ``out`` instead. Raises :class:`HookError`."""
    old, old_text = _read_settings(path)
    new = merge_settings(old, events, command, str(path))
    return _change(path, new, old, old_text, dry_run, out or sys.stdout)


def uninstall_hooks(path: Path, dry_run: bool = False, out=None) -> tuple[bool, Path | None]:
    """Remove our hook entries from the settings file at ``path``: ``(changed, backup)``."""
    old, old_text = _read_settings(path)
    if old_text is None:
        return False, None
    new = remove_from_settings(old, str(path))
    return _change(path, new, old, old_text, dry_run, out or sys.stdout)


def _events_arg(values: list[str] | None) -> tuple[str, ...]:
    if not values:
        return EVENTS
    evs = tuple(dict.fromkeys(x.strip() for v in values for x in v.split(",") if x.strip()))
    bad = [e for e in evs if e not in EVENTS]
    if bad:
        raise HookError(f"unknown event {', '.join(bad)} (this hook answers {', '.join(EVENTS)})")
    return evs


def _shell_quote(word: str) -> str:
    """``word`` quoted for the shell Claude Code runs a hook command with (``sh`` on POSIX,
    ``cmd`` rules on Windows); unchanged when it needs no quoting."""
    if os.name == "nt":
        import subprocess

        return subprocess.list2cmdline([word])
    import shlex

    return shlex.quote(word)


def default_command() -> str:
    """The hook command ``hook install`` writes: the absolute path of the ``tracetui`` that is
    running (its console script; else the one installed beside this python; else the one
    ``shutil.which`` finds on PATH), quoted for the shell, then ``hook``; without a script,
    ``<this python> -m tracetui.cli hook``. A bare
    ``tracetui hook`` breaks when tracetui is only on a virtualenv's PATH, which Claude Code
    does not have. Symlinks are kept as they are (a venv's ``python`` is one)."""
    import shutil

    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name in ("tracetui", "tracetui.exe") and argv0.is_file():
        return f"{_shell_quote(os.path.abspath(argv0))} hook"
    # ``python -m tracetui.cli``: the script installed with this python first, then PATH's
    beside = Path(sys.executable).parent / ("tracetui.exe" if os.name == "nt" else "tracetui")
    found = str(beside) if sys.executable and beside.is_file() else shutil.which("tracetui")
    if found:
        return f"{_shell_quote(os.path.abspath(found))} hook"
    return f"{_shell_quote(sys.executable)} -m tracetui.cli hook"


def _cmd_install(ns: argparse.Namespace, action: str) -> int:
    scope = "user" if ns.user else "project"
    command = getattr(ns, "command", None) or default_command()
    try:
        if getattr(ns, "dir", None) and not Path(ns.dir).is_dir():
            # a typo would otherwise make a stray folder with a settings file in it
            raise HookError(f"{ns.dir}: no such project folder")
        path = settings_path(scope, Path(ns.dir) if getattr(ns, "dir", None) else None)
        if action == "install":
            events = _events_arg(ns.events)
            changed, backup = install_hooks(path, events, command, ns.dry_run)
            what = f"tracetui hook for {', '.join(events)} (command: {command})"
        else:
            changed, backup = uninstall_hooks(path, ns.dry_run)
            what = "tracetui hook entries"
    except HookError as exc:
        print(f"tracetui: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"tracetui: {exc.filename or path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    verb = "installed" if action == "install" else "removed"
    same = f"{path}: already as wanted" if action == "install" else f"{path}: no tracetui hook entries to remove"
    if ns.dry_run:
        print(f"dry run: {path} would change ({verb} {what}); nothing written" if changed else f"dry run: {same}; nothing to do")
    elif changed:
        print(f"{verb} {what} in {path}" + (f" (backup: {backup})" if backup else ""))
    else:
        print(f"{same}; unchanged")
    if action == "install" and command.split()[0] == "tracetui":
        import shutil

        if shutil.which("tracetui") is None:
            print("tracetui: note: 'tracetui' is not on PATH here; Claude Code must find it, or pass --command with a full path", file=sys.stderr)
    return 0


# -- argparse -----------------------------------------------------------------------------
class _ArgError(Exception):
    pass


def register_hook(sub: Any) -> None:
    """Add the ``hook`` subcommand (run, ``install``, ``uninstall``) to the CLI's subparsers.

    In run mode an argument error must not break the session either (Claude Code blocks the
    prompt when a UserPromptSubmit hook exits 2, argparse's error status), so the run parser
    records errors and unknown arguments instead of exiting; the command reports them in one
    line on stderr and exits 0.
    """
    ph = sub.add_parser(
        "hook",
        help="Claude Code hook: give the model the state card after a compaction, resume or clear (install it with 'hook install')",
        description=(
            "Run by Claude Code as a SessionStart/UserPromptSubmit hook: reads the hook input JSON on stdin and prints"
            " the state card (added to the model's context) after a compaction, resume or clear, and on a prompt only"
            " when the gate opens. Never fails the session: errors are one line on stderr, exit 0."
            " 'tracetui hook install' adds it to Claude Code's settings.json."
        ),
    )
    ph.add_argument(
        "--gate",
        default=None,
        metavar="LIST",
        help=f"when a prompt (UserPromptSubmit) gets the card: comma list of {', '.join(GATES)} (a compaction, or a newly opened warning, since the last card), or none (default: $TRACETUI_HOOK_GATE or {DEFAULT_GATE})",
    )
    ph.add_argument("--always", action="store_true", help="no gate: print the card on every UserPromptSubmit")
    ph.add_argument("--no-cache", action="store_true", help="bypass the persistent fold cache")
    ph.add_argument("--max-chars", type=int_at_least(MIN_HOOK_CHARS), default=MAX_CHARS, metavar="N", help=f"output cap in characters (default and most: {MAX_CHARS})")
    hs = ph.add_subparsers(dest="hook_action")
    for name in ("install", "uninstall"):
        pi = hs.add_parser(name, help="add the hook to Claude Code's settings.json" if name == "install" else "remove the hook from Claude Code's settings.json")
        scope = pi.add_mutually_exclusive_group()
        scope.add_argument("--project", action="store_true", help="<dir>/.claude/settings.json (the default)")
        scope.add_argument("--user", action="store_true", help="<claude dir>/settings.json ($CLAUDE_CONFIG_DIR or ~/.claude)")
        pi.add_argument("--dir", default=None, help="the project folder (default: the current folder)")
        pi.add_argument("--dry-run", action="store_true", help="print the change as a diff; write nothing")
        if name == "install":
            pi.add_argument("--events", nargs="+", default=None, metavar="EVENT", help=f"events to hook (default: {' '.join(EVENTS)})")
            pi.add_argument("--command", default=None, help="the command Claude Code runs (default: this tracetui's absolute path, then 'hook')")
    ph.set_defaults(func=_cmd_hook)

    orig_parse = ph.parse_known_args
    # run mode keeps its unknown arguments (reported, then ignored) even when the CLI's parser
    # class (tracetui.cli.SubcommandParser) makes them an error: the base class's own parsing
    lenient_parse = functools.partial(argparse.ArgumentParser.parse_known_args, ph)
    orig_error = ph.error

    def error(message: str):  # type: ignore[no-untyped-def]
        raise _ArgError(message)

    def parse_known_args(args=None, namespace=None):  # type: ignore[no-untyped-def]
        args = list(args or [])
        if args and args[0] in ("install", "uninstall", "-h", "--help"):
            ph.error = orig_error  # type: ignore[method-assign]
            return orig_parse(args, namespace)
        ph.error = error  # type: ignore[method-assign]
        try:
            ns, extra = lenient_parse(args, namespace)
        except _ArgError as exc:
            ns = namespace if namespace is not None else argparse.Namespace()
            ns.hook_error = str(exc)
            ns.func = _cmd_hook
            return ns, []
        ns.hook_extra = extra
        return ns, []

    ph.parse_known_args = parse_known_args  # type: ignore[method-assign]
