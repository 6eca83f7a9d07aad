"""Corpus pricing invariants (``$TRACETUI_CORPUS``, else ../shared/corpus; see conftest.py): every
message is priced at its own day and tier band, so the cost of the main thread's episodes adds up
to at most the session's total, and the buckets hold exactly the session's tokens."""

from __future__ import annotations

from pathlib import Path

from tracetui.model.state import Tokens
from tracetui.session.reader import SessionReader
from tracetui.views.worker import current_episodes, episode_cost


def test_episode_costs_never_exceed_the_session_total(corpus_file: Path) -> None:
    r = SessionReader([corpus_file], subagents=True)
    r.poll()
    st = r.snapshot()
    tot = Tokens()
    for b in st.usage_buckets:
        tot = tot.add(b.tokens)
    assert tot == st.tokens
    assert sum(b.messages for b in st.usage_buckets) == st.counters.api_messages
    if st.cost_usd is None:
        return  # a model without a price: nothing to compare
    eps = current_episodes(st)
    costs = [episode_cost(st, ep) for ep in eps]
    if any(c is None for c in costs):
        return
    # each figure is rounded to 1e-6 USD: allow that much per episode
    assert sum(costs) <= st.cost_usd + 1e-6 * (len(eps) + 1)
