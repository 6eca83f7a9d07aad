"""Read a content block back from its transcript by anchor (byte offset), for the drill-down.

The ledger keeps ~100 characters of each event; the payload stays in the file. These functions
do file I/O and are called from a thread worker, never from the UI thread.
"""

from __future__ import annotations

import json
from typing import Any

from tracetui.ingest.codex_content import codex_record_text
from tracetui.ingest.files import file_of
from tracetui.ingest.prompts import classify_user_text
from tracetui.model.episodes import ASK_CHARS
from tracetui.model.state import Anchor, RunState
from tracetui.tui.format import clean, fmt_bytes
from tracetui.views.format import fmt_bytes_exact
from tracetui.views.safe import state_secrets

__all__ = [
    "read_record",
    "block_text",
    "read_excerpt",
    "read_ask",
    "cut_said",
    "ask_shown",
    "ASK_SHOWN",
    "RecordTooLarge",
    "MAX_LINE_BYTES",
    "EXCERPT_CHARS",
]

#: bytes of one line read back at most: the drill-down stays bounded in memory and time however
#: large a record is (a longer record is said too large, with its size, never parsed in part)
MAX_LINE_BYTES = 4 << 20
#: bytes read at a time while measuring a record longer than :data:`MAX_LINE_BYTES`
_SCAN_CHUNK = 1 << 20
#: characters of a read-back excerpt shown in the drill-down
EXCERPT_CHARS = 600
#: characters of the drill-down's Ask shown at most (a longer one: its head and tail, the cut said)
ASK_SHOWN = 2000

_decoder = json.JSONDecoder()


class RecordTooLarge(ValueError):
    """The line at an anchor is longer than :data:`MAX_LINE_BYTES`; ``size`` is its length in
    bytes (without the newline), measured by scanning to the newline or the end of the file
    ``chunk`` bytes at a time, never holding more than one chunk."""

    def __init__(self, path: str, offset: int, size: int) -> None:
        super().__init__(f"{path}@{offset}: record of {fmt_bytes_exact(size)} is longer than {fmt_bytes_exact(MAX_LINE_BYTES)}")
        self.size = size


def read_record(path: str, offset: int, max_bytes: int = MAX_LINE_BYTES) -> dict[str, Any]:
    """The JSON object starting at byte ``offset`` of ``path``, its line read up to
    ``max_bytes`` bytes. Raises ``OSError`` on I/O errors, :class:`RecordTooLarge` when the line
    is longer than ``max_bytes`` (the file need not have changed), and ``ValueError`` when the
    bytes there are not a JSON object (the file changed since it was folded)."""
    from tracetui.ingest.files import open_regular

    with open_regular(path) as f:
        f.seek(offset)
        line = f.readline(max_bytes)
        if len(line) >= max_bytes and not line.endswith(b"\n"):
            size = len(line)
            while True:
                chunk = f.read(_SCAN_CHUNK)
                nl = chunk.find(b"\n")
                if nl >= 0:
                    size += nl
                    break
                size += len(chunk)
                if len(chunk) < _SCAN_CHUNK:
                    break
            raise RecordTooLarge(path, offset, size)
    text = line.decode("utf-8", "replace")
    obj, _end = _decoder.raw_decode(text)
    if not isinstance(obj, dict):
        raise ValueError(f"{path}@{offset}: not a JSON object")
    return obj


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for b in content:
            if isinstance(b, dict):
                if b.get("type") == "text":
                    parts.append(str(b.get("text", "")))
                elif b.get("type") == "image":
                    parts.append("[image]")
                else:
                    parts.append(f"[{b.get('type', '?')}]")
        return "\n".join(parts)
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def block_text(rec: dict[str, Any], block: int) -> str:
    """The text of content block ``block`` of record ``rec``: a tool_use's input as JSON, a
    tool_result's content, a text block's text; the record's own text for other records. A Codex
    CLI rollout record gives its call's input or output, or its message
    (:func:`~tracetui.ingest.codex_content.codex_record_text`)."""
    codex = codex_record_text(rec)
    if codex is not None:
        return codex
    msg = rec.get("message")
    if isinstance(msg, dict):
        content = msg.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list) and 0 <= block < len(content):
            b = content[block]
            if not isinstance(b, dict):
                return json.dumps(b, ensure_ascii=False)
            t = b.get("type")
            if t == "tool_use":
                return json.dumps(b.get("input"), ensure_ascii=False, indent=None)
            if t == "tool_result":
                return _content_text(b.get("content"))
            if t == "text":
                return str(b.get("text", ""))
            if t in ("thinking", "redacted_thinking"):
                return str(b.get("thinking") or "(thinking not stored)")
            return json.dumps(b, ensure_ascii=False)[:2000]
    for key in ("content", "summary", "aiTitle", "customTitle", "lastPrompt"):
        v = rec.get(key)
        if isinstance(v, str):
            return v
    return json.dumps(rec, ensure_ascii=False)[:2000]


def cut_said(text: str, limit: int, where: str) -> str:
    """``text`` cut to its first and last ``limit // 2`` characters with the cut said between
    them (``… [N chars cut; whole block at where] …``; head and tail: commands put their verdict
    last, test summaries and exit codes); ``text`` itself when it is ``limit`` characters or
    fewer. ``where`` is the anchor of the whole block (``file:line``)."""
    if len(text) <= limit:
        return text
    half = max(1, limit // 2)
    return f"{text[:half]} … [{len(text) - 2 * half} chars cut; whole block at {where}] … {text[-half:]}"


def _shown(state: RunState, anchor: Anchor, raw: str, limit: int) -> str:
    """``raw`` cleaned (:func:`~tracetui.tui.format.clean`, with the session's secrets:
    :func:`~tracetui.views.safe.state_secrets`) and cut to ``limit`` (:func:`cut_said`)."""
    where = state.fmt_anchor(anchor)
    seen = state_secrets(state)
    if len(raw) > 4 * limit:  # head and tail cut before clean: masking secrets costs ~1 ms per KB
        half = max(1, limit // 2)
        head, tail = clean(raw[: 2 * limit], cut=True, seen=seen), clean(raw[-2 * limit :], seen=seen)
        return f"{head[:half]} … [{len(raw) - 2 * half} chars cut; whole block at {where}] … {tail[-half:]}"
    return cut_said(clean(raw, seen=seen).strip(), limit, where)


def _read(state: RunState, anchor: Anchor, inline: str, max_bytes: int) -> tuple[dict[str, Any] | None, str]:
    """``(the record at anchor, "")``, or ``(None, a one-line note saying why it cannot be read)``."""
    if not 0 <= anchor.src < len(state.sources):
        return None, f"(source {anchor.src} unknown)"
    path = file_of(state.sources[anchor.src].path)  # the state keeps the path's text
    try:
        return read_record(path, anchor.offset, max_bytes), ""
    except OSError as exc:
        return None, f"(cannot read {state.fmt_anchor(anchor)}: {exc.strerror or exc})"
    except RecordTooLarge as exc:
        head = f"{clean(inline).strip()} … " if inline.strip() else ""
        return (
            None,
            f"{head}(record too large to show here: {fmt_bytes(exc.size)} at {state.fmt_anchor(anchor)}; tracetui reads at most {fmt_bytes(max_bytes)} of a line for an excerpt)",
        )
    except ValueError:
        return None, f"(no record at {state.fmt_anchor(anchor)}: the file changed since it was folded)"


def read_excerpt(
    state: RunState, anchor: Anchor, block: int, limit: int = EXCERPT_CHARS, inline: str = "", max_bytes: int = MAX_LINE_BYTES
) -> str:
    """Up to ``limit`` characters of the block at ``anchor``, control sequences removed, a longer
    block cut with the cut said (:func:`cut_said`); on any failure, a one-line note saying what
    went wrong (never raises). A record longer than ``max_bytes`` is said too large (its size and
    the bound, in binary units), after ``inline`` (the ledger's own excerpt of the block, when the
    caller has one)."""
    rec, note = _read(state, anchor, inline, max_bytes)
    if rec is None:
        return note
    return _shown(state, anchor, block_text(rec, block).strip(), limit)


def _prompt_text(rec: dict[str, Any], block: int) -> str:
    """The text of the prompt in ``rec`` as the fold reads it: a record's text blocks joined by
    newlines (one prompt per record, ``tracetui.model.fold_messages``), a slash command as
    ``/name args`` (:func:`~tracetui.ingest.prompts.classify_user_text`); a Codex CLI
    ``user_message`` its message."""
    codex = codex_record_text(rec)
    if codex is not None:
        return codex
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, list):
        blocks = [b for b in content if isinstance(b, dict)]
        texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
        if len(texts) > 1 and not any(b.get("type") == "tool_result" for b in blocks):
            return classify_user_text("\n".join(texts))[1]
    return classify_user_text(block_text(rec, block))[1]


def read_ask(
    state: RunState, anchor: Anchor, block: int, limit: int, inline: str = "", max_bytes: int = MAX_LINE_BYTES
) -> tuple[str, bool]:
    """``(the prompt at anchor, True)``: its whole text when ``limit`` characters or fewer, else
    its head and tail with the cut said (:func:`cut_said`), secrets masked, control sequences
    removed. ``(a one-line note saying why it cannot be read, False)`` on any failure (never
    raises; a record over ``max_bytes`` is said too large after ``inline``, as by
    :func:`read_excerpt`)."""
    rec, note = _read(state, anchor, inline, max_bytes)
    if rec is None:
        return note, False
    return _shown(state, anchor, _prompt_text(rec, block).strip(), limit), True


def ask_shown(ask: str, where: str, read: tuple[str, bool] | None) -> str:
    """The Ask of a drill-down, every cut said. ``ask``: the episode's own text (the episode
    model keeps its first :data:`~tracetui.model.episodes.ASK_CHARS` characters); ``where``: the
    prompt's anchor (``file:line``); ``read``: the prompt read back from the file
    (:func:`~tracetui.tui.excerpts.read_ask`), ``None`` while it is being read. A text that may
    be the head of a longer one is said to be so, with where the whole prompt is."""
    if read is not None and read[1]:
        return read[0]
    if len(ask) > ASK_SHOWN:
        return cut_said(ask, ASK_SHOWN, where)
    if len(ask) < ASK_CHARS and not ask.endswith("…"):
        return ask
    # the episode's text may be the head of the prompt: say so, and why the rest is not shown
    rest = "reading the rest back…" if read is None else f"the rest not read: {read[0]}"
    return f"{ask} … [the first {len(ask)} chars; whole prompt at {where}; {rest}]"
