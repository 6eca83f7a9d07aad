"""Facts and aggregates: deterministic values extracted from tool results and records.

Requirements 2–7 and 11 of the live-trace-model seed (``../shared/seeds/002_*.txt``):

* a :class:`Fact` is keyed by its source (the anchor: source index, line, byte offset, plus the
  event's id) and by its occurrence (``n``, the k-th fact taken from that event), so two equal
  values from two places are two facts, and the newest never silently replaces an older one
  (req. 2, 4);
* :class:`FactStore` keeps at most ``bound`` recent facts, but updates each key's
  :class:`Aggregate` (count, sum, min, max, last) as a fact arrives, so eviction never changes
  an aggregate (req. 5, 6);
* a fact whose identity was already seen is ignored, even after it was evicted (req. 7);
* every aggregate states its coverage: how many values, from which anchor through which (req. 11);
* nothing is truncated silently: the store counts what it evicted (req. 3).

Extractors (pure functions of the tool output text, run only on Bash-like results and only on
the last :data:`TAIL_BYTES` of the text) find test-run summaries (pytest, jest, vitest, go test,
cargo test), git commits, PR links, and exit codes of failing commands.
"""

from __future__ import annotations

import functools
import re

import msgspec

from tracetui.model.types import Aggregate, Fact, Value

__all__ = [
    "Fact",
    "Aggregate",
    "FactStore",
    "FACT_BOUND",
    "TAIL_BYTES",
    "HEAD_BYTES",
    "extract_test_runs",
    "extract_commits",
    "extract_pr_urls",
    "extract_exit_code",
    "MAX_DIGITS",
    "Value",
]

#: recent facts kept per file; older ones are evicted (their aggregates stay exact). 200 facts
#: are a few times what any view shows, and keep a long session's store to tens of KB.
FACT_BOUND = 200
#: test summaries are printed at the end of a run: only this many trailing characters are scanned
TAIL_BYTES = 4096
#: git commit and ``gh pr create`` print their result first: this many leading characters are scanned
HEAD_BYTES = 2048

#: a count or exit code read from tool output has at most this many digits (a billion tests,
#: any exit status); a longer number is not one (``Exit code 1e23``-sized text), and the line
#: holding it gives no fact rather than a truncated or unstorable value
MAX_DIGITS = 9


class FactStore(msgspec.Struct):
    """A bounded store of facts with exact per-key aggregates (plain data: persistable).

    ``recent`` holds at most ``bound`` newest facts; ``evicted`` counts those dropped;
    ``seen`` maps every identity ever added to its arrival number, so re-reading an event never
    counts it twice, before or after eviction. ``aggregates`` is keyed by fact key.
    """

    bound: int = FACT_BOUND
    recent: list[Fact] = msgspec.field(default_factory=list)
    aggregates: dict[str, Aggregate] = msgspec.field(default_factory=dict)
    seen: dict[str, int] = msgspec.field(default_factory=dict)
    evicted: int = 0
    added: int = 0

    def add(self, fact: Fact) -> bool:
        """Add ``fact``; ``False`` (and no change) when its identity was seen before."""
        ident = fact.identity
        if ident in self.seen:
            return False
        self.added += 1
        self.seen[ident] = self.added
        agg = self.aggregates.get(fact.key)
        # a new object, not a mutation: snapshots share the aggregates without copying them
        agg = self.aggregates[fact.key] = Aggregate(fact.key) if agg is None else msgspec.structs.replace(agg)
        agg.add(fact.value, fact.anchor)
        self.recent.append(fact)
        if len(self.recent) > self.bound:
            drop = len(self.recent) - self.bound
            del self.recent[:drop]
            self.evicted += drop
        return True

    def frozen(self) -> tuple[tuple[Fact, ...], dict[str, Aggregate], int]:
        """``(recent facts, aggregates by key in key order, evicted count)``. The aggregates are
        shared, not copied: :meth:`add` replaces an aggregate instead of mutating it."""
        return tuple(self.recent), dict(sorted(self.aggregates.items())), self.evicted


# -- extractors -----------------------------------------------------------------------------

#: one of these appears in every summary line the patterns below match (the ones command
#: output holds most often first: the scan stops at the first one found)
_SUMMARY_WORDS = ("error", "ok ", "failed", "FAIL", "failure", "passed", "test result")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_PYTEST_LINE = re.compile(
    r"^[=\s]*((?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)(?:, )?)+)(?: in [\d.]+s)?.*?=*\s*$", re.M
)
_PYTEST_PART = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)")
_JEST = re.compile(r"^Tests:\s+(.*\d+ total)\s*$", re.M)
_VITEST = re.compile(r"^\s*Tests\s+((?:\d+ \w+(?: \| )?)+)\s*\((\d+)\)\s*$", re.M)
_COUNT_WORD = re.compile(r"(\d+) (passed|failed|skipped|todo|pending)")
_GO_OK = re.compile(r"^ok\s+\S+\s+(?:[\d.]+s|\(cached\))", re.M)
_GO_FAIL = re.compile(r"^FAIL\s+\S+\s+[\d.]+s", re.M)
_GO_TEST_FAIL = re.compile(r"^\s*--- FAIL: ", re.M)
_CARGO = re.compile(r"^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed;", re.M)
_EXUNIT = re.compile(
    r"^(\d+) (?:tests?|doctests?|properties)(?:, \d+ (?:doctests?|properties))*, (\d+) failures?(?:, (\d+) (?:excluded|skipped))?.*$", re.M
)
_COMMIT = re.compile(r"^\[([^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.M)
_PR_URL = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/pull/\d+")
_EXIT = re.compile(r"\AExit code (\d+)")


#: a pytest summary line holds one of these (``N passed``, ``N xfailed``, …)
_PYTEST_WORDS = (" passed", " failed", " error", " skipped", " xfailed", " xpassed", " warning", " deselected", " rerun")


def _clean(text: str) -> str:
    return _ANSI.sub("", text) if "\x1b" in text else text


def _counts_ok(*numbers: str) -> bool:
    """Every digit string is a count: at most :data:`MAX_DIGITS` digits."""
    return all(len(n) <= MAX_DIGITS for n in numbers)


def _has_count(text: str, words: tuple[str, ...]) -> bool:
    """Whether one of ``words`` (each a space and then no other space) follows a decimal digit
    in ``text``: what a count such as ``3 passed`` needs. One search led by a literal space (a
    fast C scan) that looks behind the space for the digit, in the pattern: no Python step a
    place a word starts, where source code says `` error`` at every other line."""
    return _word_pattern(words).search(text) is not None


@functools.cache
def _word_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """`` (?<=\\d )(?:w1|w2|...)``: where one of ``words`` (each a space, then no other space)
    starts after a decimal digit (``\\d`` of a str pattern: any Unicode decimal digit)."""
    if not all(w.startswith(" ") and " " not in w[1:] for w in words):
        raise ValueError(f"not words led by one space: {words!r}")
    return re.compile(r" (?<=\d )(?:" + "|".join(re.escape(w[1:]) for w in words) + ")")


def _may_hold_summary(tail: str) -> bool:
    """``False`` only when no pattern of :func:`extract_test_runs` can match ``tail``, found by
    single-character scans (memchr speed, where each multi-character test of a 4 KB tail costs
    ~4 µs). Every summary but go's package lines holds a decimal digit; in an ASCII tail
    without escape sequences (nothing for ``_clean`` to remove) a digit is one of ``0-9``, and
    go's lines start with ``ok`` or ``FAIL``. Any other tail: ``True`` (the patterns decide)."""
    if not tail.isascii() or "\x1b" in tail:
        return True
    for d in "0123456789":
        if d in tail:
            return True
    if tail.startswith(("ok", "FAIL")):
        return True
    return "\n" in tail and ("\nok" in tail or "\nFAIL" in tail)


def extract_test_runs(text: str) -> list[tuple[str, dict[str, int], str]]:
    """Test-run summaries in the tail of a command's output.

    Returns ``[(runner, counts, quote)]`` with runner in ``pytest``, ``jest``, ``vitest``,
    ``exunit``, ``go``, ``cargo``; counts map ``passed``/``failed`` (and others the runner prints) to ints;
    quote is the verbatim summary line. Only the last :data:`TAIL_BYTES` characters are read.
    Formats: pytest's final ``N failed, M passed in Xs`` line; jest's ``Tests: … total``;
    vitest's ``Tests  N failed | M passed (T)``; ExUnit's ``N tests, M failures``; go test's ``ok``/``FAIL`` package lines
    (counted as packages); cargo's ``test result:`` lines (summed over test binaries).
    """
    tail = text[-TAIL_BYTES:]
    out: list[tuple[str, dict[str, int], str]] = []
    if not _may_hold_summary(tail):
        return out
    for w in _SUMMARY_WORDS:
        if w in tail:
            break
    else:
        return out  # the cheap test first: most command output holds no test summary
    tail = _clean(tail)
    # each pattern below needs a literal its match must hold: test it first (a substring test
    # is a fast C scan; a multi-line pattern tries every position of the 4 KB tail)
    tests = "Tests" in tail  # the literal of vitest's pattern, and part of jest's ("Tests:")
    for runner, pattern, held in (("jest", _JEST, tests and "Tests:" in tail), ("vitest", _VITEST, tests)):
        m = None
        for m in pattern.finditer(tail) if held else ():  # noqa: B007 - the last match is the one kept
            pass  # the last summary in the tail counts
        if m is not None:
            found = _COUNT_WORD.findall(m.group(1))
            if not _counts_ok(*(n for n, _ in found)) or "-" in m.group(1):
                return out  # a count of 10+ digits, or negative: not a summary
            counts = {w: int(n) for n, w in found}
            counts.setdefault("passed", 0)
            counts.setdefault("failed", 0)
            out.append((runner, counts, m.group(0).strip()))
            return out
    cargo = _CARGO.findall(tail) if "test result: " in tail else []
    if cargo and not _counts_ok(*(n for _, p, f in cargo for n in (p, f))):
        return out
    if cargo:
        passed = sum(int(p) for _, p, _ in cargo)
        failed = sum(int(f) for _, _, f in cargo)
        quote = _CARGO.search(tail).group(0)  # type: ignore[union-attr]
        if len(cargo) > 1:
            quote += f" (+{len(cargo) - 1} more test result lines)"
        out.append(("cargo", {"passed": passed, "failed": failed}, quote))
        return out
    m = None
    for m in _EXUNIT.finditer(tail) if " failure" in tail else ():  # noqa: B007 - the last match is the one kept
        pass
    if m is not None:
        if not _counts_ok(m.group(1), m.group(2)):
            return out
        total, failed = int(m.group(1)), int(m.group(2))
        out.append(("exunit", {"passed": max(total - failed, 0), "failed": failed}, m.group(0).strip()))
        return out
    # go's lines start a line: ``ok``/``FAIL`` at the start or after a line end
    oks = _GO_OK.findall(tail) if tail.startswith("ok") or "\nok" in tail else []
    fails = _GO_FAIL.findall(tail) if tail.startswith("FAIL") or "\nFAIL" in tail else []
    if oks or fails:
        quote = (fails[-1] if fails else oks[-1]).strip()
        counts = {"passed": len(oks), "failed": len(fails)}
        tf = len(_GO_TEST_FAIL.findall(tail))
        if tf:
            counts["failed_tests"] = tf
        out.append(("go", counts, quote))
        return out
    m = None
    for m in _PYTEST_LINE.finditer(tail) if _has_count(tail, _PYTEST_WORDS) else ():  # noqa: B007 - the last match is the one kept
        pass
    if m is not None:
        counts = {}
        parts = _PYTEST_PART.findall(m.group(1))
        if not _counts_ok(*(n for n, _ in parts)):
            return out
        for n, w in parts:
            w = {"error": "errors", "warning": "warnings"}.get(w, w)
            counts[w] = counts.get(w, 0) + int(n)
        if "passed" in counts or "failed" in counts or "errors" in counts:
            counts.setdefault("passed", 0)
            counts.setdefault("failed", 0)
            out.append(("pytest", counts, m.group(0).strip(" =\n")))
    return out


def extract_commits(text: str) -> list[tuple[str, str, str]]:
    """``[(hash, subject, quote)]`` from ``git commit`` output (``[branch abc1234] subject``),
    read from the first :data:`HEAD_BYTES` characters."""
    head = _clean(text[:HEAD_BYTES])
    return [(m.group(2), m.group(3).strip(), m.group(0).strip()) for m in _COMMIT.finditer(head)]


def extract_pr_urls(text: str) -> list[str]:
    """GitHub pull-request URLs in the first :data:`HEAD_BYTES` and last :data:`TAIL_BYTES`
    characters (``gh pr create`` prints the URL last), each once, in order."""
    part = text if len(text) <= HEAD_BYTES + TAIL_BYTES else text[:HEAD_BYTES] + "\n" + text[-TAIL_BYTES:]
    seen: list[str] = []
    for u in _PR_URL.findall(part):
        if u not in seen:
            seen.append(u)
    return seen


def extract_exit_code(text: str) -> int | None:
    """The exit code Claude Code puts first in a failing Bash result (``Exit code 1``), or None
    (also for a number of more than :data:`MAX_DIGITS` digits; a negative one does not match)."""
    m = _EXIT.match(text)
    return int(m.group(1)) if m and len(m.group(1)) <= MAX_DIGITS else None
