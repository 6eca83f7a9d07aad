"""The monitor's start-up settings (theme) and its Counters pane cost line."""

from __future__ import annotations

from tracetui.model.session_fold import fold_bytes

PROMPT = b'{"type":"user","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}'


def test_counters_pane_writes_cost_as_the_headless_outputs() -> None:
    import msgspec

    from tracetui.model.pricing import PLAIN_COST_NOTE
    from tracetui.tui.widgets.counters import CountersPane
    from tracetui.tui.widgets.pane import Shown
    from tracetui.views.state_json import state_summary

    st = msgspec.structs.replace(fold_bytes(PROMPT + b"\n"), cost_usd=0.00004, cost_note=PLAIN_COST_NOTE)
    pane = CountersPane().build(Shown(st, st, None, 0.0, ())).plain
    assert "cost $0.00 (estimate)" in pane and "~" not in pane
    assert "cost     $0.00 (estimate)" in state_summary(st)


def test_unknown_theme_is_one_line_naming_it_and_the_themes_exit_2(capsys) -> None:
    from tracetui.tui.main import run_app

    assert run_app(["--theme", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'nosuch'" in err and "nord" in err and "textual-dark" in err


def test_a_known_theme_is_kept() -> None:
    from tracetui.tui.main import build_settings

    assert build_settings(["--demo", "--theme", "nord"]).theme == "nord"


def test_the_header_says_a_deleted_transcript_is_gone(tmp_path) -> None:
    # found by the third tester: a followed file deleted kept showing LIVE
    from tracetui.demo.build import write_demo
    from tracetui.session.reader import SessionReader
    from tracetui.tui.widgets.pane import Shown

    main, _ = write_demo(tmp_path)
    r = SessionReader([main])
    r.poll()
    st = r.snapshot()
    assert Shown(st, st, None, 0.0, (), written=0.0, clock=1.0).live_status == "LIVE"
    main.unlink()
    r.poll()
    gone = r.snapshot()
    assert Shown(gone, gone, None, 0.0, (), written=0.0, clock=1.0).live_status == "GONE"
