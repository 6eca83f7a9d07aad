"""Build whole Claude Code sessions record by record: :class:`TranscriptBuilder`.

The builder keeps what a session threads through its records: the uuid chain, the clock, the
message and tool_use ids, the growing context, the subagents. Each record comes from a
constructor of :mod:`tracetui.demo.records`. Uuids and ids are derived from counters, so the same
calls always give the same bytes.
"""

from __future__ import annotations

import uuid as _uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from tracetui.demo import records as r

__all__ = ["TranscriptBuilder"]

_NS = _uuid.UUID("6f1c1f4e-3a0b-4d55-9a49-7a7ce7e7e7e7")


class _Message:
    """The API message the next assistant records belong to: ids and usage, drawn at its first record."""

    __slots__ = ("id", "request_id", "input", "created", "cache_read", "output")

    def __init__(self) -> None:
        self.id: str | None = None
        self.request_id = ""
        self.input = self.created = self.cache_read = self.output = 0


class TranscriptBuilder:
    """Builds the records of one transcript file in order (§3–§10 of transcript-format.md).

    ``start`` is the ISO timestamp of the first record; :meth:`tick` advances the clock in
    seconds. ``agent_id`` makes a subagent transcript (every record ``isSidechain: true`` with an
    ``agentId``; :meth:`subagent` makes one that shares the session). ``context`` is the prompt
    size in tokens the first API call sees; each API message's ``cache_read_input_tokens`` grows
    with the conversation, so a context gauge moves. Every assistant block is its own API message
    unless written inside :meth:`message`. Records are plain dicts in :attr:`records`, in file order.
    """

    def __init__(
        self,
        session_id: str = r.SESSION_ID,
        cwd: str = r.CWD,
        model: str = r.MODEL,
        version: str = r.VERSION,
        start: str = "2026-03-02T09:00:00.000Z",
        agent_id: str | None = None,
        git_branch: str = "main",
        context: int = 18_000,
    ) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.model = model
        self.version = version
        self.agent_id = agent_id
        self.git_branch = git_branch
        self.t = datetime.strptime(start, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        self.t0 = self.t
        self.records: list[dict[str, Any]] = []
        #: the uuid the next conversation record chains to (``parentUuid``)
        self.parent: str | None = None
        self.context = context
        self._n = 0
        self._tool_n = 0
        self._msg: _Message | None = None
        #: for a subagent: the Task/Agent tool_use id that started it, its type and description (``.meta.json``)
        self.parent_tool_use_id: str | None = None
        self.agent_type = "general-purpose"
        self.description = ""
        #: the subagent builders made by :meth:`subagent`, written by :meth:`write_session`
        self.subagents: list[TranscriptBuilder] = []

    # -- plumbing ---------------------------------------------------------------------------
    def tick(self, seconds: float) -> TranscriptBuilder:
        """Advance the clock by ``seconds``."""
        self.t += timedelta(seconds=seconds)
        return self

    def sync(self, other: TranscriptBuilder) -> TranscriptBuilder:
        """Move the clock to ``other``'s if that is later (a main file waiting for its subagent)."""
        self.t = max(self.t, other.t)
        return self

    def _id(self, kind: str) -> str:
        self._n += 1
        return str(_uuid.uuid5(_NS, f"{self.session_id}/{self.agent_id}/{kind}/{self._n}"))

    def _env(self) -> dict[str, Any]:
        """The envelope keywords of the next conversation record; it becomes the chain's parent."""
        uid = self._id("rec")
        env = {
            "uuid": uid,
            "ts": r.iso(self.t),
            "parent": self.parent,
            "sidechain": self.agent_id is not None,
            "session": self.session_id,
            "cwd": self.cwd,
            "version": self.version,
            "git_branch": self.git_branch,
            "agent_id": self.agent_id,
        }
        self.parent = uid
        return env

    def add(self, rec: dict[str, Any]) -> dict[str, Any]:
        """Append a record as given (for shapes the helpers do not cover); returns it."""
        self.records.append(rec)
        return rec

    # -- user side --------------------------------------------------------------------------
    def prompt(self, text: str, permission_mode: str = "default") -> dict[str, Any]:
        """A human prompt (string content, ``permissionMode``)."""
        return self.add(r.user(text, permissionMode=permission_mode, **self._env()))

    def slash(self, name: str, args: str = "") -> dict[str, Any]:
        """A slash command as Claude Code writes it (``/name args`` once folded)."""
        return self.prompt(r.slash_text(name, args, legacy=True))

    def interrupt(self, for_tool: bool = True) -> dict[str, Any]:
        """``[Request interrupted by user…]`` as a text block."""
        return self.add(r.user([r.text_block(r.interrupt_text(for_tool))], **self._env()))

    def tool_result(self, tool_use_id: str, content: str, is_error: bool = False, result: Any = None) -> dict[str, Any]:
        """The user record carrying the tool_result of ``tool_use_id``; ``toolUseResult`` is
        ``result``, else ``"Error: …"`` on errors, else a Bash-like ``{stdout, stderr, …}``."""
        if result is None:
            result = f"Error: {content}" if is_error else {"stdout": content, "stderr": "", "interrupted": False, "isImage": False}
        return self.add(r.tool_result(tool_use_id, content, is_error=True if is_error else None, result=result, **self._env()))

    def task_result(
        self,
        sub: TranscriptBuilder,
        summary: str,
        content: str | None = None,
        total_tokens: int | None = None,
        tool_uses: int | None = None,
        duration_ms: int | None = None,
    ) -> dict[str, Any]:
        """The tool_result of the Task call that ran subagent ``sub`` (§9): ``summary`` with the
        agent id and usage, ``toolUseResult: {status: "completed", agentId, totalTokens,
        totalToolUseCount, totalDurationMs, content}``. Raises ``ValueError`` if ``sub`` has no agent id
        or no Task call. Defaults: ``sub``'s last context size in
        tokens, its tool calls, the milliseconds its clock ran; ``content`` defaults to ``summary``."""
        if sub.parent_tool_use_id is None or sub.agent_id is None:
            raise ValueError("task_result needs a subagent made by subagent(agent_id, tool_use_id)")
        tokens = sub.context if total_tokens is None else total_tokens
        uses = sub._tool_n if tool_uses is None else tool_uses
        ms = int((sub.t - sub.t0).total_seconds() * 1000) if duration_ms is None else duration_ms
        result = {
            "status": "completed",
            "agentId": sub.agent_id,
            "totalTokens": tokens,
            "totalToolUseCount": uses,
            "totalDurationMs": ms,
            "content": [r.text_block(summary if content is None else content)],
        }
        return self.tool_result(sub.parent_tool_use_id, r.task_result_text(summary, sub.agent_id, tokens, uses, ms), result=result)

    # -- assistant side ---------------------------------------------------------------------
    @contextmanager
    def message(self) -> Iterator[TranscriptBuilder]:
        """Write the assistant blocks inside the ``with`` as ONE API message (§7): one record per
        block, the same message id, requestId, input and cache tokens on each, ``output_tokens``
        growing to the message's total on its last record. tool_results may come in between
        (parallel calls). The context grows once, when the message ends."""
        if self._msg is not None:
            raise RuntimeError("an API message is already open")
        self._msg = _Message()
        try:
            yield self
        finally:
            self._close_message()

    def _close_message(self) -> None:
        m, self._msg = self._msg, None
        if m is not None and m.id is not None:
            self.context += m.created + m.output

    def _assistant(self, block: dict[str, Any], output: int) -> dict[str, Any]:
        env = self._env()
        one_shot = self._msg is None
        m = self._msg = self._msg or _Message()
        if m.id is None:  # ids and usage come after the first record's uuid: the same bytes as ever
            m.request_id = "req_" + self._id("req").replace("-", "")[:24]
            m.id = "msg_" + self._id("msg").replace("-", "")[:24]
            m.input, m.created, m.cache_read = 4 + self._n % 7, 600 + (self._n * 37) % 900, self.context
        m.output += output
        u = r.usage(m.input, m.output, m.created, m.cache_read, service_tier=None)
        rec = r.assistant([block], msg_id=m.id, usage=u, model=self.model, request_id=m.request_id, stop_sequence=True, **env)
        if one_shot:
            self._close_message()
        return self.add(rec)

    def text(self, text: str, output: int = 180) -> dict[str, Any]:
        """An assistant text block (``output`` tokens)."""
        return self._assistant(r.text_block(text), output)

    def thinking(self, output: int = 90) -> dict[str, Any]:
        """A thinking block (text empty, signature only, as 2.1.9x+ writes it)."""
        return self._assistant(r.thinking_block(), output)

    def tool_use(self, name: str, inp: dict[str, Any], output: int = 80, tool_id: str | None = None) -> str:
        """An assistant tool_use block; returns its tool_use id (``tool_id``, else a fresh ``toolu_01…``)."""
        if tool_id is None:
            self._tool_n += 1
            tool_id = "toolu_01" + _uuid.uuid5(_NS, f"{self.session_id}/{self.agent_id}/tool/{self._tool_n}").hex[:22]
        self._assistant(r.tool_use_block(tool_id, name, inp), output)
        return tool_id

    def tool(self, name: str, inp: dict[str, Any], result: str, is_error: bool = False, took: float = 1.0, structured: Any = None) -> str:
        """A tool_use, ``took`` seconds, then its tool_result; returns the tool_use id."""
        tid = self.tool_use(name, inp)
        self.tick(took)
        self.tool_result(tid, result, is_error, structured)
        return tid

    def api_error(self, status: int = 529, text: str = "Overloaded") -> dict[str, Any]:
        """A retry notice (``system/api_error``) then the synthetic API-error assistant record (§6)."""
        self.add(r.api_retry(status, **self._env()))
        env = self._env()
        body = f'API Error: {status} {{"type":"error","error":{{"type":"overloaded_error","message":"{text}"}}}}'
        return self.add(r.api_error(body, msg_id=self._id("apierr"), **env))

    def compaction(self, summary: str, trigger: str = "manual") -> None:
        """``system/compact_boundary`` then the ``isCompactSummary`` user record (§10); the
        context drops to 9,000 tokens."""
        leaf, self.parent = self.parent, None
        self.add(r.compact_boundary(self.context, trigger=trigger, logicalParentUuid=leaf, **self._env()))
        self.add(r.compact_summary(summary, **self._env()))
        self.context = 9_000

    def meta(self, type_: str, **fields: Any) -> dict[str, Any]:
        """A metadata record (``ai-title``, ``last-prompt``, …): no uuid chain."""
        return self.add(r.meta(type_, self.session_id, **fields))

    def system(self, subtype: str, **fields: Any) -> dict[str, Any]:
        """A system record with ``subtype``, ``level: "info"`` and ``fields``."""
        return self.add(r.system(subtype, level="info", **fields, **self._env()))

    # -- subagents --------------------------------------------------------------------------
    def subagent(
        self,
        agent_id: str,
        tool_use_id: str | None = None,
        agent_type: str = "general-purpose",
        description: str = "",
        context: int = 9_500,
    ) -> TranscriptBuilder:
        """A builder for the transcript of subagent ``agent_id``, started by the Task/Agent call
        ``tool_use_id``: same session, cwd and model, its clock at this one's now. Written by
        :meth:`write_session`; answer the call with :meth:`task_result`."""
        sub = TranscriptBuilder(
            self.session_id, self.cwd, self.model, self.version, agent_id=agent_id, git_branch=self.git_branch, context=context
        )
        sub.t = sub.t0 = self.t
        sub.parent_tool_use_id, sub.agent_type, sub.description = tool_use_id, agent_type, description
        self.subagents.append(sub)
        return sub

    def agent_meta(self) -> dict[str, Any]:
        """This subagent's ``agent-<id>.meta.json`` object (late 2.1.x): ``{agentType, description, toolUseId, spawnDepth}``."""
        return {"agentType": self.agent_type, "description": self.description, "toolUseId": self.parent_tool_use_id, "spawnDepth": 1}

    # -- output -----------------------------------------------------------------------------
    def lines(self) -> list[bytes]:
        """Each record as one compact JSON line (without the newline)."""
        return [r.line(rec) for rec in self.records]

    def data(self) -> bytes:
        """The whole file: every record followed by ``\\n``."""
        return r.jsonl(self.records)

    def write(self, path: Path) -> Path:
        """Write the whole file at ``path`` (parents created); returns ``path``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.data())
        return path

    def write_session(self, dest: Path, nested: bool = True) -> Path:
        """Write this main transcript as ``dest/<session>.jsonl`` and each subagent's: 2.1.x layout
        ``dest/<session>/subagents/agent-<id>.jsonl`` with its ``.meta.json``, or with ``nested``
        false the 2.0.x one, ``dest/agent-<id>.jsonl`` (§1). Returns the main file's path."""
        main = self.write(dest / f"{self.session_id}.jsonl")
        for sub in self.subagents:
            folder = dest / self.session_id / "subagents" if nested else dest
            path = sub.write(folder / f"agent-{sub.agent_id}.jsonl")
            if nested:
                path.with_name(f"agent-{sub.agent_id}.meta.json").write_bytes(orjson.dumps(sub.agent_meta()))
        return main
