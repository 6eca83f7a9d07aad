"""What the fold and its derive process (:mod:`tracetui.session.derive_proc`) send each other,
and the child's side: the batches' typed, tagged MessagePack messages, and the loop that replays
them against the fold's :class:`~tracetui.model.derive.Deriver` (``_child``) with a
:class:`_Mirror` of the parts of the fold's state the deriver reads."""

from __future__ import annotations

import io
import pickle
from collections import deque
from multiprocessing.connection import Connection
from typing import Any, Union

import msgspec

from tracetui.ingest.secret_values import SeenSecrets
from tracetui.model.derive import Deriver
from tracetui.model.secret_scan import scan_excerpts, scan_texts
from tracetui.model.state import Event, PromptInfo, ToolCall


# -- the messages ---------------------------------------------------------------------------
# A batch is ``(events, extras)``: the ledger events the fold handed its hook, in order, and
# the other calls and facts, each with ``at``, the number of the batch's events before it. The
# child counts the events (``len(fold.events)`` grows by one before each ``on_event``), so a
# plain event travels alone: most batches are their events and little else.
class _Call(msgspec.Struct, array_like=True, tag=1):
    at: int
    call: ToolCall
    inp: Any
    op: Union[tuple[str, str], None, bool] = False  # False: not given (on_call works it out)


class _Result(msgspec.Struct, array_like=True, tag=2):
    at: int
    call: ToolCall
    raw: Union[bytes, None] = None  # the content was msgspec.Raw: its bytes
    text: Union[str, None] = None  # the content was a text
    other: Any = None  # the content was another value (a decoded one)


class _State(msgspec.Struct, array_like=True, tag=3):
    """The fold's latest ask and sidechain flag, sent when either changed."""

    at: int
    ask: Union[PromptInfo, None]
    sidechain_file: Union[bool, None]


class _Snap(msgspec.Struct, array_like=True, tag=4):
    at: int
    index: int  # where the snapshot goes in fold.history (episodes False), else -1
    episodes: bool
    pending: tuple[ToolCall, ...]


class _Pending(msgspec.Struct, array_like=True, tag=5):
    """``fold.pending`` before a prompt or an interrupt event (the deriver reads it there)."""

    at: int
    pending: tuple[ToolCall, ...]


class _Model(msgspec.Struct, array_like=True, tag=6):
    """``fold.usage.model(message id)`` for the usage events from here on (sent when it changes)."""

    at: int
    model: Union[str, None]


class _Pr(msgspec.Struct, array_like=True, tag=7):
    """``fold.pr_links[-1]`` before a pr-link metadata event."""

    at: int
    pr: str


class _Window(msgspec.Struct, array_like=True, tag=8):
    """``Deriver.on_context_window`` (a Codex rollout's declared context window)."""

    at: int
    window: int


class _OnModel(msgspec.Struct, array_like=True, tag=9):
    """``Deriver.on_model`` (a Codex message priced as ``model``)."""

    at: int
    key: str
    model: str


class _CodexUsage(msgspec.Struct, array_like=True, tag=10):
    """``Deriver.on_codex_usage`` (a Codex token count that added usage)."""

    at: int
    ev: Event
    model: Union[str, None]
    context: Union[int, None]


class _TurnDone(msgspec.Struct, array_like=True, tag=11):
    """``Deriver.on_turn_done`` (a Codex turn ended, or a new one began)."""

    at: int
    done: bool


class _Known(msgspec.Struct, array_like=True, tag=12):
    """``Deriver.on_known_message`` (the next record's message was counted already)."""

    at: int
    key: str
    before: tuple[int, int, int, int, int]


_Extra = Union[_Call, _Result, _State, _Snap, _Pending, _Model, _Pr, _Window, _OnModel, _CodexUsage, _TurnDone, _Known]
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(tuple[list[Event], list[_Extra]])
_MSGPACK, _PICKLE, _END = b"M", b"P", b"E"
#: events whose excerpts the child reads for secrets between two looks at the pipe (~1 ms)
SCAN_STEP = 64
#: excerpts the child holds at most, not read for secrets yet (~130 bytes each)
MAX_UNSCANNED = 100_000
#: an ``at`` past every batch
_NEVER = 1 << 62
#: no model sent to the child yet (``None`` is a model the fold can give: unknown)
_UNSENT = object()


class _Len:
    """``len(fold.events)`` as the child knows it."""

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n


class _Usage:
    """``fold.usage.model(mid)`` as the child knows it: the model sent with the event."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: str | None = None

    def model(self, mid: str) -> str | None:
        return self.value


class _Last:
    """``fold._last_snapshot`` as the deriver reads it: only its ``derived``."""

    __slots__ = ("derived",)

    def __init__(self, derived: Any) -> None:
        self.derived = derived


class _Mirror:
    """The parts of a :class:`FileFold` the deriver reads, kept by the child from the messages."""

    def __init__(self, fold: Any) -> None:
        self.events = _Len(len(fold.events))
        self.latest_ask = fold.latest_ask
        self.sidechain_file = fold.sidechain_file
        self.pending: dict[str, ToolCall] = dict(fold.pending)
        self.usage = _Usage()
        self.pr_links: list[str] = list(fold.pr_links[-1:])
        last = fold._last_snapshot
        self._last_snapshot = _Last(last.derived) if last is not None else None


def _child(
    conn: Connection,
    back: Connection,
    deriver: Deriver,
    mirror: _Mirror,
    parent_ends: tuple[Connection, ...],
    seen: SeenSecrets | None = None,
    before: list[Event] | None = None,
) -> None:
    """The child's loop: replay the batches against ``deriver`` until the end marker, then send
    back one message of pickles from one Pickler: lists of ``(history index, Derived)`` and of
    new episode versions, ``None``, the deriver, then the secrets found in the excerpts of the
    events ``before`` (folded before the fork, not read for secrets yet) and of the first of
    the events sent (``seen``: the session's set as it was at the fork): ``(the list of
    ``(digest, (kind, length))`` it gained, in the order found, how many of the events sent
    were read)``, ``None`` without ``seen``; on any failure, ``b"X" + why``."""
    for end in parent_ends:
        # the fork copied the parent's ends of both pipes: closed here, the parent's death is an
        # end of file for the child (which then exits) instead of a wait for ever
        end.close()
    try:
        # one Pickler for everything sent back: its memo spans the dumps, so an object pickled
        # once (a fact, an episode version) is a reference in every later dump, as shared as in
        # process. What is frozen (the snapshots' derived parts, episode versions: their leaves
        # are replaced, never mutated, model/derive.py) is pickled while the child would wait
        # for the next batch, so little is left to do once the last one arrives.
        out = io.BytesIO()
        pickler = pickle.Pickler(out, pickle.HIGHEST_PROTOCOL)
        snaps: list[tuple[int, Any]] = []
        versions = deriver.book.versions
        sent = 0  # versions pickled so far
        events = mirror.events
        on_event = deriver.on_event
        known = len(seen.found) if seen is not None else 0  # the secrets the session had at the fork
        if seen is not None and before:
            scan_excerpts(seen, before)

        def extra(m: Any) -> None:
            t = type(m)
            if t is _Call:
                deriver.on_call(mirror, m.call, m.inp, m.op)
            elif t is _Result:
                content = msgspec.Raw(m.raw) if m.raw is not None else m.text if m.text is not None else m.other
                deriver.on_result(mirror, m.call, content, None)
            elif t is _Model:
                mirror.usage.value = m.model
            elif t is _Pending:
                mirror.pending = {c.id: c for c in m.pending}
            elif t is _State:
                mirror.latest_ask, mirror.sidechain_file = m.ask, m.sidechain_file
            elif t is _Pr:
                mirror.pr_links = [m.pr]
            elif t is _OnModel:
                deriver.on_model(m.key, m.model)
            elif t is _CodexUsage:
                deriver.on_codex_usage(m.ev, m.model, m.context)
            elif t is _TurnDone:
                deriver.on_turn_done(m.done)
            elif t is _Window:
                deriver.on_context_window(m.window)
            elif t is _Known:
                deriver.on_known_message(m.key, m.before)
            else:  # _Snap
                mirror.pending = {c.id: c for c in m.pending}
                d = deriver.snapshot(mirror, episodes=m.episodes)
                mirror._last_snapshot = _Last(d)
                if m.index < 0:
                    back.send_bytes(pickle.dumps(d, pickle.HIGHEST_PROTOCOL))
                else:
                    snaps.append((m.index, d))

        def ahead() -> None:
            nonlocal sent, snaps
            if snaps:
                pickler.dump(snaps)
                snaps = []
            if len(versions) > sent:
                pickler.dump(versions[sent:])
                sent = len(versions)

        #: the excerpts of the events sent still to be read for secrets, oldest first, and how
        #: many were read: read :data:`SCAN_STEP` at a time while nothing waits in the pipe (the
        #: derive step comes first: the fold waits on it when the pipe is full); what is left at
        #: the end is left to the fold's process (``secret_scan.state_secrets``, from the mark
        #: the parent sets past the events read here), and so is every event after a backlog of
        #: :data:`MAX_UNSCANNED` (the memory it holds stays bounded)
        unscanned: deque[str] = deque()
        scanned = 0
        taking = seen is not None
        while True:
            if (snaps or len(versions) > sent) and not conn.poll():
                ahead()  # nothing to read: pickle what is frozen instead of waiting
            while unscanned and seen is not None and not conn.poll():
                step = [unscanned.popleft() for _ in range(min(SCAN_STEP, len(unscanned)))]
                scan_texts(seen, step)
                scanned += len(step)
            data = conn.recv_bytes()
            head = data[:1]
            if head == _END:
                break
            evs, extras = _decoder.decode(memoryview(data)[1:]) if head == _MSGPACK else pickle.loads(memoryview(data)[1:])
            if taking:
                if len(unscanned) + len(evs) > MAX_UNSCANNED:
                    taking = False  # these and the later ones are read by the parent
                else:
                    unscanned.extend([ev.excerpt for ev in evs])
            if not extras:
                for ev in evs:
                    events.n += 1
                    on_event(mirror, ev)
                continue
            j, ne = 0, len(extras)
            nxt = extras[0].at
            for i, ev in enumerate(evs):
                while nxt == i:
                    extra(extras[j])
                    j += 1
                    nxt = extras[j].at if j < ne else _NEVER
                events.n += 1
                on_event(mirror, ev)
            while j < ne:
                extra(extras[j])
                j += 1
        ahead()
        pickler.dump(None)  # the end of the snapshots and versions
        pickler.dump(deriver)
        pickler.dump(None if seen is None else (list(seen.found.items())[known:], scanned))
        back.send_bytes(out.getbuffer())
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent, which refolds
        try:
            back.send_bytes(b"X" + f"{type(exc).__name__}: {exc}".encode("utf-8", "replace")[:500])
        except OSError:
            pass
