"""Secrets masked in what the store writes: the msgpack of the fold state, history snapshots and
episode versions keep no secret the transcript held (the store outlives the transcript)."""

from __future__ import annotations

from typing import Any

import msgspec

from tracetui.ingest.secrets import may_hold_secret, redact

__all__ = ["masked"]

_enc = msgspec.msgpack.Encoder()


def _mask_str(v: str) -> str:
    return redact(v, cut=v.endswith("\u2026"))[0] if may_hold_secret(v) else v


def _mask_strings(v: Any) -> bool:
    """Mask, in place, the secrets of every string inside ``v`` (a list or dict of a generic
    msgpack value, keys included); ``True`` when one changed."""
    changed = False
    if type(v) is list:
        for i, x in enumerate(v):
            t = type(x)
            if t is str:
                y = _mask_str(x)
                if y is not x:
                    v[i], changed = y, True
            elif t is list or t is dict:
                changed = _mask_strings(x) or changed
    elif type(v) is dict:
        for k, x in v.items():
            t = type(x)
            if t is str:
                y = _mask_str(x)
                if y is not x:
                    v[k], changed = y, True
            elif t is list or t is dict:
                changed = _mask_strings(x) or changed
        keys = {k: _mask_str(k) for k in v if type(k) is str}
        if any(m is not k for k, m in keys.items()):
            items = [(keys.get(k, k), x) for k, x in v.items()]
            v.clear()
            v.update(items)
            changed = True
    return changed


def masked(raw: bytes) -> bytes:
    """msgpack ``raw`` with the secrets of its strings masked (the fold's texts: the frontier,
    prompts, the goal, todos, call briefs, excerpts...; a history snapshot; an episode version),
    so the store keeps no secret the transcript held. Only bytes the detectors' gate hits (read as Latin-1, one search) are
    decoded, masked and encoded again; the rest are returned as they are. The same value
    decodes back: a string changes, not the shape (no figure depends on a text's secret)."""
    if not may_hold_secret(raw.decode("latin-1")):
        return raw
    value = msgspec.msgpack.decode(raw)
    if type(value) is str:
        text = _mask_str(value)
        return raw if text is value else _enc.encode(text)
    return _enc.encode(value) if _mask_strings(value) else raw
