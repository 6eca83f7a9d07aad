"""The drill-down of a Codex CLI session shows each call's input and output, as it does a Claude
Code session's: a ``function_call``'s arguments as JSON, an ``apply_patch`` body, the output
text; never the raw rollout record. Rollouts are generated (``RolloutBuilder``)."""

from __future__ import annotations

from pathlib import Path

from tui_sessions import open_drill_down, state_of
from tui_support import app_for, wait_for_state

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.tui.excerpts import read_excerpt


def _rollout(path: Path) -> Path:
    b = RolloutBuilder()
    b.turn("Fix the failing test")
    b.exec("sed -n 1,20p app/main.py", output="def main():\n    return 1\n", exit_code=0)
    b.exec("pytest -q", output="1 failed in 0.2s", exit_code=1, end_first=False)  # the end is its result
    b.patch("*** Update File: app/main.py\n@@\n-    return 1\n+    return 0\n")
    b.say("Fixed.")
    b.done("Fixed.")
    return b.write(path)


def _texts(path: Path) -> dict[tuple[str, str], list[str]]:
    st = state_of(path)
    out: dict[tuple[str, str], list[str]] = {}
    for ev in st.ledgers[0]:
        if ev.kind in ("tool_use", "tool_result"):
            out.setdefault((ev.kind, ev.name or "?"), []).append(read_excerpt(st, ev.anchor, ev.block))
    return out


def test_a_codex_calls_input_and_output_read_back_without_the_record(tmp_path: Path) -> None:
    got = _texts(_rollout(tmp_path / "rollout-2026-03-02T09-00-00-x.jsonl"))
    ins = got[("tool_use", "exec_command")]
    assert ins[0] == '{"cmd": "sed -n 1,20p app/main.py"}'
    outs = got[("tool_result", "exec_command")]
    assert any(o.startswith("Process exited with code 0") and "def main():" in o for o in outs)
    # the failed exec's exec_command_end (its error) reads back as exit code and output
    assert any(o.startswith("exit 1") and "1 failed in 0.2s" in o for o in outs)
    patch_in = got[("tool_use", "apply_patch")][0]
    assert patch_in.startswith("*** Begin Patch") and "*** Update File: app/main.py" in patch_in
    assert got[("tool_result", "apply_patch")] == ["Success."]
    for texts in got.values():
        for t in texts:
            assert '"payload"' not in t and "response_item" not in t and "timestamp" not in t


async def test_the_drill_down_of_a_codex_episode_shows_the_call_not_the_record(tmp_path: Path) -> None:
    path = _rollout(tmp_path / "rollout-2026-03-02T09-00-00-x.jsonl")
    app = app_for([path], tmp_path)
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for_state(pilot)
        screen = await open_drill_down(pilot, app)
        steps = str(screen.query_one("#episode-steps").content)
        assert "sed -n 1,20p app/main.py" in steps and "*** Begin Patch" in steps
        assert "response_item" not in steps and '"payload"' not in steps


def test_the_other_codex_call_shapes_read_as_their_input_and_output() -> None:
    from tracetui.ingest.codex_content import codex_record_text

    def item(**p: object) -> dict[str, object]:
        return {"timestamp": "2026-03-02T09:00:00.000Z", "type": "response_item", "payload": p}

    shell = item(type="local_shell_call", call_id="c1", action={"type": "exec", "command": ["ls", "-la"]})
    assert codex_record_text(shell) == '{"type": "exec", "command": ["ls", "-la"]}'
    assert codex_record_text(item(type="function_call_output", call_id="c1", output={"output": "total 0"})) == "total 0"
    assert codex_record_text(item(type="function_call", name="x", arguments="not json")) == "not json"
    assert codex_record_text({"type": "user", "message": {"content": "hi"}}) is None  # a Claude Code record


async def test_the_file_anchor_names_a_rollouts_day_folders_not_the_day_alone(tmp_path: Path) -> None:
    # trial 11: "file 13/rollout-….jsonl": the folder alone is the day of the month
    day = tmp_path / ".codex" / "sessions" / "2026" / "03" / "02"
    day.mkdir(parents=True)
    path = _rollout(day / "rollout-2026-03-02T09-00-00-x.jsonl")
    app = app_for([path], tmp_path)
    async with app.run_test(size=(140, 50)) as pilot:
        await wait_for_state(pilot)
        screen = await open_drill_down(pilot, app)
        errors = str(screen.query_one("#episode-errors").content)
        assert "\nfile 2026/03/02/rollout-2026-03-02T09-00-00-x.jsonl bytes " in errors, errors


def test_a_file_is_placed_by_its_project_or_its_day() -> None:
    from tracetui.tui.format import file_place

    assert file_place("/h/.claude/projects/-home-dev-shop/1234abcd.jsonl") == "-home-dev-shop/1234abcd.jsonl"
    assert file_place("/h/.codex/sessions/2026/04/13/rollout-x.jsonl", "codex") == "2026/04/13/rollout-x.jsonl"
    assert file_place("/tmp/copies/rollout-x.jsonl", "codex") == "rollout-x.jsonl"
