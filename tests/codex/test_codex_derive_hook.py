"""The Codex fold talks to its derive hook only through the Deriver's methods (never reading or
setting the deriver's parts), so the hook can live elsewhere (another process) behind the same
methods; the state is the one a plain Deriver gives."""

from __future__ import annotations

from typing import Any

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.model.codex_fold import CodexFold
from tracetui.model.derive import Deriver


class MethodsOnly:
    """A deriver that hands out the methods of a real one and refuses any other attribute."""

    def __init__(self) -> None:
        object.__setattr__(self, "_real", Deriver())
        object.__setattr__(self, "calls", [])

    def __getattr__(self, name: str) -> Any:
        v = getattr(self._real, name)
        if not callable(v):
            raise AssertionError(f"the fold read derive.{name}, not a method")
        self.calls.append(name)
        return v

    def __setattr__(self, name: str, value: Any) -> None:
        raise AssertionError(f"the fold set derive.{name}")


def _rollout() -> RolloutBuilder:
    b = RolloutBuilder()
    b.turn("Fix the failing test")
    b.tokens(1000, 800, 100, 20)
    b.exec("pytest -q", "1 failed, 3 passed in 0.2s", exit_code=1)
    b.tokens(1500, 1200, 50)
    b.patch("*** Begin Patch\n*** Update File: src/app.py\n@@\n-x\n+y\n*** End Patch\n")
    b.say("Fixed.").done("Fixed.")
    b.turn("Now run it again")
    b.exec("pytest -q", "4 passed in 0.2s")
    b.tokens(2500, 2000, 80)
    b.done("All green.")
    return b


def _fold(derive: Any) -> CodexFold:
    f = CodexFold()
    f.derive = derive
    for n, ln in enumerate(_rollout().data().split(b"\n")[:-1], 1):
        f.feed_line(n, 0, ln)
    return f


def test_the_codex_fold_uses_only_the_derivers_methods() -> None:
    hook = MethodsOnly()
    f = _fold(hook)
    snap = f.snapshot()
    assert {"on_context_window", "on_model", "on_codex_usage", "on_turn_done"} <= set(hook.calls)
    assert snap == _fold(Deriver()).snapshot()
    assert snap.derived is not None and snap.derived.episodes and snap.derived.facts
