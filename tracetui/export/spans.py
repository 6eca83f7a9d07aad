"""Span descriptions: what an export sends, as plain data, before any OpenTelemetry type.

A :class:`SpanSpec` is one span with a stable ``key`` (unique within its session: ``session``,
``agent:<tool_use id>``, ``episode:<n>``, ``chat:<message id>``, ``tool:<tool_use id>``,
``anomaly:<anomaly key>@<file:line>``, and a revision's ``rev:<version>:<key>``,
tracetui/export/revise.py). Its trace id and span id are derived from the session id
and that key (:func:`trace_id`, :func:`span_id`: SHA-256, truncated), so the same transcript
gives the same ids on every run, on every machine: a span sent twice (a crash between the
collector's answer and the record of it) is the same span, and children sent before their parent
find it when it arrives. Times are nanoseconds since the epoch from the records' timestamps.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, Union

import msgspec

from tracetui.model.timestamps import parse_ts

__all__ = [
    "AttrValue",
    "SpanEventSpec",
    "SpanSpec",
    "trace_id",
    "span_id",
    "ts_ns",
    "SCHEMA_URL",
    "AGENT_NAMES",
    "PROVIDERS",
    "usage_attributes",
    "ledger_keys",
    "rev_key",
    "mask_spec",
    "TEXT_ATTRIBUTES",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)

AttrValue = Union[str, int, float, bool]

#: the version of the OpenTelemetry semantic conventions the attribute names follow
SCHEMA_URL = "https://opentelemetry.io/schemas/1.38.0"

#: ``gen_ai.agent.name`` of a session's main thread, by the agent that wrote the transcript
#: (``RunState.agent``: ``claude`` unless the state says otherwise)
AGENT_NAMES = {"claude": "Claude Code", "codex": "Codex"}

#: ``gen_ai.provider.name`` by agent (the GenAI conventions' well-known values)
PROVIDERS = {"claude": "anthropic", "codex": "openai"}


class SpanEventSpec(msgspec.Struct, frozen=True):
    """A span event: ``name``, its time (ns since the epoch) and attributes. ``key`` names what
    it reports (an anomaly's identity) so that it is sent once, whichever span carries it."""

    name: str
    time_ns: int
    attributes: dict[str, AttrValue]
    key: str = ""


class SpanSpec(msgspec.Struct):
    """One span to send. ``parent`` is the key of its parent span (``None`` for the session's
    root); ``kind`` is ``internal`` or ``client``; ``status`` is ``unset``, ``ok`` or ``error``
    (``status_message`` then says why); ``start_ns``/``end_ns`` are ns since the epoch."""

    key: str
    parent: Union[str, None]
    name: str
    kind: str
    start_ns: int
    end_ns: int
    attributes: dict[str, AttrValue]
    status: str = "unset"
    status_message: str = ""
    events: tuple[SpanEventSpec, ...] = ()
    #: keys of spans of the same trace this one links to (a revision: the span it revises)
    links: tuple[str, ...] = ()
    #: more ledger keys recorded with this span (the version it was sent at: :func:`rev_key`)
    marks: tuple[str, ...] = ()


def rev_key(tag: str, key: str) -> str:
    """The ledger key of span ``key`` as sent at version ``tag`` (``rev:<tag>:<key>``; ``tag``
    holds no colon), and the key of the revision span that sends that version."""
    return f"rev:{tag}:{key}"


def ledger_keys(specs: Iterable[SpanSpec]) -> list[str]:
    """Every key to record once ``specs`` were acknowledged: each span's key, its marks and its
    events' keys."""
    return [k for s in specs for k in (s.key, *s.marks, *(e.key for e in s.events if e.key))]


def _digest(text: str, n: int) -> int:
    v = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:n], "big")
    return v or 1  # an all-zero id is invalid in OTLP


def trace_id(session_id: str) -> int:
    """The 128-bit trace id of session ``session_id``: the first 16 bytes of
    SHA-256(``tracetui/trace/<session id>``), never zero."""
    return _digest(f"tracetui/trace/{session_id}", 16)


def span_id(session_id: str, key: str) -> int:
    """The 64-bit span id of the span ``key`` of session ``session_id``: the first 8 bytes of
    SHA-256(``tracetui/span/<session id>/<key>``), never zero."""
    return _digest(f"tracetui/span/{session_id}/{key}", 8)


def ts_ns(ts: str | None) -> int | None:
    """A record timestamp (ISO-8601, ``...Z``) as ns since the epoch, or ``None`` when missing,
    unparseable or outside what OTLP can carry (an unsigned 64-bit count of ns: 1970 to 2554;
    a record stamped ``9999-12-31`` or ``0001-01-01`` is as one without a time, not a span the
    encoder refuses, which stopped the export of every session after it)."""
    dt = parse_ts(ts)
    if dt is None:
        return None
    if dt.tzinfo is None:  # a timestamp without zone is taken as UTC, as the fold's days are
        dt = dt.replace(tzinfo=UTC)
    ns = (dt - _EPOCH) // _US * 1000
    return ns if 0 <= ns <= _MAX_NS else None


#: the latest time an OTLP span can carry (``fixed64`` ns since the epoch)
_MAX_NS = (1 << 64) - 1


def usage_attributes(u: tuple[int, ...], provider: str = "anthropic") -> dict[str, AttrValue]:
    """The ``gen_ai.usage.*`` attributes of a usage ``(input, output, cache_creation,
    cache_read[, cache_write_1h])`` in tokens, ``input`` the uncached part as the fold keeps it
    for both agents (a Codex count's ``input_tokens - cached_input_tokens``). ``input_tokens`` is
    input + cache read + cache creation: the GenAI conventions' rule for Anthropic, and what
    OpenAI's own ``input_tokens`` counts (cached tokens included); the uncached part is
    ``tracetui.usage.uncached_input_tokens``. ``provider`` is kept for callers; the rule is one."""
    inp, out, cc, cr = u[0], u[1], u[2], u[3]
    total_in = inp + cc + cr
    attrs: dict[str, AttrValue] = {
        "gen_ai.usage.input_tokens": total_in,
        "gen_ai.usage.output_tokens": out,
        "gen_ai.usage.cache_read.input_tokens": cr,
        "gen_ai.usage.cache_creation.input_tokens": cc,
        "tracetui.usage.uncached_input_tokens": inp,
    }
    if len(u) > 4:
        attrs["tracetui.usage.cache_creation_1h.input_tokens"] = u[4]
    return attrs


#: the attributes that carry transcript text (``--content``): masked and counted where they
#: are made (:func:`tracetui.views.safe.export_text`), so :func:`mask_spec` leaves them
TEXT_ATTRIBUTES = frozenset(
    (
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.agent.description",
        "tracetui.anomaly.message",
    )
)


def _mask(text: str, seen: Any = None) -> str:
    from tracetui.views.safe import redacted, safe_text

    return safe_text(redacted(text, seen=seen)[0])


def mask_spec(spec: SpanSpec, seen: Any = None) -> None:
    """Mask in place every secret in what ``spec`` sends besides its text attributes: its name,
    status message and every other string attribute of it and its events (tool and subagent
    names, models, ids, anchors hold whatever the transcript wrote, and the session store masks
    only some of them); ``seen``: the session's secrets (``tracetui.views.safe.state_secrets``),
    every copy of one masked too. Masks are left as they are, so masking twice changes nothing."""
    spec.name = _mask(spec.name, seen)
    spec.status_message = _mask(spec.status_message, seen)
    for k, v in spec.attributes.items():
        if isinstance(v, str) and k not in TEXT_ATTRIBUTES:
            spec.attributes[k] = _mask(v, seen)
    for e in spec.events:
        for k, v in e.attributes.items():
            if isinstance(v, str) and k not in TEXT_ATTRIBUTES:
                e.attributes[k] = _mask(v, seen)
