"""Anomalies as span events: each on the span of the episode or subagent it began in, or on the
session span; one whose span went out before it was seen gets a zero-length span of its own
(``anomaly {kind}``, under that span), so that it is sent once and never lost. An anomaly's key
is ``anomaly:<anomaly key>@<file:line where it began>``. Used by :mod:`tracetui.export.plan`
(``p`` is its planner: state, sent keys, planned spans, episodes)."""

from __future__ import annotations

from typing import Any

from tracetui.model.anomalies import timeless_anomalies
from tracetui.model.types import Anomaly

from .spans import AttrValue, SpanEventSpec, SpanSpec, ts_ns

__all__ = ["anomalies_of", "place_anomalies"]


def anomalies_of(p: Any) -> list[tuple[int | None, Anomaly]]:
    """Every anomaly that needs no clock, with the source it was detected in (``None``:
    the session's: cost spikes, ingest honesty)."""
    head, tail = timeless_anomalies(p.state)
    out: list[tuple[int | None, Anomaly]] = []
    mine = {id(a) for a in head}
    for st in p.files:
        d = st.derived
        for a in d.anomalies if d is not None else ():
            out.append((st.src, a))
            mine.discard(id(a))
    out.extend((None, a) for a in head if id(a) in mine)
    out.extend((None, a) for a in tail)
    return out


def place_anomalies(p: Any, anomalies: list[tuple[int | None, Anomaly]], agent_keys: dict[int, str], seen_ts: dict) -> None:
    """Put each of ``anomalies`` (``(source or None, anomaly)``) not sent yet on its span in
    ``p.out``, or on a span of its own, or count it held (its span is not complete yet).
    ``agent_keys``: the span key of each subagent source; ``seen_ts``: the timestamp of the
    record at each ``(src, line)`` where an anomaly began (the event's time)."""
    planned = {s.key: s for s in p.out}
    placed: set[str] = set()
    for src, a in anomalies:
        where = p._anchor(a.began)
        key = f"anomaly:{a.key}@{where}"
        if key in p.sent or key in placed:
            continue
        placed.add(key)
        carrier = _carrier(p, src, a, agent_keys)
        attrs: dict[str, AttrValue] = {
            "tracetui.anomaly.kind": a.kind,
            "tracetui.anomaly.severity": a.severity,
            "tracetui.anomaly.open": a.open,
            "tracetui.anchor": where,
            "tracetui.anomaly.evidence_count": a.evidence_count,
        }
        if a.cleared is not None:
            attrs["tracetui.anomaly.cleared_anchor"] = p._anchor(a.cleared)
        if p.content:
            attrs["tracetui.anomaly.message"] = p._text(a.message)
        host = planned.get(carrier)
        t = ts_ns(seen_ts.get((a.began.src, a.began.line))) if a.began is not None else None
        if host is not None:
            ev = SpanEventSpec("tracetui.anomaly", host.start_ns if t is None else t, attrs, key)
            host.events = (*host.events, ev)
        elif carrier in p.sent:
            # its span went out before the anomaly was seen: a span of its own carries it
            at = p.last_ns if t is None else t
            ev = SpanEventSpec("tracetui.anomaly", at, attrs, key)
            spec = SpanSpec(key, carrier, f"anomaly {a.kind}", "internal", at, at, {**p.base, **attrs}, events=(ev,))
            p.out.append(spec)
        else:
            p.held += 1


def _carrier(p: Any, src: int | None, a: Anomaly, agent_keys: dict[int, str]) -> str:
    if src is not None and src != p.state.main.src:
        return agent_keys.get(src, "session")
    b = a.began
    if b is None or b.src != p.state.main.src:
        return "session"
    for ep in p.episodes:
        if ep.first is not None and ep.last is not None and ep.first.line <= b.line <= ep.last.line:
            return f"episode:{ep.index}"
    return "session"
