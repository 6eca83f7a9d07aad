"""Where the corpus tests find the corpus (tests/conftest.py): ``$TRACETUI_CORPUS`` when set,
else ``../shared/corpus`` beside the checkout; asked for but unusable fails, absent skips.

Each case runs pytest in a subprocess on a throw-away checkout (``conftest.py`` and
``test_views_corpus.py`` copied under ``tmp/repo/tests``), so ``../shared/corpus`` of that
checkout is ``tmp/shared/corpus``, which the test creates or not. The corpus files are
transcripts written by ``fixtures.py``, never copies of the real corpus."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures import assistant, prompt, text_block, tool_call, tool_result, usage, write

HERE = Path(__file__).resolve().parent


def _transcript(path: Path) -> Path:
    return write(
        path,
        [
            prompt("list the files"),
            tool_call("t1", "Bash", {"command": "ls"}),
            tool_result("t1", "a.py\nb.py"),
            assistant([text_block("two files")], msg_id="m2", u=usage(10, 3)),
        ],
    )


def _checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "pytest.ini").write_text("[pytest]\naddopts = -ra -p no:cacheprovider\n")
    shutil.copy(HERE.parent / "conftest.py", repo / "tests" / "conftest.py")
    shutil.copy(HERE / "test_views_corpus.py", repo / "tests" / "test_views_corpus.py")
    return repo


def _pytest(repo: Path, corpus_env: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("TRACETUI_CORPUS", "PYTEST_ADDOPTS")}
    if corpus_env is not None:
        env["TRACETUI_CORPUS"] = corpus_env
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", str(repo / "tests")], cwd=repo, capture_output=True, text=True, timeout=120, env=env
    )


@pytest.mark.parametrize("case", ["missing", "empty"])
def test_a_corpus_asked_for_but_unusable_fails_saying_so(tmp_path: Path, case: str) -> None:
    repo = _checkout(tmp_path)
    _transcript(tmp_path / "shared" / "corpus" / "beside.jsonl")  # the default is there: not used
    asked = tmp_path / "asked"
    if case == "empty":
        (asked / "sub").mkdir(parents=True)
        (asked / "sub" / "notes.txt").write_text("no transcript here")
    res = _pytest(repo, str(asked))
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert "1 failed" in out and "skipped" not in out and " passed" not in out and "error" not in out
    want = {"missing": "no such folder", "empty": "no *.jsonl file under it"}[case]
    assert f"TRACETUI_CORPUS={asked}: {want}" in out, out


def test_the_variable_finds_a_corpus_anywhere(tmp_path: Path) -> None:
    repo = _checkout(tmp_path)
    elsewhere = tmp_path / "somewhere" / "else"
    _transcript(elsewhere / "proj" / "s1.jsonl")
    _transcript(elsewhere / "s2.jsonl")
    res = _pytest(repo, str(elsewhere))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "test_view_and_card_within_budget[proj/s1.jsonl] PASSED" in res.stdout
    assert "test_view_and_card_within_budget[s2.jsonl] PASSED" in res.stdout
    assert "2 passed" in res.stdout


def test_without_the_variable_the_corpus_beside_the_checkout_is_walked(tmp_path: Path) -> None:
    repo = _checkout(tmp_path)
    _transcript(tmp_path / "shared" / "corpus" / "beside.jsonl")
    for env in (None, ""):  # an empty value counts as unset
        res = _pytest(repo, env)
        assert res.returncode == 0 and "[beside.jsonl] PASSED" in res.stdout and "1 passed" in res.stdout, res.stdout + res.stderr


def test_without_the_variable_or_a_corpus_beside_the_checkout_it_skips_saying_where(tmp_path: Path) -> None:
    repo = _checkout(tmp_path)
    res = _pytest(repo, None)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "1 skipped" in res.stdout
    assert f"no corpus at {tmp_path / 'shared' / 'corpus'}" in res.stdout and "set TRACETUI_CORPUS" in res.stdout


def test_the_codex_corpus_is_named_by_its_own_variable(tmp_path: Path) -> None:
    from codex_corpus import CODEX_CORPUS_ENV, DEFAULT_CODEX_CORPUS, codex_corpus_files, codex_corpus_root, skip_reason

    assert CODEX_CORPUS_ENV == "TRACETUI_CODEX_CORPUS"
    assert codex_corpus_root({CODEX_CORPUS_ENV: str(tmp_path)}) == tmp_path
    for env in ({}, {CODEX_CORPUS_ENV: ""}):
        assert codex_corpus_root(env) == DEFAULT_CODEX_CORPUS == HERE.parents[1].parent / "shared" / "corpus-codex"
    assert codex_corpus_files(tmp_path / "none") == []
    said = skip_reason(tmp_path)
    assert str(tmp_path) in said and "set TRACETUI_CODEX_CORPUS" in said


def test_the_readme_says_where_the_corpus_walks_find_the_corpora() -> None:
    text = " ".join((HERE.parents[1] / "README.md").read_text(encoding="utf-8").split())
    for said in ("`$TRACETUI_CORPUS`", "`../shared/corpus`", "`$TRACETUI_CODEX_CORPUS`", "`../shared/corpus-codex`"):
        assert said in text, said
