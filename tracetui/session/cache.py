"""The persistent fold cache: reopening a large session resumes from saved offsets.

Per session (the main transcript named by the user plus its subagent files), the fold's state
(:class:`~tracetui.model.fold.SessionFold` with every :class:`~tracetui.model.fold.FileFold`) and
each :class:`~tracetui.ingest.tail.Tailer`'s resume position are saved with msgspec MessagePack
under ``platformdirs.user_cache_dir("tracetui")/folds`` (``$TRACETUI_CACHE_DIR`` overrides the
directory). The next run restores them and reads only the bytes appended since.

Key and invalidation — a cache entry is used only when all of these hold, else the session is
folded from the start (never a wrong state):

* same cache schema (:data:`SCHEMA`), same tracetui version, same fold code
  (:func:`code_fingerprint`), same list of named paths, same ``subagents`` flag;
* for every saved file: same inode, size at least the saved resume offset, and the same
  fingerprint (SHA-256 of the first :data:`FP_BYTES` bytes and of the :data:`FP_BYTES` bytes
  before the resume offset) — a truncated, replaced or rewritten file fails this;
* the subagent files discovered now start with the saved ones, in the same order (so source
  indices are exactly those of a fresh fold);
* the cache file decodes. An unreadable or corrupt file counts as absent.

Writes are atomic (a temporary file in the same directory, then ``os.replace``).

Encoding is generic: :meth:`FileFold.to_cache` hands over every attribute, and this module
encodes each by its runtime type (msgspec Structs, containers, plain tracetui objects such as
``UsageBook``, and any object with ``to_cache``/``from_cache``). Something it cannot encode (a
callback, a foreign object) raises :class:`CacheEncodeError` naming the attribute; the save is
then skipped with a one-line warning, and the test suite fails on it.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Union

import msgspec

from tracetui import __version__
from tracetui.ingest.discover import subagent_files
from tracetui.ingest.tail import Tailer
from tracetui.model.fold import FileFold, SessionFold
from tracetui.model.state import RunState
from tracetui.session.reader import SessionReader

__all__ = [
    "SCHEMA",
    "FP_BYTES",
    "CacheEncodeError",
    "CachedReader",
    "cache_dir",
    "cache_path",
    "open_cached",
    "encode_value",
    "decode_value",
    "encode_object",
    "decode_object",
    "code_fingerprint",
]

#: version of the on-disk layout; bump it when the format of this module changes
SCHEMA = 5
#: bytes hashed at the start of a file and before its resume offset (the fingerprint)
FP_BYTES = 4096
#: the cache folder is pruned (oldest first) when its files exceed this many bytes
MAX_CACHE_BYTES = 2 << 30
#: sessions at least this large (bytes read) are saved by a background process when asked
BACKGROUND_SAVE_BYTES = 64 << 20


class CacheEncodeError(TypeError):
    """A value has no cache encoding; the message names the attribute path and type."""


def cache_dir() -> Path:
    """``$TRACETUI_CACHE_DIR`` if set, else ``platformdirs.user_cache_dir("tracetui")``."""
    env = os.environ.get("TRACETUI_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("tracetui"))


# -- generic value codec ------------------------------------------------------------------
# A value is encoded as ``(desc, raw)``: ``desc`` a small tuple describing its runtime type,
# ``raw`` the msgpack bytes msgspec decodes back with the type built from ``desc``.
_SCALARS = {type(None): ("none",), bool: ("bool",), int: ("int",), float: ("float",), str: ("str",), bytes: ("bytes",)}
_SCALAR_TYPES = {"none": type(None), "bool": bool, "int": int, "float": float, "str": str, "bytes": bytes}
_PLAIN_KINDS = ("mlist", "mtuple", "mdict", "obj", "custom", "delta")


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
        return Union[tuple(_build(d) for d in desc[1])]  # type: ignore[return-value]
    raise ValueError(f"unknown cache type descriptor {desc!r}")


@lru_cache(maxsize=1024)
def _decoder(desc: tuple) -> msgspec.msgpack.Decoder:
    return msgspec.msgpack.Decoder(_build(desc))


def _tuplify(d: Any) -> Any:
    return tuple(_tuplify(x) for x in d) if isinstance(d, (list, tuple)) else d


_enc = msgspec.msgpack.Encoder()


@lru_cache(maxsize=256)
def _is_deep(cls: type) -> bool:
    """Whether Struct ``cls`` holds collections of Structs (directly or in a nested Struct):
    a list of such snapshots is where consecutive items share most of their content."""
    import msgspec.inspect as mi

    seen: set[type] = set()

    def coll(t: Any) -> bool:
        if isinstance(t, (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)):
            return isinstance(t.item_type, mi.StructType) or coll(t.item_type)
        if isinstance(t, mi.TupleType):
            return any(isinstance(x, mi.StructType) or coll(x) for x in t.item_types)
        if isinstance(t, mi.DictType):
            return isinstance(t.value_type, mi.StructType) or coll(t.value_type)
        if isinstance(t, mi.UnionType):
            return any(coll(x) for x in t.types)
        if isinstance(t, mi.StructType):
            if t.cls in seen:
                return False
            seen.add(t.cls)
            return any(coll(f.type) for f in t.fields)
        return False

    try:
        return coll(mi.type_info(cls))
    except Exception:  # an unresolvable annotation: encode such lists plainly
        return False


def _same(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


#: how far ahead in the previous sequence :func:`_runs` looks for an item (deletions skipped)
_LOOKAHEAD = 8


def _match_len(a: Any, i: int, b: Any, j: int) -> int:
    """How many items from ``a[i]`` equal those from ``b[j]`` (``a[i] == b[j]`` known):
    galloping over C-level slice comparisons, so a long equal run costs no Python loop."""
    na, nb = len(a), len(b)
    r, step = 1, 1
    while i + r + step <= na and j + r + step <= nb and a[i + r : i + r + step] == b[j + r : j + r + step]:
        r += step
        step *= 2
    while step > 1:
        step //= 2
        if i + r + step <= na and j + r + step <= nb and a[i + r : i + r + step] == b[j + r : j + r + step]:
            r += step
    return r


def _runs(a: Any, b: Any) -> tuple[list[list[int]], list[Any]]:
    """``a`` as runs over ``b``: ``[j, n]`` takes ``b[j:j+n]``, ``[-1, n]`` the next ``n`` of
    the returned new items. Any alignment is correct; a good one is small."""
    runs: list[list[int]] = []
    new: list[Any] = []
    i = j = 0
    na, nb = len(a), len(b)
    while i < na:
        if j < nb and _same(a[i], b[j]):
            r = _match_len(a, i, b, j)
            runs.append([j, r])
            i += r
            j += r
            continue
        for d in range(1, _LOOKAHEAD + 1):
            if j + d < nb and _same(a[i], b[j + d]):
                j += d
                break
        else:
            new.append(a[i])
            if runs and runs[-1][0] == -1:
                runs[-1][1] += 1
            else:
                runs.append([-1, 1])
            if i + 1 < na and j + 1 < nb and _same(a[i + 1], b[j + 1]):
                j += 1  # a changed item in place of b[j]
            i += 1
    return runs, new


def _delta(prev: Any, cur: Any, where: str, stack: tuple[int, ...]) -> list:
    """The fields of Struct ``cur`` that differ from ``prev`` (same type), as
    ``[name, kind, data]``: kind 0 a whole value ``(desc, raw)``; kind 1 a tuple or list of
    Structs as runs over ``prev``'s (:func:`_runs`): ``(runs, desc, raw of the new items)``;
    kind 2 a nested Struct as its own delta."""
    out: list = []
    for name in cur.__struct_fields__:
        a = getattr(cur, name)
        b = getattr(prev, name)
        if a is b:
            continue
        ta = type(a)
        if ta is type(b):
            if (ta is tuple or ta is list) and a and b and isinstance(a[0], msgspec.Struct):
                if len(a) == len(b) and a == b:
                    continue
                runs, new = _runs(a, b)
                out.append([name, 1, [runs, *encode_value(new if ta is list else tuple(new), f"{where}.{name}", stack)]])
                continue
            if isinstance(a, msgspec.Struct) and _is_deep(ta):
                d = _delta(b, a, f"{where}.{name}", stack)
                if d:
                    out.append([name, 2, d])
                continue
            if a == b:
                continue
        out.append([name, 0, list(encode_value(a, f"{where}.{name}", stack))])
    return out


def _undelta(prev: Any, changes: list) -> Any:
    if not changes:
        return prev
    vals: dict[str, Any] = {}
    for name, kind, data in changes:
        if kind == 0:
            vals[name] = decode_value(data[0], data[1])
        elif kind == 1:
            runs, desc, raw = data
            base = getattr(prev, name)
            new = decode_value(desc, raw)
            items: list = []
            k = 0
            for j, n in runs:
                if j >= 0:
                    if j + n > len(base):
                        raise ValueError("corrupt cache: a delta run past its base")
                    items.extend(base[j : j + n])
                else:
                    items.extend(new[k : k + n])
                    k += n
            vals[name] = items if type(new) is list else tuple(items)
        elif kind == 2:
            vals[name] = _undelta(getattr(prev, name), data)
        else:
            raise ValueError(f"corrupt cache: delta kind {kind}")
    return msgspec.structs.replace(prev, **vals)


def _encode_delta_list(v: list | tuple, t: type, where: str, stack: tuple[int, ...]) -> bytes:
    first = encode_value(v[0], f"{where}[0]", stack)
    deltas = [_delta(v[i - 1], v[i], f"{where}[{i}]", stack) for i in range(1, len(v))]
    return _enc.encode([list(first), deltas])


def _decode_delta_list(raw: bytes) -> list:
    first, deltas = msgspec.msgpack.decode(raw)
    cur = decode_value(first[0], first[1])
    out = [cur]
    for d in deltas:
        cur = _undelta(cur, d)
        out.append(cur)
    return out


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


def _encode_value(v: Any, where: str, _stack: tuple[int, ...]) -> tuple[tuple, bytes]:
    try:
        desc = _infer(v)
    except _NoType:
        desc = None
    if desc is not None:
        try:
            _decoder(desc)  # msgspec refuses some unions (two Struct types, say); fall back
        except (TypeError, ValueError):
            desc = None
    if desc is not None and desc[0] in ("list", "tuplev") and desc[1][0] == "struct" and len(v) > 1:
        cls = _resolve(desc[1][1])
        if _is_deep(cls):  # snapshots: consecutive items share most content; save the changes
            kind = "list" if desc[0] == "list" else "tuple"
            return ("delta", kind), _encode_delta_list(v, cls, where, _stack)
    if desc is not None:
        try:
            return desc, _enc.encode(v)
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


def decode_value(desc: Any, raw: bytes, lazy: "_Lazy | None" = None) -> Any:
    """The value :func:`encode_value` encoded. Raises ``ValueError``/``msgspec.DecodeError``
    on a corrupt or foreign entry. ``lazy``: see :class:`_Lazy` (objects inside only)."""
    desc = _desc_tuple(desc)
    k = desc[0]
    if k not in _PLAIN_KINDS:
        return _decoder(desc).decode(raw)
    if k in ("mlist", "mtuple"):
        items = [decode_value(d, r, lazy) for d, r in msgspec.msgpack.decode(raw, type=list[tuple[Any, memoryview]])]
        return items if k == "mlist" else tuple(items)
    if k == "mdict":
        kraw, parts = msgspec.msgpack.decode(raw, type=tuple[memoryview, list[tuple[Any, memoryview]]])
        keys = _decoder(("list", desc[1])).decode(kraw)
        if len(keys) != len(parts):
            raise ValueError("corrupt cache: dict keys and values differ in number")
        return {key: decode_value(d, r) for key, (d, r) in zip(keys, parts)}
    if k == "delta":
        items = _decode_delta_list(raw)
        return items if desc[1] == "list" else tuple(items)
    cls = _resolve(desc[1])
    if k == "custom":
        d, r = msgspec.msgpack.decode(raw, type=tuple[Any, memoryview])
        return cls.from_cache(decode_value(d, r))
    return decode_object(cls, raw, lazy)


def _attrs_of(obj: Any) -> dict[str, Any]:
    if isinstance(obj, FileFold):
        if isinstance(obj, _Deferred):
            _undefer(obj)  # every attribute decoded before it is saved
        return obj.to_cache()
    out: dict[str, Any] = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for s in getattr(cls, "__slots__", ()):
            if s not in out and s not in ("__dict__", "__weakref__") and hasattr(obj, s):
                out[s] = getattr(obj, s)
    return out


def encode_object(obj: Any, where: str = "object", _stack: tuple[int, ...] = ()) -> bytes:
    """Every attribute of a plain object (``__dict__`` and ``__slots__``), encoded by type.

    Mutable Structs shared between attributes (a call both in ``calls`` and ``pending``) stay
    shared after decoding: the second occurrence is saved as a reference to the first."""
    attrs = _attrs_of(obj)
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
    entries = []
    for name, val in attrs.items():
        if name in skip and None in skip[name]:
            continue
        d, r = encode_value(val, f"{where}.{name}", _stack)
        entries.append((name, d, r, len(val) if type(val) is list else -1))
    return _enc.encode([entries, refs])


class _Lazy:
    """Which list attributes of a :class:`FileFold` to leave encoded at restore (``names``),
    and what was left (``left``: ``(fold, name, desc, raw, length)``). Such a list is restored
    as ``length`` placeholders (``None``) so that ``len()`` and ``append`` behave; the real items
    are decoded by :meth:`CachedReader.materialise` before anything reads or saves them."""

    def __init__(self, names: frozenset[str], attrs: frozenset[str] = frozenset()) -> None:
        self.names = names
        self.attrs = attrs  # FileFold attributes left encoded until first read (_Deferred)
        self.left: list[tuple[Any, str, Any, bytes, int]] = []


class _Deferred:
    """Mixed into a restored :class:`FileFold`'s class while some of its attributes are still
    encoded (``__deferred``: name -> (desc, raw)): the first read of such an attribute decodes
    it, whatever the access (lookup, method call, ``in``); once none is left the fold is of its
    own class again. :meth:`CachedReader.materialise` decodes what is left before a save."""

    def __getattr__(self, name: str) -> Any:
        left = self.__dict__.get("__deferred")
        if left is None or name not in left:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return _undefer(self, name)


def _undefer(fold: Any, name: str | None = None) -> Any:
    """Decode ``name`` (or, with ``None``, every attribute) still left encoded on ``fold``."""
    state = fold.__dict__
    left = state.get("__deferred") or {}
    got = None
    for n in [name] if name is not None else list(left):
        d, r = left.pop(n)
        got = state[n] = decode_value(d, r)
    if not left:
        order = state.pop("__deferred_order", ())
        state.pop("__deferred", None)
        # the attributes back in their saved order (the next save encodes them the same way)
        items = sorted(state.items(), key=lambda kv: order.get(kv[0], len(order)))
        state.clear()
        state.update(items)
        if isinstance(fold, _Deferred):
            fold.__class__ = type(fold).__mro__[2]  # (_Deferred subclass, _Deferred, the fold class)
    return got


@lru_cache(maxsize=8)
def _deferred_class(cls: type) -> type:
    return type(cls.__name__, (_Deferred, cls), {"__module__": cls.__module__, "__qualname__": cls.__qualname__})


def decode_object(cls: type, raw: bytes, lazy: _Lazy | None = None) -> Any:
    """An instance of ``cls`` with the attributes :func:`encode_object` saved (no ``__init__``
    call, except for :class:`FileFold`, which checks its attribute set via ``from_cache``)."""
    entries, refs = msgspec.msgpack.decode(raw, type=tuple[list[tuple[str, Any, memoryview, int]], list[tuple[str, Any, str, Any]]])
    deferred = []
    attrs = {}
    is_fold = lazy is not None and issubclass(cls, FileFold)
    later: dict[str, tuple[Any, Any]] = {}
    # an attribute that is itself shared whole with another is not deferred
    whole = {x[2] for x in refs if x[1] is None} if is_fold and lazy.attrs else set()  # type: ignore[union-attr]
    for name, d, r, n in entries:
        if is_fold and n >= 0 and name in lazy.names:  # type: ignore[union-attr]
            attrs[name] = [None] * n
            deferred.append((name, d, r, n))
        elif is_fold and name in lazy.attrs and name not in whole:  # type: ignore[union-attr]
            attrs[name] = None
            later[name] = (d, r)
        else:
            attrs[name] = decode_value(d, r, lazy)
    for name, key, fname, fkey in refs:
        if name in later or fname in later:
            # a dict entry shared with a deferred dict keeps its own copy (the entries are
            # complete in both dicts; the fold replaces such Structs, never mutates them)
            continue
        src = attrs[fname] if fkey is None else attrs[fname][fkey]
        if key is None:
            attrs[name] = src
        else:
            attrs[name][key] = src
    if issubclass(cls, FileFold):
        fold = cls.from_cache(attrs)
        for name, d, r, n in deferred:
            lazy.left.append((fold, name, d, r, n))  # type: ignore[union-attr]
        if later:
            fold.__dict__["__deferred_order"] = {k: i for i, k in enumerate(fold.__dict__)}
            for name in later:
                del fold.__dict__[name]
            fold.__dict__["__deferred"] = later
            fold.__class__ = _deferred_class(cls)
        return fold
    obj = cls.__new__(cls)
    for k, v in attrs.items():
        setattr(obj, k, v)
    return obj


# -- the on-disk entry --------------------------------------------------------------------
class _SourceKey(msgspec.Struct, array_like=True):
    path: str
    inode: int
    offset: int
    line_no: int
    head: bytes
    fingerprint: bytes
    #: the file's size (bytes) and modification time (ns) when the entry was saved: a file of
    #: the same size with another mtime was rewritten in place (-1: not recorded)
    size: int = -1
    mtime_ns: int = -1


class _Entry(msgspec.Struct, array_like=True):
    schema: int
    version: str
    paths: list[str]
    subagents: bool
    sources: list[_SourceKey]
    known: list[str]
    fold: memoryview  # encode_object(SessionFold); decoded zero-copy (a view of the file's bytes)
    prices: list[tuple[bytes, Union[float, None], str]] = []
    code: str = ""  # code_fingerprint() of the writer


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 over the source of the modules whose code decides the fold's state
    (``tracetui/ingest/*.py`` and ``tracetui/model/*.py``): a cache entry written by other code
    (an upgrade, a development change that keeps the version string) is not resumed from,
    because its state could differ from a fresh fold's. ``"?"`` when the sources can't be read
    (then the version check alone applies)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    try:
        for sub in ("ingest", "model", "session"):
            for f in sorted((root / sub).glob("*.py")):
                h.update(f.name.encode())
                h.update(f.read_bytes())
    except OSError:
        return "?"
    return h.hexdigest()[:32]


def _session_key(paths: list[Path], subagents: bool) -> str:
    names = [str(Path(p).resolve()) for p in paths]
    h = hashlib.sha256("\0".join([*names, str(subagents)]).encode("utf-8", "surrogatepass")).hexdigest()
    return h[:32]


def cache_path(paths: list[Path], subagents: bool = True) -> Path:
    """Where the cache entry of this list of named files is stored."""
    return cache_dir() / "folds" / f"{_session_key(paths, subagents)}.msgpack"


def _fingerprint(path: str, offset: int) -> bytes:
    """SHA-256 over the first and the last :data:`FP_BYTES` bytes before ``offset``."""
    from tracetui.ingest.files import open_regular

    h = hashlib.sha256()
    with open_regular(path) as f:  # a file replaced by a FIFO must not block
        h.update(f.read(min(FP_BYTES, offset)))
        if offset > FP_BYTES:
            start = max(FP_BYTES, offset - FP_BYTES)
            f.seek(start)
            h.update(f.read(offset - start))
    return h.digest()


def _price_key(state: RunState) -> tuple[bytes, str | None]:
    last_ts = max((s.last_timestamp for s in (state.main, *state.agents) if s.last_timestamp), default=None)
    return msgspec.msgpack.encode([state.usage_buckets, last_ts, state.counters.usage_rejected]), last_ts


class CachedReader(SessionReader):
    """A :class:`SessionReader` that can start from, and save to, the fold cache.

    Pricing: the fold itself runs unpriced, and :meth:`snapshot` adds the cost estimate
    (genai-prices, imported only when needed) from a memo keyed by the usage buckets (model,
    day, tier band: model/pricing.py) and the last timestamp, which is saved with the cache, so a
    warm reopen does not import the price table.
    """

    def __init__(self, paths: list[Path] | Path, subagents: bool = True, price: bool = True) -> None:
        super().__init__(paths, subagents=subagents, price=False)
        self.priced = price
        self._prices: dict[bytes, tuple[float | None, str]] = {}
        self._saved_at: tuple | None = None
        self._lazy: list[tuple[Any, str, Any, bytes, int]] = []
        self.cache_status = "cold"  # cold | warm | invalid: <why> | off

    def materialise(self) -> None:
        """Decode the lists a lazy open left encoded (see :func:`open_cached`), in place."""
        for f in self.fold.folds:
            if isinstance(f, _Deferred):
                _undefer(f)
        left, self._lazy = self._lazy, []
        for fold, name, desc, raw, n in left:
            if not any(f is fold for f in self.fold.folds):
                continue  # the file was reset since: that fold is gone
            items = decode_value(desc, raw)
            lst = getattr(fold, name)
            if len(items) != n or len(lst) < n:
                raise ValueError(f"corrupt cache: {name} holds {len(items)} items, {n} expected")
            lst[:n] = items

    # -- pricing ---------------------------------------------------------------------------
    def snapshot(self) -> RunState:
        """The combined state. After a lazy open (until :meth:`materialise`), ``ledgers`` and
        ``history`` are empty: they were left encoded, never handed out half-filled."""
        state = self.fold.snapshot()
        if self._lazy:
            state = msgspec.structs.replace(state, ledgers=(), history=())
        if not self.priced:
            return state
        key, last_ts = _price_key(state)
        hit = self._prices.get(key)
        if hit is None:
            from tracetui.model.pricing import estimate_cost

            hit = estimate_cost(state.usage_buckets, last_ts, state.counters.usage_rejected)
            self._prices = {key: hit}  # only the latest matters
        return msgspec.structs.replace(state, cost_usd=hit[0], cost_note=hit[1])

    # -- save / restore --------------------------------------------------------------------
    def _position(self) -> tuple:
        return tuple((t.path, t.offset, t.line_no, t.inode) for t in self.tailers)

    def save_cache(self, background: bool = False) -> bool:
        """Write the cache entry atomically; ``True`` when written (or handed to a background
        process). Skipped when nothing was read since the last load or save, or when a file is
        in error. Never raises: a failure is one line on stderr.

        ``background``: when the session is larger than :data:`BACKGROUND_SAVE_BYTES` and the
        platform can fork, a detached child process writes the entry and this call returns at
        once (the hook answers without waiting for the encode and the write)."""
        if background and self._position() != self._saved_at and hasattr(os, "fork"):
            if sum(t.offset for t in self.tailers) >= BACKGROUND_SAVE_BYTES:
                return self._save_in_child()
        try:
            return self._save()
        except CacheEncodeError as exc:
            print(f"tracetui: fold cache not saved: {exc}", file=sys.stderr)
        except OSError as exc:
            print(f"tracetui: fold cache not saved: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return False

    def _save_in_child(self) -> bool:
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except (OSError, ValueError):
                pass
        try:
            pid = os.fork()
        except OSError:
            return self.save_cache(background=False)
        if pid:
            self._saved_at = self._position()
            return True
        code = 0
        try:  # the child: detach from the caller's pipes (Claude Code waits for them to close)
            os.setsid()
            fd = os.open(os.devnull, os.O_RDWR)
            for n in (0, 1, 2):
                os.dup2(fd, n)
            self.materialise()
            self._save()
        except BaseException:  # noqa: BLE001 - nowhere left to report it
            code = 1
        finally:
            os._exit(code)

    def _save(self) -> bool:
        pos = self._position()
        if pos == self._saved_at:
            return False
        self.materialise()
        if any(st.error for st in self.fold.sources):
            return False
        sources = []
        for t in self.tailers:
            if t.inode is None:
                return False
            try:
                st = os.stat(t.path)
            except OSError:
                return False
            if st.st_ino != t.inode:
                return False  # replaced since it was read: the next open folds it again anyway
            sources.append(
                _SourceKey(t.path, t.inode, t.offset, t.line_no, t.head, _fingerprint(t.path, t.offset), st.st_size, st.st_mtime_ns)
            )
        entry = _Entry(
            SCHEMA,
            __version__,
            [str(p) for p in self.paths],
            self.subagents,
            sources,
            sorted(str(k) for k in self._known),
            encode_object(self.fold, "SessionFold"),
            [(k, v[0], v[1]) for k, v in self._prices.items()],
            code_fingerprint(),
        )
        data = msgspec.msgpack.encode(entry)
        dest = cache_path(self.paths, self.subagents)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.{id(self):x}.tmp")
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, dest)
        finally:
            if tmp.exists():
                tmp.unlink()
        self._saved_at = pos
        _prune(dest.parent, keep=dest)
        return True

    def _restore(self, entry: _Entry, lazy: frozenset[str] = frozenset()) -> None:
        lz = _Lazy(lazy, LAZY_ATTRS) if lazy else None
        fold = decode_object(SessionFold, entry.fold, lz)
        if not isinstance(fold, SessionFold) or len(fold.folds) != len(entry.sources) or len(fold.sources) != len(entry.sources):
            raise ValueError("corrupt cache: fold and sources differ")
        for f in fold.folds:
            f.on_usage = fold.usage.add
        tailers = []
        for sk in entry.sources:
            t = Tailer(sk.path)
            t.restore(sk.offset, sk.line_no, sk.inode, sk.head)
            tailers.append(t)
        for st in fold.sources:
            # a truncation or replacement the saving run saw is that run's news: a fresh fold of
            # the same bytes knows nothing of it, and a resumed one must say the same
            st.truncated = st.replaced = 0
            st.resets = ()
        self.fold = fold
        self.tailers = tailers
        self._known = {Path(k) for k in entry.known}
        self._prices = {k: (c, n) for k, c, n in entry.prices}
        self._saved_at = self._position()
        self._lazy = lz.left if lz is not None else []


def _prune(folder: Path, keep: Path) -> None:
    """Delete the oldest cache entries while the folder holds more than MAX_CACHE_BYTES."""
    try:
        files = [(p.stat(), p) for p in folder.glob("*.msgpack")]
    except OSError:
        return
    total = sum(st.st_size for st, _ in files)
    for st, p in sorted(files, key=lambda x: x[0].st_mtime):
        if total <= MAX_CACHE_BYTES:
            break
        if p == keep:
            continue
        try:
            p.unlink()
            total -= st.st_size
        except OSError:
            pass


#: cache entries at least this large are mapped, not read: what a lazy open leaves encoded is
#: then never even paged in
MMAP_BYTES = 8 << 20


def _read_entry(path: Path) -> Any:
    """The entry's bytes: a ``bytes`` object, or a read-only ``mmap`` for a large file (entries
    are replaced atomically, never rewritten in place, so a mapping stays valid)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < MMAP_BYTES:
            return f.read()
        import mmap

        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def _why_stale(entry: _Entry, paths: list[Path], subagents: bool) -> str | None:
    """Why a decoded entry cannot be resumed from, or ``None`` when it can."""
    if entry.schema != SCHEMA:
        return f"cache schema {entry.schema} != {SCHEMA}"
    if entry.version != __version__:
        return f"written by tracetui {entry.version}, this is {__version__}"
    if entry.code != code_fingerprint():
        return "written by other fold code (same version)"
    if entry.paths != [str(p) for p in paths] or entry.subagents != subagents:
        return "other files"
    for sk in entry.sources:
        try:
            st = os.stat(sk.path)
        except OSError:
            return f"{sk.path}: gone"
        if st.st_ino != sk.inode:
            return f"{sk.path}: replaced"
        if st.st_size < sk.offset:
            return f"{sk.path}: truncated"
        if st.st_size == sk.size and st.st_mtime_ns != sk.mtime_ns:
            # written to without growing: an edit in place, anywhere in the file (the
            # fingerprints below cover only the start and the bytes before the resume offset)
            return f"{sk.path}: rewritten in place"
        try:
            if _fingerprint(sk.path, sk.offset) != sk.fingerprint:
                return f"{sk.path}: rewritten"
        except OSError:
            return f"{sk.path}: unreadable"
    # the files a fresh fold would read first must be the saved ones, in the same order
    expect = [str(p) for p in paths]
    if subagents:
        for main in paths:
            expect.extend(str(sf.path) for sf in subagent_files(Path(main)))
    saved = [sk.path for sk in entry.sources]
    if expect[: len(saved)] != saved:
        return "subagent files changed"
    return None


#: the FileFold lists a lazy open leaves encoded: the ledger and the per-episode history (the
#: bulk of a large entry); the fold only appends to them and takes their length
LAZY_LISTS = frozenset({"events", "history"})
#: the FileFold attributes a lazy open leaves encoded until first read: the fold reads them only
#: to pair a new tool_result with its call (not to make a snapshot), so a warm hook call with
#: nothing new never decodes them (about a third of a large entry's decode time)
LAZY_ATTRS = frozenset({"calls", "_call_inputs"})


def open_cached(paths: list[Path], subagents: bool = True, price: bool = True, lazy: bool = False) -> CachedReader:
    """A reader for ``paths`` resumed from the fold cache when a valid entry exists, else a
    fresh one (which still saves with :meth:`CachedReader.save_cache`). Never raises for a
    missing, unreadable, stale or corrupt cache entry; ``reader.cache_status`` says which.

    ``lazy``: leave :data:`LAZY_LISTS` encoded (placeholders of the right length) for a caller
    that needs neither the ledgers nor the history, such as the hook's card: its snapshots have
    empty ``ledgers`` and ``history`` until :meth:`CachedReader.materialise`, which saving does
    first."""
    paths = [Path(p) for p in paths]
    reader = CachedReader(paths, subagents=subagents, price=price)
    try:
        data = _read_entry(cache_path(paths, subagents))
    except (OSError, ValueError):
        return reader
    import gc

    gc_was = gc.isenabled()
    gc.disable()  # decoding creates many objects, all kept: the cyclic GC would only rescan them
    try:
        entry = msgspec.msgpack.decode(data, type=_Entry)
        why = _why_stale(entry, paths, subagents)
        if why is None:
            reader._restore(entry, LAZY_LISTS if lazy else frozenset())
            reader.cache_status = "warm"
        else:
            reader.cache_status = f"invalid: {why}"
    except Exception as exc:  # a corrupt or foreign entry: fold from the start
        reader = CachedReader(paths, subagents=subagents, price=price)
        reader.cache_status = f"invalid: {type(exc).__name__}: {str(exc)[:80]}"
    finally:
        if gc_was:
            gc.enable()
    return reader
