"""The anomaly detectors' thresholds and the context window they measure against.

Every threshold is a named constant whose docstring gives its reason; the incremental detectors
(:class:`tracetui.model.anomaly_tracker.AnomalyTracker`) and the view-time ones
(:mod:`tracetui.model.anomalies`) read them from here.
"""

from __future__ import annotations

import functools

__all__ = [
    "TOOL_LOOP_REPEATS",
    "TOOL_LOOP_WINDOW",
    "TOOL_ERROR_STREAK",
    "API_ERROR_STREAK",
    "EDIT_THRASH",
    "REREAD_LOOP",
    "STALL_SECONDS",
    "ENDED_SECONDS",
    "stall_severity",
    "CONTEXT_PRESSURE_RATIO",
    "CONTEXT_WINDOW_TOKENS",
    "LONG_CONTEXT_WINDOW_TOKENS",
    "COST_SPIKE_FACTOR",
    "COST_SPIKE_MIN_USD",
    "RUNAWAY_SUBAGENTS",
    "HISTORY_KEPT",
    "SEVERITIES",
    "context_window",
]

TOOL_LOOP_REPEATS = 3
"""Identical calls (same tool, same normalised input) within :data:`TOOL_LOOP_WINDOW` calls that
make a tool loop. Two identical calls are common and harmless (re-checking a status after a
change); a third with nothing changed in its input is the usual sign of an agent going round."""

TOOL_LOOP_WINDOW = 10
"""How many recent main-thread calls the tool-loop detector looks at; the loop clears when a
whole window passes without the repeated call (or when the next prompt starts an episode)."""

TOOL_ERROR_STREAK = 3
"""Consecutive failing tool results that make an error streak: one or two failures are normal
trial and error (a missing file, a failing test); three in a row means the agent is stuck. Clears
at the next successful result."""

API_ERROR_STREAK = 2
"""Consecutive API errors or retry notices (``system/api_error``) that make an API streak: one
retry is routine (Claude Code retries by itself); a second means the service or the request is
failing. Clears at the next assistant message with usage (a successful response)."""

EDIT_THRASH = 5
"""Edits (Edit, MultiEdit, NotebookEdit, Write) of one file within one episode that make edit
thrash: a feature usually takes a few edits per file; five or more in one episode means it is
being rewritten back and forth. Clears when the episode ends."""

REREAD_LOOP = 3
"""Reads of one file with no edit or write of it in between that make a re-read loop: reading
again after an edit is normal, reading the unchanged file a third time means the agent is losing
what it read (often after compaction). Clears at the next edit/write of the file or episode end."""

STALL_SECONDS = 300
"""Seconds with no new record while a call is pending that make a stall: tests and builds often
run a few minutes, Claude Code's default Bash timeout is 2 minutes and its maximum 10; five
minutes of silence with a call open is worth a look. Clears when a record arrives."""

ENDED_SECONDS = 86_400
"""Seconds without a record after which a stall is a session that ended with calls unanswered
(severity info): a day, longer than any test run or build a call waits for."""


def stall_severity(pending: int, age: float | None) -> str | None:
    """The stall rule, the one every surface that counts or lists a stall applies: with
    ``pending`` calls open and no record for ``age`` seconds (``None``: no record time known),
    ``"warn"`` from :data:`STALL_SECONDS`, ``"info"`` from :data:`ENDED_SECONDS` (the session
    ended with them unanswered), ``None`` otherwise (no call pending, or not quiet long enough)."""
    if pending <= 0 or age is None or age < STALL_SECONDS:
        return None
    return "info" if age >= ENDED_SECONDS else "warn"


CONTEXT_PRESSURE_RATIO = 0.85
"""Share of the context window (input + cache creation + cache read tokens of the last main
message) that makes context pressure: Claude Code auto-compacts somewhat above this, so 85 % is
a warning before it happens. Clears when a later message is back below."""

CONTEXT_WINDOW_TOKENS = 200_000
"""The context window assumed for a model, in tokens (Claude models' standard window)."""

LONG_CONTEXT_WINDOW_TOKENS = 1_000_000
"""The window assumed when the model name ends with ``[1m]`` or a message already used more
than :data:`CONTEXT_WINDOW_TOKENS` (the 1M-context beta)."""

LONG_CONTEXT_SUFFIX = "[1m]"
"""Claude Code's marker of a model run with the 1M-token window: a suffix of the model's name
(``claude-opus-4-8[1m]``, as a Task result's ``resolvedModel`` writes it). Only the whole suffix
counts: a name that merely contains ``1m`` (or an ANSI ``ESC[1m``) is not a long-context one."""

COST_SPIKE_FACTOR = 3.0
"""An episode costing at least this many times the median of the earlier episodes is a spike."""

COST_SPIKE_MIN_USD = 1.0
"""…and at least this many USD: below a dollar a ratio says nothing worth interrupting for."""

RUNAWAY_SUBAGENTS = 6
"""Subagents started within one episode that make runaway subagents: a typical fan-out is 1–4
(Claude Code's guidance runs a handful in parallel); six or more in one episode is unusual and
costly. Clears when the episode ends."""

HISTORY_KEPT = 200
"""Cleared anomalies kept per file (all are counted in ``AnomalyTracker.cleared_total``)."""

SEVERITIES = ("info", "warn", "error")
"""An anomaly's severities, the mildest first."""


@functools.lru_cache(maxsize=256)
def _long_context(model: str | None) -> bool:
    return (model or "").lower().endswith(LONG_CONTEXT_SUFFIX)


def context_window(model: str | None, used: int = 0, declared: int = 0) -> int:
    """The context window (tokens) of ``model``: the one the agent ``declared`` when it declared
    one (Codex ``token_count.info.model_context_window``), else the one assumed for a Claude model
    (see :data:`LONG_CONTEXT_WINDOW_TOKENS`; ``used``, the tokens a request already held, over
    :data:`CONTEXT_WINDOW_TOKENS` means the long one)."""
    if declared > 0:
        return declared
    if used > CONTEXT_WINDOW_TOKENS or _long_context(model):
        return LONG_CONTEXT_WINDOW_TOKENS
    return CONTEXT_WINDOW_TOKENS
