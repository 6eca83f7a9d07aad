"""The derive hook of a big cold fold, run in a second process.

A cold fold spends about 40 % of its time in the derive hook (episodes, facts, anomalies:
``model/derive.py``), one Python step after another, so on one core it cannot pass half of
``orjson.loads``' speed (issue 9, ``bench/fold.py``). :class:`DeriveProcess` takes the hook's
place in a :class:`~tracetui.model.fold.FileFold` for one long read: it forks a child that
holds the fold's :class:`~tracetui.model.derive.Deriver` (inherited by the fork), and sends it,
in batches, every call the fold makes to its hook together with the few parts of the fold's
state the deriver reads at that call (``len(events)``, the pending calls at a prompt, the
latest ask, the message's model, the last PR link). The child replays the calls in the same
order against a :class:`_Mirror` of those parts, so it computes exactly what the hook would
have computed in process. At the end (:meth:`DeriveProcess.finish`) the child's deriver and the
derived snapshots of the per-prompt history come back in one message of pickles (from one
Pickler, which keeps the objects the snapshots share shared), and the fold carries on with that
deriver in process.

The fold stays deterministic: the child sees the same calls in the same order; only where the
work runs changes. A child that fails (killed, out of memory, an exception) costs a refold in
process, never a wrong figure: :meth:`finish` raises :class:`DeriveProcessError` and the caller
folds again (``session.open.load_state``).

Used only where it is safe and pays: Linux, a process with one thread (a fork copies a process
whose other threads would be missing in the child), a second CPU not busy with other work, a
fold whose history is a plain list, and at least :data:`MIN_BYTES` to read.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import sys
import threading
from typing import Any

import msgspec

from tracetui.ingest.secret_values import SeenSecrets
from tracetui.ingest.tools import TODO_TOOLS
from tracetui.model.derive import SHELL_TOOLS, USAGE_KINDS, Deriver
from tracetui.model.state import Event, ToolCall
from tracetui.session.derive_wire import (
    _END,
    _MSGPACK,
    _PICKLE,
    _UNSENT,
    _Call,
    _child,
    _CodexUsage,
    _encoder,
    _Known,
    _Mirror,
    _Model,
    _OnModel,
    _Pending,
    _Pr,
    _Result,
    _Snap,
    _State,
    _TurnDone,
    _Window,
)

__all__ = ["DeriveProcess", "DeriveProcessError", "MIN_BYTES", "usable"]

#: bytes still to read in one file below which the hook stays in process (a fork, the child's
#: first page faults and the final pickle cost a few ms: worth it only for a long read)
MIN_BYTES = 8 << 20
#: calls sent to the child in one batch, and the result bytes after which a batch goes early
BATCH = 512
BATCH_BYTES = 256 << 10
#: the pipe's buffer (``F_SETPIPE_SZ``): batches the fold may be ahead of the child before a
#: send waits (Linux' default is 64 KiB; 1 MiB is the default limit for a user)
PIPE_BYTES = 1 << 20
_F_SETPIPE_SZ = 1031


class DeriveProcessError(Exception):
    """The derive process failed; the fold it served must be folded again in process."""


def usable(fold: Any, to_read: int) -> bool:
    """Whether a read of ``to_read`` bytes into ``fold`` may run its derive hook in a second
    process: Linux, one thread in this process, a CPU to spare (:func:`_spare_cpu`), a Claude Code :class:`FileFold` or a Codex
    :class:`CodexFold` whose hook is a :class:`Deriver` and whose history and episode versions
    are plain lists, and at least :data:`MIN_BYTES`."""
    from tracetui.model.codex_fold import CodexFold
    from tracetui.model.fold import FileFold

    return (
        to_read >= MIN_BYTES
        and sys.platform.startswith("linux")
        and _single_threaded()
        and _spare_cpu()
        and type(fold) in (FileFold, CodexFold)
        and type(fold.derive) is Deriver
        and type(fold.history) is list
        and type(fold.derive.book.versions) is list
        and os.environ.get("TRACETUI_DERIVE_PROCESS", "1") != "0"
    )


def _spare_cpu() -> bool:
    """Whether another CPU is free enough to take the derive step: this process may run on two
    or more, and either no more than that less two other tasks are runnable at this instant
    (``/proc/loadavg``'s fourth field: a CPU is idle now, whatever the last minute was), or the
    load average of the last minute leaves one of them idle (below their number less one half;
    this fold counts in it). On a busy or one-CPU machine the two processes would take turns on
    the same CPUs, slower than one (measured: 0.44 s against 0.57 s median for 100 MB of the
    dense mix at a load of 1.6 on 2 CPUs). The figures never depend on it."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    if n < 2:
        return False
    now = _runnable_now()
    if now is not None and now - 1 <= n - 2:
        return True
    try:
        return os.getloadavg()[0] < n - 0.5
    except OSError:
        return now is None


def _runnable_now() -> int | None:
    """The tasks runnable on the machine at this instant, this one included (the fourth field
    of ``/proc/loadavg``, ``running/total``), or ``None`` where it cannot be read."""
    try:
        with open("/proc/loadavg", "rb") as f:
            return int(f.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None


def _single_threaded() -> bool:
    """Whether this process runs one thread (a fork copies only the calling thread)."""
    return threading.active_count() == 1


class DeriveProcess:
    """Stands in for a fold's derive hook (``fold.derive``) while a long read runs, and
    forwards the hook's calls to a forked child (module docstring).

    ``DeriveProcess(fold)`` forks and installs itself as ``fold.derive``; feed the fold as
    usual, then call :meth:`finish` (or :meth:`abort` on an error). Raises ``OSError`` when the
    fork fails (the caller then keeps the hook in process)."""

    def __init__(self, fold: Any, seen: SeenSecrets | None = None, src: int = 0) -> None:
        self._deriver: Deriver = fold.derive
        #: the session's secrets and this file's source index: when the file is the session's
        #: first (``state_secrets`` reads the sources in order, and a value's kind is the one it
        #: was first found as, so only the first one's events may be read ahead of the rest),
        #: the child reads the excerpts of its events from the set's mark on
        #: (``secret_scan.state_secrets``': those folded before the fork, then those it is
        #: sent), off this process (:meth:`_secrets_into`)
        self._seen_key = ("events", src)
        start = seen.marks.get(self._seen_key, 0) if seen is not None else 0
        if src != 0 or not isinstance(start, int) or start > len(fold.events):
            seen = None
        self._seen, self._seen_from = seen, start
        before = fold.events[start:] if seen is not None else []
        #: the events folded at the fork: those sent to the child come after them
        self._forked_at = len(fold.events)
        #: what the child found: the secrets it added, in order, and how many events it read
        self._found: tuple[list[tuple[bytes, tuple[str, int]]], int] | None = None
        ctx = multiprocessing.get_context("fork")
        # two pipes (one each way, not a socket pair): a pipe's buffer can be raised
        down_r, down_w = ctx.Pipe(duplex=False)
        up_r, up_w = ctx.Pipe(duplex=False)
        try:
            import fcntl

            fcntl.fcntl(down_w.fileno(), _F_SETPIPE_SZ, PIPE_BYTES)
        except (ImportError, OSError):
            pass  # a lower limit: the default buffer works, only with more waits
        self._proc = ctx.Process(
            target=_child,
            args=(down_r, up_w, self._deriver, _Mirror(fold), (down_w, up_r), seen, before),
            daemon=True,
            name="tracetui-derive",
        )
        self._proc.start()
        down_r.close()
        up_w.close()
        self._conn, self._back = down_w, up_r
        self._evs: list[Event] = []
        #: the batches' buffer: the MessagePack tag, then the batch (msgspec ``encode_into``)
        self._buf = bytearray(_MSGPACK)
        self._extras: list[Any] = []
        self._bytes = 0
        self._ask = fold.latest_ask
        self._side = fold.sidechain_file
        #: the model last sent for the usage events (``_UNSENT``: none sent yet)
        self._model: object = _UNSENT
        #: pending calls whose result the deriver reads (a file change, a todo or task tool)
        self._wanted: set[str] = set()
        #: whether the fold's last snapshot was one whose derived part is still in the child
        self._last_async = False
        fold.derive = self

    # -- the hook's interface ---------------------------------------------------------------
    def _state(self, fold: Any) -> None:
        self._ask, self._side = fold.latest_ask, fold.sidechain_file
        self._extras.append(_State(len(self._evs), self._ask, self._side))

    def on_event(self, fold: Any, ev: Event) -> None:
        """``Deriver.on_event``: the event and what the deriver reads of the fold with it."""
        if fold.latest_ask is not self._ask or fold.sidechain_file is not self._side:
            self._state(fold)
        k = ev.kind
        evs = self._evs
        if k in USAGE_KINDS:
            mid = ev.message_id
            if ev.usage is not None and mid:
                model = fold.usage.model(mid)
                if model != self._model:
                    self._model = model
                    self._extras.append(_Model(len(evs), model))
        elif k == "prompt" or k == "interrupt":
            self._extras.append(_Pending(len(evs), tuple(fold.pending.values())))
        elif k == "metadata" and ev.name == "pr-link" and fold.pr_links:
            self._extras.append(_Pr(len(evs), fold.pr_links[-1]))
        evs.append(ev)
        if len(evs) >= BATCH:
            self._flush()

    def on_call(self, fold: Any, call: ToolCall, inp: Any, op: Any = False) -> None:
        """``Deriver.on_call``: the call, its input and the file it touches."""
        if fold.latest_ask is not self._ask or fold.sidechain_file is not self._side:
            self._state(fold)
        if call.name in TODO_TOOLS or (op is not None and (op is False or op[1] != "read")):
            self._wanted.add(call.id)
        self._extras.append(_Call(len(self._evs), call, inp, op))

    def on_result(self, fold: Any, call: ToolCall, content: Any, rec: Any) -> None:
        """``Deriver.on_result``: the paired call and, when a rule of the deriver reads it, the
        result's content (a failed call, a shell tool, a file change or a todo or task tool)."""
        if rec is not None:
            raise DeriveProcessError("a tool result with its record cannot be sent to the derive process")
        if fold.latest_ask is not self._ask or fold.sidechain_file is not self._side:
            self._state(fold)
        tid = call.id
        wanted = tid in self._wanted
        if wanted:
            self._wanted.discard(tid)
        msg = _Result(len(self._evs), call)
        if wanted or call.is_error or call.name in SHELL_TOOLS:
            if type(content) is msgspec.Raw:
                msg.raw = bytes(content)
                self._bytes += len(msg.raw)
            elif isinstance(content, str):
                msg.text = content
                self._bytes += len(content)
            else:
                msg.other = content
        self._extras.append(msg)
        if self._bytes >= BATCH_BYTES:
            self._flush()

    def on_known_message(self, key: str, before: tuple[int, int, int, int, int]) -> None:
        """``Deriver.on_known_message`` (before the record's events: replayed before them)."""
        self._extras.append(_Known(len(self._evs), key, before))

    # the Codex fold's hooks (Deriver.on_context_window, on_model, on_codex_usage, on_turn_done)
    def on_context_window(self, window: int) -> None:
        """``Deriver.on_context_window``."""
        self._extras.append(_Window(len(self._evs), window))

    def on_model(self, key: str, model: str) -> None:
        """``Deriver.on_model``."""
        self._extras.append(_OnModel(len(self._evs), key, model))

    def on_codex_usage(self, ev: Event, model: str | None, context: int | None) -> None:
        """``Deriver.on_codex_usage``."""
        self._extras.append(_CodexUsage(len(self._evs), ev, model, context))

    def on_turn_done(self, done: bool) -> None:
        """``Deriver.on_turn_done``."""
        self._extras.append(_TurnDone(len(self._evs), done))

    def snapshot(self, fold: Any, episodes: bool = True) -> Any:
        """``Deriver.snapshot``. For a history snapshot (``episodes`` false: the fold is about
        to append it to ``fold.history``) the derived part is computed by the child and put in
        place by :meth:`finish`; ``None`` stands for it until then. Otherwise the child is asked
        and answers at once."""
        if fold.latest_ask is not self._ask or fold.sidechain_file is not self._side:
            self._state(fold)
        pending = tuple(fold.pending.values())
        if not episodes:
            self._extras.append(_Snap(len(self._evs), len(fold.history), False, pending))
            self._last_async = True
            return None
        self._extras.append(_Snap(len(self._evs), -1, True, pending))
        self._flush()
        self._last_async = False
        return self._receive()

    # -- transport ---------------------------------------------------------------------------
    def _flush(self) -> None:
        if not self._evs and not self._extras:
            return
        batch = (self._evs, self._extras)
        data: bytes | bytearray = self._buf
        try:
            # into the buffer of the batches before (kept at its size: no regrowth, no copy to
            # put the tag in front)
            _encoder.encode_into(batch, self._buf, 1)
        except Exception:  # noqa: BLE001 - a value MessagePack cannot hold (an int past 64 bits, a lone surrogate)
            data = _PICKLE + pickle.dumps(batch, pickle.HIGHEST_PROTOCOL)
        self._evs, self._extras = [], []
        self._bytes = 0
        try:
            self._conn.send_bytes(data)
        except OSError as exc:
            raise self._gone(exc) from None

    def _gone(self, exc: OSError) -> DeriveProcessError:
        """The error for a child that stopped reading: what it said before it went, if it did."""
        try:
            if self._back.poll(1):
                data = self._back.recv_bytes()
                if data[:1] == b"X":
                    return DeriveProcessError("the derive process failed: " + data[1:].decode("utf-8", "replace"))
        except (OSError, EOFError):
            pass
        return DeriveProcessError(f"the derive process is gone ({exc.strerror or exc})")

    def _receive_raw(self) -> bytes:
        try:
            data = self._back.recv_bytes()
        except (OSError, EOFError) as exc:
            raise DeriveProcessError(f"the derive process is gone ({exc})") from None
        if data[:1] == b"X":
            raise DeriveProcessError("the derive process failed: " + data[1:].decode("utf-8", "replace"))
        return data

    def _receive(self) -> Any:
        return pickle.loads(self._receive_raw())

    def finish(self, fold: Any) -> None:
        """Send what is left, take the child's deriver back as ``fold.derive``, put the
        derived snapshots in place in ``fold.history`` and the secrets the child read into the
        session's set (:meth:`_secrets_into`). Raises :class:`DeriveProcessError`
        when the child failed (the fold is then unusable: fold again in process)."""
        try:
            self._flush()
            try:
                self._conn.send_bytes(_END)
            except OSError as exc:
                raise self._gone(exc) from None
            data = self._receive_raw()
            unpickler = pickle.Unpickler(io.BytesIO(data))
            snaps: list[tuple[int, Any]] = []
            while True:
                part = unpickler.load()
                if part is None:
                    break
                if part and type(part[0]) is tuple:
                    snaps.extend(part)
            deriver = unpickler.load()
            self._found = unpickler.load()
        except (pickle.UnpicklingError, EOFError, ValueError) as exc:
            raise DeriveProcessError(f"the derive process sent back what does not unpickle ({exc})") from None
        finally:
            self._close()
        fold.derive = deriver
        hist = fold.history
        replace = msgspec.structs.replace
        for index, d in snaps:
            hist[index] = replace(hist[index], derived=d)
        last = fold._last_snapshot
        if snaps and self._last_async and last is not None:
            fold._last_snapshot = replace(last, derived=snaps[-1][1])
        self._secrets_into()

    def _secrets_into(self) -> None:
        """Put the secrets the child found in the excerpts it read (those of the events folded
        before the fork, then of the first events it was sent: as many as it read while it
        waited for the fold) into the session's set it was given, and mark those events read
        (``secret_scan.state_secrets`` reads the rest, from the mark on): the set is then what
        reading them in this process would have made, in the same order. Nothing when the child
        was not given the set, or when the set's mark moved since the fork (they were read here)."""
        found, seen = self._found, self._seen
        if found is None or seen is None or seen.marks.get(self._seen_key, 0) != self._seen_from:
            return
        values, n = found
        seen.update(SeenSecrets(key=seen.key, found=dict(values)))
        seen.marks[self._seen_key] = self._forked_at + n
        self._found = None

    def abort(self, fold: Any) -> None:
        """Stop the child and give the fold its hook as it was at the fork (call only when the
        fold is thrown away or folded again: the calls since then are lost)."""
        self._close(kill=True)
        fold.derive = self._deriver

    def _close(self, kill: bool = False) -> None:
        for conn in (self._conn, self._back):
            try:
                conn.close()
            except OSError:
                pass
        if kill and self._proc.is_alive():
            self._proc.kill()
        self._proc.join(timeout=None if not kill else 5)
