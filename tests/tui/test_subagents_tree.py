"""The Subagents pane brought up to date in place: an entry whose lines did not change keeps its
node (and the user's collapse of it); the tree reads as one built afresh from the same state."""

from __future__ import annotations

import time
from pathlib import Path

from fixtures import append, fan_out, jsonl, prompt, tool_call
from textual.app import App, ComposeResult

from tracetui.demo.transcript import TranscriptBuilder
from tracetui.model.state import RunState
from tracetui.session.open import load_state
from tracetui.tui.widgets.pane import Shown
from tracetui.tui.widgets.subagents import SubagentsTree


class _TwoTrees(App[None]):
    def compose(self) -> ComposeResult:
        yield SubagentsTree(id="kept")
        yield SubagentsTree(id="fresh")


def _shown(st: RunState) -> Shown:
    now = time.time()
    return Shown(st, st, None, now, (), written=now, clock=now)


def _lines(tree: SubagentsTree) -> list[tuple[int, str, bool, object]]:
    """Each line of the tree: its depth, label, whether it is expanded, and its node's data."""
    return [(len(line.path), line.node.label.plain, line.node.is_expanded, line.node.data) for line in tree._tree_lines]


def _state(main: Path) -> RunState:
    return load_state([main], use_cache=False)[1]


def _subagent_file(main: Path, i: int) -> Path:
    return main.parent / main.stem / "subagents" / f"agent-a{i:016x}.jsonl"


async def _same_as_fresh(app: _TwoTrees, st: RunState) -> list[tuple[int, str, bool, object]]:
    kept, fresh = app.query_one("#kept", SubagentsTree), app.query_one("#fresh", SubagentsTree)
    kept.show(_shown(st))
    fresh.clear()
    fresh._rows, fresh._key = [], None
    fresh.show(_shown(st))
    assert _lines(kept) == _lines(fresh)
    assert kept.fold() == fresh.fold() and kept.border_title == fresh.border_title
    return _lines(kept)


async def test_a_subagents_new_call_remakes_its_entry_alone(tmp_path: Path) -> None:
    main = fan_out(tmp_path / "proj", 6)
    app = _TwoTrees()
    async with app.run_test(size=(120, 40)):
        before = await _same_as_fresh(app, _state(main))
        tree = app.query_one("#kept", SubagentsTree)
        nodes = list(tree.root.children)
        leaves = [n.children[0] for n in nodes]
        third = _subagent_file(main, 3)
        append(third, jsonl([tool_call("extra-call", "Bash", {"command": "ls"}, sidechain=True, agentId=f"a{3:016x}", session=main.stem)]))
        after = await _same_as_fresh(app, _state(main))
        assert after != before
        assert list(tree.root.children) == nodes  # the same nodes, in the same order
        for i, node in enumerate(tree.root.children):
            # every entry but the third keeps the node beneath it: it was not made again
            assert (node.children[0] is leaves[i]) == (i != 3), i
        assert "2 calls" in tree.root.children[3].children[0].label.plain
        assert "1 pending" in tree.root.children[3].children[0].label.plain


async def test_an_entry_the_user_collapsed_stays_collapsed_when_another_changes(tmp_path: Path) -> None:
    main = fan_out(tmp_path / "proj", 4)
    app = _TwoTrees()
    async with app.run_test(size=(120, 40)):
        tree = app.query_one("#kept", SubagentsTree)
        tree.show(_shown(_state(main)))
        tree.root.children[0].collapse()
        append(_subagent_file(main, 2), jsonl([prompt("more", sidechain=True, agentId=f"a{2:016x}", session=main.stem)]))
        tree.show(_shown(_state(main)))
        assert not tree.root.children[0].is_expanded
        assert tree.root.children[1].is_expanded


async def test_a_new_call_is_added_after_the_entries_shown(tmp_path: Path) -> None:
    b = TranscriptBuilder(session_id="5e55a0c1-0000-4000-8000-0000000000aa")
    b.prompt("Explore")
    for i in range(3):
        b.tick(1).tool_use("Task", {"description": f"explore {i}", "prompt": f"Read {i}", "subagent_type": "Explore"})
    main = b.write_session(tmp_path / "proj")
    app = _TwoTrees()
    async with app.run_test(size=(120, 40)):
        first = await _same_as_fresh(app, _state(main))
        assert [line for line in first if line[0] == 1][0][1].startswith("Task explore 0")
        tree = app.query_one("#kept", SubagentsTree)
        nodes = list(tree.root.children)
        b.records.clear()
        b.tick(1).tool_use("Task", {"description": "explore 3", "prompt": "Read 3", "subagent_type": "Explore"})
        append(main, b.data())
        await _same_as_fresh(app, _state(main))
        assert list(tree.root.children)[:3] == nodes and len(tree.root.children) == 4
        assert tree.fold().entries == 4 and tree.border_title.startswith("Subagents (4)")


async def test_no_subagents_then_one_and_back_to_a_state_without(tmp_path: Path) -> None:
    b = TranscriptBuilder(session_id="5e55a0c1-0000-4000-8000-0000000000bb")
    b.prompt("Just answer")
    b.tick(1).text("Done.")
    plain = b.write_session(tmp_path / "plain")
    with_one = fan_out(tmp_path / "one", 1)
    app = _TwoTrees()
    async with app.run_test(size=(120, 40)):
        assert [line[1] for line in await _same_as_fresh(app, _state(plain))] == ["no subagents"]
        assert len(await _same_as_fresh(app, _state(with_one))) == 2
        assert [line[1] for line in await _same_as_fresh(app, _state(plain))] == ["no subagents"]


async def test_the_title_counts_every_entry_the_more_count_does(tmp_path: Path) -> None:
    # trial 13: 300 Task calls without an agentId and 300 transcripts no call links read
    # "Subagents (300) +597 more": the title counted the calls, "+N more" the entries of both kinds
    b = TranscriptBuilder(session_id="5e55a0c1-0000-4000-8000-0000000000cc")
    b.prompt("Fan out")
    for i in range(20):
        b.tick(1).tool("Task", {"description": f"job {i}", "prompt": f"Do {i}"}, "done", took=0.5)
    main = b.write_session(tmp_path / "proj")
    for i in range(20):
        f = main.parent / main.stem / "subagents" / f"agent-b{i:016x}.jsonl"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(jsonl([prompt(f"other work {i}", sidechain=True, agentId=f"b{i:016x}", session=main.stem)]))
    app = _TwoTrees()
    async with app.run_test(size=(120, 12)) as pilot:
        tree = app.query_one("#kept", SubagentsTree)
        tree.show(_shown(_state(main)))
        await pilot.pause()
        title = str(tree.border_title)
        assert title.startswith("Subagents (20, 20 unlinked) +"), title
        shown = len(tree.root.children) - tree.hidden()
        assert 0 < shown < 40 and title == f"Subagents (20, 20 unlinked) +{40 - shown} more", title
        assert tree.fold() == ("Subagents (20, 20 unlinked)", 40, tree.root.children[0].label.plain)
