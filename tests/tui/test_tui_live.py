"""Live: an append to a watched file reaches the panes; the ingest loop coalesces snapshots."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from tui_support import (
    app_for,
    recorded_store_app,
    settings_for,
    small_session,
    sql_on_the_ui_thread,
    wait_for_state,
    wait_until,
)

from tracetui.demo.build import TranscriptBuilder
from tracetui.session.follow import Follow
from tracetui.tui.app import make_app
from tracetui.tui.messages import IngestNotice, SnapshotReady
from tracetui.tui.settings import SessionSpec
from tracetui.tui.widgets.goal import GoalPane
from tracetui.tui.widgets.pending_calls import PendingCalls

# watchdog's inotify backend warns when a folder it already watches is created again
pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")


async def test_append_to_a_watched_file_updates_the_panes(tmp_path: Path) -> None:
    path = tmp_path / "projects" / "-p" / "s.jsonl"
    b = small_session(path)
    app = app_for([path], tmp_path, follow=True, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert view.loop is not None and view.loop.mode == "events"
        assert "pytest -q tests/test_parser.py" in str(view.query_one(PendingCalls).content)
        b.records.clear()
        tid = [c.id for c in view.state.pending][0]
        b.tick(3).tool_result(tid, "1 passed")
        b.tick(1).prompt("Ship it: open the pull request")
        with open(path, "ab") as f:
            f.write(b.data())
        await wait_until(pilot, lambda: view.state.main.prompts == 3, 300, 0.01)
        assert view.state.main.prompts == 3
        await pilot.pause()
        assert "Ship it: open the pull request" in str(view.query_one(GoalPane).content)
        assert "none in flight" in str(view.query_one(PendingCalls).content)


async def test_a_new_subagent_file_is_noticed(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-p"
    path = project / "5e55a0c1-0000-4000-8000-000000000001.jsonl"
    small_session(path)
    app = app_for([path], tmp_path, follow=True, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert len(view.state.sources) == 1
        sub = TranscriptBuilder(agent_id="a1234567")
        sub.prompt("look around")
        sub.tick(1).tool("Glob", {"pattern": "**/*.py"}, "a.py", took=0.1)
        sub.write(project / path.stem / "subagents" / "agent-a1234567.jsonl")
        # the file may be read while it is being written: wait for all of it
        await wait_until(pilot, lambda: len(view.state.sources) == 2 and view.state.agents[0].counters.tool_calls == 1, 300, 0.01)
        assert len(view.state.sources) == 2 and view.state.agents[0].counters.tool_calls == 1


class _Sink:
    """A follow sink that records what it is given, as the app's messages."""

    def __init__(self, key: str = "k") -> None:
        self.key = key
        self.got: list = []
        self.changed = threading.Condition()

    def _put(self, m) -> None:
        with self.changed:
            self.got.append(m)
            self.changed.notify_all()

    def snapshot(self, state, written) -> None:
        self._put(SnapshotReady(self.key, state, written))

    def progress(self, done, total) -> None:
        pass

    def notice(self, level, text) -> None:
        self._put(IngestNotice(self.key, level, text))

    def wait(self, cond, timeout: float = 30.0) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: cond(self.got), timeout)


def test_follow_reads_once_without_follow(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    small_session(path)
    sink = _Sink()
    f = Follow(follow=False)
    try:
        h = f.open("k", [path], sink, use_cache=False)
        assert h.loaded.wait(30)
    finally:
        f.stop()
    snaps = [m for m in sink.got if isinstance(m, SnapshotReady)]
    assert len(snaps) == 1 and snaps[0].key == "k" and snaps[0].state.main.prompts == 2


def test_follow_reports_missing_files_then_folds_them(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    sink = _Sink()
    f = Follow(follow=True, events=False, fallback_poll=0.05)
    try:
        f.open("k", [path], sink, use_cache=False)
        assert sink.wait(lambda got: any(isinstance(m, IngestNotice) for m in got))
        notes = [m for m in sink.got if isinstance(m, IngestNotice)]
        assert notes[0].level == "error" and "no such file" in notes[0].text
        small_session(path)
        assert sink.wait(lambda got: any(isinstance(m, SnapshotReady) and m.state.main.prompts == 2 for m in got))
    finally:
        f.stop()
    assert not any(t.is_alive() for t in f._threads)


def test_a_followed_session_reads_the_files_its_events_name_and_all_of_them_when_woken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a fresh-user trial: a session of 5,000 subagent files, every file looked at (a stat each)
    # at every file event and every poll
    from types import SimpleNamespace

    from fixtures import append, fan_out, jsonl, prompt

    from tracetui.ingest.tail import Tailer

    main = fan_out(tmp_path / "proj", 30)
    sink = _Sink()
    f = Follow(follow=True, events=False, safety_poll=1e6, fallback_poll=1e6)  # woken by the test only
    seen: list[str] = []
    w = f.watcher
    assert w is not None
    told: list[set[str]] = []
    notify = w.notify
    w.notify = lambda keys: (notify(keys), told.append(set(keys)))  # type: ignore[method-assign]
    try:
        h = f.open("k", [main], sink, use_cache=False)
        assert h.loaded.wait(30)
        # settled once the watcher's first notification (of the new key) was handed on and the
        # polls it asked for ended: a quiet moment alone is not enough, as the watcher may have
        # taken the key but not yet handed it on (a loaded CI machine), and the event below would
        # then join that whole-session poll
        for _ in range(3000):
            if told and "k" not in w._hints and not w._dirty and f.idle():
                break
            time.sleep(0.01)
        else:
            pytest.fail("the watcher's first notification was never polled")
        check = Tailer.check
        monkeypatch.setattr(Tailer, "check", lambda t: seen.append(t.path) or check(t))
        one = main.parent / main.stem / "subagents" / "agent-a0000000000000004.jsonl"
        append(one, jsonl([prompt("more", sidechain=True, agentId="a0000000000000004", session=main.stem)]))
        w.dispatch(SimpleNamespace(event_type="modified", src_path=str(one), dest_path=""))
        assert sink.wait(lambda got: sum(isinstance(m, SnapshotReady) for m in got) == 2)
        assert seen == [str(one)]
        assert [m for m in sink.got if isinstance(m, SnapshotReady)][-1].state.agents[
            4
        ].counters.records == 5  # its four and the one appended
        seen.clear()
        f.wake("k")
        for _ in range(3000):
            if len(seen) >= 31:
                break
            time.sleep(0.01)
        assert sorted(seen) == sorted(t.path for t in h.reader.tailers)
    finally:
        f.stop(save=False)


def test_snapshot_message_replaces_only_the_same_session() -> None:
    from tracetui.model.session_fold import fold

    st = fold([])
    a, b, c = SnapshotReady("x", st), SnapshotReady("x", st), SnapshotReady("y", st)
    assert a.can_replace(b) and not a.can_replace(c)


async def test_all_mode_opens_a_tab_for_a_new_session(tmp_path: Path) -> None:
    from tracetui.tui.session_view import SessionView

    first = tmp_path / "projects" / "-p1" / "aaaa1111-0000-4000-8000-000000000001.jsonl"
    small_session(first)
    app = app_for([first], tmp_path, follow=True, watch=True)
    app.settings.all_hours = 24
    app.settings.clock = __import__("time").time  # new sessions are judged "recent" by the real clock
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.pause(0.3)  # the watcher's first listing
        second = tmp_path / "projects" / "-p2" / "bbbb2222-0000-4000-8000-000000000002.jsonl"
        small_session(second)
        # file events wake it at once; the polling fallback within 5 s
        await wait_until(pilot, lambda: len(app.query(SessionView)) == 2, 400, 0.02)
        views = list(app.query(SessionView))
        assert [v.spec.paths[0] for v in views] == [first, second]
        assert app.current_view.spec.paths[0] == first  # a new tab does not steal focus


async def test_live_folding_continues_while_scrubbing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    b = small_session(path)
    app = app_for([path], tmp_path, follow=True, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.press("left_square_bracket")
        assert view.episode == 1
        b.records.clear()
        b.tick(2).prompt("a third prompt arrives while the user looks at episode 1")
        with open(path, "ab") as f:
            f.write(b.data())
        await wait_until(pilot, lambda: view.state.main.prompts == 3, 300, 0.01)
        assert view.state.main.prompts == 3  # folded
        assert view.episode == 1  # still scrubbed
        assert view.shown_state().main.prompts == 1  # the panes still show episode 1
        assert "a third prompt" not in str(view.query_one(GoalPane).content)


async def test_replaced_file_is_folded_again(tmp_path: Path) -> None:
    import os

    path = tmp_path / "s.jsonl"
    small_session(path)
    app = app_for([path], tmp_path, follow=True, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        other = TranscriptBuilder(session_id="0ther000-0000-4000-8000-000000000009")
        other.prompt("a different session now lives at this path")
        other.write(tmp_path / "new.jsonl")
        os.replace(tmp_path / "new.jsonl", path)
        await wait_until(pilot, lambda: view.state.main.prompts == 1 and view.state.sources[0].replaced, 300, 0.01)
        assert view.state.sources[0].replaced == 1
        assert view.state.main.goal.text == "a different session now lives at this path"


async def test_the_demo_session_is_not_cached(tmp_path: Path) -> None:
    # the demo replays into a temporary file removed at quit: a cache save would fail then
    path = tmp_path / "projects" / "-p" / "s.jsonl"
    small_session(path)
    settings = settings_for([path], tmp_path, follow=False, watch=False)
    settings.use_cache = True  # on for the app: the demo tab alone goes without
    settings.sessions[0] = SessionSpec(settings.sessions[0].paths, "demo", demo=True)
    app = make_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        assert view.loop is not None and view.loop.use_cache is False


async def test_an_inline_sidechain_subagent_is_shown_as_inline_not_missing(tmp_path: Path) -> None:
    # an older Claude Code wrote the subagent's records into the main file: the pane said
    # "no transcript file"; it now says where its records are
    import orjson

    from tracetui.tui.widgets.subagents import SubagentsTree

    ask = "List the modules."
    sid = "5e55a0c1-0000-4000-8000-000000000002"

    def rec(kind: str, uuid: str, parent: str | None, content, side: bool = False, **extra) -> bytes:
        msg = {"role": kind, "content": content, **extra}
        return orjson.dumps(
            {
                "type": kind,
                "uuid": uuid,
                "parentUuid": parent,
                "isSidechain": side,
                "sessionId": sid,
                "timestamp": "2026-01-01T00:00:00Z",
                "message": msg,
            }
        )

    lines = [
        rec("user", "p1", None, "go"),
        rec(
            "assistant",
            "a1",
            "p1",
            [{"type": "tool_use", "id": "toolu_task1", "name": "Task", "input": {"description": "modules", "prompt": ask}}],
            id="m1",
            model="x",
        ),
        rec("user", "s1", None, ask, side=True),
        rec("assistant", "s2", "s1", [{"type": "text", "text": "a.py, b.py"}], side=True, id="m2", model="x"),
        rec("user", "r1", "a1", [{"type": "tool_result", "tool_use_id": "toolu_task1", "content": "a.py, b.py"}]),
    ]
    path = tmp_path / "projects" / "-p" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\n".join(lines) + b"\n")
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_state(pilot)
        await pilot.pause()
        tree = app.screen.query_one(SubagentsTree)
        labels = []

        def walk(node) -> None:
            labels.append(str(node.label))
            for child in node.children:
                walk(child)

        walk(tree.root)
        assert any("inline in the main file: 2 records, 0 tool calls, lines 3–4" in l for l in labels), labels
        assert not any("no transcript file" in l for l in labels)


async def test_a_live_update_reads_no_database_on_the_ui_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The UI never waits on I/O: what the panes read of a stored ledger on each new state
    (the context gauge's last API usage) is read on the fold worker's thread, so the UI thread
    runs no SQL statement for a live update (session_feed._read_ahead)."""
    import dataclasses

    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    on_ui = sql_on_the_ui_thread(monkeypatch)
    path = tmp_path / "projects" / "-p" / "s.jsonl"
    b = small_session(path)
    app = make_app(dataclasses.replace(settings_for([path], tmp_path, follow=True, watch=True), use_cache=True))
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await pilot.pause()
        on_ui.clear()
        b.records.clear()
        b.tick(1).prompt("one more thing")
        with open(path, "ab") as f:
            f.write(b.data())
        await wait_until(pilot, lambda: view.state.main.prompts == 3, 300, 0.01)
        await pilot.pause()
        assert view.state.ledgers and type(view.state.ledgers[0]).__name__ == "LedgerView"  # the store's
        assert on_ui == []


async def test_scrubbing_a_stored_history_reads_each_next_step_ahead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The state as of the last completed episode comes with a new state (read on the fold
    worker's thread), and each step back reads the one before it on a worker thread: the steps
    find them kept, equal to what the UI thread would read itself."""

    from tracetui.tui.view_model import state_as_of

    app, on_ui = recorded_store_app(tmp_path, monkeypatch, 6)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        live = view.state
        n = len(live.history)
        assert n == 5 and type(live.history).__name__ == "HistoryView"  # the store's
        assert (n, live.generation) in view._as_of_cache  # came with the state
        on_ui.clear()
        await pilot.press("left_square_bracket")
        assert view.episode == n
        await wait_until(pilot, lambda: (n - 1, live.generation) in view._as_of_cache, 300, 0.01)
        ahead = view._as_of_cache[(n - 1, live.generation)]
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert view.episode == n - 1 and view.shown_state() is ahead
        assert on_ui == []  # both steps found what they show read ahead, panes included
        assert ahead.main.ledger_len == state_as_of(live, n - 1).main.ledger_len


async def test_a_burst_of_scrub_steps_reads_no_database_on_the_ui_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The UI never waits on I/O: 30 ``[`` in one input read (a held key) outrun the read-ahead
    of the next step back; a step whose state as of its episode is not kept yet reads it on a
    worker thread and draws it when it comes, so no SQL runs on the UI thread, and the panes end
    on the episode the keys went to, as the store reads it."""

    from textual import events

    from tracetui.tui.view_model import state_as_of
    from tracetui.tui.widgets.header import SessionHeader

    app, on_ui = recorded_store_app(tmp_path, monkeypatch, 40)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        live = view.state
        n = len(live.history)
        assert n == 39 and type(live.history).__name__ == "HistoryView"  # the store's
        await wait_until(pilot, lambda: view.shown is not None and view.shown.live is live, 300, 0.01)
        on_ui.clear()
        for _ in range(30):
            app.post_message(events.Key("left_square_bracket", "["))
        want = n - 29
        await wait_until(pilot, lambda: view.shown is not None and view.shown.state.main.prompts == want, 500, 0.02)
        await pilot.pause()
        ran = list(on_ui)  # the test's own read below runs on this thread too
        assert view.episode == want and view.shown.episode == want
        assert f"ep {want}/" in str(view.query_one(SessionHeader).content)
        assert view.shown.state.main.ledger_len == state_as_of(live, want).main.ledger_len
        assert ran == []
