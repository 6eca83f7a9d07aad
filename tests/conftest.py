"""Shared test set-up.

* The persistent fold cache writes under a per-test folder, never the user's cache directory.
* The real-transcript corpus: one place says where it is and what happens when it is not there.
  It is ``$TRACETUI_CORPUS`` (a folder) when that is set, else ``../shared/corpus`` beside the
  checkout. Unset and absent: the corpus tests skip, saying where they looked. Set but missing,
  not a folder, or without a ``*.jsonl`` file under it: the corpus tests FAIL with that message
  (who asked for the corpus must not get a silent skip).

  A test walks it file by file by taking the ``corpus_file`` argument (one test per file, id
  = the path under the corpus folder; ``@pytest.mark.corpus_select(fn=fn)`` narrows the files with
  ``fn(files, root) -> files``), or as a whole by taking the ``corpus`` fixture (a
  :class:`Corpus`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

#: the environment variable naming the corpus folder
CORPUS_ENV = "TRACETUI_CORPUS"
#: where the corpus is without ``$TRACETUI_CORPUS``: beside the checkout (not part of the repository)
DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


@dataclass(frozen=True)
class Corpus:
    """Where the corpus is. ``files``: every ``*.jsonl`` under ``root``, sorted; ``problem``: why
    the corpus that ``$TRACETUI_CORPUS`` asked for cannot be used (the tests fail with it);
    ``skip_reason``: why there is nothing to walk when nobody asked (the tests skip with it)."""

    root: Path
    files: tuple[Path, ...]
    problem: str | None = None
    skip_reason: str | None = None

    def name(self, p: Path) -> str:
        """The test id of corpus file ``p``: its path under ``root``."""
        return str(p.relative_to(self.root)) if self.root in p.parents else p.name

    def require(self) -> None:
        """Fail with :attr:`problem`, or skip with :attr:`skip_reason`, when there is one."""
        if self.problem:
            pytest.fail(self.problem, pytrace=False)
        if self.skip_reason:
            pytest.skip(self.skip_reason)


def find_corpus(environ: Mapping[str, str] = os.environ, default: Path = DEFAULT_CORPUS) -> Corpus:
    """The corpus named by ``environ[CORPUS_ENV]`` (an empty value counts as unset), else
    ``default``. Never raises: what is wrong goes to ``problem`` / ``skip_reason``."""
    asked = environ.get(CORPUS_ENV, "")
    if asked:
        root = Path(asked).expanduser()
        if not root.exists():
            return Corpus(root, (), problem=f"{CORPUS_ENV}={asked}: no such folder (unset {CORPUS_ENV} to skip the corpus tests)")
        if not root.is_dir():
            return Corpus(root, (), problem=f"{CORPUS_ENV}={asked}: not a folder (unset {CORPUS_ENV} to skip the corpus tests)")
        files = tuple(sorted(root.rglob("*.jsonl")))
        if not files:
            return Corpus(root, (), problem=f"{CORPUS_ENV}={asked}: no *.jsonl file under it (unset {CORPUS_ENV} to skip the corpus tests)")
        return Corpus(root, files)
    files = tuple(sorted(default.rglob("*.jsonl"))) if default.is_dir() else ()
    if not files:
        return Corpus(
            default, (), skip_reason=f"no corpus at {default} (not part of the repository; set {CORPUS_ENV} to a folder of transcripts)"
        )
    return Corpus(default, files)


#: read once per test run
CORPUS = find_corpus()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "corpus_select(fn=f): walk only f(files, root) of the corpus files (see tests/conftest.py)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One test per corpus file for a test taking ``corpus_file``; a single placeholder (which
    skips or fails in :func:`corpus_file`) when there is none."""
    if "corpus_file" not in metafunc.fixturenames:
        return
    files = list(CORPUS.files)
    select = metafunc.definition.get_closest_marker("corpus_select")
    if select is not None and files:
        files = list(select.kwargs["fn"](files, CORPUS.root))  # a keyword: a lone function would be taken as the decorated test
    if files:
        metafunc.parametrize("corpus_file", files, ids=[CORPUS.name(p) for p in files], indirect=True)
    else:
        metafunc.parametrize("corpus_file", [None], ids=[CORPUS_ENV if CORPUS.problem else "no-corpus"], indirect=True)


@pytest.fixture
def corpus_file(request: pytest.FixtureRequest) -> Path | None:
    """One file of the corpus (parametrized by :func:`pytest_generate_tests`); skips when there
    is none. ``None`` when ``$TRACETUI_CORPUS`` is unusable: :func:`pytest_pyfunc_call` then
    fails the test before it runs."""
    if CORPUS.problem:
        return None
    CORPUS.require()
    if request.param is None:
        pytest.skip(f"no file of the corpus at {CORPUS.root} fits this test")
    return request.param


@pytest.fixture
def corpus() -> Corpus:
    """The whole corpus; skips as :meth:`Corpus.require` says (an unusable ``$TRACETUI_CORPUS``
    fails the test in :func:`pytest_pyfunc_call`)."""
    if not CORPUS.problem:
        CORPUS.require()
    return CORPUS


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> None:
    """A corpus test with an unusable ``$TRACETUI_CORPUS`` FAILS (not an error in set-up, not a
    skip), with the one-line reason, instead of running."""
    if CORPUS.problem and {"corpus", "corpus_file"} & set(pyfuncitem.fixturenames):
        pytest.fail(CORPUS.problem, pytrace=False)


@pytest.fixture(autouse=True)
def _isolated_fold_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "tracetui-cache"))


@pytest.fixture(autouse=True)
def _isolated_settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the user's own settings file (~/.config/tracetui/settings.toml) never changes a test
    monkeypatch.setenv("TRACETUI_CONFIG", str(tmp_path / "no-settings.toml"))


@pytest.fixture(autouse=True)
def _isolated_codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the user's own Codex rollouts (~/.codex) are never listed by a test
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))


@pytest.fixture
def derive_process(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every read may run its derive hook in a second process (session/derive_proc.py): no size
    floor, the threads of other tests and the machine's load ignored. Returns the list of
    ``(fold type name, source)`` a derive process was started for, in order."""
    import tracetui.session.derive_proc as dp

    monkeypatch.setattr(dp, "MIN_BYTES", 0)
    monkeypatch.setattr(dp, "_single_threaded", lambda: True)
    monkeypatch.setattr(dp, "_spare_cpu", lambda: True)
    seen: list[tuple[str, int]] = []
    init = dp.DeriveProcess.__init__

    def counting(self: object, fold: object, *args: object) -> None:
        seen.append((type(fold).__name__, getattr(fold, "src", 0)))
        init(self, fold, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(dp.DeriveProcess, "__init__", counting)
    return seen


@pytest.fixture(autouse=True)
def _no_kept_price_rates() -> Iterator[None]:
    # a command run by a test keeps genai-prices' rates (cli.py: set_rate_store) in that test's
    # cache folder; the next test prices as a fresh process does, from genai-prices
    yield
    from tracetui.model import pricing

    store = pricing._RATE_STORE
    if store is not None and callable(getattr(store, "save", None)):
        store.save()  # now, into this test's folder: at exit it would make that folder again
    pricing.set_rate_store(None)
