"""Secrets masked in what the store writes: the msgpack of the fold state, history snapshots and
episode versions keep no secret the transcript held (the store outlives the transcript).

The same strings come back in every save and every history keyframe (the files touched, the
facts, an episode's texts in each of its versions), so the masking of each string is memoised
(two generations of about :data:`MEMO_CHARS` bytes at most, all dropped when the
detectors change): a string met again costs a dict lookup, not the detectors' search.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, overload

import msgspec

from tracetui.ingest.secret_detectors import rules_stamp
from tracetui.ingest.secret_values import SeenSecrets
from tracetui.ingest.secrets import may_hold_secret_bytes, redact

__all__ = ["masked", "mask_text", "seen_in", "MEMO_CHARS", "SPLIT_BYTES"]

#: the secrets of the session being written (:func:`seen_in`): every copy of one is masked too
_SEEN: ContextVar[SeenSecrets | None] = ContextVar("tracetui_seen_secrets", default=None)


@contextmanager
def seen_in(seen: SeenSecrets | None) -> Iterator[None]:
    """Within it (in this thread), :func:`masked` and :func:`mask_text` mask every copy of a
    secret ``seen`` keeps too (a session's values found once, then written alone): the texts of
    one session's state, history and episodes as they are stored. An empty set costs nothing."""
    token = _SEEN.set(seen if seen else None)
    try:
        yield
    finally:
        _SEEN.reset(token)


def _seen_strings(v: Any, seen: SeenSecrets) -> tuple[Any, bool]:
    """``(v with every string's copies of ``seen``'s secrets masked, keys included, whether one
    changed)`` for a decoded msgpack value."""
    t = type(v)
    if t is str:
        out = seen.mask(v)[0]
        return out, out is not v
    if t is list:
        changed = False
        for i, x in enumerate(v):
            y, c = _seen_strings(x, seen)
            if c:
                v[i], changed = y, True
        return v, changed
    if t is dict:
        items = [(_seen_strings(k, seen), _seen_strings(x, seen)) for k, x in v.items()]
        if not any(kc or xc for (_, kc), (_, xc) in items):
            return v, False
        return {k: x for (k, _), (x, _) in items}, True
    return v, False


#: bytes each of the memo's two generations holds at most, counted as a string's characters and
#: :data:`_ENTRY_BYTES` more for its entry
MEMO_CHARS = 1_000_000
_ENTRY_BYTES = 100
#: strings longer than this are not memoised (one would crowd out many short ones)...
_MEMO_MAX_LEN = 4096
#: ...but the last few are, apart: one huge prompt is the goal, a prompt and an episode's ask
#: of the same save (three masks of a 60 MB text, ~6 s each, for one)
_LONG_KEPT = 4
_long: dict[str, str | None] = {}

_enc = msgspec.msgpack.Encoder()
#: string -> its masked form, or ``None`` when it holds no secret: the strings met lately
#: (``_new``) and before (``_old``); when ``_new`` is full it becomes ``_old`` (so a string
#: met again and again stays, one met once goes)
_new: dict[str, str | None] = {}
_old: dict[str, str | None] = {}
_new_chars = 0
_stamp: object = None


def mask_text(v: str) -> str:
    """``v`` with its secrets masked (a text ending in ``…`` as cut there: see
    :func:`tracetui.ingest.secrets.redact`), and the session's (:func:`seen_in`); ``v`` itself
    when it holds none."""
    out = _mask_text(v)
    seen = _SEEN.get()
    return out if seen is None else seen.mask(out)[0]


def _mask_text(v: str) -> str:
    global _new, _old, _new_chars
    if rules_stamp() is not _stamp:
        _check_stamp()  # other detectors: nothing known holds
    got = _new.get(v, v)
    if got is not v:
        return v if got is None else got
    got = _old.get(v, v)
    if got is v and len(v) > _MEMO_MAX_LEN:
        got = _long.get(v, v)
    if got is v:
        out = redact(v, cut=v.endswith("\u2026"))[0]  # gated first: a plain text costs one search
        got = None if out is v else out
        if len(v) > _MEMO_MAX_LEN:
            if len(_long) >= _LONG_KEPT:
                del _long[next(iter(_long))]
            _long[v] = got
    n = len(v) + _ENTRY_BYTES
    if n <= _MEMO_MAX_LEN:
        if _new_chars + n > MEMO_CHARS:
            _new, _old, _new_chars = {}, _new, 0
        _new[v] = got
        _new_chars += n
    return v if got is None else got


def _check_stamp() -> None:
    global _new, _old, _new_chars, _stamp
    stamp = rules_stamp()
    if stamp is not _stamp:
        _new, _old, _new_chars, _stamp = {}, {}, 0, stamp
        _long.clear()


def _mask_strings(v: Any) -> bool:
    """Mask, in place, the secrets of every string inside ``v`` (a list or dict of a generic
    msgpack value, keys included); ``True`` when one changed. A string the memo holds as
    having no secret (most: the same texts come back in every snapshot) costs two lookups
    here, not a call of :func:`mask_text` (the memo is of the detectors :func:`masked` checked)."""
    changed = False
    new, old = _new, _old
    if type(v) is list:
        for i, x in enumerate(v):
            t = type(x)
            if t is str:
                if new.get(x, x) is None or old.get(x, x) is None:
                    continue  # known to hold no secret
                y = _mask_text(x)
                if y is not x:
                    v[i], changed = y, True
            elif t is list or t is dict:
                changed = _mask_strings(x) or changed
    elif type(v) is dict:
        keys_changed = False
        for k, x in v.items():
            if type(k) is str and not (new.get(k, k) is None or old.get(k, k) is None) and _mask_text(k) is not k:
                keys_changed = True
            t = type(x)
            if t is str:
                if new.get(x, x) is None or old.get(x, x) is None:
                    continue
                y = _mask_text(x)
                if y is not x:
                    v[k], changed = y, True
            elif t is list or t is dict:
                changed = _mask_strings(x) or changed
        if keys_changed:
            items = [(_mask_text(k) if type(k) is str else k, x) for k, x in v.items()]
            v.clear()
            v.update(items)
            changed = True
    return changed


#: a value over this many bytes is masked item by item (of its top-level array or map): one
#: item decoded at a time, and only those the gate hits (memory at a save of a large state)
SPLIT_BYTES = 1 << 16


def _is_bin(r: msgspec.Raw) -> bool:
    """``r`` is a MessagePack bin value (bytes: a digest, packed arrays), which holds no string."""
    return memoryview(r)[:1].tobytes() in (b"\xc4", b"\xc5", b"\xc6")


def _masked_items(raw: bytes | memoryview) -> bytes | memoryview | None:
    """:func:`masked` of ``raw`` done per item of its top-level array or map, or ``None`` when
    it is neither (or its keys do not decode to hashable values)."""
    head = raw[0]
    try:
        if 0x90 <= head <= 0x9F or head in (0xDC, 0xDD):
            items = msgspec.msgpack.decode(raw, type=list[msgspec.Raw])
            out_items, changed = [], False
            for r in items:
                if _is_bin(r):
                    out_items.append(r)
                    continue
                b = memoryview(r)  # no copy: masked gives it back when it holds nothing
                m = _masked(b)
                changed |= m is not b
                out_items.append(r if m is b else msgspec.Raw(m))
            return _enc.encode(out_items) if changed else raw
        if 0x80 <= head <= 0x8F or head in (0xDE, 0xDF):
            pairs = msgspec.msgpack.decode(raw, type=dict[Any, msgspec.Raw])
        else:
            return None
    except (msgspec.DecodeError, TypeError):
        return None
    out: dict[Any, Any] = {}
    changed = False
    for k, r in pairs.items():
        k2 = _mask_text(k) if type(k) is str else k
        if _is_bin(r):
            changed |= k2 is not k
            out[k2] = r
            continue
        b = memoryview(r)
        m = _masked(b)
        changed |= m is not b or k2 is not k
        out[k2] = r if m is b else msgspec.Raw(m)
    return _enc.encode(out) if changed else raw


#: first bytes of a MessagePack value that holds no string: a number, nil, a boolean, bytes
#: (bin), an empty array or map (a value is one encoding, so such a head is all of it, or its
#: bytes for bin)
_NO_TEXT_HEADS = frozenset([*range(0x80), 0x80, 0x90, 0xC0, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, *range(0xCA, 0xD4), *range(0xE0, 0x100)])


@overload
def masked(raw: bytes) -> bytes: ...
@overload
def masked(raw: memoryview) -> bytes | memoryview: ...
def masked(raw: bytes | memoryview) -> bytes | memoryview:
    """msgpack ``raw`` with the secrets of its strings masked (the fold's texts: the frontier,
    prompts, the goal, todos, call briefs, excerpts...; a history snapshot; an episode version),
    so the store keeps no secret the transcript held. Only bytes the detectors' gate hits (read as Latin-1, one search) are
    decoded, masked and encoded again; the rest are returned as they are. The same value
    decodes back: a string changes, not the shape (no figure depends on a text's secret).
    Within :func:`seen_in` a set of the session's secrets, every string is read for their copies
    too (a value is decoded, masked and encoded again when it holds one)."""
    out = _masked(raw)
    seen = _SEEN.get()
    if seen is None or not out or out[0] in (0xC4, 0xC5, 0xC6):
        return out
    try:
        value, changed = _seen_strings(msgspec.msgpack.decode(out), seen)
    except msgspec.DecodeError:  # not generic msgpack (no string of it is read elsewhere either)
        return out
    return _enc.encode(value) if changed else out


def _masked(raw: bytes | memoryview) -> bytes | memoryview:
    if not raw or raw[0] in _NO_TEXT_HEADS or not may_hold_secret_bytes(raw):
        return raw  # no string in it, or none the gate lets through
    if len(raw) > SPLIT_BYTES:
        out = _masked_items(raw)
        if out is not None:
            return out
    if rules_stamp() is not _stamp:
        _check_stamp()  # other detectors: the memo _mask_strings reads is emptied
    value = msgspec.msgpack.decode(raw)
    if type(value) is str:
        text = _mask_text(value)
        return raw if text is value else _enc.encode(text)
    return _enc.encode(value) if _mask_strings(value) else raw
