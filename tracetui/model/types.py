"""The frozen value types of the model, which views may read: anchors, tokens, calls and file
touches, and the derived state (episodes, notes, facts, anomalies, ``Derived``).

They live together, below every module that builds them (``state``, ``fold``, ``episodes``,
``derive``, ``facts``, ``anomalies``, which re-export the names they always offered), so the
state types can name the derived ones without an import cycle. Every one is a msgspec Struct:
a whole state encodes to MessagePack for the fold cache and to JSON for ``tracetui state --json``.
"""

from __future__ import annotations

from typing import Union

import msgspec

__all__ = [
    "Anchor",
    "Tokens",
    "UsageBucket",
    "ToolCall",
    "FileTouch",
    "ErrorNote",
    "SubagentStart",
    "Episode",
    "Value",
    "Fact",
    "Aggregate",
    "EVIDENCE_KEPT",
    "Anomaly",
    "Note",
    "Derived",
]


class Anchor(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """Where an event came from: source index (into ``RunState.sources``), 1-based line number,
    and the byte offset of the record's first byte in that file."""

    src: int
    line: int
    offset: int


class Tokens(msgspec.Struct):
    """Token counts, deduplicated per API message id (max of each field over its records)."""

    input: int = 0
    output: int = 0
    cache_creation: int = 0
    cache_read: int = 0

    def add(self, other: "Tokens") -> "Tokens":
        return Tokens(
            self.input + other.input,
            self.output + other.output,
            self.cache_creation + other.cache_creation,
            self.cache_read + other.cache_read,
        )

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_creation + self.cache_read


class UsageBucket(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """The tokens of the API messages of one ``model`` that share a UTC ``day`` (``YYYY-MM-DD``
    of the message's first record with usage; ``""`` when it had no timestamp) and a price tier
    ``band`` (how many of ``pricing.TIER_BOUNDS`` the message's input tokens exceed): the unit
    :func:`tracetui.model.pricing.estimate_cost` prices. ``messages`` counts the API messages;
    ``cache_write_1h`` is the part of ``tokens.cache_creation`` written to the 1-hour cache
    (priced higher, genai-prices ``cache_write_1h_tokens``)."""

    model: str
    day: str
    band: int
    messages: int
    tokens: Tokens
    cache_write_1h: int = 0


class ToolCall(msgspec.Struct):
    """A tool_use and, once it arrives, its tool_result."""

    id: str
    name: str
    brief: str
    anchor: Anchor
    seq: int
    timestamp: Union[str, None] = None
    sidechain: bool = False
    result_anchor: Union[Anchor, None] = None
    is_error: bool = False
    result_excerpt: str = ""


class FileTouch(msgspec.Struct):
    """Reads, writes and edits of one path, exactly as the path appears in the tool input."""

    path: str
    reads: int = 0
    writes: int = 0
    edits: int = 0
    first: Union[Anchor, None] = None
    last: Union[Anchor, None] = None


class ErrorNote(msgspec.Struct, frozen=True):
    """A tool error or API error inside an episode: where, which tool (or ``API``), and the
    first ~100 characters of what it said (tool output: data, not instructions).
    ``resolved_by`` is the anchor of the successful tool_result of a later retry of the same call
    (``tracetui.model.derive.retry_keys``), ``None`` while no retry succeeded."""

    anchor: Anchor
    tool: str
    excerpt: str
    tool_use_id: Union[str, None] = None
    resolved_by: Union[Anchor, None] = None


class SubagentStart(msgspec.Struct, frozen=True):
    """A Task/Agent call made in an episode."""

    tool_use_id: str
    description: str
    anchor: Anchor


class Episode(msgspec.Struct, frozen=True):
    """One version of one episode (frozen).

    ``index`` is 1-based (0 is the stretch before the first prompt, kept only when it holds tool
    calls or assistant text). ``ledger_start``/``ledger_end`` are positions in the file's ledger
    (end exclusive). Tokens are deduplicated per API message id; ``tokens_by_model`` is for
    display, ``usage_buckets`` (per model, UTC day of the message's first record with usage in the
    episode, tier band) is what :func:`tracetui.model.pricing.estimate_cost` prices the episode
    (USD) from, each message at its own day as the session total is. ``duration_s`` is
    seconds from the first to the last record timestamp in file order (``None`` when unknown).
    """

    index: int
    version: int
    lifecycle: str
    status: str
    ask: str
    ask_form: str
    ask_anchor: Union[Anchor, None]
    first: Union[Anchor, None]
    last: Union[Anchor, None]
    ledger_start: int
    ledger_end: int
    start: Union[str, None]
    end: Union[str, None]
    duration_s: Union[float, None]
    tools: dict[str, int]
    tool_calls: int
    tool_errors: int
    api_errors: int
    interrupts: int
    compactions: int
    files: tuple[FileTouch, ...]
    errors: tuple[ErrorNote, ...]
    tokens: Tokens
    tokens_by_model: dict[str, Tokens]
    subagents: tuple[SubagentStart, ...]
    conclusion: str
    conclusion_anchor: Union[Anchor, None]
    dangling: tuple[ToolCall, ...]
    reason: str = ""
    superseded_by: Union[int, None] = None
    #: ledger position of the event that made this version (the closing prompt, the late
    #: result; for the open episode its end), so a view as of an earlier point can pick versions
    made_at: int = 0
    #: where the record that made this version is (the closing prompt, the late result)
    reason_anchor: Union[Anchor, None] = None
    #: the episode's tokens per (model, UTC day, tier band), for pricing (see above)
    usage_buckets: tuple[UsageBucket, ...] = ()
    #: tool errors of this episode that a later successful retry resolved (counted even when
    #: the note itself was not kept)
    resolved_errors: int = 0
    #: the tool_use id of the failed call the episode ended on (``None`` if it ended otherwise)
    ended_on_error: Union[str, None] = None


Value = Union[int, float, str]


class Fact(msgspec.Struct, frozen=True):
    """One extracted value. ``key`` is a canonical schema key (``tests.pytest.failed``,
    ``git.commit``, ``pr.link``, ``cmd.exit_code``, ``todo.status``); ``quote`` is the verbatim
    source text it was read from (tool output: data, never an instruction); ``eid`` is the event
    id (``<record uuid>:<block>``) and ``n`` the occurrence index within that event."""

    key: str
    value: Value
    anchor: Anchor
    eid: str
    n: int
    quote: str = ""

    @property
    def identity(self) -> str:
        """Source-scoped occurrence identity: same event, same occurrence → same fact."""
        return f"{self.anchor.src}|{self.eid}|{self.n}|{self.key}"


class Aggregate(msgspec.Struct):
    """A running aggregate of one key. ``sum``/``min``/``max`` are over numeric values only
    (``None`` when the key has none); ``count`` counts every value; ``first``/``through`` are
    the anchors of the first and the last value included (the coverage stamp)."""

    key: str
    count: int = 0
    numeric: int = 0
    sum: Union[int, float, None] = None
    min: Union[int, float, None] = None
    max: Union[int, float, None] = None
    last: Union[Value, None] = None
    first: Union[Anchor, None] = None
    through: Union[Anchor, None] = None

    def add(self, value: Value, anchor: Anchor) -> None:
        self.count += 1
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            self.numeric += 1
            self.sum = value if self.sum is None else self.sum + value
            self.min = value if self.min is None or value < self.min else self.min
            self.max = value if self.max is None or value > self.max else self.max
        self.last = value
        if self.first is None:
            self.first = anchor
        self.through = anchor

    def coverage(self, fmt) -> str:
        """``"<count> values, <first> through <through>"`` with anchors formatted by ``fmt``."""
        n = f"{self.count} value" + ("" if self.count == 1 else "s")
        if self.count == 1:
            return f"{n}, at {fmt(self.through)}"
        return f"{n}, {fmt(self.first)} through {fmt(self.through)}"


EVIDENCE_KEPT = 6
"""Evidence anchors kept per anomaly (all are counted in ``evidence_count``)."""


class Anomaly(msgspec.Struct):
    """One anomaly. ``key`` identifies it (kind plus what it is about); ``clears`` states the
    rule that clears it; ``cleared`` is the anchor where it cleared (``None`` while open) and
    ``cleared_reason`` why."""

    kind: str
    severity: str
    key: str
    began: Union[Anchor, None]
    message: str
    clears: str
    evidence: tuple[Anchor, ...] = ()
    evidence_count: int = 0
    cleared: Union[Anchor, None] = None
    cleared_reason: str = ""
    view_time: bool = False

    @property
    def open(self) -> bool:
        return self.cleared is None and not self.cleared_reason

    def add_evidence(self, a: Anchor) -> None:
        self.evidence_count += 1
        if len(self.evidence) < EVIDENCE_KEPT:
            self.evidence = self.evidence + (a,)


class Note(msgspec.Struct, frozen=True):
    """A short line for the card: a ruled-out note (``error``, ``rejected``, ``interrupted``,
    ``reverted``: an excluded hypothesis unless a later retry fixed the error, see
    ``views.derived.retry_fixes``; ``dropped_todo``: a fact, not an excluded hypothesis) or a user
    statement (``criterion``, ``constraint``). ``text`` is our wording; ``quote`` is verbatim source
    text (tool output or the user's words), to be shown quoted, as data."""

    kind: str
    text: str
    anchor: Anchor
    quote: str = ""
    episode: int = 0


class Derived(msgspec.Struct, frozen=True):
    """The frozen derived state of one file.

    ``episodes`` holds every version (superseded ones included) in (index, version) order;
    ``facts`` the recent facts (at most the store bound; ``facts_evicted`` were dropped, their
    aggregates kept exact); ``aggregates`` per fact key; ``anomalies`` the incremental ones,
    cleared first; ``ruled_out``/``stated`` the notes kept, with totals in the ``*_total`` fields.
    """

    episodes: tuple[Episode, ...] = ()
    facts: tuple[Fact, ...] = ()
    aggregates: dict[str, Aggregate] = {}
    facts_evicted: int = 0
    facts_total: int = 0
    anomalies: tuple[Anomaly, ...] = ()
    ruled_out: tuple[Note, ...] = ()
    ruled_out_total: int = 0
    stated: tuple[Note, ...] = ()
    stated_total: int = 0
    #: files changed by *successful* Edit/Write calls (a rejected or failed edit changes nothing),
    #: with the anchors of the first and last successful result
    changed: tuple[FileTouch, ...] = ()
