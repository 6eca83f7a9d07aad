"""The deriver's rules on texts and tool inputs: the constraints and criteria a prompt states
(:func:`statements`), and the keys under which a failed call waits for its retry
(:func:`retry_keys`, with :func:`normalised_input`, the tool-loop detector's notion of "the same
input"). Pure functions of their arguments; :class:`tracetui.model.derive.Deriver` applies them.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson

from tracetui.ingest.tools import one_line as _one_line

__all__ = ["VOLATILE_KEYS", "normalised_input", "retry_keys", "statements", "input_digest"]

_CONSTRAINT_WORDS = (
    r"don'?t|do not|never|must not|mustn'?t|shouldn'?t|should not|only|without|avoid|no more than|at most|not allowed"
    r"|leave .{1,40} (?:alone|unchanged|as is)"
)
_CRITERION_WORDS = (
    r"must|should|needs? to|make sure|ensure|so that|acceptance|done when|until|pass(?:es|ing)?\b|tests? (?:pass|green)|verify|expected?"
)
_CONSTRAINT = re.compile(rf"\b({_CONSTRAINT_WORDS})", re.I)
_CRITERION = re.compile(rf"\b({_CRITERION_WORDS})", re.I)
#: where a match of either may start (the leftmost one: no sentence before it holds a match)
_EITHER = re.compile(rf"\b(?:{_CONSTRAINT_WORDS}|{_CRITERION_WORDS})", re.I)
#: the same three, case-sensitive, for an ASCII text lowered (the same matches: lowering ASCII
#: keeps every position, and ``re.I`` compares ASCII letters by their lower case; several
#: times faster, as a case-sensitive branch skips on its first letter)
_CONSTRAINT_LOW, _CRITERION_LOW, _EITHER_LOW = (re.compile(x.pattern) for x in (_CONSTRAINT, _CRITERION, _EITHER))
#: a sentence ends at ``.``, ``!`` or ``?`` followed by white space or the end, or at a line end:
#: a dot inside a URL, a version number or a file name (``https://x.org/a.b``, ``2.1.38``,
#: ``conftest.py``) and after ``e.g.``, ``i.e.``, ``vs.``, ``cf.`` does not end it
_SENTENCE = re.compile(
    r"(?:[^.!?\n]+|[.!?](?=[^\s.!?])|(?<=\be\.g)\.|(?<=\bi\.e)\.|(?<=\bvs)\.|(?<=\bcf)\.)+[.!?]*",
    re.I,
)


#: input keys left out when comparing tool inputs for the tool-loop detector: the agent rewords
#: a Bash ``description`` or changes a ``timeout`` while repeating the very same command
VOLATILE_KEYS = frozenset({"description", "timeout", "run_in_background"})


def normalised_input(inp: Any) -> Any:
    """A tool input as the tool-loop detector compares it: :data:`VOLATILE_KEYS` dropped and
    runs of whitespace in string values folded to one space."""
    if not isinstance(inp, dict):
        return inp
    # ``" ".join(v.split())``, without splitting a text that has nothing to fold: in a
    # printable string the only white space is the ASCII space (``str.isprintable`` is false
    # for every other character ``str.split`` splits at), so a printable string with no double
    # space and none at either end is its own folding. An input with nothing to drop or fold
    # (the usual one) is returned as it is, not copied.
    for k, v in inp.items():
        if k in VOLATILE_KEYS or (isinstance(v, str) and not (v.isprintable() and "  " not in v and v[:1] != " " and v[-1:] != " ")):
            break
    else:
        return inp
    out = {}
    for k, v in inp.items():
        if k in VOLATILE_KEYS:
            continue
        if isinstance(v, str) and not (v.isprintable() and "  " not in v and v[:1] != " " and v[-1:] != " "):
            v = " ".join(v.split())
        out[k] = v
    return out


_blake2b = hashlib.blake2b
_dumps = orjson.dumps
_SORTED = orjson.OPT_SORT_KEYS


def input_digest(inp: Any) -> str:
    """A short digest (16 hex digits, BLAKE2b) of a decoded JSON value, keys sorted; a value
    orjson cannot encode is digested by its ``repr``."""
    try:
        data = _dumps(inp, option=_SORTED)
    except TypeError:
        data = repr(inp).encode("utf-8", "replace")
    return _blake2b(data, digest_size=8).hexdigest()


def retry_keys(name: str, inp: Any, op: tuple[str, str] | None, main: bool) -> tuple[str, ...]:
    """The keys under which a failed call waits for a successful retry (the resolution rule).

    A failed call counts as resolved when a later call of the same file and thread (main thread
    or sidechain, ``main``) succeeds and shares a key with it:

    * the same tool with the same input as :func:`normalised_input` gives it (the tool-loop
      detector's notion of "the same call": ``Bash(mix test)`` re-run, its description or
      timeout changed), or
    * for file tools (``tools.file_ops``), a call on the same path of the same kind: reading
      it, or changing it (Write/Edit/MultiEdit/NotebookEdit alike; an Edit whose ``old_string``
      was not found is resolved by a later successful Edit of that file).

    Source: the fresh-user trial of the model layer (notes/model-fixes.md §2): a failure a retry
    fixed was listed as open. Pure and order-free within a file: keys depend on the input only.
    """
    t = "m|" if main else "s|"
    first = t + name + ":" + input_digest(normalised_input(inp))
    if op is None:
        return (first,)
    return (first, t + ("file:read:" if op[1] == "read" else "file:change:") + op[0])


def statements(text: str) -> list[tuple[str, str]]:
    """``[(kind, sentence)]``: sentences of a prompt that state a constraint or a criterion.

    A sentence is a constraint when :data:`_CONSTRAINT` matches it, else a criterion when
    :data:`_CRITERION` does. Both are searched within the sentence's span of the text (the same
    matches as in the stripped sentence: the characters around a span are white space, line
    ends or sentence punctuation, no word characters), and only in sentences that reach the
    next place :data:`_EITHER` matches at: a sentence ending before it holds no match."""
    t = text[:4000]
    if t.isascii():
        low, con, cri, either = t.lower(), _CONSTRAINT_LOW, _CRITERION_LOW, _EITHER_LOW
    else:
        low, con, cri, either = t, _CONSTRAINT, _CRITERION, _EITHER
    out: list[tuple[str, str]] = []
    nxt = either.search(low)
    if nxt is None:
        return out
    at = nxt.start()
    for m in _SENTENCE.finditer(t):
        a, e = m.span()
        if e <= at:
            continue
        s = m.group(0).strip()
        if len(s) >= 8:
            if con.search(low, a, e):
                out.append(("constraint", _one_line(s, 160)))
            elif cri.search(low, a, e):
                out.append(("criterion", _one_line(s, 160)))
        nxt = either.search(low, e)
        if nxt is None:
            break
        at = nxt.start()
    return out
