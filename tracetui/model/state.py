"""The ledger event and the frozen state types of the fold: ``AgentState`` and ``RunState``.

Every struct here is a msgspec Struct, so a whole state encodes to MessagePack for the
persistent fold cache and to JSON for ``tracetui state --json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

import msgspec

from tracetui.ingest.secret_values import SeenSecrets
from tracetui.ingest.tools import one_line_name
from tracetui.model.numbers import plural
from tracetui.model.types import Anchor, Derived, Episode, FileTouch, Tokens, ToolCall, UsageBucket

__all__ = [
    "share",
    "one_line_name",
    "unknown_text",
    "Anchor",
    "Event",
    "Counters",
    "Tokens",
    "UsageBucket",
    "PromptInfo",
    "ToolCall",
    "FileTouch",
    "Todo",
    "Frontier",
    "SubagentLink",
    "QuarantineEntry",
    "UnknownEntry",
    "SourceStatus",
    "AgentState",
    "RunState",
    "RateLimit",
    "EVENT_KINDS",
]


#: The kinds of ledger event (one per content block, one per other record).
EVENT_KINDS = (
    "prompt",  # a human prompt (user text that passes the prompt rule)
    "interrupt",  # "[Request interrupted by user…]"
    "user_text",  # other user text: meta, command output wrappers, task notifications
    "compact_summary",  # the user record that carries the compaction summary
    "image",  # an image block
    "tool_result",
    "assistant_text",
    "thinking",
    "tool_use",
    "api_error",  # a synthetic assistant record with isApiErrorMessage
    "system",  # a system record (its subtype in ``name``)
    "compaction",  # system/compact_boundary
    "progress",
    "attachment",
    "metadata",  # summary, file-history-snapshot, queue-operation, titles, modes, pr-link, …
    "unknown_record",
    "unknown_block",
)


class Event(msgspec.Struct, array_like=True, gc=False):
    """One ledger event: a content block of a message, or a whole non-message record.

    ``uuid`` + ``block`` is the stable id (``id``); ``sha256`` is the digest of the payload bytes
    (the block's JSON, or the record's when it has no blocks); ``excerpt`` is at most ~100
    characters, the payload itself stays in the file at ``anchor``. ``status`` is the ingest
    status: ``ok`` or ``unknown`` (an unknown record or block type, or an unexpected shape).
    """

    seq: int
    kind: str
    anchor: Anchor
    uuid: Union[str, None]
    block: int
    sha256: bytes
    excerpt: str
    status: str = "ok"
    name: Union[str, None] = None  # tool name, system subtype, record type for metadata
    tool_use_id: Union[str, None] = None
    message_id: Union[str, None] = None
    parent_uuid: Union[str, None] = None
    timestamp: Union[str, None] = None
    is_error: bool = False
    sidechain: bool = False
    #: input, output, cache creation, cache read, and the part of cache creation written to the
    #: 1-hour cache (tokens; model/fold.py ``UsageBook``)
    usage: Union[tuple[int, int, int, int, int], None] = None

    @property
    def id(self) -> str:
        """The stable event id: ``<record uuid>:<block index>`` (or source:line when no uuid)."""
        base = self.uuid or f"{self.anchor.src}:{self.anchor.line}@{self.anchor.offset}"
        return f"{base}:{self.block}"


def unknown_text(records: int, blocks: int) -> str:
    """The one way every output writes what was kept as unknown: ``unknown 5 records, 12
    blocks`` (``records``: records of a type or shape the fold does not know, ``blocks``: content
    blocks likewise; counts, written with thousands separators), ``unknown 0`` when there is
    neither (short, for the monitor's header). Shape problems (a field of another type left out,
    a tool_use without id) are not unknown: ``shape_errors`` counts them."""
    if not records and not blocks:
        return "unknown 0"
    return f"unknown {plural(records, 'record')}, {plural(blocks, 'block')}"


class Counters(msgspec.Struct):
    """Counts over folded records. All are counts of records, blocks or distinct ids."""

    records: int = 0
    malformed: int = 0
    unknown_records: int = 0
    unknown_blocks: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    api_messages: int = 0
    user_prompts: int = 0
    interrupts: int = 0
    compactions: int = 0
    api_errors: int = 0
    api_retries: int = 0
    sidechain_records: int = 0
    #: assistant records whose usage was rejected (a token count outside 0..MAX_TOKENS, or not
    #: an int; ingest/decode.py): their tokens are not counted nor priced (also in unknown_records)
    usage_rejected: int = 0
    #: records and blocks kept with a declared field of another type left out (a ``timestamp``
    #: that is a number, ...; ingest/decode.py): each is also listed in ``unknown`` with why
    shape_errors: int = 0

    def add(self, other: "Counters") -> "Counters":
        """The field-wise sum (a new object)."""
        return Counters(*(a + b for a, b in zip(msgspec.structs.astuple(self), msgspec.structs.astuple(other))))


class PromptInfo(msgspec.Struct):
    """A human prompt: its whole text (slash commands as ``/name args``, bash mode as ``! cmd``),
    where it is, and its form (``text``, ``slash``, ``bash``)."""

    text: str
    anchor: Anchor
    form: str = "text"
    uuid: Union[str, None] = None
    timestamp: Union[str, None] = None
    seq: int = 0


class Todo(msgspec.Struct):
    """A todo (TodoWrite) or task (TaskCreate/TaskUpdate) with its status
    (``pending``, ``in_progress``, ``completed``, or another value as written)."""

    id: str
    content: str
    status: str
    anchor: Anchor
    source: str = "TodoWrite"


class Frontier(msgspec.Struct):
    """What the agent is doing now: a call in flight (``in_flight``), or its last action
    (``tool_use``, ``text``; ``tool_error`` when that call failed, its anchor the result's), or a
    prompt not yet answered (``prompt``)."""

    kind: str
    text: str
    anchor: Anchor
    tool: Union[str, None] = None
    tool_use_id: Union[str, None] = None
    timestamp: Union[str, None] = None


class SubagentLink(msgspec.Struct):
    """A Task/Agent call and the subagent transcript it started, once linked: a file of its own
    (``source``), or sidechain records inline in the main file (``inline_*``)."""

    tool_use_id: str
    tool: str
    description: str
    subagent_type: Union[str, None]
    anchor: Anchor
    status: str = "running"  # running | completed | error | async_launched
    agent_id: Union[str, None] = None
    source: Union[int, None] = None  # index into RunState.sources once its file is folded
    result_anchor: Union[Anchor, None] = None
    total_tokens: Union[int, None] = None
    #: the subagent's records when they are inline in the main file (``isSidechain`` records of
    #: an older Claude Code, transcript-format.md §2): how many, its tool calls, and where the
    #: first and the last of them are. Linked by the sidechain's first prompt, which is the
    #: call's ``prompt`` input verbatim, then by ``parentUuid`` from record to record.
    inline_records: int = 0
    inline_tool_calls: int = 0
    inline_first: Union[Anchor, None] = None
    inline_last: Union[Anchor, None] = None


class QuarantineEntry(msgspec.Struct):
    """A line, or part of one, that is not a JSON object: where, why, and a short excerpt."""

    anchor: Anchor
    reason: str
    excerpt: str


class UnknownEntry(msgspec.Struct):
    """A record or block of a type the fold does not know, or of unexpected shape (also one
    kept with a field of another type left out: its ``reason`` starts with ``shape:``)."""

    anchor: Anchor
    type: str
    reason: str


class SourceStatus(msgspec.Struct):
    """Ingest status of one file.

    ``consumed`` is the resume offset in bytes; ``pending_bytes`` the torn last line held;
    ``resets`` notes each truncation or replacement (the fold then started over)."""

    path: str
    name: str
    role: str = "main"  # main | subagent
    agent_id: Union[str, None] = None
    size: int = 0
    consumed: int = 0
    lines: int = 0
    pending_bytes: int = 0
    malformed: int = 0
    #: records and content blocks kept as unknown (``unknown_records + unknown_blocks``)
    unknown: int = 0
    unknown_records: int = 0
    unknown_blocks: int = 0
    truncated: int = 0
    replaced: int = 0
    resets: tuple[str, ...] = ()
    error: Union[str, None] = None
    last_anchor: Union[Anchor, None] = None
    #: which agent wrote the file (``claude`` | ``codex``), decided by its first record
    agent: str = "claude"
    #: records at the start of a Codex child rollout that are a copy of its parent's history
    #: (counted in ``records`` only; model/codex_fold.py)
    replayed: int = 0


class RateLimit(msgspec.Struct, frozen=True):
    """One rate-limit window an agent reported (Codex ``token_count.rate_limits``): its name
    (``primary``: the 5-hour window, ``secondary``: the weekly one), the percent used, the
    window's length in minutes and when it resets (Unix seconds), as of ``anchor``."""

    name: str
    used_percent: Union[float, None] = None
    window_minutes: Union[int, None] = None
    resets_at: Union[int, None] = None
    anchor: Union[Anchor, None] = None


class AgentState(msgspec.Struct):
    """The fold of one transcript file (the main thread, or one subagent), frozen.

    ``ledger_len`` says how many events of that file's ledger it covers. Counters and tokens
    cover every record of the file, sidechain records included.
    """

    src: int
    agent_id: Union[str, None]
    counters: Counters
    tools_by_name: dict[str, int]
    tokens: Tokens
    tokens_by_model: dict[str, Tokens]
    models: tuple[str, ...]
    pending: tuple[ToolCall, ...]
    files: tuple[FileTouch, ...]
    todos: tuple[Todo, ...]
    goal: Union[PromptInfo, None]
    latest_ask: Union[PromptInfo, None]
    frontier: Union[Frontier, None]
    subagents: tuple[SubagentLink, ...]
    compactions: tuple[Anchor, ...]
    quarantine: tuple[QuarantineEntry, ...]
    unknown: tuple[UnknownEntry, ...]
    prompts: int
    ledger_len: int
    session_id: Union[str, None] = None
    cwd: Union[str, None] = None
    version: Union[str, None] = None
    git_branch: Union[str, None] = None
    title: Union[str, None] = None
    first_timestamp: Union[str, None] = None
    last_timestamp: Union[str, None] = None
    last_anchor: Union[Anchor, None] = None
    sidechain_file: bool = False
    pr_links: tuple[str, ...] = ()
    #: episodes, facts, aggregates and incremental anomalies of this file (model/derive.py)
    derived: Union["Derived", None] = None
    #: this file's tokens per (model, UTC day, tier band): what its cost is priced from
    usage_buckets: tuple[UsageBucket, ...] = ()
    #: which agent wrote the file (``claude`` | ``codex``)
    agent: str = "claude"
    #: the rate-limit windows the agent last reported (Codex only), by name
    rate_limits: tuple[RateLimit, ...] = ()
    #: the context window (tokens) the agent declared for its model (Codex
    #: ``token_count.info.model_context_window``); 0: none declared, the model's rule applies
    context_window: int = 0
    #: the tokens the last request held, as the agent reported them (Codex
    #: ``last_token_usage.input_tokens``); 0: taken from the last API message's usage
    context_used: int = 0
    #: the latest timestamp of the file's records (``last_timestamp`` is the last record's,
    #: which a queued prompt can make older): what the quiet time of a stall is measured from
    newest_timestamp: Union[str, None] = None


class RunState(msgspec.Struct):
    """The state of a session: its main transcript and its subagents, combined.

    * ``main`` and ``agents`` are per-file folds; the combined fields below sum them (tokens are
      deduplicated per API message id across all files).
    * ``cost_usd`` is an estimate from genai-prices (``None`` when a model has no known price;
      never a guessed zero); ``cost_note`` says which models were not priced.
    * ``history`` holds the main thread's state at the end of each completed episode (one per
      human prompt), so views can be compiled as of any episode. Their
      ``derived.episodes`` is empty: the episodes as of a history state ``h`` are
      ``views.as_of.episodes_as_of(episodes, h.ledger_len)`` (every version records where it was made).
      A tuple for an in-memory fold; for a session read through the store, a read-only sequence
      that loads each snapshot from the database when indexed (tracetui/session/store).
    * ``ledgers`` are the per-source event sequences (append-only, shared, never copied): lists
      for an in-memory fold, read-only views of the database for a stored session (indexing and
      slicing read it). Read one only up to the ``ledger_len`` of the state that refers to it.
    """

    main: AgentState
    agents: tuple[AgentState, ...]
    sources: tuple[SourceStatus, ...]
    counters: Counters
    tools_by_name: dict[str, int]
    tokens: Tokens
    tokens_by_model: dict[str, Tokens]
    cost_usd: Union[float, None]
    cost_note: str
    models: tuple[str, ...]
    pending: tuple[ToolCall, ...]
    files: tuple[FileTouch, ...]
    history: Sequence[AgentState] = ()
    ledgers: tuple[Sequence[Event], ...] = ()
    generation: int = 0  # bumps on every snapshot that changed
    #: the main thread's episodes, every version (the same tuple as ``main.derived.episodes``)
    episodes: tuple["Episode", ...] = ()
    #: the session's tokens per (model, UTC day, tier band), deduplicated like ``tokens``:
    #: ``cost_usd`` is their sum, each priced at its own day (model/pricing.py)
    usage_buckets: tuple[UsageBucket, ...] = ()
    #: which agent wrote the session (``claude`` | ``codex``), decided by its main file's first record
    agent: str = "claude"
    #: the secrets found in the session so far (a :class:`~tracetui.ingest.secret_values.SeenSecrets`
    #: shared by every snapshot of one fold, ``None`` for a state made otherwise): every later
    #: copy of one is masked too (``tracetui.views.safe.state_secrets``)
    secrets: Union[SeenSecrets, None] = None

    @property
    def goal(self) -> PromptInfo | None:
        return self.main.goal

    @property
    def latest_ask(self) -> PromptInfo | None:
        return self.main.latest_ask

    @property
    def frontier(self) -> Frontier | None:
        return self.main.frontier

    @property
    def todos(self) -> tuple[Todo, ...]:
        return self.main.todos

    def source_name(self, src: int) -> str:
        """The display name of source ``src``: its file name on one line (a newline, carriage
        return or tab in it as its control picture: a name is no place for a line break, and a
        file named so forged lines of the card, seventh user trial)."""
        if 0 <= src < len(self.sources):
            return one_line_name(self.sources[src].name)
        return f"src{src}"

    def fmt_anchor(self, anchor: Anchor | None) -> str:
        """``file:line`` for an anchor, or ``unlocated``."""
        if anchor is None:
            return "unlocated"
        return f"{self.source_name(anchor.src)}:{anchor.line}"

    def events(self, src: int = 0, upto: int | None = None) -> list[Event]:
        """The ledger of source ``src`` as this state covers it (a new list; the ledger is shared)."""
        if src >= len(self.ledgers):
            return []
        led = self.ledgers[src]
        if upto is None:
            st = self.main if src == self.main.src else next((a for a in self.agents if a.src == src), None)
            upto = st.ledger_len if st is not None else len(led)
        out = led[:upto]
        return out if isinstance(out, list) else list(out)


def share(prev: tuple, values) -> tuple:
    """``prev`` when it holds the same content as ``values`` (in order), else a new tuple.

    Sound because the fold replaces leaves instead of mutating them: equal leaves in the same
    order are the same content (the comparison is identity first, in C). Lets snapshots share
    what did not change, so a pane can skip work with ``old.x is new.x``."""
    if len(prev) != len(values):
        return tuple(values)
    if not prev:
        return prev
    new = tuple(values)
    return prev if new == prev else new
