"""The anomalies of a state that do not depend on the clock, kept per state: a monitor redraws
the same state every second, and scrubbing asks for the state as of each episode in turn.

:func:`timeless_of` gives what :func:`tracetui.model.anomalies.timeless_anomalies` gives. Pricing
every episode for the cost spikes is its costly part (about 1 s on a session of 2,500 episodes);
for a state compiled from a live one (:func:`tracetui.views.as_of.state_as_of`) whose current
episode versions are the first ones of the live state's, the cost spikes are the live state's
spikes of those episodes (a spike is judged against the episodes before it only), so nothing is
priced again; otherwise they are computed in full.
"""

from __future__ import annotations

import threading
from typing import Any

from tracetui.model.anomalies import Anomaly, timeless_anomalies
from tracetui.model.state import RunState

__all__ = ["timeless_of", "ready", "to_price", "MEMO_STATES"]

#: how many states' anomalies are kept (the live one, the scrubbed one, the copies' ones)
MEMO_STATES = 8

#: ``(state, episodes)`` → ``(state, episodes, head, tail, current keys)``, newest last; the
#: objects are held so their ids stay theirs while they are in here
_MEMO: dict[tuple[int, int], tuple[Any, ...]] = {}
_LOCK = threading.Lock()
#: ``(live state, current keys)`` → ``(live, cost spikes)`` of past states priced in full: the
#: same episodes as of the same episode compiled again (a copy compiles its own) are not priced again
_SPIKES: dict[tuple[int, tuple[tuple[int, int], ...]], tuple[Any, tuple[Anomaly, ...]]] = {}


def _current_keys(episodes: Any) -> list[tuple[int, int]]:
    """``(index, version)`` of the versions the cost spikes price, in their order."""
    return [(e.index, e.version) for e in episodes if e.lifecycle != "superseded"]


def _remember(key: tuple[int, int], entry: tuple[Any, ...]) -> None:
    _MEMO.pop(key, None)
    _MEMO[key] = entry
    while len(_MEMO) > MEMO_STATES:
        del _MEMO[next(iter(_MEMO))]


def _entry(state: RunState, episodes: Any) -> tuple[Any, ...] | None:
    got = _MEMO.get((id(state), id(episodes)))
    if got is not None and got[0] is state and got[1] is episodes:
        _remember((id(state), id(episodes)), got)
        return got
    return None


def _spikes_from(live: tuple[Any, ...], keys: list[tuple[int, int]]) -> tuple[Anomaly, ...] | None:
    """The cost spikes of episodes ``keys`` taken from the live state's entry, or ``None`` when
    those are not the first current versions of the live state."""
    live_keys = live[4]
    if len(keys) > len(live_keys) or live_keys[: len(keys)] != keys:
        return None
    indices = {i for i, _ in keys}
    return tuple(a for a in live[3] if a.kind == "cost_spike" and int(a.key.partition(":")[2] or -1) in indices)


def ready(state: RunState, episodes: Any = None, live: RunState | None = None) -> tuple[tuple[Anomaly, ...], tuple[Anomaly, ...]] | None:
    """:func:`timeless_of` when it is cheap: kept, or the cost spikes taken from ``live``'s
    (whose own are computed when missing); ``None`` when every episode would have to be priced
    (:func:`timeless_of` does it). Thread-safe."""
    with _LOCK:
        got = _entry(state, episodes)
    if got is not None:
        return got[2], got[3]
    eps = _episodes(state, episodes)
    keys = _current_keys(eps)
    if live is None or live is state or not live.episodes:
        return None
    with _LOCK:
        whole = _entry(live, live.episodes)
    if whole is None:
        timeless_of(live, live.episodes)
        with _LOCK:
            whole = _entry(live, live.episodes)
    spikes = _spikes_from(whole, keys) if whole is not None else None
    if spikes is None:
        with _LOCK:
            kept = _SPIKES.get((id(live), tuple(keys)))
        if kept is None or kept[0] is not live:
            return None
        spikes = kept[1]
    head, rest = timeless_anomalies(state, ())  # no episode: the incremental ones and ingest honesty
    tail = spikes + rest
    with _LOCK:
        _remember((id(state), id(episodes)), (state, episodes, head, tail, keys))
    return head, tail


def to_price(state: RunState, episodes: Any = None) -> int:
    """How many episode versions :func:`timeless_of` prices when :func:`ready` gives ``None``."""
    return len(_episodes(state, episodes))


def _episodes(state: RunState, episodes: Any) -> Any:
    return episodes if episodes is not None else (state.main.derived.episodes if state.main.derived is not None else ())


def timeless_of(state: RunState, episodes: Any = None, live: RunState | None = None) -> tuple[tuple[Anomaly, ...], tuple[Anomaly, ...]]:
    """``timeless_anomalies(state, episodes)`` (``(incremental, rest)``), kept for the last
    :data:`MEMO_STATES` ``(state, episodes)`` asked about (by identity: states are immutable).

    ``live``: the live state ``state`` was compiled from by
    :func:`~tracetui.views.as_of.state_as_of` (its anomalies taken with ``live.episodes``);
    when ``state``'s current episode versions are the first of ``live``'s, its cost spikes are
    taken from ``live``'s instead of pricing every episode again (:func:`ready`). Pure apart
    from the memo; thread-safe (a monitor may compute a past state's on a thread of its own)."""
    got = ready(state, episodes, live)
    if got is not None:
        return got
    head, tail = timeless_anomalies(state, episodes)
    keys = _current_keys(_episodes(state, episodes))
    with _LOCK:
        _remember((id(state), id(episodes)), (state, episodes, head, tail, keys))
        if live is not None and live is not state:
            _SPIKES.pop((id(live), tuple(keys)), None)
            _SPIKES[(id(live), tuple(keys))] = (live, tuple(a for a in tail if a.kind == "cost_spike"))
            while len(_SPIKES) > MEMO_STATES:
                del _SPIKES[next(iter(_SPIKES))]
    return head, tail
