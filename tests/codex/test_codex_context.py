"""The context window of a Codex session is the one its ``token_count`` declares
(``info.model_context_window``), not the Claude default of 200,000 tokens: the monitor's fill
gauge and the ``context_pressure`` anomaly read it."""

from __future__ import annotations

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.model.anomalies import context_window
from tracetui.model.session_fold import fold_bytes


def _rollout(window: int | None, inp: int) -> bytes:
    b = RolloutBuilder()
    b.window = window
    b.turn("Refactor the parser")
    b.tokens(inp, inp - 1000, 200)
    b.say("done")
    return b.data()


def _pressure(state) -> bool:  # type: ignore[no-untyped-def]
    d = state.main.derived
    return any(a.kind == "context_pressure" for a in d.anomalies)


def test_declared_window_is_kept_and_used() -> None:
    # 230,000 tokens are 89% of the assumed 200,000 (pressure) but 57% of a declared 400,000
    st = fold_bytes(_rollout(400_000, 230_000))
    assert st.main.context_window == 400_000
    assert not _pressure(st)


def test_pressure_against_the_declared_window() -> None:
    st = fold_bytes(_rollout(258_400, 230_000))  # 89% of 258,400
    assert st.main.context_window == 258_400
    assert _pressure(st)


def test_no_declared_window_falls_back_to_the_model_rule() -> None:
    st = fold_bytes(_rollout(None, 190_000))  # 95% of the assumed 200,000
    assert st.main.context_window == 0
    assert _pressure(st)


def test_rule_prefers_a_declared_window() -> None:
    assert context_window("gpt-5.4", 10, 258_400) == 258_400
    assert context_window("gpt-5.4", 10) == 200_000
    assert context_window("claude-sonnet-4-5", 300_000) == 1_000_000


def test_context_used_is_the_last_request_not_a_jump_of_the_total() -> None:
    from tracetui.views.fleet_facts import context_usage

    b = RolloutBuilder()
    b.turn("Refactor the parser")
    b.tokens(20_000, 15_000, 200)
    # a cumulative total that jumps (a restart, a copied history): the request held 240,000
    t = {
        "input_tokens": 99_999_999,
        "cached_input_tokens": 0,
        "output_tokens": 300,
        "reasoning_output_tokens": 0,
        "total_tokens": 100_000_299,
    }
    last = {
        "input_tokens": 240_000,
        "cached_input_tokens": 200_000,
        "output_tokens": 100,
        "reasoning_output_tokens": 0,
        "total_tokens": 240_100,
    }
    b.tick(1).event(
        "token_count", info={"total_token_usage": t, "last_token_usage": last, "model_context_window": 258_400}, rate_limits=None
    )
    st = fold_bytes(b.data())
    assert st.main.context_used == 240_000
    assert context_usage(st)[0] == 240_000
