"""Bench: the time to apply one update to the app with 100k events folded (target ≤ 50 ms).

Builds a session of about 100,000 ledger events with the project's own transcript builder
(200 episodes, ~500 events each, 300 files, a few errors), folds it, opens the app headless on
it, then repeats: append one record, fold it (the worker's part, timed apart), and apply the new
snapshot to the app (the UI's part: the watcher fans it out to every pane) until the screen is
idle again (CPU time of the process: waiting for idle sleeps, which is not work). Prints the
median and worst of each; then the end-to-end latency from an append to the watched file to the
state in the app (target ≤ 100 ms). Run: ``python bench/ui.py [--events N] [--updates N]``.

``--fleet N`` measures the fleet screen instead (issue 12: 200 sessions, one update ≤ 50 ms):
N generated sessions in every state, folded, the app opened headless on the fleet screen; then
each update is one session's new snapshot (its facts computed as a fold worker does, timed apart)
and the clock one second on, applied to the screen until it is idle (CPU time); every fifth
update turns a session's state so the rows are sorted again (the table rebuilt).

``--scrub N`` measures scrubbing instead (third tester, F8: ~1 s a step on 2,583 episodes): a
session of N short episodes (default 2,500; one far costlier than the rest, a cost spike), folded
through the session store as the monitor does, the app opened headless; then one step is a key
(``[``, some ``]``, ``w`` a worker-view copy, ``l`` back to live) applied until the screen is idle
(CPU ms of the process; the copy, compiled on a worker thread, until its notification); and a burst of 30 ``[`` posted at once: milliseconds until the panes show where it
lands, and how many times they were drawn.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tracetui.demo.build import TranscriptBuilder  # noqa: E402
from tracetui.session.reader import SessionReader  # noqa: E402
from tracetui.tui.app import make_app  # noqa: E402
from tracetui.tui.settings import SessionSpec, Settings  # noqa: E402


def build(path: Path, events: int) -> TranscriptBuilder:
    """A transcript of about ``events`` ledger events (one per content block / record)."""
    b = TranscriptBuilder(context=20_000)
    per_episode = 500
    episodes = max(1, events // per_episode)
    n = 0
    for e in range(episodes):
        b.tick(30).prompt(f"Episode {e}: refactor module {e % 40} and keep the tests green")
        n += 1
        while n < (e + 1) * per_episode - 3:
            k = n % 300
            if n % 7 == 0:
                b.tick(1).tool(
                    "Edit",
                    {"file_path": f"/home/dev/shop-api/src/m{k}.py", "old_string": "a", "new_string": "b"},
                    "The file has been updated.",
                    took=0.3,
                )
            elif n % 11 == 0:
                b.tick(1).tool(
                    "Bash",
                    {"command": f"pytest -q tests/test_m{k}.py"},
                    "Exit code 1\n1 failed" if n % 44 == 0 else "3 passed",
                    is_error=n % 44 == 0,
                    took=2,
                )
            else:
                b.tick(1).tool("Read", {"file_path": f"/home/dev/shop-api/src/m{k}.py"}, "def f(): ...", took=0.2)
            n += 2
        b.tick(1).text(f"Episode {e} done.")
        n += 1
        b.context = 20_000 + (e % 50) * 2_000
    b.write(path)
    return b


async def _first_view(app, pilot, tries: int):
    """The current session view once it holds a state (waits ``tries`` × 50 ms at most)."""
    for _ in range(tries):
        view = app.current_view
        if view is not None and view.state is not None:
            break
        await pilot.pause(0.05)
    return app.current_view


async def run(path: Path, b: TranscriptBuilder, updates: int) -> tuple[list[float], list[float], list[float], int]:
    reader = SessionReader(path)
    reader.poll()
    state = reader.snapshot()
    events = len(state.ledgers[0])
    clock = [time.time()]
    settings = Settings(
        sessions=[SessionSpec((path,), "bench")], follow=False, watch=False, use_cache=False, clock=lambda: clock[0], tick_seconds=3600
    )
    app = make_app(settings)
    fold_ms: list[float] = []
    sync_ms: list[float] = []
    ui_ms: list[float] = []
    async with app.run_test(size=(160, 50)) as pilot:
        view = await _first_view(app, pilot, 500)
        await pilot.pause()
        for i in range(updates):
            b.records.clear()
            if i % 2:
                b.tick(1).text(f"update {i}")
            else:
                b.tick(1).tool_use("Bash", {"command": f"sleep {i}"})
            with open(path, "ab") as f:
                f.write(b.data())
            t0 = time.perf_counter()
            reader.poll()
            st = reader.snapshot()
            t1 = time.perf_counter()
            c1 = time.process_time()
            view.state = st  # what on_snapshot_ready does: the watcher fans out to the panes
            t2 = time.perf_counter()
            await pilot.pause()  # until the app has rendered what the update changed
            c2 = time.process_time()
            clock[0] += 1
            fold_ms.append((t1 - t0) * 1000)
            sync_ms.append((t2 - t1) * 1000)
            # CPU time, not wall time: waiting for idle sleeps in 20 ms steps, which is no work
            ui_ms.append((c2 - c1) * 1000)
    return fold_ms, sync_ms, ui_ms, events


async def latency(path: Path, b: TranscriptBuilder, appends: int) -> list[float]:
    """Milliseconds from appending a record to the watched file until the app's view holds the
    state that includes it (watchdog event → ingest thread → coalesced snapshot → watcher)."""
    settings = Settings(sessions=[SessionSpec((path,), "bench")], follow=True, watch=True, use_cache=False, tick_seconds=3600)
    app = make_app(settings)
    out: list[float] = []
    async with app.run_test(size=(160, 50)) as pilot:
        view = await _first_view(app, pilot, 1000)
        await pilot.pause(0.5)
        for i in range(appends):
            b.records.clear()
            b.tick(1).text(f"latency {i}")
            want = view.state.main.ledger_len + 1
            t0 = time.perf_counter()
            with open(path, "ab") as f:
                f.write(b.data())
            while view.state.main.ledger_len < want:
                await asyncio.sleep(0.001)
            out.append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.3)  # appends a human-visible time apart (coalescing is tested elsewhere)
    return out


async def fleet(n: int, updates: int) -> tuple[list[float], list[float], list[float]]:
    """``(facts_ms, tick_ms, update_ms)``: a session's facts from its new state (the fleet thread's
    part), a clock tick of the whole fleet, and a new snapshot plus a tick, each applied until
    the screen is idle (CPU ms)."""
    sys.path.insert(0, str(ROOT / "tests" / "fleet"))
    import fleet_support as fs

    from tracetui.tui.screens.fleet import FleetScreen

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        now = 1_800_000_000.0
        paths = []
        for i in range(n):
            name, after, cwd, _ = fs.FLEET[i % len(fs.FLEET)]
            sid = f"{i:08x}-f1ee-4000-8000-{i:012d}"
            b = fs.at(name, after + i % 50, now, sid, f"{cwd}-{i}")
            paths.append(fs.write(b, root, f"-p{i}", sid))
        clock = [now]
        settings = Settings(
            sessions=[SessionSpec((p,), p.stem[:8]) for p in paths],
            follow=False,
            watch=False,
            use_cache=False,
            clock=lambda: clock[0],
            tick_seconds=3600,
            fleet_first=True,
            projects_root=root / "projects",
        )
        app = make_app(settings)
        facts_ms: list[float] = []
        tick_ms: list[float] = []
        update_ms: list[float] = []
        async with app.run_test(size=(160, 50)) as pilot:
            for _ in range(6000):
                if isinstance(app.screen, FleetScreen) and len(app.fleet_feed.pairs()) == n and len(app.views) == n:
                    break
                await pilot.pause(0.05)
            screen = app.screen
            assert isinstance(screen, FleetScreen), "no fleet screen"
            screen.refresh_rows()
            await pilot.pause(1.0)  # the last tabs' layout
            states = [fs.state_of(p) for p in paths[:updates]]
            for i in range(updates):
                clock[0] += 1
                c0 = time.process_time()
                screen.refresh_rows()
                await pilot.pause()
                tick_ms.append((time.process_time() - c0) * 1000)
                key = str(paths[i])
                st = states[i]
                t0 = time.perf_counter()
                written = now + (10_000 if i % 5 == 0 else 0)  # every fifth: its state turns (a re-sort)
                app.fleet_feed.compute(key, st, written)  # what the feed's thread does with a snapshot
                facts_ms.append((time.perf_counter() - t0) * 1000)
                c0 = time.process_time()
                screen.refresh_rows()
                await pilot.pause()
                update_ms.append((time.process_time() - c0) * 1000)
        return facts_ms, tick_ms, update_ms


def scrub_session(path: Path, episodes: int) -> TranscriptBuilder:
    """``episodes`` prompts of a read, a command and an answer (by another model) each; episode 6
    costs far more than the others (a cost spike the anomalies pane lists)."""
    b = TranscriptBuilder(context=20_000)
    for e in range(1, episodes + 1):
        b.context = 5_000_000 if e == 6 else 20_000 + e * 37  # every episode its own usage, as real ones
        b.tick(30).prompt(f"Episode {e}: tidy module {e % 40}")
        b.tick(1).tool("Read", {"file_path": f"/home/dev/shop-api/src/m{e % 300}.py"}, "def f(): ...", took=0.2)
        b.tick(1).tool("Bash", {"command": f"pytest -q tests/test_m{e % 300}.py"}, "3 passed", took=1)
        main, b.model = b.model, "claude-haiku-4-5-20251001"
        b.tick(1).text(f"Episode {e} done.")  # a second model: two usage buckets an episode, as the F8 session had
        b.model = main
    b.write(path)
    return b


async def scrub(path: Path, steps: int, export: Path) -> tuple[dict[str, list[float]], float, int, int]:
    """``(cpu ms per key, burst ms, burst draws, episodes)``: see the module docstring."""
    from textual import events

    settings = Settings(
        sessions=[SessionSpec((path,), "bench")], follow=False, watch=False, use_cache=True, tick_seconds=3600, export_dir=export
    )
    app = make_app(settings)
    out: dict[str, list[float]] = {"[": [], "]": [], "w": [], "l": []}
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _first_view(app, pilot, 6000)
        await pilot.pause(0.5)
        n = view.completed()
        plan = ["["] * steps + ["]"] * (steps // 3) + ["w", "l"] + ["["] * 3 + ["w", "l"]
        names = {"[": "left_square_bracket", "]": "right_square_bracket", "w": "w", "l": "l"}
        for key in plan:
            c0 = time.process_time()
            before = list(app._notifications)[-1:]
            await pilot.press(names[key])
            await pilot.pause()
            if key == "w":  # the copy is compiled on a worker thread: until its notification
                while list(app._notifications)[-1:] == before:
                    await asyncio.sleep(0.001)
            out[key].append((time.process_time() - c0) * 1000)
        draws: list[int | None] = []
        real = view.refresh_panes

        def counted() -> None:
            draws.append(view.episode)
            real()

        view.refresh_panes = counted
        want = n - 29
        t0 = time.perf_counter()
        for _ in range(30):
            app.post_message(events.Key("left_square_bracket", "["))
        while view.shown is None or view.shown.episode != want:
            await asyncio.sleep(0.001)
        burst = (time.perf_counter() - t0) * 1000
    return out, burst, len(draws), n


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--events", type=int, default=100_000)
    p.add_argument("--updates", type=int, default=30)
    p.add_argument("--appends", type=int, default=15, help="appends for the end-to-end latency (0: skip)")
    p.add_argument("-v", action="store_true", help="print every measurement")
    p.add_argument("--fleet", type=int, default=0, metavar="N", help="measure the fleet screen with N sessions instead (issue 12: 200)")
    p.add_argument("--scrub", type=int, default=0, metavar="N", help="measure scrubbing on a session of N episodes instead (F8: 2,500)")
    ns = p.parse_args()
    if ns.scrub:
        with tempfile.TemporaryDirectory() as d:
            import os

            os.environ["TRACETUI_CACHE_DIR"] = str(Path(d) / "cache")
            path = Path(d) / "scrub-session.jsonl"
            t = time.perf_counter()
            scrub_session(path, ns.scrub)
            print(f"built {path.stat().st_size / 1e6:.1f} MB, {ns.scrub:,} episodes in {time.perf_counter() - t:.1f} s")
            per_key, burst, draws, n = asyncio.run(scrub(path, ns.updates, Path(d) / "exports"))
        if ns.v:
            print({k: [round(x) for x in v] for k, v in per_key.items()})
        steps = per_key["["] + per_key["]"]
        print(f"{n:,} completed episodes; {len(steps)} scrub steps ([ and ])")
        print(
            f"UI: one scrub step incl. layout and render (CPU): median {statistics.median(steps):.1f} ms, worst {max(steps):.1f} ms"
            f" (target <= 50 ms: {'met' if max(steps) <= 50 else 'median met, worst NOT' if statistics.median(steps) <= 50 else 'NOT met'})"
        )
        for key, what in (("w", "worker-view copy"), ("l", "back to live")):
            print(f"UI: {what} ({key}) (CPU): median {statistics.median(per_key[key]):.1f} ms, worst {max(per_key[key]):.1f} ms")
        print(f"UI: a burst of 30 [ posted at once: on screen after {burst:.0f} ms, panes drawn {draws} time(s)")
        return 0
    if ns.fleet:
        facts_ms, tick_ms, update_ms = asyncio.run(fleet(ns.fleet, ns.updates))
        if ns.v:
            print("update ms:", [round(x) for x in update_ms])
        med, worst = statistics.median(update_ms), max(update_ms)
        print(f"fleet of {ns.fleet} sessions, {ns.updates} updates (a new snapshot of one session, the clock 1 s on)")
        print(
            f"fleet thread: a session's facts from its new state: median {statistics.median(facts_ms):.1f} ms, worst {max(facts_ms):.1f} ms"
        )
        print(f"UI: a clock tick of the whole fleet (CPU): median {statistics.median(tick_ms):.1f} ms, worst {max(tick_ms):.1f} ms")
        print(
            f"UI: apply one update incl. re-sort, layout and render (CPU): median {med:.1f} ms, worst {worst:.1f} ms"
            f" (target <= 50 ms: {'met' if worst <= 50 else 'median met, worst NOT' if med <= 50 else 'NOT met'})"
        )
        return 0
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bench-session.jsonl"
        t = time.perf_counter()
        b = build(path, ns.events)
        print(f"built {path.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t:.1f} s")
        fold_ms, sync_ms, ui_ms, events = asyncio.run(run(path, b, ns.updates))
        lat = asyncio.run(latency(path, b, ns.appends)) if ns.appends else []
    med = statistics.median(ui_ms)
    if "-v" in sys.argv:
        print("fan-out ms:", [round(x) for x in sync_ms])
        print("apply ms:", [round(x) for x in ui_ms])
    print(f"events folded: {events:,}; {ns.updates} updates (each: one appended record)")
    print(f"worker thread: fold one record + snapshot: median {statistics.median(fold_ms):.1f} ms, worst {max(fold_ms):.1f} ms")
    print(f"UI: state -> panes (watcher fan-out): median {statistics.median(sync_ms):.1f} ms, worst {max(sync_ms):.1f} ms")
    print(
        f"UI: apply one update incl. layout and render (CPU): median {med:.1f} ms, worst {max(ui_ms):.1f} ms (target <= 50 ms: {'met' if med <= 50 else 'NOT met'})"
    )
    if lat:
        if ns.v:
            print("latency ms:", [round(x) for x in lat])
        print(
            f"end to end: append -> state in the app: median {statistics.median(lat):.0f} ms, worst {max(lat):.0f} ms (target <= 100 ms: {'met' if max(lat) <= 100 else 'NOT met'})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
