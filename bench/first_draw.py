"""Bench: how long the first draw of a big session's state holds the UI thread.

Opens the monitor headless (``App.run_test``) on ``PATH`` (build one with
``python bench/gen.py --mb 200 --mix dense OUT.jsonl``) and reports, for the first state drawn:
the time of ``SessionView.refresh_panes`` and of the Anomalies and Episodes panes' ``show``;
the longest stall of the app's loop from the first draw to 2 s later (the draw and the
screen's render); how many ``redact`` and ``estimate_cost`` calls the UI thread made until then; and a digest
of the two panes' text (every row read), to compare two trees' figures (``--dump`` writes it).

The store is ``$TRACETUI_CACHE_DIR`` (a temporary one unless set): a second run with the same one
opens from the store. ``--tree DIR`` imports tracetui from another checkout (``git archive``),
for a before/after in the same run. Usage: ``python bench/first_draw.py PATH [--tree DIR]
[--dump FILE] [--profile]``. Compare only figures measured in the same run on a loaded machine.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import hashlib
import json
import os
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _counting(calls: list[int], real):
    def counted(*a, **k):
        if threading.current_thread() is threading.main_thread():
            calls.append(1)
        return real(*a, **k)

    return counted


def _timed(cls, name: str, out: dict[str, list[float]], marks: list[float]) -> None:
    """Time ``cls.name`` when its widget's view holds a state; ``marks`` gets each start."""
    real = getattr(cls, name)

    def timed(self, *a, **k):
        if getattr(self, "state", True) is None:  # a view's refresh before its first state
            return real(self, *a, **k)
        t0 = time.perf_counter()
        marks.append(t0)
        try:
            return real(self, *a, **k)
        finally:
            out.setdefault(f"{cls.__name__}.{name}", []).append((time.perf_counter() - t0) * 1000)

    setattr(cls, name, timed)


async def _lag(out: list[tuple[float, float]]) -> None:
    """``(end, ms)`` of each 5 ms sleep's overrun: how long the loop was held."""
    last = time.perf_counter()
    while True:
        await asyncio.sleep(0.005)
        now = time.perf_counter()
        out.append((now, (now - last) * 1000 - 5))
        last = now


async def run(path: Path, profile: bool) -> tuple[dict, dict]:
    from textual.widgets import Static

    import tracetui.ingest.secrets as secrets
    import tracetui.model.pricing as pricing
    from tracetui.tui.app import make_app
    from tracetui.tui.session_view import SessionView
    from tracetui.tui.settings import SessionSpec, Settings
    from tracetui.tui.widgets.anomalies import AnomalyBadges
    from tracetui.tui.widgets.episodes import EpisodesList

    times: dict[str, list[float]] = {}
    marks: list[float] = []
    for cls, name in ((SessionView, "refresh_panes"), (AnomalyBadges, "show"), (EpisodesList, "show")):
        _timed(cls, name, times, marks if cls is SessionView else [])
    redacts: list[int] = []
    prices: list[int] = []
    secrets.redact = _counting(redacts, secrets.redact)
    pricing.estimate_cost = _counting(prices, pricing.estimate_cost)
    prof = cProfile.Profile() if profile else None
    settings = Settings(sessions=[SessionSpec((path,), "bench")], follow=False, watch=False, tick_seconds=3600)
    app = make_app(settings)
    lags: list[tuple[float, float]] = []
    async with app.run_test(size=(160, 50)) as pilot:
        watch = asyncio.ensure_future(_lag(lags))
        t_open = time.perf_counter()
        if prof is not None:
            prof.enable()
        view = None
        for _ in range(12000):  # the fold: at most 10 minutes
            view = app.current_view
            if view is not None and view.state is not None:
                break
            await asyncio.sleep(0.05)
        fold_s = time.perf_counter() - t_open
        await asyncio.sleep(2.0)  # the draw's render, and what follows it
        if prof is not None:
            prof.disable()
        watch.cancel()
        await pilot.pause()
        eps = view.query_one(EpisodesList)
        pane = view.query_one(AnomalyBadges)
        n_redact, n_price = len(redacts), len(prices)
        text = {
            "episodes": [str(eps.get_option_at_index(i).prompt) for i in range(eps.option_count)],
            "episodes_title": str(eps.border_title),
            "anomalies": [str(s.render()) for s in pane.query(Static)],
            "anomalies_title": str(pane.border_title),
            "anomaly_rows": [repr(r) for r in pane.rows],
        }
    t_state = marks[0]
    figures = {
        "fold_s": round(fold_s, 1),
        "episodes": len(text["episodes"]),
        "anomaly_rows": len(text["anomaly_rows"]),
        # the loop held from the first draw to 2 s after it (the draw, its render, the next ticks)
        "longest_stall_ms": round(max(ms for end, ms in lags if t_state <= end <= t_state + 2.0), 1),
        "ui_redact_calls": n_redact,
        "ui_price_calls": n_price,
        **{f"first_{k}_ms": round(v[0], 1) for k, v in times.items() if v},
    }
    if prof is not None:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    return figures, text


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("path", type=Path)
    p.add_argument("--tree", type=Path, help="import tracetui from this checkout instead")
    p.add_argument("--dump", type=Path, help="write the panes' text (JSON) here")
    p.add_argument("--profile", action="store_true", help="cProfile the UI thread from the start to 2 s after the first draw")
    ns = p.parse_args()
    sys.path.insert(0, str((ns.tree or ROOT).resolve()))
    import tracetui

    if os.environ.get("TRACETUI_CACHE_DIR") is None:
        os.environ["TRACETUI_CACHE_DIR"] = tempfile.mkdtemp(prefix="first-draw-")
    figures, text = asyncio.run(run(ns.path, ns.profile))
    blob = json.dumps(text, sort_keys=True).encode()
    figures["text_sha256"] = hashlib.sha256(blob).hexdigest()[:16]
    print(f"tracetui from {Path(tracetui.__file__).parent}")
    print(json.dumps(figures, indent=1))
    if ns.dump:
        ns.dump.write_bytes(blob)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
