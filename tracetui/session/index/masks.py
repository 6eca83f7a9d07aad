"""Secrets masked in what the cross-session index writes: every text it takes from a transcript
(working directory, project, session id, models, message ids, tool names, timestamps, a
rollout's resume state) keeps no secret, as the session store keeps none (store/masking.py).

A file's path is the file system's name, which the index needs to find the file again; it is
kept as it is (the transcript folder holds that name already). The prompts' and tool calls'
texts are masked where they are cut (session/index/scan.py).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import msgspec

from tracetui.ingest.secrets import CUT_MARK, may_hold_secret, redact

if TYPE_CHECKING:
    from tracetui.session.index.scan import Folded

__all__ = ["masked_text", "masked_key", "masked_resume", "mask_folded"]


def masked_text(v: Any) -> Any:
    """``v`` with its secrets masked in place with their kind (ingest/secrets.py ``redact``,
    a text that ends in ``…`` read as cut there, the store's rule); ``v`` itself when it holds
    none or is not a ``str`` (``None``, a number)."""
    if type(v) is not str or not may_hold_secret(v):
        return v
    return redact(v, cut=v.endswith(CUT_MARK))[0]


def masked_key(key: str) -> str:
    """A message key (an API message id, a Codex ``<thread>#<n>``) as the index keeps it: as it
    is, or masked with the first 16 hex digits of its SHA-256 appended, so two keys that
    differ only in their secret stay two messages (the same key always gives the same text).
    Such a key is not found again by the fold that resumes a grown file: a message of that key
    whose records span the resume point keeps the tokens of the records read after it."""
    text = masked_text(key)
    if text is key:
        return key
    return f"{text}#{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def _mask_all(v: Any) -> Any:
    if type(v) is str:
        return masked_text(v)
    if type(v) is list:
        return [_mask_all(x) for x in v]
    if type(v) is dict:
        return {masked_text(k): _mask_all(x) for k, x in v.items()}
    return v


def masked_resume(blob: bytes | None) -> bytes | None:
    """A rollout's Codex fold resume state (JSON, model/codex_fold.py ``resume_state``) with the
    secrets of its strings masked (the thread id, working folder, model, nickname); the same
    bytes when it holds none. A state that is not JSON is returned as it is (the next read
    finds it of other code and reads the file again)."""
    if blob is None or not may_hold_secret(blob.decode("latin-1")):
        return blob
    try:
        value = msgspec.json.decode(blob)
    except msgspec.DecodeError:
        return blob
    return msgspec.json.encode(_mask_all(value))


def mask_folded(r: Folded) -> Folded:
    """Mask, in place, every text of one file's read that came from the transcript: the fold's
    session id and working directory, the first and last timestamps, the rejected usage's day, each message's key, day
    and model, each document's name and timestamp (its text is masked already), and the
    resume state. Returns ``r``."""
    r.session_id, r.cwd = masked_text(r.session_id), masked_text(r.cwd)
    r.first_ts, r.last_ts, r.rejected_day = masked_text(r.first_ts), masked_text(r.last_ts), masked_text(r.rejected_day)
    r.msgs = [(masked_key(k), masked_text(day), masked_text(model), *rest) for k, day, model, *rest in r.msgs]
    r.docs = [(line, block, kind, masked_text(name), masked_text(ts), text) for line, block, kind, name, ts, text in r.docs]
    r.resume = masked_resume(r.resume)
    return r
