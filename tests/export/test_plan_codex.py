"""A Codex rollout's export: a ``chat {model}`` span per response (its ``token_count``), with
OpenAI's ``input_tokens`` (cached tokens included), under the turn's episode span."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the otlp extra is not installed")

from tracetui.demo.codex_records import RolloutBuilder  # noqa: E402
from tracetui.export.plan import plan_spans  # noqa: E402
from tracetui.session.open import load_state  # noqa: E402


def test_each_response_is_a_chat_span_with_openai_input(tmp_path: Path) -> None:
    b = RolloutBuilder()
    b.turn("Fix the failing test")
    b.tokens(1000, 800, 100)
    b.exec("pytest -q", "1 passed")
    b.tokens(1500, 1200, 50, repeat=True)  # a repeated total is no new response
    b.done("Fixed.")
    b.turn("Now commit")
    b.tokens(2000, 1900, 30)
    b.done()
    path = b.write(tmp_path / "rollout-2026-03-02T09-00-00-x.jsonl")
    _reader, state = load_state([path], True, False)
    plan = plan_spans(state, settle=0)
    chats = [s for s in plan.spans if s.name.startswith("chat ")]
    assert len(chats) == 3
    ins = sorted(s.attributes["gen_ai.usage.input_tokens"] for s in chats)
    assert ins == [1000, 1500, 2000]  # uncached + cached: the count's own input_tokens
    assert sorted(s.attributes["gen_ai.usage.cache_read.input_tokens"] for s in chats) == [800, 1200, 1900]
    assert all(s.attributes["gen_ai.provider.name"] == "openai" for s in chats)
    episodes = {s.key for s in plan.spans if s.name.startswith("episode")}
    assert all(s.parent in episodes for s in chats)
