"""The README's synopsis lines (``tracetui state [...]``, ``tracetui sessions [...]``, …) name
every option the command's ``--help`` lists (trial 13: ``sessions`` left out ``--no-subagents``
and ``--no-cache``)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from tracetui.cli import _build_parser

README = Path(__file__).resolve().parents[2] / "README.md"
#: the commands with a synopsis line (``hook``'s README lines are examples of ``hook install``)
SYNOPSES = ("state", "view", "card", "sessions", "report", "search", "export otlp")


def _parser(name: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = _build_parser()
    for word in name.split():
        sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
        p = sub.choices[word]
    return p


@pytest.mark.parametrize("name", SYNOPSES)
def test_the_synopsis_names_every_option(name: str) -> None:
    lines = [ln for ln in README.read_text("utf-8").splitlines() if re.match(rf"tracetui {name}(\s|$)", ln)]
    assert lines, f"no synopsis line for {name}"
    synopsis = lines[0]
    options = [o for a in _parser(name)._actions for o in a.option_strings if o.startswith("--") and o != "--help"]
    missing = [o for o in options if not re.search(rf"\[{re.escape(o)}[\s\]|]|\| {re.escape(o)}[\s\]]", synopsis)]
    assert missing == [], (name, missing, synopsis)
