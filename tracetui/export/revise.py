"""Revisions: what a span that already went becomes when the transcript changes it.

An OTLP span is immutable once sent: a second span with the same trace and span id is not an
update (Jaeger shows both copies, warning "duplicate span IDs": jaegertracing/jaeger#3790;
Tempo returns one copy or the other, by the order it reads them: grafana/tempo#787), so a span
is never sent twice. What can change after a span went:

* an episode: a late tool result or a later successful retry of one of its failed calls makes
  a new version (tracetui/model/episodes.py);
* the session: it resumes (more records appended, or ``--follow`` started again) after its span
  went when it settled; its end and totals move;
* a subagent, a call or an API message sent as it stood when the session settled: it goes on,
  its result comes, more of its records come.

Such a span is planned with a *tag* naming its version (``v3`` for an episode, ``n<events>`` for
the session, ``<status>.<events>`` for a subagent, ``pending``/``done`` for a call, ``r<its last
event>`` for a message). Sent, it records ``rev:<tag>:<key>`` in the ledger beside its key.
When the tag it has now is not recorded, the new version goes as a *revision*: a span of its own
(key ``rev:<tag>:<key>``, so its id is derived and it is sent once), the same name, its current
times and attributes plus ``tracetui.revision`` (the tag), ``tracetui.revision.of`` (the key)
and ``tracetui.revision.number`` (1 for the first revision, 2 for the next…), under the span it
revises and linked to it. The newest version of a span is thus the revision with the highest
number under it, or the span itself when it has none. A key recorded with
no tag (a ledger written before revisions) is taken as final: nothing is re-sent on a guess.
"""

from __future__ import annotations

from collections.abc import Collection

import msgspec

from .spans import SpanSpec, rev_key

__all__ = ["tagged_keys", "revision"]


def tagged_keys(sent: Collection[str]) -> dict[str, int]:
    """The span keys of ``sent`` recorded with a version tag (``rev:<tag>:<key>``), each with
    how many versions of it were recorded."""
    out: dict[str, int] = {}
    for k in sent:
        if k.startswith("rev:") and k.count(":") >= 2:
            key = k.split(":", 2)[2]
            out[key] = out.get(key, 0) + 1
    return out


def revision(spec: SpanSpec, tag: str, number: int) -> SpanSpec:
    """The revision ``number`` (1: the first) of the sent span ``spec`` (its current state) at
    version ``tag``: key ``rev:<tag>:<key>``, parent and link the span it revises, its events
    left out (an anomaly already placed went with the span; a new one gets a span of its own)."""
    attrs = {**spec.attributes, "tracetui.revision": tag, "tracetui.revision.of": spec.key, "tracetui.revision.number": number}
    return msgspec.structs.replace(
        spec, key=rev_key(tag, spec.key), parent=spec.key, attributes=attrs, events=(), links=(spec.key,), marks=()
    )
