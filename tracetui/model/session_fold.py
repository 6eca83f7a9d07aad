"""The folds of one session's files combined: :class:`SessionFold`, and the pure entry points
:func:`fold_bytes` and :func:`fold` (a transcript in memory as one main file)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from tracetui.ingest.codex_decode import is_codex_first_line
from tracetui.ingest.decode import bom_length
from tracetui.ingest.secret_values import SeenSecrets
from tracetui.model.codex_fold import CodexFold
from tracetui.model.fold import FileFold
from tracetui.model.pricing import estimate_cost
from tracetui.model.state import Counters, FileTouch, RunState, SourceStatus, ToolCall
from tracetui.model.usage import UsageBook

__all__ = ["SessionFold", "fold", "fold_bytes"]


class SessionFold:
    """The folds of a session's files: source 0 is the main transcript, then subagents.

    Sources are registered with :meth:`add_source` and fed with :meth:`feed_line`; each file is
    folded on its own, so the combined state does not depend on how reads of different files
    interleave. :meth:`snapshot` returns the combined :class:`RunState`.

    ``sinks(src)``, when given, returns the ``(events, history)`` sinks of a new file fold (see
    :class:`FileFold`), or ``(events, history, versions)`` with the list-like its episode book
    keeps its versions in (``EpisodeBook.versions``); without it they are lists.
    """

    #: attributes the fold cache leaves out (the owner re-attaches the sinks factory)
    CACHE_SKIP = ("sinks",)
    sinks: Callable[[int], tuple[Any, ...]] | None = None

    def __init__(self, price: bool = True, sinks: Callable[[int], tuple[Any, ...]] | None = None) -> None:
        self.sinks = sinks
        self.folds: list[FileFold] = []
        self.sources: list[SourceStatus] = []
        self.usage = UsageBook()
        self.price = price
        self.generation = 0
        self._meta_links: dict[int, str] = {}
        #: the secrets found in the session's texts (by the outputs and the store's writer, never
        #: by the fold: no cost per record), as digests; saved with the fold
        self.secrets = SeenSecrets()

    def add_source(self, path: str, name: str, role: str = "main", agent_id: str | None = None, tool_use_id: str | None = None) -> int:
        """Register a file; returns its source index (0 for the first, the main transcript)."""
        src = len(self.folds)
        self.folds.append(self._new_fold(src, agent_id))
        if src <= 1:
            self._combine_usage()
        else:
            self.folds[src].on_usage = self.usage.add  # a new file: nothing of it to combine yet
        self.sources.append(SourceStatus(path=path, name=name, role=role, agent_id=agent_id))
        if tool_use_id:
            self._meta_links[src] = tool_use_id
        return src

    def _new_fold(self, src: int, agent_id: str | None) -> FileFold:
        sinks = self.sinks(src) if self.sinks is not None else (None, None)
        f = FileFold(src, agent_id, None, sinks[0], sinks[1])
        if len(sinks) > 2 and f.derive is not None:  # where the episode versions are kept
            f.derive.book.versions = sinks[2]
        return f

    def _combine_usage(self) -> None:
        """The session's book of tokens from the files' books: with one file, that file's own
        book (the same adds, so the same figures, at the cost of one); with more, a book of its
        own fed by every file (``FileFold.on_usage``), deduplicating messages across files."""
        if len(self.folds) == 1:
            self.usage = self.folds[0].usage
            self.folds[0].on_usage = None
            return
        self.usage = UsageBook()
        for f in self.folds:  # the packed messages first (UsageBook.absorb_old), then the recent
            f.on_usage = self.usage.add
            self.usage.absorb_old(f.usage)
        for f in self.folds:
            for key, u in f.usage.by_id.items():
                self.usage.add(key, f.usage.model_of[key], u, f.usage.day_of(key))

    def feed_line(self, src: int, line_no: int, offset: int, buf: bytes | memoryview) -> None:
        """Fold one line of source ``src``; a file's first record decides its agent's fold
        (:meth:`undecided`)."""
        f = self.folds[src]
        if f.counters.records == 0 and type(f) is FileFold:
            f = self._decide(src, offset, buf)
        f.feed_line(line_no, offset, buf)

    def undecided(self, src: int) -> bool:
        """Whether source ``src``'s agent is still to be decided: no record folded yet. Until
        then lines must go through :meth:`feed_line` (the reader feeds the fold directly after)."""
        f = self.folds[src]
        return type(f) is FileFold and f.counters.records == 0

    def _decide(self, src: int, offset: int, buf: bytes | memoryview) -> FileFold:
        """The fold for source ``src`` given the line about to be its first record: a
        :class:`CodexFold` when it opens a Codex rollout (the Claude Code fold otherwise). What
        the old fold kept (malformed lines before it) moves over; its sinks and usage callback
        are reused, and a deriver its owner turned off (``derive = None``) stays off."""
        old = self.folds[src]
        b = buf[bom_length(offset, buf) :]
        if not is_codex_first_line(b):
            return old
        f = CodexFold(src, old.agent_id, old.on_usage, old.events, old.history)
        if old.derive is None:
            f.derive = None
        elif f.derive is not None:  # the episode versions go where the old fold's went (the store)
            f.derive.book.versions = old.derive.book.versions
        f.counters.malformed = old.counters.malformed
        f.malformed, f.quarantine, f.last_anchor = old.malformed, old.quarantine, old.last_anchor
        self.folds[src] = f
        if len(self.folds) == 1:
            self.usage = f.usage  # one file: the session's book is its fold's own (_combine_usage)
        return f

    def reset_source(self, src: int, reason: str, detail: str) -> None:
        """Start source ``src`` over (it was truncated or replaced), saying so in its status."""
        old = self.folds[src]
        self.folds[src] = self._new_fold(src, old.agent_id if src else None)
        st = self.sources[src]
        if reason == "replaced":
            st.replaced += 1
        else:
            st.truncated += 1
        st.resets = st.resets + (f"{reason}: {detail}",)
        self._combine_usage()

    def set_io(self, src: int, size: int, consumed: int, lines: int, pending: int, error: str | None = None) -> None:
        """Record what the reader knows of source ``src``: sizes and offsets in bytes; ``lines``
        the newline-ended lines consumed. The figure kept counts a last line without newline
        whose records were folded too (the end-of-file rule), so that every anchor ``file:N`` of
        the source is within its ``lines``; a held (unfolded) last line is ``pending`` only."""
        st = self.sources[src]
        la = self.folds[src].last_anchor if src < len(self.folds) else None
        if la is not None and la.line > lines:
            lines = la.line
        st.size, st.consumed, st.lines, st.pending_bytes, st.error = size, consumed, lines, pending, error

    def _sources(self) -> tuple[SourceStatus, ...]:
        out = []
        for f, st in zip(self.folds, self.sources):
            c = f.counters
            s = msgspec.structs.replace(
                st,
                malformed=f.malformed,
                unknown=c.unknown_records + c.unknown_blocks,
                unknown_records=c.unknown_records,
                unknown_blocks=c.unknown_blocks,
                last_anchor=f.last_anchor,
                agent=getattr(f, "agent", "claude"),
                replayed=getattr(f, "replayed", 0),
            )
            if s.agent_id is None and f.agent_id:
                s.agent_id = f.agent_id
            out.append(s)
        return tuple(out)

    def snapshot(self) -> RunState:
        """The combined state of every file folded so far."""
        self.generation += 1
        states = [f.snapshot() for f in self.folds]
        if not states:
            states = [FileFold(0).snapshot()]
        main, agents = states[0], tuple(states[1:])
        sources = self._sources()
        by_agent = {s.agent_id: s.src for s in agents if s.agent_id}
        by_tool = {tid: src for src, tid in self._meta_links.items()}
        links = []
        for link in main.subagents:
            src = by_tool.get(link.tool_use_id)
            if src is None and link.agent_id:
                src = by_agent.get(link.agent_id)
            links.append(msgspec.structs.replace(link, source=src) if src is not None else link)
        main = msgspec.structs.replace(main, subagents=tuple(links))
        counters = Counters()
        tools: dict[str, int] = {}
        files: dict[str, FileTouch] = {}
        pending: list[ToolCall] = []
        models: set[str] = set()
        for st in states:
            counters = counters.add(st.counters)
            for k, v in st.tools_by_name.items():
                tools[k] = tools.get(k, 0) + v
            for ft in st.files:
                cur = files.get(ft.path)
                if cur is None:
                    files[ft.path] = msgspec.structs.replace(ft)
                else:
                    cur.reads += ft.reads
                    cur.writes += ft.writes
                    cur.edits += ft.edits
                    # keep the main thread's (or first subagent's) last touch: line numbers of
                    # different files are not comparable, and the main thread is what views order by
            pending.extend(st.pending)
            models.update(st.models)
        counters.api_messages = len(self.usage)
        # human prompts and interrupts are the session's: a subagent's first "prompt" is the Task
        # input its parent wrote (the per-agent breakdown in ``agents`` still counts it)
        counters.user_prompts = states[0].counters.user_prompts
        counters.interrupts = states[0].counters.interrupts
        tokens_by_model = self.usage.tokens_by_model()
        buckets = self.usage.usage_buckets()
        if self.price:
            # each bucket at its own day (pricing.py); the last timestamp only dates undated ones
            last_ts = max((s.last_timestamp for s in states if s.last_timestamp), default=None)
            cost, note = estimate_cost(buckets, last_ts, counters.usage_rejected)
        else:
            cost, note = None, "not priced"
        return RunState(
            main=main,
            agents=agents,
            sources=sources,
            counters=counters,
            tools_by_name=dict(sorted(tools.items(), key=lambda kv: (-kv[1], kv[0]))),
            tokens=self.usage.tokens(),
            tokens_by_model=tokens_by_model,
            cost_usd=cost,
            cost_note=note,
            models=tuple(sorted(models)),
            pending=tuple(pending),
            files=tuple(files.values()),
            history=_frozen(self.folds[0].history, True) if self.folds else (),
            episodes=main.derived.episodes if main.derived is not None else (),
            ledgers=tuple(_frozen(f.events, False) for f in self.folds),
            generation=self.generation,
            usage_buckets=buckets,
            agent=main.agent,
            secrets=self.secrets,
        )


def _iter_lines(data: bytes) -> Iterable[tuple[int, int, memoryview]]:
    mv = memoryview(data)
    start = 0
    n = 0
    while True:
        nl = data.find(b"\n", start)
        if nl < 0:
            break
        n += 1
        yield n, start, mv[start:nl]
        start = nl + 1
    if start < len(data):
        yield n + 1, start, mv[start:]


def fold_bytes(data: bytes, name: str = "transcript.jsonl", price: bool = False) -> RunState:
    """Fold a whole transcript held in memory as one main file (the pure entry point for tests).

    A last line without a newline is folded as a record when it parses (the end-of-file rule).
    """
    sf = SessionFold(price=price)
    sf.add_source(name, name)
    for n, off, buf in _iter_lines(data):
        sf.feed_line(0, n, off, buf)
    sf.set_io(0, len(data), len(data), data.count(b"\n"), 0)
    return sf.snapshot()


def fold(records: Iterable[dict[str, Any] | bytes | str], name: str = "transcript.jsonl", price: bool = False) -> RunState:
    """Fold records (dicts, or JSON lines as str/bytes) in order, as if read from one file."""
    import orjson

    parts = []
    for r in records:
        if isinstance(r, dict):
            parts.append(orjson.dumps(r))
        elif isinstance(r, str):
            parts.append(r.encode("utf-8", "surrogatepass"))
        else:
            parts.append(bytes(r))
    return fold_bytes(b"\n".join(parts) + b"\n", name, price)


def _frozen(sink: Any, copy: bool) -> Any:
    """What a snapshot holds of a sink: a list ledger itself (append-only; readers stop at the
    state's ``ledger_len``), a list history as a tuple (``copy``), a store's sink as its
    ``view()`` (a read-only sequence of the items appended so far)."""
    if type(sink) is list:
        return tuple(sink) if copy else sink
    return sink.view()
