"""The secrets found in a session, so that every later copy of one is masked too.

A detector finds a secret by what tells it (``aws_secret_access_key=KEY``, ``--password PW``);
the same value met again alone (a tool's output that is the key, a later prompt) has nothing to
tell it. :class:`SeenSecrets` keeps the values found in one session, each as a keyed BLAKE2b
digest of 16 bytes (never the value: the set is saved with the session's fold, and a digest
names a secret without holding it), and masks a text's copies of them with the kind they were
found as (``«redacted: aws secret access key»``, :func:`tracetui.ingest.secrets.mask`).

A copy is found as a token of the text (a run between whitespace, quotes, brackets, ``,;|&<>``
and backslashes) or a part of one: without a trailing ``.``, ``:``, ``!`` or ``?``, after its
first ``=`` or its last ``:``, before its first ``@`` (and after the ``:`` before it). Only values of :data:`MIN_CHARS` to
:data:`MAX_CHARS` characters with no whitespace are kept (a shorter one, ``admin``, would mask
ordinary words), holding a letter and a digit (a finding without is a word the key-word detector
took in code: ``password = required``), not code or a placeholder, :data:`MAX_VALUES` at most
(later ones are masked where found, not kept).

Cost: an empty set costs one truth test; a text is searched only when the set holds a value, for
its tokens as long as the shortest value kept at least (one search in C skips the others), a
digest of each part whose length is a value's; a short text met again costs a lookup (the store
masks the same strings at every save and history snapshot). Folding a 60 MB session whose goal
gives a password into the store cost ~1/3 more CPU than one without (~2.6 s against ~1.95 s).
"""

from __future__ import annotations

import functools
import hashlib
import re

import msgspec

from tracetui.ingest.secret_patterns import MASK_FORMAT

__all__ = ["SeenSecrets", "MIN_CHARS", "MAX_CHARS", "MAX_VALUES"]

#: the shortest value kept: a shorter one is too likely a word of the text
MIN_CHARS = 8
#: the longest value kept (a private-key block is no token, and found again by its detector)
MAX_CHARS = 512
#: values kept at most per session
MAX_VALUES = 4096
#: a token of a text: a run of characters but whitespace, quotes, brackets, ``,;|&<>`` and ``\``
_TOKEN = re.compile(r"[^\s\"'`,;()\[\]{}<>|&\\\u00ab\u00bb]+")
#: a value that is code or a placeholder, not a secret: a reference (``$VAR``, ``{x}``), a call
#: or an index, a dotted name (``self.password``, ``process.env.JWT_SECRET!``), a file's place
#: (``auth_test.go:345:``), a URL, a value cut short (``sk-ant-...``)
_CODE = re.compile(r"^[$%{<(]|[()\[\]{}]|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+[!?]*$|\.[A-Za-z]{1,4}(?::\d+)+:?$|://|\.\.\.|\u2026")
#: a value that may be a secret holds a letter and a digit: the key-word detector's findings
#: that hold none are words and names (``password``, ``clientKey``, ``required``,
#: ``TestLogging_WhenNoGlobalSet``), which masked in every later text of the session would hide
#: the words themselves (a random key of 20 characters holds a digit but for ~3 in 1,000)
_SECRET_LIKE = re.compile(r"^(?=.*[A-Za-z])(?=.*[0-9])")


#: texts of this many characters or fewer are memoised by :meth:`SeenSecrets.mask`...
_MEMO_LEN = 4096
#: ...this many at most (then all forgotten)
_MEMO_ENTRIES = 8192
#: a memo's "no copy of a secret in this text"
_NONE = object()


@functools.lru_cache(maxsize=64)
def _long_tokens(n: int) -> re.Pattern[str]:
    """:data:`_TOKEN`'s runs of ``n`` characters or more."""
    return re.compile(_TOKEN.pattern[:-1] + "{" + str(n) + ",}")


class SeenSecrets(msgspec.Struct, dict=True):
    """The secret values found in one session, as digests (see the module's docstring). A
    msgspec Struct of its key and digests only (so a state holding it encodes, and two equal
    sets compare equal); what it keeps beside them (the lengths, a version, the readers' marks)
    is neither encoded nor compared."""

    #: the digests' key (a salt: the same value in two sessions' sets has two digests)
    key: bytes = b""
    #: digest -> (the kind its value was found as, its length)
    found: dict[bytes, tuple[str, int]] = {}

    def __post_init__(self) -> None:
        self.key = bytes(self.key[:64])
        #: the lengths of the values kept, with how many of each
        self._lengths: dict[int, int] = {}
        for _kind, n in self.found.values():
            self._lengths[n] = self._lengths.get(n, 0) + 1
        #: bumps at every value added (a memo of masked texts is valid while it stays)
        self.version = 0
        #: how far a reader of the session's texts has read them for secrets (its own keys:
        #: ``tracetui.model.secret_scan``)
        self.marks: dict[object, object] = {}
        #: short texts masked lately -> their result (:data:`_NONE`: no copy), while ``None``
        #: maps to the version they were masked at (the store masks the same strings at every
        #: save and history snapshot)
        self._memo: dict[object, object] = {}

    def __bool__(self) -> bool:
        return bool(self.found)

    def __len__(self) -> int:
        return len(self.found)

    def _digest(self, value: str) -> bytes:
        return hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=16, key=self.key).digest()

    def _keep(self, d: bytes, kind: str, n: int) -> bool:
        if d in self.found or len(self.found) >= MAX_VALUES:
            return False
        self.found[d] = (kind, n)
        self._lengths[n] = self._lengths.get(n, 0) + 1
        self.version += 1
        return True

    def add(self, value: str, kind: str) -> bool:
        """Keep ``value``, a secret found as ``kind``; ``True`` when it was not kept yet. A value
        too short or too long, holding whitespace, without a letter and a digit (a word: a
        detector's finding in code, ``password``), that is code (``self.password``) or a
        placeholder (``sk-ant-...``), or past :data:`MAX_VALUES` is not kept."""
        n = len(value)
        if not MIN_CHARS <= n <= MAX_CHARS or _TOKEN.fullmatch(value) is None or _CODE.search(value) is not None:
            return False
        if _SECRET_LIKE.match(value) is None:
            return False
        return self._keep(self._digest(value), kind, n)

    def update(self, other: SeenSecrets) -> None:
        """Keep every value ``other`` keeps (of the same key, or the digests would not match)."""
        if other.key != self.key:
            raise ValueError("sets of secrets of two keys")
        for d, (kind, n) in other.found.items():
            self._keep(d, kind, n)

    def mask(self, text: str) -> tuple[str, tuple[str, ...]]:
        """``(text with every copy of a kept value masked with its kind, the kinds masked)``;
        ``text`` itself (the same object) when it holds none."""
        if not self.found or len(text) < MIN_CHARS:
            return text, ()
        short = len(text) <= _MEMO_LEN
        if short:
            memo = self._memo
            if memo.get(None) != self.version:  # a value added since: nothing known holds
                memo.clear()
                memo[None] = self.version
            got = memo.get(text)
            if got is not None:
                return (text, ()) if got is _NONE else got
        out = self._mask(text)
        if short:
            if len(memo) > _MEMO_ENTRIES:
                memo.clear()
                memo[None] = self.version
            memo[text] = _NONE if out[0] is text else out
        return out

    def _mask(self, text: str) -> tuple[str, tuple[str, ...]]:
        lengths, found, digest = self._lengths, self.found, self._digest
        spans: list[tuple[int, int, str]] = []
        # only the tokens as long as the shortest value kept (a search in C skips the rest)
        for m in _long_tokens(min(lengths)).finditer(text):
            start = m.start()
            for a, b in _parts(m.group(), start):
                if b - a in lengths:
                    got = found.get(digest(text[a:b]))
                    if got is not None:
                        spans.append((a, b, got[0]))
                        break
        if not spans:
            return text, ()
        out: list[str] = []
        pos = 0
        for a, b, kind in spans:
            out.append(text[pos:a])
            out.append(MASK_FORMAT.format(kind))
            pos = b
        out.append(text[pos:])
        return "".join(out), tuple(k for _, _, k in spans)

    def to_cache(self) -> bytes:
        """The set as MessagePack (its key and digests: no value in it), for :meth:`from_cache`."""
        return msgspec.msgpack.encode(self)

    @classmethod
    def from_cache(cls, data: bytes) -> SeenSecrets:
        """The set :meth:`to_cache` gave ``data`` of. Raises ``ValueError`` for other bytes."""
        try:
            return msgspec.msgpack.decode(data, type=cls)
        except msgspec.DecodeError as exc:
            raise ValueError(f"not a set of secrets: {exc}") from None


def _parts(token: str, at: int) -> list[tuple[int, int]]:
    """The places in the text (``token`` starts at ``at``) a value may be copied at: the whole
    token, without trailing sentence punctuation, after its first ``=`` or last ``:``, before its
    first ``@`` and between that and the ``:`` before it (``user:password@host``)."""
    end = at + len(token)
    parts = [(at, end)]
    stripped = token.rstrip(".:!?")
    if len(stripped) < len(token):
        parts.append((at, at + len(stripped)))
    eq = token.find("=")
    if 0 <= eq < len(token) - 1:
        parts.append((at + eq + 1, at + len(stripped) if len(stripped) > eq + 1 else end))
    colon = stripped.rfind(":")
    if 0 <= colon < len(stripped) - 1:
        parts.append((at + colon + 1, at + len(stripped)))
    amp = token.find("@")
    if amp > 0:
        parts.append((at, at + amp))
        colon = token.rfind(":", 0, amp)
        if 0 <= colon < amp - 1:
            parts.append((at + colon + 1, at + amp))
    return parts
