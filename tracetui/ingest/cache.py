"""The persistent fold cache: reopening a large session resumes from saved offsets.

Per session (the main transcript named by the user plus its subagent files), the fold's state
(:class:`~tracetui.model.fold.SessionFold` with every :class:`~tracetui.model.fold.FileFold`) and
each :class:`~tracetui.ingest.tail.Tailer`'s resume position are saved with msgspec MessagePack
under ``platformdirs.user_cache_dir("tracetui")/folds`` (``$TRACETUI_CACHE_DIR`` overrides the
directory). The next run restores them and reads only the bytes appended since.

Key and invalidation — a cache entry is used only when all of these hold, else the session is
folded from the start (never a wrong state):

* same cache schema (:data:`SCHEMA`), same tracetui version, same list of named paths, same
  ``subagents`` flag;
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
from tracetui.ingest.session import SessionReader
from tracetui.ingest.tail import Tailer
from tracetui.model.fold import FileFold, SessionFold
from tracetui.model.state import RunState

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
]

#: version of the on-disk layout; bump it when the format of this module changes
SCHEMA = 1
#: bytes hashed at the start of a file and before its resume offset (the fingerprint)
FP_BYTES = 4096
#: the cache folder is pruned (oldest first) when its files exceed this many bytes
MAX_CACHE_BYTES = 2 << 30


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
        return Union[tuple(_build(d) for d in desc[1])]  # type: ignore[return-value]
    raise ValueError(f"unknown cache type descriptor {desc!r}")


@lru_cache(maxsize=1024)
def _decoder(desc: tuple) -> msgspec.msgpack.Decoder:
    return msgspec.msgpack.Decoder(_build(desc))


def _tuplify(d: Any) -> Any:
    return tuple(_tuplify(x) for x in d) if isinstance(d, (list, tuple)) else d


_enc = msgspec.msgpack.Encoder()


def encode_value(v: Any, where: str = "value", _stack: tuple[int, ...] = ()) -> tuple[tuple, bytes]:
    """``(desc, raw)`` for ``v``. Raises :class:`CacheEncodeError` naming ``where``."""
    try:
        desc = _infer(v)
    except _NoType:
        desc = None
    if desc is not None:
        try:
            _decoder(desc)  # msgspec refuses some unions (two Struct types, say); fall back
        except (TypeError, ValueError):
            desc = None
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


def decode_value(desc: Any, raw: bytes) -> Any:
    """The value :func:`encode_value` encoded. Raises ``ValueError``/``msgspec.DecodeError``
    on a corrupt or foreign entry."""
    desc = _tuplify(desc)
    k = desc[0]
    if k not in _PLAIN_KINDS:
        return _decoder(desc).decode(raw)
    if k in ("mlist", "mtuple"):
        items = [decode_value(d, r) for d, r in msgspec.msgpack.decode(raw, type=list[tuple[Any, bytes]])]
        return items if k == "mlist" else tuple(items)
    if k == "mdict":
        kraw, parts = msgspec.msgpack.decode(raw, type=tuple[bytes, list[tuple[Any, bytes]]])
        keys = _decoder(("list", desc[1])).decode(kraw)
        if len(keys) != len(parts):
            raise ValueError("corrupt cache: dict keys and values differ in number")
        return {key: decode_value(d, r) for key, (d, r) in zip(keys, parts)}
    cls = _resolve(desc[1])
    if k == "custom":
        d, r = msgspec.msgpack.decode(raw, type=tuple[Any, bytes])
        return cls.from_cache(decode_value(d, r))
    return decode_object(cls, raw)


def _attrs_of(obj: Any) -> dict[str, Any]:
    if isinstance(obj, FileFold):
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
        entries.append((name, d, r))
    return _enc.encode([entries, refs])


def decode_object(cls: type, raw: bytes) -> Any:
    """An instance of ``cls`` with the attributes :func:`encode_object` saved (no ``__init__``
    call, except for :class:`FileFold`, which checks its attribute set via ``from_cache``)."""
    entries, refs = msgspec.msgpack.decode(raw, type=tuple[list[tuple[str, Any, bytes]], list[tuple[str, Any, str, Any]]])
    attrs = {name: decode_value(d, r) for name, d, r in entries}
    for name, key, fname, fkey in refs:
        src = attrs[fname] if fkey is None else attrs[fname][fkey]
        if key is None:
            attrs[name] = src
        else:
            attrs[name][key] = src
    if issubclass(cls, FileFold):
        return cls.from_cache(attrs)
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


class _Entry(msgspec.Struct, array_like=True):
    schema: int
    version: str
    paths: list[str]
    subagents: bool
    sources: list[_SourceKey]
    known: list[str]
    fold: bytes  # encode_object(SessionFold)
    prices: list[tuple[bytes, Union[float, None], str]] = []


def _session_key(paths: list[Path], subagents: bool) -> str:
    names = [str(Path(p).resolve()) for p in paths]
    h = hashlib.sha256("\0".join([*names, str(subagents)]).encode("utf-8", "surrogatepass")).hexdigest()
    return h[:32]


def cache_path(paths: list[Path], subagents: bool = True) -> Path:
    """Where the cache entry of this list of named files is stored."""
    return cache_dir() / "folds" / f"{_session_key(paths, subagents)}.msgpack"


def _fingerprint(path: str, offset: int) -> bytes:
    """SHA-256 over the first and the last :data:`FP_BYTES` bytes before ``offset``."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read(min(FP_BYTES, offset)))
        if offset > FP_BYTES:
            start = max(FP_BYTES, offset - FP_BYTES)
            f.seek(start)
            h.update(f.read(offset - start))
    return h.digest()


def _price_key(state: RunState) -> tuple[bytes, str | None]:
    last_ts = max((s.last_timestamp for s in (state.main, *state.agents) if s.last_timestamp), default=None)
    items = sorted((m, (t.input, t.output, t.cache_creation, t.cache_read)) for m, t in state.tokens_by_model.items())
    return msgspec.msgpack.encode([items, last_ts]), last_ts


class CachedReader(SessionReader):
    """A :class:`SessionReader` that can start from, and save to, the fold cache.

    Pricing: the fold itself runs unpriced, and :meth:`snapshot` adds the cost estimate
    (genai-prices, imported only when needed) from a memo keyed by tokens per model and the last
    timestamp, which is saved with the cache, so a warm reopen does not import the price table.
    """

    def __init__(self, paths: list[Path] | Path, subagents: bool = True, price: bool = True) -> None:
        super().__init__(paths, subagents=subagents, price=False)
        self.priced = price
        self._prices: dict[bytes, tuple[float | None, str]] = {}
        self._saved_at: tuple | None = None
        self.cache_status = "cold"  # cold | warm | invalid: <why> | off

    # -- pricing ---------------------------------------------------------------------------
    def snapshot(self) -> RunState:
        state = self.fold.snapshot()
        if not self.priced:
            return state
        key, last_ts = _price_key(state)
        hit = self._prices.get(key)
        if hit is None:
            from tracetui.model.pricing import estimate_cost

            hit = estimate_cost(state.tokens_by_model, last_ts)
            self._prices = {key: hit}  # only the latest matters
        return msgspec.structs.replace(state, cost_usd=hit[0], cost_note=hit[1])

    # -- save / restore --------------------------------------------------------------------
    def _position(self) -> tuple:
        return tuple((t.path, t.offset, t.line_no, t.inode) for t in self.tailers)

    def save_cache(self) -> bool:
        """Write the cache entry atomically; ``True`` when written. Skipped when nothing was
        read since the last load or save, or when a file is in error. Never raises: a failure
        is one line on stderr."""
        try:
            return self._save()
        except CacheEncodeError as exc:
            print(f"tracetui: fold cache not saved: {exc}", file=sys.stderr)
        except OSError as exc:
            print(f"tracetui: fold cache not saved: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return False

    def _save(self) -> bool:
        pos = self._position()
        if pos == self._saved_at:
            return False
        if any(st.error for st in self.fold.sources):
            return False
        sources = []
        for t in self.tailers:
            if t.inode is None:
                return False
            sources.append(_SourceKey(t.path, t.inode, t.offset, t.line_no, t.head, _fingerprint(t.path, t.offset)))
        entry = _Entry(
            SCHEMA,
            __version__,
            [str(p) for p in self.paths],
            self.subagents,
            sources,
            sorted(str(k) for k in self._known),
            encode_object(self.fold, "SessionFold"),
            [(k, v[0], v[1]) for k, v in self._prices.items()],
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

    def _restore(self, entry: _Entry) -> None:
        fold = decode_object(SessionFold, entry.fold)
        if not isinstance(fold, SessionFold) or len(fold.folds) != len(entry.sources) or len(fold.sources) != len(entry.sources):
            raise ValueError("corrupt cache: fold and sources differ")
        for f in fold.folds:
            f.on_usage = fold.usage.add
        tailers = []
        for sk in entry.sources:
            t = Tailer(sk.path)
            t.restore(sk.offset, sk.line_no, sk.inode, sk.head)
            tailers.append(t)
        self.fold = fold
        self.tailers = tailers
        self._known = {Path(k) for k in entry.known}
        self._prices = {k: (c, n) for k, c, n in entry.prices}
        self._saved_at = self._position()


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


def _why_stale(entry: _Entry, paths: list[Path], subagents: bool) -> str | None:
    """Why a decoded entry cannot be resumed from, or ``None`` when it can."""
    if entry.schema != SCHEMA:
        return f"cache schema {entry.schema} != {SCHEMA}"
    if entry.version != __version__:
        return f"written by tracetui {entry.version}, this is {__version__}"
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


def open_cached(paths: list[Path], subagents: bool = True, price: bool = True) -> CachedReader:
    """A reader for ``paths`` resumed from the fold cache when a valid entry exists, else a
    fresh one (which still saves with :meth:`CachedReader.save_cache`). Never raises for a
    missing, unreadable, stale or corrupt cache entry; ``reader.cache_status`` says which."""
    paths = [Path(p) for p in paths]
    reader = CachedReader(paths, subagents=subagents, price=price)
    try:
        data = cache_path(paths, subagents).read_bytes()
    except OSError:
        return reader
    try:
        entry = msgspec.msgpack.decode(data, type=_Entry)
        why = _why_stale(entry, paths, subagents)
        if why is None:
            reader._restore(entry)
            reader.cache_status = "warm"
        else:
            reader.cache_status = f"invalid: {why}"
    except Exception as exc:  # a corrupt or foreign entry: fold from the start
        reader = CachedReader(paths, subagents=subagents, price=price)
        reader.cache_status = f"invalid: {type(exc).__name__}: {str(exc)[:80]}"
    return reader
