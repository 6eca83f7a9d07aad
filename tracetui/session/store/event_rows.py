"""The ``events`` row of a ledger event and back: the one place an event is turned into what
the session database stores (store/db.py has the table), and read out of it again."""

from __future__ import annotations

import sqlite3

import msgspec

from tracetui.ingest.secret_values import SeenSecrets
from tracetui.ingest.secrets import CUT_MARK, redact
from tracetui.model.state import Anchor, Event
from tracetui.session.store.db import SRC_SHIFT
from tracetui.session.store.masking import mask_text

__all__ = ["event_row", "event_of", "write_events", "stored_secrets", "SECRETS_KEY", "INSERT_EVENT", "SELECT_EVENTS"]

_enc = msgspec.msgpack.Encoder()
_usage_dec = msgspec.msgpack.Decoder(tuple[int, int, int, int, int])

#: the statement an :func:`event_row` is written with (``executemany``)
INSERT_EVENT = "INSERT OR REPLACE INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
#: the rows :func:`event_of` reads back: those with ids in ``(?, ?]`` (ledger positions of one
#: source, ``src << SRC_SHIFT`` added), in order
SELECT_EVENTS = (
    "SELECT id, kind, line, offset, uuid, block, tool_use_id, message_id, sha256, excerpt, status, name,"
    " parent_uuid, timestamp, is_error, sidechain, usage FROM events WHERE id > ? AND id <= ? ORDER BY id"
)


#: UUIDs packed lately (a record's uuid comes back as the next one's parent, and in each of its
#: blocks' events): a lookup instead of the parse; emptied at :data:`_PACKED_MAX` entries
_packed: dict[str, str | bytes] = {}
_PACKED_MAX = 4096


def _pack_uuid(s: str | None) -> str | bytes | None:
    """A canonical lowercase UUID as its 16 bytes (20 bytes less per row), anything else as is."""
    if s is None:
        return None
    got = _packed.get(s)
    if got is not None:
        return got
    got = s
    if len(s) == 36 and s[8] == s[13] == s[18] == s[23] == "-" and s.islower():
        try:
            b = bytes.fromhex(s.replace("-", ""))
        except ValueError:
            b = b""
        if len(b) == 16:
            got = b
    if len(_packed) >= _PACKED_MAX:
        _packed.clear()
    _packed[s] = got
    return got


def _unpack_uuid(v: str | bytes | None) -> str | None:
    if type(v) is bytes:
        h = v.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return v  # type: ignore[return-value]


#: the ``meta`` key of the session's secrets the writer found (:func:`write_events`)
SECRETS_KEY = "secrets"


def stored_secrets(conn: sqlite3.Connection) -> SeenSecrets:
    """The secrets found in the events a store holds (digests: :class:`SeenSecrets`), empty when
    it keeps none or they cannot be read."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (SECRETS_KEY,)).fetchone()
        return SeenSecrets() if row is None else SeenSecrets.from_cache(msgspec.msgpack.decode(row[0]))
    except (sqlite3.Error, msgspec.DecodeError, ValueError):
        return SeenSecrets()


def write_events(conn: sqlite3.Connection, src: int, evs: list[Event]) -> None:
    """Write the ``events`` rows of ``evs`` (of source ``src``, in ledger order) in the caller's
    transaction, each masked with the session's secrets (:func:`event_row`): those found in the
    events written before, kept in ``meta`` (:data:`SECRETS_KEY`, digests only), and those found
    here, written there too. One ``meta`` read a batch; a write only when a secret was found."""
    seen = stored_secrets(conn)
    version = seen.version
    conn.executemany(INSERT_EVENT, [event_row(src, ev, seen) for ev in evs])
    if seen.version != version:
        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (SECRETS_KEY, _enc.encode(seen.to_cache())))


def event_row(src: int, ev: Event, seen: SeenSecrets | None = None) -> tuple:
    """The ``events`` row of ``ev`` of source ``src``: the one place an event, its excerpt
    included, is turned into what is stored. The excerpt is stored with its secrets masked
    (:func:`~tracetui.session.store.masking.mask_text`, a cut one too: an excerpt ends where it was cut),
    so the store never keeps a secret the transcript held; no figure depends on its text. So is
    the name (a tool's name is the user's choice for an MCP server's tools; the memo makes a
    name met again cost a lookup). ``seen``: the session's secrets: each one the excerpt holds
    is kept there, and every copy of one kept is masked too."""
    a = ev.anchor
    excerpt = ev.excerpt
    if excerpt:
        masked = mask_text(excerpt)
        if seen is not None:
            if masked is not excerpt:  # it holds a secret: found again to keep its value
                masked = redact(excerpt, cut=excerpt.endswith(CUT_MARK), seen=seen)[0]
            elif seen:
                masked = seen.mask(masked)[0]
        excerpt = masked
    name = ev.name
    if name:
        name = mask_text(name)
    u = ev.usage
    return (
        src << SRC_SHIFT | ev.seq,
        ev.kind,
        a.line,
        a.offset,
        _pack_uuid(ev.uuid),
        ev.block,
        ev.tool_use_id,
        ev.message_id,
        ev.sha256,
        excerpt,
        ev.status,
        name,
        _pack_uuid(ev.parent_uuid),
        ev.timestamp,
        ev.is_error,
        ev.sidechain,
        _enc.encode(u) if u is not None else None,
    )


def event_of(src: int, r: tuple) -> Event:
    """The event of source ``src`` a row ``r`` of :data:`SELECT_EVENTS` holds (the excerpt as
    stored: masked)."""
    u = r[16]
    return Event(
        r[0] & ((1 << SRC_SHIFT) - 1),
        r[1],
        Anchor(src, r[2], r[3]),
        _unpack_uuid(r[4]),
        r[5],
        r[8],
        r[9],
        r[10],
        r[11],
        r[6],
        r[7],
        _unpack_uuid(r[12]),
        r[13],
        bool(r[14]),
        bool(r[15]),
        _usage_dec.decode(u) if u is not None else None,
    )
