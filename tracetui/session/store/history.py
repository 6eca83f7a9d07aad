"""How a per-prompt :class:`~tracetui.model.state.AgentState` snapshot is stored: a whole one
every :data:`KEYFRAME` snapshots, else what changed since the previous one.

Consecutive snapshots share most of their content (the files touched, the facts, the anomalies
grow by a few items per prompt), so storing each whole would make the history the bulk of the
database. A delta lists, per field that changed: the whole new value, or for a tuple that kept
its length or grew, only the items that differ (by index), or for a tuple that is a window
sliding over a list (the last notes kept: items dropped at its start, added at its end) how many
items were dropped and the items added, or for a nested Struct (``derived``) its own delta. Rows are zlib-compressed MessagePack. Decoding converts each value back with the
field's declared type (``msgspec.convert``), as a typed decode of the whole snapshot would.
"""

from __future__ import annotations

import typing
import zlib
from typing import Any

import msgspec

from tracetui.model.state import AgentState
from tracetui.session.store.masking import masked

__all__ = ["KEYFRAME", "body", "seal", "encode", "decode"]

#: a whole snapshot is stored every this many (reading one decodes at most this many rows)
KEYFRAME = 32

_enc = msgspec.msgpack.Encoder()
_state_dec = msgspec.msgpack.Decoder(AgentState)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    h = _HINTS.get(cls)
    if h is None:
        # model/derive.py defines the types AgentState.derived refers to; imported here, at the
        # first delta or decode, not with this module: the store's writer process only seals
        import tracetui.model.derive  # noqa: F401

        h = _HINTS[cls] = typing.get_type_hints(cls)
    return h


def _item_type(hint: Any) -> Any:
    """``X`` for ``tuple[X, ...]``, else ``None`` (no per-item delta)."""
    if typing.get_origin(hint) is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return args[0]
    return None


#: (Struct type, field) -> :func:`_item_type` of its hint, or ``False`` for ``None`` (a delta asks at each changed tuple)
_ITEMS: dict[tuple[type, str], Any] = {}


def _item_of(cls: type, name: str) -> Any:
    got = _ITEMS.get((cls, name))
    if got is None:
        got = _ITEMS[(cls, name)] = _item_type(_hints(cls)[name])
        if got is None:
            got = _ITEMS[(cls, name)] = False
    return None if got is False else got


def _slid(old: tuple, new: tuple) -> int | None:
    """How many items ``new`` dropped from the start of ``old`` when it is ``old`` without
    them and with items added at its end (a sliding window: at least half of ``new`` kept,
    at least one dropped), else ``None``."""
    if not old or not new:
        return None
    first = new[0]
    for k in range(1, len(old)):
        x = old[k]
        if x is first or x == first:
            keep = len(old) - k
            if 2 * keep < len(new) or keep > len(new):
                return None
            if all(new[i] is old[k + i] or new[i] == old[k + i] for i in range(1, keep)):
                return k
            return None
    return None


def _delta(prev: msgspec.Struct, cur: msgspec.Struct) -> list:
    """``[[name, 0, value] | [name, 1, length, [[index, item], ...]] | [name, 2, delta] |
    [name, 3, dropped, [item, ...]]]`` for the fields of ``cur`` that differ from ``prev``
    (the same Struct type); kind 3 is a sliding window: ``prev``'s tuple without its first
    ``dropped`` items, then the items listed."""
    out: list = []
    for name in cur.__struct_fields__:
        a = getattr(cur, name)
        b = getattr(prev, name)
        if a is b or a == b:
            continue
        if type(a) is tuple and type(b) is tuple and len(a) >= len(b) and _item_of(type(cur), name) is not None:
            changed = [[i, a[i]] for i in range(len(a)) if i >= len(b) or (a[i] is not b[i] and a[i] != b[i])]
            if 2 * len(changed) < len(a):
                out.append([name, 1, len(a), changed])
                continue
            k = _slid(b, a)
            if k is not None:
                out.append([name, 3, k, list(a[len(b) - k :])])
                continue
        if isinstance(a, msgspec.Struct) and type(a) is type(b):
            out.append([name, 2, _delta(b, a)])
            continue
        out.append([name, 0, a])
    return out


def _apply(prev: Any, changes: list) -> Any:
    hints = _hints(type(prev))
    vals: dict[str, Any] = {}
    for ch in changes:
        name, kind = ch[0], ch[1]
        if name not in hints:
            raise ValueError(f"corrupt history: no field {name!r} in {type(prev).__name__}")
        if kind == 0:
            vals[name] = msgspec.convert(ch[2], hints[name])
        elif kind == 1:
            n, items = ch[2], ch[3]
            t = _item_type(hints[name])
            lst = list(getattr(prev, name)[:n])
            lst.extend([None] * (n - len(lst)))
            for i, raw in items:
                lst[i] = msgspec.convert(raw, t)
            if any(x is None for x in lst):
                raise ValueError(f"corrupt history: {name} has gaps")
            vals[name] = tuple(lst)
        elif kind == 2:
            vals[name] = _apply(getattr(prev, name), ch[2])
        elif kind == 3:
            t = _item_type(hints[name])
            old = getattr(prev, name)
            if t is None or type(old) is not tuple or not 0 < ch[2] <= len(old):
                raise ValueError(f"corrupt history: {name} is no window of {len(old)} items")
            vals[name] = old[ch[2] :] + tuple(msgspec.convert(raw, t) for raw in ch[3])
        else:
            raise ValueError(f"corrupt history: change kind {kind}")
    return msgspec.structs.replace(prev, **vals) if vals else prev


def body(prev: AgentState | None, cur: AgentState, idx: int) -> bytes:
    """The MessagePack of snapshot ``idx``'s row before :func:`seal`: whole when ``idx`` is a
    keyframe or ``prev`` (snapshot ``idx - 1``) is unknown, else a delta over ``prev``."""
    if prev is None or idx % KEYFRAME == 0:
        return _enc.encode([0, cur])
    return _enc.encode([1, _delta(prev, cur)])


def seal(raw: bytes) -> bytes:
    """The stored row of a :func:`body`: its secrets masked, zlib-compressed."""
    return zlib.compress(masked(raw), 1)


def encode(prev: AgentState | None, cur: AgentState, idx: int) -> bytes:
    """The row of snapshot ``idx``: :func:`seal` of its :func:`body`."""
    return seal(body(prev, cur, idx))


def decode(rows: list[bytes], prev: AgentState | None = None) -> AgentState:
    """The snapshot the last of ``rows`` stores; ``rows`` run from a whole snapshot, or from
    the one after ``prev``, up to it. Raises ``ValueError``/``msgspec.DecodeError`` when
    corrupt."""
    cur = prev
    for row in rows:
        body = zlib.decompress(row)
        head, raw = msgspec.msgpack.decode(body, type=tuple[int, msgspec.Raw])
        if head == 0:
            cur = _state_dec.decode(raw)
        elif cur is None:
            raise ValueError("corrupt history: a delta without its base")
        else:
            cur = _apply(cur, msgspec.msgpack.decode(raw))
    if cur is None:
        raise ValueError("no history row")
    return cur
