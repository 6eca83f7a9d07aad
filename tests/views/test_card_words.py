"""The card goes into the model's context (the hook): it says its rules in words its reader
understands and names no source file of tracetui; nor does the worker view."""

from __future__ import annotations

import re

from tracetui.demo.build import TranscriptBuilder
from tracetui.model.session_fold import fold_bytes
from tracetui.views.card import render_card
from tracetui.views.worker import render_worker_view

#: a path of a Python source file (``model/derive.py``, ``tracetui/views/card.py``)
_SOURCE = re.compile(r"[\w/]+\.py\b")


def test_the_card_says_the_criteria_rule_in_words_and_names_no_source_file() -> None:
    b = TranscriptBuilder()
    b.prompt("Have a look at the logs from yesterday.")
    b.tick(1).tool("Bash", {"command": "ls logs"}, "a.log b.log")
    b.tick(1).text("Two logs.")
    card = render_card(fold_bytes(b.data()))
    line = next(ln for ln in card.splitlines() if "Acceptance criteria" in ln)
    assert "none stated in the prompts" in line and '"must"' in line and '"tests pass"' in line, line
    assert _SOURCE.search(card) is None, _SOURCE.search(card)
    view = render_worker_view(fold_bytes(b.data()))
    assert _SOURCE.search(view) is None, _SOURCE.search(view)
