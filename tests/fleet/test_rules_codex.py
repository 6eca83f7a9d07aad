"""The fleet's state rules on Codex CLI rollouts: a turn ends at ``task_complete``, the agent and
the declared context window come from the fold, and a plan update asks no permission."""

from __future__ import annotations

import os
from pathlib import Path

from fleet_support import state_of

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.views.fleet import classify
from tracetui.views.fleet_facts import session_facts


def _write(b: RolloutBuilder, tmp_path: Path) -> tuple[Path, float]:
    p = b.write(tmp_path / "rollout-2026-03-02T09-00-00-x.jsonl")
    t = b.t.timestamp()
    os.utime(p, (t, t))
    return p, t


def _status(b: RolloutBuilder, tmp_path: Path, after: float):  # type: ignore[no-untyped-def]
    p, t = _write(b, tmp_path)
    facts = session_facts(state_of(p), str(p), "app")
    return facts, classify(facts, t, t + after)


def test_a_completed_turn_waits_on_you(tmp_path: Path) -> None:
    b = RolloutBuilder()
    b.turn("Fix the failing test")
    b.exec("pytest -q", "1 passed")
    b.tokens(20_000, 15_000, 300)
    b.done("Fixed.")
    facts, st = _status(b, tmp_path, 20)
    assert st.state == "waiting on you", st
    assert facts.agent == "codex"
    assert facts.context_window == 258_400


def test_mid_turn_after_a_result_is_working(tmp_path: Path) -> None:
    b = RolloutBuilder()
    b.turn("Fix the failing test")
    b.exec("pytest -q", "1 passed")
    _, st = _status(b, tmp_path, 20)
    assert st.state == "working", st


def test_a_plan_update_in_flight_is_no_permission_prompt(tmp_path: Path) -> None:
    b = RolloutBuilder()
    b.turn("Plan the work")
    b.call("update_plan", {"plan": [{"step": "read", "status": "in_progress"}]}, output=None)
    _, st = _status(b, tmp_path, 60)
    assert st.state != "waiting on you", st
