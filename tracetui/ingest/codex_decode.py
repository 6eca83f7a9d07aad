"""Decoding rules of an OpenAI Codex CLI rollout (``../shared/docs/codex-format.md``): lines to
:class:`~tracetui.ingest.codex_schema.CodexRecord`, never raising; whether a first line opens a
rollout; tool arguments (a JSON string), the files an ``apply_patch`` touches, the todos of an
``update_plan``, a call's one-line brief; token totals and rate-limit windows.
"""

from __future__ import annotations

import re
from typing import Any, Union

import msgspec

from tracetui.ingest.codex_schema import (
    CodexEnvelope,
    CodexRecord,
    ContentPart,
    RateLimits,
    RateWindow,
    TokenInfo,
    TokenTotals,
    TypedRecord,
)
from tracetui.ingest.content import decode_any
from tracetui.ingest.decode import Quarantined, decode_line, excerpt_of
from tracetui.ingest.schema import MAX_TOKENS

__all__ = [
    "CodexDecoded",
    "decode_codex_line",
    "decode_codex_fast",
    "decode_codex_raw",
    "is_codex_first_line",
    "call_arguments",
    "patch_files",
    "plan_todos",
    "call_brief",
    "is_poll",
    "exec_status",
    "token_totals",
    "token_info",
    "token_info_error",
    "context_window_of",
    "rate_windows",
    "parent_of",
    "prompt_text",
    "text_of",
]

_fast = msgspec.json.Decoder(TypedRecord)
_any = msgspec.json.Decoder().decode
_raw_parts = msgspec.json.Decoder(CodexRecord)
_envelope = msgspec.json.Decoder(CodexEnvelope)

#: the one-pass decode of the common line (one JSON object, braces at both ends), its token
#: counts and rate limits typed (:class:`TypedRecord`). Raises ``msgspec.DecodeError`` or
#: ``ValidationError``; on a ``ValidationError`` :func:`decode_codex_raw` reads the line
decode_codex_fast = _fast.decode
#: the same line with its token counts and rate limits raw (:class:`CodexRecord`), for a line
#: whose parts have another shape; raises as :data:`decode_codex_fast` does, where
#: :func:`decode_codex_line` takes a slower path
decode_codex_raw = _raw_parts.decode

#: ``(rel_offset, CodexRecord | Quarantined, payload bytes)``, as :func:`decode_line` gives
CodexDecoded = tuple[int, "CodexRecord | Quarantined", Any]


def _record(buf: Any) -> CodexRecord:
    """One JSON object as a record; a declared field of unexpected type keeps only the envelope
    (``schema_error`` says which)."""
    try:
        return _fast.decode(buf)
    except (msgspec.ValidationError, RecursionError):
        pass  # a part of another shape (or nested too deep to type): read it raw
    try:
        return _raw_parts.decode(buf)
    except msgspec.ValidationError as exc:
        try:
            env = _envelope.decode(buf)
        except (msgspec.DecodeError, msgspec.ValidationError):
            env = CodexEnvelope()
        t = env.type if isinstance(env.type, str) else None
        ts = env.timestamp if isinstance(env.timestamp, str) else None
        return CodexRecord(ts, t, None, str(exc))


def decode_codex_line(buf: bytes | memoryview) -> list[CodexDecoded]:
    """Decode one line (without its newline) into ``[(rel_offset, CodexRecord | Quarantined,
    payload)]``: the line split into its JSON values and bad parts exactly as a Claude Code line
    is (:func:`tracetui.ingest.decode.decode_line`), each object then read as a rollout record.
    Never raises."""
    out: list[CodexDecoded] = []
    for rel, item, payload in decode_line(buf):
        if isinstance(item, Quarantined):
            out.append((rel, item, payload))
            continue
        try:
            rec = _record(payload)
        except (msgspec.DecodeError, RecursionError):  # repaired bytes the strict decoder still rejects
            rec = CodexRecord(item.timestamp, item.type, None, "undecodable payload")
        out.append((rel, rec, payload))
    return out


class _Sniff(msgspec.Struct):
    type: Any = None
    payload: msgspec.Raw = msgspec.field(default_factory=msgspec.Raw)


class _MetaHead(msgspec.Struct):
    id: Any = None


_sniff = msgspec.json.Decoder(_Sniff)
_meta_head = msgspec.json.Decoder(_MetaHead)


def is_codex_first_line(buf: bytes | memoryview) -> bool:
    """Whether a file's first line (byte order mark removed) opens a Codex rollout: its first
    JSON object is a ``session_meta`` record whose ``payload`` is an object with a string ``id``
    (the thread). Only the first object counts (what follows it on the line, the fold reads as
    usual), so a line read in pieces decides as the whole line does. What a file is is decided
    by its records, never by its path."""
    if b"session_meta" not in bytes(buf[:256]):
        return False
    first = next((payload for _rel, item, payload in decode_line(buf) if not isinstance(item, Quarantined)), None)
    if first is None:
        return False
    try:
        head = _sniff.decode(first)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return False
    if head.type != "session_meta" or not bytes(head.payload).startswith(b"{"):
        return False
    try:
        meta = _meta_head.decode(head.payload)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    return isinstance(meta.id, str) and bool(meta.id)


def call_arguments(raw: msgspec.Raw) -> Any:
    """A ``function_call``'s ``arguments``: a JSON string holding the arguments as JSON, decoded
    twice (an object given directly, as a newer build might write, is taken as it is). The
    string itself when it is not JSON; ``None`` when absent."""
    v = decode_any(raw)
    if type(v) is str:
        try:
            return _any(v)
        except (msgspec.DecodeError, RecursionError):
            return v
    return v


_PATCH_OPS = (("*** Add File: ", "write"), ("*** Update File: ", "edit"), ("*** Delete File: ", "write"), ("*** Move to: ", "write"))


def patch_files(patch: str) -> list[tuple[str, str]]:
    """The files an ``apply_patch`` input names, in order: ``[(path, "write" | "edit")]``.

    ``*** Add File: PATH`` and ``*** Delete File: PATH`` write a file, ``*** Update File: PATH``
    edits one, ``*** Move to: PATH`` (after an update) writes the new path. Paths are exactly as
    written (the rest of the header line, a trailing ``\\r`` removed)."""
    out: list[tuple[str, str]] = []
    # the header lines: the first line when it starts with "*** ", and each one after a newline
    # that does (found by substring scans, not by splitting a patch of thousands of lines)
    pos = 0 if patch.startswith("*** ") else _next_header(patch, 0)
    while pos >= 0:
        end = patch.find("\n", pos)
        line = patch[pos:end] if end >= 0 else patch[pos:]
        for prefix, kind in _PATCH_OPS:
            if line.startswith(prefix):
                path = line[len(prefix) :].rstrip("\r")
                if path:
                    out.append((path, kind))
                break
        if end < 0:
            break
        pos = _next_header(patch, end)
    return out


def _next_header(patch: str, start: int) -> int:
    """Where the next line starting with ``*** `` after ``start`` begins, or -1."""
    j = patch.find("\n*** ", start)
    return j + 1 if j >= 0 else -1


def plan_todos(args: Any) -> list[tuple[str, str]] | None:
    """The todo list of an ``update_plan`` call: ``[(step, status)]`` from ``plan[]``
    (``{"step", "status"}``), ``None`` when the arguments hold no plan list."""
    if not isinstance(args, dict) or not isinstance(args.get("plan"), list):
        return None
    out = []
    for item in args["plan"]:
        if isinstance(item, dict):
            out.append((str(item.get("step", "")), str(item.get("status", "pending"))))
    return out


#: the head of a unified exec tool's output (``exec_command``, ``write_stdin``; Codex CLI 0.120
#: and later), as JSON string bytes: ``Chunk ID: …\nWall time: … seconds\n`` then ``Process
#: exited with code N`` or ``Process running with session ID N``
_EXEC_HEAD = re.compile(
    rb'^"(?:Chunk ID: [0-9A-Za-z_-]+\\n)?Wall time: [0-9.]+ seconds\\nProcess (?:exited with code (-?[0-9]{1,9})|running with session ID ([0-9]{1,20}))\\n'
)


_match_head = _EXEC_HEAD.match


def exec_status(out: Any) -> tuple[int | None, str | None]:
    """``(exit code, session id)`` a unified exec tool's output says (:data:`_EXEC_HEAD`): the
    command's exit code when it ended, the session a ``write_stdin`` polls when it still runs;
    ``(None, None)`` for any other output. ``out``: the output as raw JSON (a string's bytes)."""
    if type(out) is not msgspec.Raw:
        return None, None
    m = _match_head(out)  # read in place (the buffer's bytes, not a copy): the head is all the pattern reads
    if m is None:
        return None, None
    code, session = m.group(1, 2)
    return (int(code), None) if code is not None else (None, session.decode())


def is_poll(name: str, args: Any) -> bool:
    """Whether a call only waits on a running command: a ``write_stdin`` that writes nothing
    (``chars`` empty or absent), which Codex repeats while a command runs. Not a repeated
    action: the tool-loop detector must not count it as one."""
    return name == "write_stdin" and isinstance(args, dict) and not args.get("chars")


def call_brief(name: str, args: Any, files: list[tuple[str, str]] | None = None) -> str:
    """A call's input on one short line: the command of ``exec_command`` (``cmd``) and of the
    ``shell``/``local_shell_call`` forms (``command``, a list or a string), the first file of an
    ``apply_patch``, the message of a ``spawn_agent``, else the arguments in brief. ``files``:
    :func:`patch_files` of ``args`` when the caller has them already (worked out here when
    ``None``)."""
    if isinstance(args, dict):
        for key in ("cmd", "command"):
            v = args.get(key)
            if isinstance(v, list):
                v = " ".join(str(x) for x in v)
            if isinstance(v, str):
                return excerpt_of(v, 80)
        if name == "spawn_agent" and isinstance(args.get("message"), str):
            return excerpt_of(args["message"], 80)
        if name == "update_plan":
            plan = args.get("plan")
            return f"{len(plan)} steps" if isinstance(plan, list) else ""
        try:
            return excerpt_of(msgspec.json.encode(args).decode(), 80)
        except (TypeError, msgspec.EncodeError):
            return ""
    if isinstance(args, str):
        if files is None:
            files = patch_files(args) if name == "apply_patch" else []
        if files:
            more = f" (+{len(files) - 1})" if len(files) > 1 else ""
            return excerpt_of(files[0][0], 80) + more
        return excerpt_of(args, 80)
    return ""


_info = msgspec.json.Decoder(TokenInfo)


def token_info(raw: TokenInfo | msgspec.Raw | None) -> TokenInfo | None:
    """``token_count.info`` decoded once, or ``None`` (``null``, absent, or of another shape:
    a count of another type or outside ``0..MAX_TOKENS``). ``raw``: the raw field, or the
    value a :class:`~tracetui.ingest.codex_schema.TypedRecord` decoded already."""
    if raw is None or type(raw) is TokenInfo:
        return raw  # type: ignore[return-value]
    if not raw or bytes(raw) == b"null":
        return None
    try:
        return _info.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def token_info_error(raw: TokenInfo | msgspec.Raw | None) -> str | None:
    """Why :func:`token_info` of ``raw`` is ``None`` though ``raw`` holds a value (a count of
    another type, below 0 or past ``MAX_TOKENS``: its first line), else ``None``."""
    if raw is None or type(raw) is TokenInfo or not raw or bytes(raw) == b"null":
        return None
    try:
        _info.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        return str(exc).split("\n")[0]
    return None


def token_totals(raw: TokenInfo | msgspec.Raw | None) -> TokenTotals | None:
    """``token_count.info.total_token_usage``, or ``None`` (see :func:`token_info`)."""
    info = token_info(raw)
    return info.total_token_usage if info is not None else None


def context_window_of(info: TokenInfo | None) -> int:
    """``info.model_context_window``: the context window (tokens) Codex declares for the model,
    or 0 when it declares none, or a window that is not a whole number in ``1..MAX_TOKENS``."""
    w = info.model_context_window if info is not None else None
    return w if isinstance(w, int) and not isinstance(w, bool) and 0 < w <= MAX_TOKENS else 0


_window = msgspec.json.Decoder(RateWindow)
_windows = msgspec.json.Decoder(RateLimits)


def rate_windows(raw: RateLimits | msgspec.Raw | None) -> dict[str, RateWindow]:
    """The rate-limit windows of ``token_count.rate_limits`` by name (``primary``,
    ``secondary``), each only when it is an object of the expected shape. ``raw``: the raw
    field, or the value a :class:`~tracetui.ingest.codex_schema.TypedRecord` decoded already."""
    w: RateLimits | None
    if type(raw) is RateLimits:
        w = raw
    elif raw is None or not raw or bytes(raw) == b"null":
        return {}
    else:
        try:
            w = _windows.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            w = None
    if w is not None:
        out = {}
        if w.primary is not None:
            out["primary"] = w.primary
        if w.secondary is not None:
            out["secondary"] = w.secondary
        return out
    v = decode_any(raw)  # one window of another shape: the other is still kept
    out = {}
    if isinstance(v, dict):
        for name in ("primary", "secondary"):
            if isinstance(v.get(name), dict):
                try:
                    out[name] = _window.decode(msgspec.json.encode(v[name]))
                except (msgspec.DecodeError, msgspec.ValidationError):
                    continue
    return out


def parent_of(source: msgspec.Raw, forked_from_id: str | None) -> tuple[str | None, str | None, str | None]:
    """``(parent thread id, nickname, role)`` of a ``session_meta``: from
    ``source.subagent.thread_spawn`` (``parent_thread_id``, ``agent_nickname``,
    ``agent_role``), else ``forked_from_id``; ``(None, None, None)`` for a thread of its own."""
    src = decode_any(source) if source else None
    if isinstance(src, dict):
        sub = src.get("subagent")
        spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
        if isinstance(spawn, dict) and isinstance(spawn.get("parent_thread_id"), str):
            nick, role = spawn.get("agent_nickname"), spawn.get("agent_role")
            return spawn["parent_thread_id"], nick if isinstance(nick, str) else None, role if isinstance(role, str) else None
    return forked_from_id, None, None


_parts = msgspec.json.Decoder(Union[str, list[ContentPart], None])


def text_of(raw: msgspec.Raw | str | list[ContentPart] | None) -> str:
    """The text of a string field, or of a message's ``content[]`` (its ``input_text`` /
    ``output_text`` parts joined by newlines); ``""`` for anything else. ``raw``: the raw
    field, or the value a :class:`~tracetui.ingest.codex_schema.TypedRecord` decoded already
    (a string, a list of :class:`ContentPart`, ``None``)."""
    v: Any
    t = type(raw)
    if t is list:
        v = raw
    elif t is str:
        return raw  # type: ignore[return-value]
    elif not raw:
        return ""
    else:
        try:
            v = _parts.decode(raw)  # type: ignore[arg-type]  # the common shapes in one typed pass, other fields skipped
        except (msgspec.DecodeError, msgspec.ValidationError):
            v = decode_any(raw)  # type: ignore[arg-type]
    if isinstance(v, list) and v and isinstance(v[0], ContentPart):
        return "\n".join(p.text for p in v if isinstance(p.text, str))
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "\n".join(p["text"] for p in v if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


#: what a ``user_message`` whose ``message`` holds no words is: absent, null, empty
_NO_WORDS = (b"", b"null", b'""', b"[]", b"{}")


def prompt_text(raw: msgspec.Raw | str | list[ContentPart] | None) -> str:
    """The text of a ``user_message``'s ``message``: :func:`text_of`'s (a string, or the texts
    of its content parts), else, for a value of another shape (a number, an object, a list
    without text parts), its JSON as written, so the prompt keeps what the record said instead
    of becoming an empty ask (trial 11). ``""`` only for a message that is absent, null or
    empty. The raw JSON is taken as is: no decode, so a deeply nested value costs no recursion."""
    text = text_of(raw)
    if text or raw is None or type(raw) is str:
        return text
    if type(raw) is list:
        return msgspec.json.encode(raw).decode("utf-8", "replace")  # content parts without text
    body = bytes(raw).strip()  # type: ignore[arg-type]
    return "" if body in _NO_WORDS else body.decode("utf-8", "replace")
