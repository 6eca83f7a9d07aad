"""Fold one transcript file for the cross-session index: its messages' tokens, its prompts and
tool calls, from the start or from the point the index stopped at.

The file is read by a :class:`~tracetui.session.reader.SessionReader` of that one file (the
tailer's rules: whole lines, a complete JSON object at end of file counts, a torn line is held)
into the model's :class:`~tracetui.model.fold.FileFold`, or the
:class:`~tracetui.model.codex_fold.CodexFold` when its first record opens a Codex rollout, so
tokens follow that agent's fold: one entry per API message id in the file's
:class:`~tracetui.model.usage.UsageBook` (Claude Code: the max of each field over the message's
records, the day of its first record with usage; Codex: one per change of the cumulative
totals, a replayed copy of the parent's history not counted). No ledger is
kept (the index needs only the prompts and tool calls) and nothing is derived (episodes,
anomalies), which is why this is cheaper than the session store's reader for a file the
index has not seen: it writes no ledger rows.

A grown file resumes at the saved offset and line. A Claude Code file's book is filled again
with the file's saved messages first, so a message whose records span the resume point keeps
its max and its day, and the fold learns whether the file's records are sidechain records
(which decides what is a prompt). A rollout's Codex fold goes on from the resume state saved
with it (model/codex_fold.py ``resume_state``: the thread, model, cumulative token base and
count, replay state; each response is one entry, so none spans the resume point). Only the
messages the new bytes changed are returned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from tracetui.ingest.files import path_text
from tracetui.ingest.secret_values import SeenSecrets
from tracetui.ingest.secrets import redact_head
from tracetui.model.codex_fold import AGENT, CodexFold
from tracetui.model.pricing import utc_day
from tracetui.model.state import Event
from tracetui.session.reader import SessionReader

__all__ = ["Resume", "Folded", "fold_file", "DOC_CHARS"]

#: characters of a prompt's text the index keeps (masked first, then cut)
DOC_CHARS = 2000
_CUT = "\u2026"


@dataclass
class Resume:
    """Where a file's saved index stops: resume offset and line (bytes, lines), inode, head key
    (ingest/tail.py), whether its records are sidechain records (``None``: not known yet), and
    its saved messages ``(msg, day, model, input, output, cache_creation, cache_read,
    cache_write_1h)`` (a rollout: the Codex fold's resume state instead)."""

    offset: int
    line: int
    inode: int
    head: bytes
    sidechain: bool | None
    msgs: Iterable[tuple[Any, ...]] = ()
    #: a rollout's Codex fold resume state (JSON of ``CodexFold.resume_state``), else ``None``
    codex: bytes | None = None
    #: the secrets found before the resume point (``SeenSecrets.to_cache``: digests), or ``None``
    secrets: bytes | None = None


@dataclass
class Folded:
    """What one read of a file gave: the messages it changed (rows as in :class:`Resume`), its
    prompts and tool calls ``(line, block, kind, name, timestamp, text)`` (text masked), the
    tailer's position after the read, the fold's session id, working directory, first and last
    timestamps, sidechain flag, malformed lines, and ``reset`` when the tailer found the file
    truncated or replaced under it (the caller reads it again from the start)."""

    msgs: list[tuple[Any, ...]] = field(default_factory=list)
    docs: list[tuple[Any, ...]] = field(default_factory=list)
    offset: int = 0
    line: int = 0
    inode: int | None = None
    head: bytes = b""
    size: int = 0
    mtime_ns: int = 0
    session_id: str | None = None
    cwd: str | None = None
    first_ts: str | None = None
    last_ts: str | None = None
    sidechain: bool | None = None
    malformed: int = 0
    error: str | None = None
    reset: bool = False
    #: the file's fingerprint at the resume point (store/db.py ``fingerprint``; set by the caller)
    fingerprint: bytes = b""
    #: the agent whose fold read it, as its first record decided (``"claude"`` | ``"codex"``)
    agent: str = "claude"
    #: a rollout's Codex fold resume state after the read (JSON), for the next read
    resume: bytes | None = None
    #: the secrets found in the file up to the read's end (digests, ``SeenSecrets.to_cache``),
    #: ``None`` for none: a copy of one read later is masked too
    secrets: bytes | None = None
    #: records of the read whose usage the fold rejected (``Counters.usage_rejected``), and the
    #: UTC day of the read's last record when there are any (``None`` when none)
    rejected: int = 0
    rejected_day: str | None = None


#: the keys that name a message in its file only: the key the fold gives an API message with
#: no message id, request id or uuid (its source and byte offset, fold_messages.py), and a Codex
#: response's of a rollout whose thread id is unknown (its source and count, codex_calls.py;
#: with the thread id, ``<thread>#<n>``, the same thread's rollout copied is one)
_ANCHOR_KEY = re.compile(r"\d+[:#]\d+")


def _global(key: str, path: str) -> str:
    """A message key as the index keeps it: an anchor key made unique across files (prefixed
    with the file's path); any other key (a message id, a request id, a uuid) as it is, so the
    same message in two files is one."""
    return f"{path}#{key}" if _ANCHOR_KEY.fullmatch(key) else key


def _local(key: str, path: str) -> str:
    """The fold's key of an index key (the inverse of :func:`_global`)."""
    return key[len(path) + 1 :] if key.startswith(path + "#") else key


def _masked(text: str, limit: int, seen: SeenSecrets) -> str:
    """``text`` with its secrets masked, those found before in the file too (``seen``, which
    keeps those found here), then cut to ``limit`` characters (a cut one ends in …); only the
    head kept is masked, and a window past it (:func:`redact_head`)."""
    cut = text.endswith(_CUT)
    text = redact_head(text, limit, cut=cut, seen=seen)
    if len(text) > limit:
        text = text[: limit - 1] + _CUT
    return text


class _Docs:
    """The fold's ledger sink: keeps the prompts (their whole text, from the fold's
    ``latest_ask``, which it sets right after the prompt's event) and the tool calls (name and
    input excerpt); every other event is only counted (``len`` is the ledger's length)."""

    def __init__(self) -> None:
        self.n = 0
        self.items: list[tuple[Any, ...]] = []
        #: the session fold whose source 0 is the file (its fold is decided by the first record)
        self.fold: Any = None
        self._prompt: Event | None = None
        #: the secrets found in the file's texts so far, in file order
        self.seen = SeenSecrets()

    def append(self, ev: Event) -> None:
        self.n += 1
        if self._prompt is not None:
            self.finish()
        kind = ev.kind
        if kind == "prompt":
            self._prompt = ev
        elif kind == "tool_use":
            self.items.append((ev.anchor.line, ev.block, "tool_use", ev.name, ev.timestamp, _masked(ev.excerpt, DOC_CHARS, self.seen)))

    def finish(self) -> None:
        """Take the text of the last prompt seen (call after the read)."""
        ev, self._prompt = self._prompt, None
        if ev is None:
            return
        ask = self.fold.folds[0].latest_ask if self.fold is not None else None
        text = ask.text if ask is not None and ask.anchor == ev.anchor else ev.excerpt
        self.items.append((ev.anchor.line, ev.block, "prompt", ev.name, ev.timestamp, _masked(text, DOC_CHARS, self.seen)))

    def __len__(self) -> int:
        return self.n


class _Count:
    """The fold's history sink: the per-prompt snapshots are not kept, only counted."""

    def __init__(self) -> None:
        self.n = 0

    def append(self, _item: Any) -> None:
        self.n += 1

    def __len__(self) -> int:
        return self.n


def fold_file(path: Path | str, resume: Resume | None = None) -> Folded:
    """Read ``path`` from the start, or from ``resume``, and fold it (see the module docstring).
    Never raises for the file: an I/O error is ``Folded.error`` (one line naming the file)."""
    docs, hist = _Docs(), _Count()
    if resume is not None and resume.secrets:
        try:
            docs.seen = SeenSecrets.from_cache(resume.secrets)
        except ValueError:
            return Folded(reset=True)  # of other code: the caller reads the file from the start
    key_path = path_text(path)  # as the index keys the file (its files row): the path's text
    reader = SessionReader([Path(path)], subagents=False, price=False, sinks=lambda _src: (docs, hist))
    if resume is not None and resume.codex is not None:
        try:
            reader.fold.folds[0] = CodexFold.resumed(msgspec.json.decode(resume.codex), 0, None, docs, hist)
        except (msgspec.DecodeError, ValueError):
            return Folded(reset=True)  # a state of other code: the caller reads the file from the start
    f = reader.fold.folds[0]
    # episodes and anomalies are not the index's (a Codex fold decided on the first record
    # keeps this and the usage callback: SessionFold._decide)
    f.derive = None
    docs.fold = reader.fold
    touched: dict[str, None] = {}

    def on_usage(key: str, _model: str, _u: tuple[int, int, int, int, int], _day: str) -> None:
        touched[key] = None

    f.on_usage = on_usage
    t = reader.tailers[0]
    if resume is not None:
        t.restore(resume.offset, resume.line, resume.inode, resume.head)
        if resume.codex is None:  # a rollout's responses are one entry each: none spans the resume point
            for msg, day, model, i, o, cc, cr, c1h in resume.msgs:
                f.usage.add(_local(msg, key_path), model, (i, o, cc, cr, c1h), day)
            f.sidechain_file = resume.sidechain
    reader.poll(final=True)
    st = reader.fold.sources[0]
    out = Folded(offset=t.offset, line=t.line_no, inode=t.inode, head=t.head, size=t.size, mtime_ns=t.mtime_ns or 0)
    if st.error:
        out.error = st.error
        return out
    if st.truncated or st.replaced:
        out.reset = True
        return out
    docs.finish()
    f = reader.fold.folds[0]
    book = f.usage
    for key in touched:
        m = book.message(key)
        if m is not None:
            usage, model, day = m
            out.msgs.append((_global(key, key_path), day, model, *usage))
    out.docs = docs.items
    out.secrets = docs.seen.to_cache() if docs.seen else None
    out.session_id, out.cwd = f.session_id, f.cwd
    out.first_ts, out.last_ts = f.first_timestamp, f.last_timestamp
    out.sidechain = f.sidechain_file
    out.malformed = f.malformed
    out.rejected = f.counters.usage_rejected  # this read's: the fold starts its counters at the resume point
    if out.rejected:
        out.rejected_day = utc_day(f.last_timestamp)
    if isinstance(f, CodexFold):
        out.agent = AGENT
        out.resume = msgspec.json.encode(f.resume_state())
    return out
