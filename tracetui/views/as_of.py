"""The state as of the end of an episode: what every view shows when scrubbing back through history."""

from __future__ import annotations

import msgspec

from tracetui.model.state import RunState
from tracetui.views.format import plural

__all__ = ["state_as_of", "episode_count", "episodes_as_of"]


def episode_count(state: RunState) -> int:
    """How many episodes (human prompts) the main thread has."""
    return state.main.prompts


def state_as_of(state: RunState, episode: int | None) -> RunState:
    """The state at the end of episode ``episode`` (1-based), compiled from ``state.history``.

    ``None`` or the last episode gives ``state`` itself. Earlier episodes give a RunState whose
    main thread is the snapshot taken when the next prompt arrived; subagent files are left out
    (their progress at that moment is not recorded) and cost is recomputed from that snapshot's
    tokens (``None`` when the state was not priced). The main source's figures are those as of
    the episode's end; its live reading status (truncated, replaced, read error) is left out. Raises ``ValueError`` for an episode
    outside ``1..N``.
    """
    n = episode_count(state)
    if episode is None or (episode == n and n > 0):
        return state
    if not 1 <= episode <= n or episode - 1 >= len(state.history):
        if n == 0:
            raise ValueError(
                f"episode {episode} does not exist: this session has no human prompt, so no episode ends before its last record (leave out --episode for the whole session)"
            )
        raise ValueError(f"episode {episode} does not exist (this session has {plural(n, 'episode')}, numbered 1 to {n})")
    h = state.history[episode - 1]
    # the snapshot was taken as the closing prompt's record was read: its last_anchor is that
    # record; the view covers the events before it (bytes before its offset)
    closing = h.last_anchor
    led = state.ledgers[h.src] if h.src < len(state.ledgers) else []
    if 0 < h.ledger_len <= len(led):
        # the episode's last record, not the prompt that closed it: its anchor, and the time of
        # the last event that has one (as the episode's ``end``)
        ts = next((e.timestamp for e in reversed(led[max(0, h.ledger_len - 64) : h.ledger_len]) if e.timestamp), h.last_timestamp)
        # (the newest timestamp, the closing prompt's included, gives way to that end too)
        h = msgspec.structs.replace(h, last_anchor=led[h.ledger_len - 1].anchor, last_timestamp=ts, newest_timestamp=None)
    eps = episodes_as_of(state.episodes, h.ledger_len)
    if h.derived is not None and not h.derived.episodes:
        # history snapshots leave their episodes out (FileFold.snapshot): give it those as of then
        h = msgspec.structs.replace(h, derived=msgspec.structs.replace(h.derived, episodes=eps))
    cost, note = None, state.cost_note
    if state.cost_note != "not priced":
        from tracetui.model.pricing import estimate_cost

        cost, note = estimate_cost(h.usage_buckets, h.last_timestamp, h.counters.usage_rejected)
    srcs = []
    for s in state.sources[:1]:
        srcs.append(
            msgspec.structs.replace(
                s,
                consumed=(closing.offset if closing is not None else 0),
                lines=(closing.line - 1 if closing is not None else 0),
                pending_bytes=0,
                malformed=h.counters.malformed,
                unknown=h.counters.unknown_records + h.counters.unknown_blocks,
                unknown_records=h.counters.unknown_records,
                unknown_blocks=h.counters.unknown_blocks,
                last_anchor=h.last_anchor,
                # how the file is being read now (a truncation, a replacement, a read error) is
                # live news, not part of the transcript as of this episode: the live view says it
                truncated=0,
                replaced=0,
                resets=(),
                error=None,
            )
        )
    return msgspec.structs.replace(
        state,
        main=h,
        agents=(),
        sources=tuple(srcs),
        counters=h.counters,
        tools_by_name=dict(sorted(h.tools_by_name.items(), key=lambda kv: (-kv[1], kv[0]))),
        tokens=h.tokens,
        tokens_by_model=h.tokens_by_model,
        usage_buckets=h.usage_buckets,
        cost_usd=cost,
        cost_note=note,
        models=h.models,
        pending=h.pending,
        files=h.files,
        history=state.history[: episode - 1],
        episodes=eps,
    )


def episodes_as_of(episodes: tuple, cutoff: int) -> tuple:
    """The episode versions made at or before ledger position ``cutoff`` (the prompt that ends
    the episode in question), with lifecycles as they stood then: each index's newest version
    is current, older ones superseded."""
    kept = [
        e for e in episodes if e.made_at <= cutoff and e.status != "in_progress" or (e.made_at <= cutoff and e.lifecycle == "superseded")
    ]
    newest: dict[int, int] = {}
    for e in kept:
        newest[e.index] = max(newest.get(e.index, 0), e.version)
    out = []
    for e in kept:
        cur = e.version == newest[e.index]
        life, by = ("current", None) if cur else ("superseded", e.superseded_by)
        # most versions stood then as they stand now: kept as they are (a copy of every version
        # on each scrub step was most of its cost on a session of thousands of episodes)
        out.append(e if e.lifecycle == life and e.superseded_by == by else msgspec.structs.replace(e, lifecycle=life, superseded_by=by))
    return tuple(out)
