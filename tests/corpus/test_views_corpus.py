"""Every transcript of the corpus (``$TRACETUI_CORPUS``, else ../shared/corpus; see conftest.py) yields a worker view and a card within budget, without
error, for the whole session and as of its first and middle episodes."""

from __future__ import annotations

from pathlib import Path

from tracetui.session.reader import SessionReader
from tracetui.views.card import CARD_MAX_TOKENS, DISCLAIMER, render_card
from tracetui.views.text import estimate_tokens
from tracetui.views.worker import DEFAULT_MAX_CHARS, render_worker_view


def test_view_and_card_within_budget(corpus_file: Path) -> None:
    r = SessionReader([corpus_file], subagents=False, price=False)
    r.poll()
    state = r.snapshot()
    n = state.main.prompts
    for episode in sorted({None, *([1, (n + 1) // 2] if n > 1 else [])}, key=lambda e: e or 0):
        view = render_worker_view(state, episode=episode, now=2_000_000_000)
        assert len(view) <= DEFAULT_MAX_CHARS
        assert view.split("\n")[1].startswith("WATERMARK: ")
        small = render_worker_view(state, episode=episode, max_chars=1500)
        assert len(small) <= 1500
        card = render_card(state, episode=episode)
        assert estimate_tokens(card) <= CARD_MAX_TOKENS
        assert card.endswith(DISCLAIMER) and "0. TASK CONDITION" in card
