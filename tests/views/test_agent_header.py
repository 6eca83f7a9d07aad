"""The worker view and the card name a Codex CLI session's agent on their first line; a Claude
Code session's first line stays as it was (Claude Code is the default agent of every state).

The Codex state here is a folded Claude Code one with ``agent`` set: the line depends on the
state's agent alone, not on any figure of a Codex fold."""

from __future__ import annotations

import msgspec

from tracetui.model.session_fold import fold
from tracetui.views.card import render_card
from tracetui.views.worker import render_worker_view


def _state():  # type: ignore[no-untyped-def]
    return fold(
        [
            {"type": "user", "uuid": "u1", "sessionId": "0199aaaa-0000", "message": {"role": "user", "content": "Fix the parser"}},
            {
                "type": "assistant",
                "uuid": "a1",
                "message": {"id": "m1", "role": "assistant", "model": "x", "content": [{"type": "text", "text": "ok"}]},
            },
        ]
    )


def test_the_first_lines_name_a_codex_session() -> None:
    st = msgspec.structs.replace(_state(), agent="codex")
    assert render_worker_view(st).splitlines()[0].startswith("tracetui view · Codex CLI session 0199aaaa · ")
    assert render_card(st).splitlines()[0].startswith("TRACE-AS-STATE CARD · Codex CLI session 0199aaaa · ")


def test_a_claude_sessions_first_lines_are_unchanged() -> None:
    st = _state()
    assert st.agent == "claude"
    assert render_worker_view(st).splitlines()[0].startswith("tracetui view · session 0199aaaa · ")
    assert render_card(st).splitlines()[0].startswith("TRACE-AS-STATE CARD · session 0199aaaa · ")
