"""The first draw of a session of many episodes does work in proportion to what it shows, on the
UI thread: the Episodes pane masks secrets only in the rows it draws, and the Anomalies pane
prices no episode there (the fold worker's read-ahead did, tui/session_feed.py ``_read_ahead``).

A 200 MB session of 2,583 episodes blocked the UI thread ~1.5 s on its first draw (bench/first_draw.py
measures it); these tests pin the mechanisms by counting calls, not by timing. The session comes
from tui_sessions.py ``scrub_session``; nothing is copied from the corpus.
"""

from __future__ import annotations

import threading
from pathlib import Path

from tui_sessions import scrub_session
from tui_support import app_for, wait_for_state, wait_until

import tracetui.ingest.secret_detectors as secret_detectors
import tracetui.ingest.secrets as secrets
import tracetui.model.pricing as pricing
from tracetui.tui import format as tui_format
from tracetui.tui.view_model import anomaly_rows
from tracetui.tui.widgets.anomalies import AnomalyBadges
from tracetui.tui.widgets.episodes import EpisodesList, episode_line

EPISODES = 2_000


def _on_ui_thread(calls: list[str], real):
    def counted(*a, **k):
        if threading.current_thread() is threading.main_thread():  # the app's loop (run_test)
            calls.append(str(a[0]) if a else "")
        return real(*a, **k)

    return counted


async def test_the_first_draw_masks_the_rows_shown_and_prices_nothing_on_the_ui_thread(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "s.jsonl"
    scrub_session(path, EPISODES)
    tui_format._remembered.cache_clear()  # masked texts kept by another test are not masked again
    redacts: list[str] = []
    prices: list[str] = []
    monkeypatch.setattr(secrets, "redact", _on_ui_thread(redacts, secrets.redact))
    monkeypatch.setattr(pricing, "estimate_cost", _on_ui_thread(prices, pricing.estimate_cost))
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot, tries=3000)
        await wait_until(pilot, lambda: view.shown is not None and view.shown.live is view.state, 300, 0.02)
        await pilot.pause()
        episodes = view.query_one(EpisodesList)
        pane = view.query_one(AnomalyBadges)
        assert episodes.option_count == EPISODES
        asks = [t for t in redacts if t.startswith("Episode ")]
        # the rows on screen (and the Goal and Now panes' ask), not one per episode
        assert 0 < len(asks) <= episodes.size.height + 10, len(asks)
        assert prices == []  # every episode was priced on the fold worker's thread
        assert "computing" not in str(pane.border_title)
        assert any(r.kind == "cost_spike" for r in pane.rows)
        # the same figures as when every row and anomaly was made at once
        shown = view.shown
        want, _ = anomaly_rows(shown.state, shown.now, shown.live)
        assert pane.rows == want
        width = max(20, episodes.scrollable_content_region.width)
        sel = shown.episode
        for i, row in enumerate(view.rows):
            got = episodes.get_option_at_index(i).prompt
            assert got == episode_line(row, width, sel == row.index, "idle" if shown.activity != "live" else "live", shown.now), i


async def test_a_live_state_not_priced_ahead_is_priced_on_the_panes_thread(tmp_path: Path, monkeypatch) -> None:
    # without the read-ahead (or its kept anomalies dropped for other states'), the pane says
    # it is computing and draws them when its thread has them: the UI thread still prices nothing
    from tracetui.tui import session_feed

    path = tmp_path / "s.jsonl"
    scrub_session(path, 500)
    prices: list[str] = []
    monkeypatch.setattr(session_feed, "_read_ahead", lambda state, anomalies=True: None)
    monkeypatch.setattr(pricing, "estimate_cost", _on_ui_thread(prices, pricing.estimate_cost))
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot, tries=3000)
        pane = view.query_one(AnomalyBadges)
        await wait_until(pilot, lambda: view.shown is not None and "computing" not in str(pane.border_title), 300, 0.02)
        assert prices == []
        assert "computing" not in str(pane.border_title)
        shown = view.shown
        want, _ = anomaly_rows(shown.state, shown.now, shown.live)
        assert pane.rows == want and any(r.kind == "cost_spike" for r in want)


async def test_the_masking_detectors_are_loaded_off_the_ui_thread(tmp_path: Path, monkeypatch) -> None:
    # (no "secret" in the test's name: its tmp_path, drawn in the header, would load them)
    # a session opened from the store masks nothing while it is read: its first draw loaded
    # the detectors (detect-secrets' imports) on the UI thread
    from tracetui.demo.build import TranscriptBuilder

    path = tmp_path / "s.jsonl"
    b = TranscriptBuilder()
    b.tick(1).prompt("deploy with the token ghp_" + "a1B2" * 9 + " please")
    b.tick(1).text("Done.")
    b.write(path)
    loads: list[str] = []
    monkeypatch.setattr(secret_detectors, "_RULES", None)
    monkeypatch.setattr(secret_detectors, "_KEYWORDS", None)
    monkeypatch.setattr(secret_detectors, "use_rules", _on_ui_thread(loads, secret_detectors.use_rules))
    tui_format._remembered.cache_clear()
    app = app_for([path], tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await wait_for_state(pilot)
        await wait_until(pilot, lambda: view.shown is not None, 300, 0.02)
        await pilot.pause()
        assert secret_detectors.rules_loaded()
        assert "ghp_" not in str(view.query_one(EpisodesList).get_option_at_index(0).prompt)
    assert loads == []
