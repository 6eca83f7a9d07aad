"""The fold's compact state as MessagePack: a generic codec by runtime type.

:meth:`FileFold.to_cache` hands over every attribute (the ledger and history sinks left out),
and this module encodes each by its runtime type (msgspec Structs, containers, plain tracetui
objects such as ``UsageBook``, and any object with ``to_cache``/``from_cache``), so an
attribute added to the fold later is saved without a change here. Something it cannot encode
(a callback, a foreign object) raises :class:`CacheEncodeError` naming the attribute; the save
is then skipped with a one-line warning, and the test suite fails on it. A value is encoded as
``(desc, raw)``: ``desc`` a short string describing its runtime type, ``raw`` the msgpack bytes
msgspec decodes back with the type built from ``desc``.
"""

from __future__ import annotations

import importlib
import zlib
from functools import lru_cache
from typing import Any, Union

import msgspec

from tracetui.model.codex_fold import CodexFold
from tracetui.model.fold import FileFold
from tracetui.model.session_fold import SessionFold
from tracetui.session.store.masking import masked

__all__ = [
    "CacheEncodeError",
    "encode_value",
    "decode_value",
    "encode_object",
    "decode_object",
    "object_parts",
    "object_from_parts",
    "fold_rows",
    "fold_of",
]


class CacheEncodeError(TypeError):
    """A value has no cache encoding; the message names the attribute path and type."""


_SCALARS = {type(None): ("none",), bool: ("bool",), int: ("int",), float: ("float",), str: ("str",), bytes: ("bytes",)}
_SCALAR_TYPES = {"none": type(None), "bool": bool, "int": int, "float": float, "str": str, "bytes": bytes, "view": memoryview}
_PLAIN_KINDS = ("mlist", "mtuple", "mdict", "obj", "custom")


class _NoType(Exception):
    """Inference found no single msgspec type for a value (a plain object inside, or mixed)."""


def _cls_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


@lru_cache(maxsize=256)
def _resolve(path: str) -> type:
    mod, _, qual = path.partition(":")
    if not (mod == "tracetui" or mod.startswith("tracetui.")):
        raise ValueError(f"cache names a class outside tracetui: {path}")
    obj: Any = importlib.import_module(mod)
    for part in qual.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise ValueError(f"cache names {path}, which is not a class")
    return obj


def _union(descs: set[tuple]) -> tuple:
    if not descs:
        return ("any",)
    if len(descs) == 1:
        return next(iter(descs))
    return ("union", tuple(sorted(descs, key=repr)))


def _infer_items(items: Any) -> tuple:
    """The descriptor of every element of ``items`` (a collection) together."""
    types = set(map(type, items))
    if not types:
        return ("any",)
    if len(types) == 1:
        (t,) = types
        if issubclass(t, msgspec.Struct):
            return ("struct", _cls_path(t))
        if t in _SCALARS:
            return _SCALARS[t]
    if all(t in _SCALARS for t in types):
        return _union({_SCALARS[t] for t in types})
    return _union({_infer(x) for x in items})


def _infer(v: Any) -> tuple:
    t = type(v)
    d = _SCALARS.get(t)
    if d is not None:
        return d
    if isinstance(v, msgspec.Struct):
        return ("struct", _cls_path(t))
    if t is list:
        return ("list", _infer_items(v))
    if t is tuple:
        if len(v) <= 16:
            return ("tuple", tuple(_infer(x) for x in v))
        return ("tuplev", _infer_items(v))
    if t is dict:
        return ("dict", _infer_items(v.keys()), _infer_items(v.values()))
    if t is set or t is frozenset:
        return (t.__name__, _infer_items(v))
    raise _NoType(t)


@lru_cache(maxsize=1024)
def _build(desc: tuple) -> Any:
    """The Python type msgspec decodes a ``desc`` with."""
    k = desc[0]
    if k in _SCALAR_TYPES:
        return _SCALAR_TYPES[k]
    if k == "any":
        return Any
    if k == "struct":
        cls = _resolve(desc[1])
        if not issubclass(cls, msgspec.Struct):
            raise ValueError(f"{desc[1]} is not a msgspec Struct")
        return cls
    if k == "list":
        return list[_build(desc[1])]  # type: ignore[misc]
    if k == "tuple":
        return tuple[tuple(_build(d) for d in desc[1])] if desc[1] else tuple[()]  # type: ignore[misc]
    if k == "tuplev":
        return tuple[_build(desc[1]), ...]  # type: ignore[misc]
    if k == "dict":
        return dict[_build(desc[1]), _build(desc[2])]  # type: ignore[misc]
    if k == "set":
        return set[_build(desc[1])]  # type: ignore[misc]
    if k == "frozenset":
        return frozenset[_build(desc[1])]  # type: ignore[misc]
    if k == "union":
        return Union[tuple(_build(d) for d in desc[1])]
    raise ValueError(f"unknown cache type descriptor {desc!r}")


@lru_cache(maxsize=256)
def _views(desc: tuple) -> tuple:
    """``desc`` with every ``bytes`` decoded as a ``memoryview`` of the buffer instead (no copy)."""
    if desc == ("bytes",):
        return ("view",)
    return tuple(_views(d) if isinstance(d, tuple) else d for d in desc)


@lru_cache(maxsize=1024)
def _decoder(desc: tuple) -> msgspec.msgpack.Decoder:
    return msgspec.msgpack.Decoder(_build(desc))


def _tuplify(d: Any) -> Any:
    return tuple(_tuplify(x) for x in d) if isinstance(d, (list, tuple)) else d


_enc = msgspec.msgpack.Encoder()


@lru_cache(maxsize=4096)
def _desc_str(desc: tuple) -> str:
    return repr(desc)


_DESCS: dict[str, tuple] = {}


def _desc_tuple(desc: Any) -> tuple:
    if isinstance(desc, str):
        d = _DESCS.get(desc)
        if d is None:
            import ast

            try:
                d = ast.literal_eval(desc)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                raise ValueError("corrupt cache: bad type descriptor") from None
            if not isinstance(d, tuple) or not d:
                raise ValueError("corrupt cache: bad type descriptor")
            if len(_DESCS) < 65536:
                _DESCS[desc] = d
        return d
    return _tuplify(desc)


def encode_value(v: Any, where: str = "value", _stack: tuple[int, ...] = ()) -> tuple[str, bytes]:
    """``(desc, raw)`` for ``v``: ``desc`` a short string naming its runtime type (a tuple's
    ``repr``), ``raw`` msgpack bytes. Raises :class:`CacheEncodeError` naming ``where``."""
    d, raw = _encode_value(v, where, _stack)
    return _desc_str(d), raw


#: the encodings of the values most attributes hold (a small fold's: a number, ``None``, an
#: empty container), as :func:`_encode_value`'s general path gives them, without its inference
#: and masking (a number holds no string): ``type -> desc`` for scalars, ``type -> (desc, raw)``
#: for empty containers
_PLAIN_SCALARS = {t: d for t, d in _SCALARS.items() if t is not str}
_EMPTY: dict[type, tuple[tuple, bytes]] = {
    list: (("list", ("any",)), _enc.encode([])),
    set: (("set", ("any",)), _enc.encode(set())),
    frozenset: (("frozenset", ("any",)), _enc.encode(frozenset())),
    dict: (("dict", ("any",), ("any",)), _enc.encode({})),
    tuple: (("tuple", ()), _enc.encode(())),
}


#: descriptors msgspec builds no decoder for (``_decoder`` raised): the general path falls back
_REFUSED: set[tuple] = set()


def _encode_value(v: Any, where: str, _stack: tuple[int, ...]) -> tuple[tuple, bytes]:
    t = type(v)
    d = _PLAIN_SCALARS.get(t)
    if d is not None:
        return d, _enc.encode(v)
    if t is str:
        return ("str",), masked(_enc.encode(v))
    if not v:
        e = _EMPTY.get(t)
        if e is not None:
            return e
    try:
        desc = _infer(v)
    except _NoType:
        desc = None
    if desc is not None:
        if desc in _REFUSED:
            desc = None
        else:
            try:
                _decoder(desc)  # msgspec refuses some unions (two Struct types, say); fall back
            except (TypeError, ValueError):
                if len(_REFUSED) < 4096:
                    _REFUSED.add(desc)  # raised again at every call otherwise (lru_cache keeps no error)
                desc = None
    if desc is not None:
        try:
            return desc, masked(_enc.encode(v))
        except TypeError as exc:
            raise CacheEncodeError(f"{where}: {exc}") from None
    t = type(v)
    if t in (list, tuple):
        parts = [encode_value(x, f"{where}[{i}]", _stack) for i, x in enumerate(v)]
        return ("mlist" if t is list else "mtuple",), _enc.encode(parts)
    if t is dict:
        keys = list(v.keys())
        kd = _infer_items(keys)
        parts = [encode_value(x, f"{where}[{k!r}]", _stack) for k, x in v.items()]
        return ("mdict", kd), _enc.encode([_enc.encode(keys), parts])
    if id(v) in _stack:
        raise CacheEncodeError(f"{where}: a reference cycle back to a {t.__name__} cannot be cached")
    if callable(v) and not hasattr(v, "__dict__") and not hasattr(t, "__slots__"):
        raise CacheEncodeError(f"{where}: cannot cache a {t.__name__} (a callable)")
    mod = getattr(t, "__module__", "") or ""
    if not (mod == "tracetui" or mod.startswith("tracetui.")):
        raise CacheEncodeError(f"{where}: cannot cache a {mod}.{t.__qualname__}")
    stack = _stack + (id(v),)
    if isinstance(v, FileFold):
        return ("obj", _cls_path(t)), encode_object(v, where, stack)
    if callable(getattr(v, "to_cache", None)) and callable(getattr(t, "from_cache", None)):
        inner = encode_value(v.to_cache(), f"{where}.to_cache()", stack)
        return ("custom", _cls_path(t)), _enc.encode(list(inner))
    return ("obj", _cls_path(t)), encode_object(v, where, stack)


def decode_value(desc: Any, raw: bytes | memoryview) -> Any:
    """The value :func:`encode_value` encoded. Raises ``ValueError``/``msgspec.DecodeError``
    on a corrupt or foreign entry."""
    desc = _desc_tuple(desc)
    k = desc[0]
    if k not in _PLAIN_KINDS:
        return _decoder(desc).decode(raw)
    if k in ("mlist", "mtuple"):
        items = [decode_value(d, r) for d, r in msgspec.msgpack.decode(raw, type=list[tuple[Any, memoryview]])]
        return items if k == "mlist" else tuple(items)
    if k == "mdict":
        kraw, parts = msgspec.msgpack.decode(raw, type=tuple[memoryview, list[tuple[Any, memoryview]]])
        keys = _decoder(("list", desc[1])).decode(kraw)
        if len(keys) != len(parts):
            raise ValueError("corrupt cache: dict keys and values differ in number")
        return {key: decode_value(d, r) for key, (d, r) in zip(keys, parts)}
    cls = _resolve(desc[1])
    if k == "custom":
        # its bytes handed over as views of ``raw``: a from_cache copies what it keeps (a warm
        # reopen holds the row and the object, not a third copy in between)
        d, r = msgspec.msgpack.decode(raw, type=tuple[Any, memoryview])
        return cls.from_cache(decode_value(_views(_desc_tuple(d)), r))  # type: ignore[attr-defined]
    return decode_object(cls, raw)


def _attrs_of(obj: Any) -> dict[str, Any]:
    if isinstance(obj, FileFold):
        return obj.to_cache()
    skip = getattr(type(obj), "CACHE_SKIP", ())
    out: dict[str, Any] = {k: v for k, v in getattr(obj, "__dict__", {}).items() if k not in skip}
    for cls in type(obj).__mro__:
        for s in getattr(cls, "__slots__", ()):
            if s not in out and s not in ("__dict__", "__weakref__") and s not in skip and hasattr(obj, s):
                out[s] = getattr(obj, s)
    return out


def object_parts(obj: Any, where: str = "object", _stack: tuple[int, ...] = (), leave: tuple[str, ...] = ()) -> tuple[list, list]:
    """Every attribute of a plain object (``__dict__`` and ``__slots__``) but ``leave``,
    encoded by type: ``([(name, desc, raw), ...], refs)``, one part per attribute (a caller
    may store them apart, so no buffer holds them all twice).

    Mutable Structs shared between attributes (a call both in ``calls`` and ``pending``) stay
    shared after decoding: the second occurrence is saved as a reference to the first
    (``refs``: ``(name, key, first name, first key)``)."""
    attrs = {k: v for k, v in _attrs_of(obj).items() if k not in leave}
    seen: dict[int, tuple[str, Any]] = {}
    refs: list[tuple[str, Any, str, Any]] = []
    skip: dict[str, set] = {}
    for name, val in attrs.items():
        if isinstance(val, msgspec.Struct):
            first = seen.setdefault(id(val), (name, None))
            if first != (name, None):
                refs.append((name, None, first[0], first[1]))
                skip.setdefault(name, set()).add(None)
        elif type(val) is dict:
            for key, x in val.items():
                if isinstance(x, msgspec.Struct) and not type(x).__struct_config__.frozen:
                    first = seen.setdefault(id(x), (name, key))
                    if first != (name, key):
                        refs.append((name, key, first[0], first[1]))
    parts = []
    for name, val in attrs.items():
        if name in skip and None in skip[name]:
            continue
        d, r = encode_value(val, f"{where}.{name}", _stack)
        parts.append((name, d, r))
    return parts, refs


def object_from_parts(cls: type, attrs: dict[str, Any], refs: list, extra: dict[str, Any] | None = None) -> Any:
    """An instance of ``cls`` from the attributes :func:`object_parts` encoded, each decoded
    (``decode_value``), its ``refs``, and the attributes ``extra`` the caller decoded itself;
    no ``__init__`` call, except for :class:`FileFold`, which checks its attribute set via
    ``from_cache``. Raises ``ValueError`` (corrupt), ``KeyError``/``TypeError`` (refs naming
    what is not there)."""
    for name, key, fname, fkey in refs:
        src = attrs[fname] if fkey is None else attrs[fname][fkey]
        if key is None:
            attrs[name] = src
        else:
            attrs[name][key] = src
    if extra:
        attrs.update(extra)
    if issubclass(cls, FileFold):
        return cls.from_cache(attrs)
    obj = cls.__new__(cls)
    for k, v in attrs.items():
        setattr(obj, k, v)
    return obj


def encode_object(obj: Any, where: str = "object", _stack: tuple[int, ...] = ()) -> bytes:
    """:func:`object_parts` of ``obj`` as one msgpack value."""
    parts, refs = object_parts(obj, where, _stack)
    return _enc.encode([parts, refs])


def decode_object(cls: type, raw: bytes | memoryview) -> Any:
    """The object :func:`encode_object` encoded (see :func:`object_from_parts`)."""
    parts, refs = msgspec.msgpack.decode(raw, type=tuple[list[tuple[str, Any, memoryview]], list[tuple[str, Any, str, Any]]])
    return object_from_parts(cls, {name: decode_value(d, r) for name, d, r in parts}, refs)


#: the name of a row holding every part of one file fold (:func:`fold_rows`)
PACKED = "*"
#: a file fold other than the first whose parts take fewer bytes than this is saved as one row
PACK_BYTES = 1 << 16


def fold_rows(fold: SessionFold) -> list[tuple[int, str, str, bytes]]:
    """The ``fold`` table's rows for ``fold``: ``(owner, attribute, desc, raw)``, owner -1 the
    session, ``i`` its file fold ``i``, each object's shared-Struct references in a row named
    ``""``. One row per attribute: no buffer holds the whole state (memory at the save); but a
    small file fold other than the first (a session's subagent files, thousands of them, each
    a few KiB: :data:`PACK_BYTES`) is one row named :data:`PACKED` holding ``[parts, refs]``
    (its rows' ``(name, desc, raw)`` and its references), zlib-compressed (its field names and
    descriptors are most of it), not forty."""
    out: list[tuple[int, str, str, bytes]] = []
    objs: list[tuple[int, Any, str]] = [(-1, fold, "SessionFold")]
    objs += [(i, f, f"SessionFold.folds[{i}]") for i, f in enumerate(fold.folds)]
    # one file: the session's book is that file's own (SessionFold._combine_usage), saved once
    leave = ("folds", "usage") if _shares_usage(fold) else ("folds",)
    for owner, obj, where in objs:
        parts, refs = object_parts(obj, where, (id(fold), id(obj)), leave=leave if owner < 0 else ())
        if owner > 0 and sum(len(r) for _n, _d, r in parts) < PACK_BYTES:
            packed = _enc.encode([[(n, d, msgspec.Raw(r)) for n, d, r in parts], refs])
            out.append((owner, PACKED, "", zlib.compress(packed, 1)))
            continue
        out.extend((owner, name, d, r) for name, d, r in parts)
        out.append((owner, "", "", msgspec.msgpack.encode(refs)))
    return out


_packed = msgspec.msgpack.Decoder(tuple[list[tuple[str, str, msgspec.Raw]], list[tuple[str, Any, str, Any]]])


def fold_of(rows: Any) -> SessionFold:
    """The :class:`SessionFold` the rows of :func:`fold_rows` hold (an iterable: each row is
    decoded as it comes, so no more than one row's bytes are held). Raises ``ValueError``,
    ``msgspec.DecodeError``, ``zlib.error``, ``KeyError`` or ``TypeError`` when they are damaged."""
    parts: dict[int, dict[str, Any]] = {}
    refs: dict[int, list] = {}
    for owner, name, d, raw in rows:
        if name == "":
            refs[owner] = msgspec.msgpack.decode(raw)
        elif name == PACKED:
            got, refs[owner] = _packed.decode(zlib.decompress(raw))
            mine = parts.setdefault(owner, {})
            for n, pd, pr in got:
                mine[n] = decode_value(pd, pr)
        else:
            parts.setdefault(owner, {})[name] = decode_value(d, raw)
    owners = sorted(o for o in parts if o >= 0)
    if owners != list(range(len(owners))) or -1 not in parts:
        raise ValueError("corrupt store: fold rows of missing owners")
    # a Codex rollout's fold names its agent among its attributes (model/codex_fold.py)
    folds = [object_from_parts(CodexFold if parts[i].get("agent") == "codex" else FileFold, parts[i], refs.get(i, [])) for i in owners]
    extra: dict[str, Any] = {"folds": folds}
    if "usage" not in parts[-1]:  # saved once: the only file's book (fold_rows)
        if len(folds) != 1:
            raise ValueError("corrupt store: no session usage for several files")
        extra["usage"] = folds[0].usage
    fold = object_from_parts(SessionFold, parts[-1], refs.get(-1, []), extra)
    if not isinstance(fold, SessionFold):
        raise ValueError("corrupt store: not a session fold")
    return fold


def _shares_usage(fold: SessionFold) -> bool:
    """Whether the session's usage book is its only file's own (then saved once)."""
    return len(fold.folds) == 1 and fold.usage is fold.folds[0].usage
