"""Unit tests of the TUI's pure parts: formatters, export, start-up settings, the demo."""

from __future__ import annotations

import base64
import os
import re
from datetime import datetime
from pathlib import Path

import orjson
import pytest
from tui_support import FROZEN_NOW, demo_session, small_session

from tracetui.demo.build import DEMO_SESSION_ID, build_demo, subagent_meta
from tracetui.demo.replay import DemoReplay, demo_files
from tracetui.session.reader import SessionReader
from tracetui.tui.export import cap_text, osc52, tmux_wrap, write_export
from tracetui.tui.format import age_of, clean, data, fmt_age, fmt_bytes, fmt_tokens, fmt_usd, one_line, short_path
from tracetui.tui.main import build_settings
from tracetui.tui.view_model import anomaly_rows, context_usage, episode_rows, state_as_of


# -- text is data ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "raw, want",
    [
        # one rule with the headless views (tracetui.views.safe): each control shown, one for one
        ("\x1b[31mred\x1b[0m", "␛[31mred␛[0m"),
        ("a\x1b]0;title\x07b", "a␛]0;title␇b"),
        ("a\x1b]52;c;Zm9v\x1b\\b", "a␛]52;c;Zm9v␛\\b"),
        ("x\x1bPtmux;evil\x1b\\y", "x␛Ptmux;evil␛\\y"),
        ("bell\x07 nul\x00 del\x7f c1\x9b31m", "bell␇ nul␀ del␡ c1\ufffd31m"),
        ("tab\there", "tab    here"),
        ("[bold]kept[/bold]", "[bold]kept[/bold]"),
    ],
)
def test_clean_strips_terminal_control_sequences(raw: str, want: str) -> None:
    assert clean(raw) == want


def test_data_text_is_never_markup() -> None:
    t = data("[bold red]x[/] [link=file:///etc/passwd]y[/link]")
    assert t.plain == "[bold red]x[/] [link=file:///etc/passwd]y[/link]"
    assert not t.spans


def test_formatters() -> None:
    assert one_line("a\n  b\tc", 0) == "a b c"
    assert one_line("abcdef", 4) == "abc…"
    assert [fmt_age(s) for s in (None, 4.4, 4.6, 125, 3720, 90000)] == ["?", "4s", "5s", "2m05s", "1h02m", "1d01h"]
    assert [fmt_tokens(n) for n in (950, 12_345, 4_560_000)] == ["950", "12.3k", "4.56M"]
    assert fmt_bytes(512) == "512 B" and fmt_bytes(2048) == "2.0 KiB"  # binary units, labelled so
    assert fmt_usd(None) == "?" and fmt_usd(1.234) == "$1.23" and fmt_usd(0.00004) == "$0.00"
    assert short_path("/w/p/a.py", "/w/p") == "a.py" and short_path("/x/a.py", "/w/p") == "/x/a.py"


# -- export ----------------------------------------------------------------------------------
def test_osc52_and_tmux_passthrough() -> None:
    seq = osc52("héllo")
    assert seq == "\x1b]52;c;" + base64.b64encode("héllo".encode()).decode() + "\a"
    wrapped = tmux_wrap(seq)
    assert wrapped.startswith("\x1bPtmux;\x1b\x1b]52;c;") and wrapped.endswith("\a\x1b\\")
    assert wrapped.count("\x1b") == 4  # the inner ESC doubled, plus the DCS and its ST


def test_tmux_copy_writes_the_wrapped_sequence(monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.tui.app import TraceApp
    from tracetui.tui.settings import Settings

    written: list[str] = []

    class Driver:
        def write(self, s: str) -> None:
            written.append(s)

    app = TraceApp(Settings())
    app._driver = Driver()  # type: ignore[assignment]
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    app.copy_to_clipboard("card")
    assert app.clipboard == "card"
    assert written == [osc52("card"), tmux_wrap(osc52("card"))]
    monkeypatch.delenv("TMUX")
    written.clear()
    app.copy_to_clipboard("x")
    assert written == [osc52("x")]


def test_cap_text_keeps_utf8_whole_and_names_the_file(tmp_path: Path) -> None:
    text = "é" * 1000
    out, cut = cap_text(text, 200, tmp_path / "f.txt")
    assert cut and len(out.encode()) <= 200 and str(tmp_path / "f.txt") in out
    assert cap_text("short", 200) == ("short", False)


def test_write_export_names_scope(tmp_path: Path) -> None:
    p = write_export("x", "card", "ab/cd", 3, tmp_path / "e")
    assert p.name == "ab_cd-card-ep3.txt" and p.read_text() == "x\n"  # trial 13: a final newline, as a text file has
    assert write_export("z\n", "card", "ab/cd", 3, tmp_path / "e").read_text() == "z\n"  # not a second one
    assert write_export("y", "worker", "s", None, tmp_path / "e").name == "s-worker-live.txt"


# -- start-up --------------------------------------------------------------------------------
def test_no_sessions_plays_the_demo_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    s = build_settings([])
    assert s.demo and not s.sessions and "playing the bundled demo" in s.demo_reason
    assert str(tmp_path / "claude" / "projects") in s.demo_reason


def test_newest_session_by_default_and_paths_one_tab_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    old = root / "projects" / "-a" / "11111111-0000-4000-8000-000000000001.jsonl"
    new = root / "projects" / "-b" / "22222222-0000-4000-8000-000000000002.jsonl"
    small_session(old)
    small_session(new)
    os.utime(old, (FROZEN_NOW - 7200, FROZEN_NOW - 7200))
    os.utime(new, (FROZEN_NOW - 60, FROZEN_NOW - 60))
    s = build_settings([])
    assert [sp.paths[0] for sp in s.sessions] == [new] and not s.demo
    s = build_settings([str(old), "22222222"])
    assert [sp.paths[0] for sp in s.sessions] == [old, new]
    s = build_settings(["--all", "--hours", "1"], now=FROZEN_NOW)
    assert [sp.paths[0] for sp in s.sessions] == [new]
    s = build_settings(["--all", "--hours", "3"], now=FROZEN_NOW)
    assert {sp.paths[0] for sp in s.sessions} == {old, new}
    s = build_settings(["--all", "--hours", "0.001"], now=FROZEN_NOW)
    assert s.demo and "No session was active" in s.demo_reason
    s = build_settings(["--demo", str(old)])
    assert s.demo and [sp.paths[0] for sp in s.sessions] == [old]


def test_all_opens_one_tab_for_a_session_in_two_project_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # trial 12: a copy of a transcript under another project folder (the same session id) was
    # a second tab, while the fleet shows it as one row, read from the larger file
    root = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    sid = "33333333-0000-4000-8000-000000000003"
    first = root / "projects" / "-a" / f"{sid}.jsonl"
    small_session(first)
    copy = root / "projects" / "-b" / f"{sid}.jsonl"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(first.read_bytes() + first.read_bytes().splitlines(keepends=True)[-1])  # a line longer
    other = root / "projects" / "-a" / "44444444-0000-4000-8000-000000000004.jsonl"
    small_session(other)
    for p in (first, copy, other):
        os.utime(p, (FROZEN_NOW - 60, FROZEN_NOW - 60))
    s = build_settings(["--all", "--hours", "1"], now=FROZEN_NOW)
    assert sorted(sp.paths[0] for sp in s.sessions) == sorted([copy, other])


def test_all_opens_the_most_recent_sessions_up_to_its_cap_and_says_how_many_it_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a tab holds a session's state: 1,400 tabs took 1.4 GB (sixth user trial)
    import tracetui.tui.main as tui_main

    root = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    paths = []
    for i in range(3):
        p = root / "projects" / "-a" / f"3333333{i}-0000-4000-8000-000000000003.jsonl"
        small_session(p)
        os.utime(p, (FROZEN_NOW - 600 + i, FROZEN_NOW - 600 + i))
        paths.append(p)
    monkeypatch.setattr(tui_main, "MAX_TABS", 2)
    s = build_settings(["--all"], now=FROZEN_NOW)
    assert [sp.paths[0] for sp in s.sessions] == [paths[2], paths[1]]
    assert any("3 sessions were active" in w and "the 2 most recent are open" in w for w in s.warnings)


def test_unknown_session_id_is_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from tracetui.tui.main import run_app

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    assert run_app(["nosuchsession"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tracetui: ") and err.count("\n") == 1


def test_a_named_fifo_is_refused_in_one_line_as_state_refuses_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    import os

    from tracetui.cli import main
    from tracetui.tui.main import run_app

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert main(["state", "--no-cache", str(fifo)]) == 1
    said = capsys.readouterr().err
    assert run_app([str(fifo)]) == 1  # no tab "still watching": the same line as state's
    err = capsys.readouterr().err
    assert err == said and err.count("\n") == 1 and f"{fifo}: a FIFO (named pipe), not a transcript file" in err


def test_an_unreadable_named_file_is_refused_in_one_line_as_state_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Trial 6 §8: the monitor said "not a transcript (its first line is not a Claude Code record
    ...)" of a transcript it may not read; ``state`` said "permission denied"."""
    import os

    from tui_support import small_session

    from tracetui.cli import main
    from tracetui.tui.main import run_app

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    path = tmp_path / "s.jsonl"
    small_session(path)
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads it anyway: the kernel's refusal, played
        real_open, real_access = os.open, os.access

        def refused(p, *a, **kw):
            if os.fspath(p) == str(path):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(p, *a, **kw)

        monkeypatch.setattr(os, "open", refused)
        monkeypatch.setattr(os, "access", lambda p, *a, **kw: os.fspath(p) != str(path) and real_access(p, *a, **kw))
    assert main(["state", "--no-cache", str(path)]) == 1
    said = capsys.readouterr().err
    assert run_app([str(path)]) == 1
    err = capsys.readouterr().err
    assert err == said == f"tracetui: {path}: permission denied\n"


def test_a_named_file_that_is_no_transcript_is_refused_and_an_empty_one_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Fifth user trial: the monitor opened /etc/passwd as a session of malformed lines."""
    from tracetui.tui.main import build_settings, run_app

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    other = tmp_path / "passwd"
    other.write_text("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/:/usr/sbin/nologin\n")
    assert run_app([str(other)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{other}: not a transcript" in err
    empty = tmp_path / "new.jsonl"
    empty.write_bytes(b"")
    assert [sp.paths for sp in build_settings([str(empty)]).sessions] == [(empty,)]


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--all", "--hours", "-3"], "--hours must be a positive number of hours, not -3"),
        (["--all", "--hours", "0"], "--hours must be a positive number of hours, not 0"),
        (["--all", "--hours=nan"], "--hours must be a positive number of hours, not nan"),
        (["--hours", "3"], "--hours only applies with --all"),
        (["--demo", "--hou", "3"], "--hours only applies with --all"),  # argparse's abbreviation
        (["--demo", "--demo-speed", "-1"], "--demo-speed must be a positive factor"),
    ],
)
def test_option_misuse_is_a_one_line_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, argv: list[str], says: str
) -> None:
    from tracetui.tui.main import UsageError, run_app

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    with pytest.raises(UsageError, match=re.escape(says)):
        build_settings(argv, now=FROZEN_NOW)
    assert run_app(argv) == 2  # nothing started: no demo played, no app run
    err = capsys.readouterr().err
    assert err.startswith(f"tracetui: {says}") and err.count("\n") == 1


def test_all_without_hours_is_the_last_day(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.tui.main import DEFAULT_HOURS

    root = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    day_old = root / "projects" / "-a" / "11111111-0000-4000-8000-000000000001.jsonl"
    small_session(day_old)
    os.utime(day_old, (FROZEN_NOW - 23 * 3600, FROZEN_NOW - 23 * 3600))
    s = build_settings(["--all"], now=FROZEN_NOW)
    assert DEFAULT_HOURS == 24 and s.all_hours == 24 and [sp.paths[0] for sp in s.sessions] == [day_old]


def test_stdout_not_a_terminal_is_refused_with_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    for argv in ([], ["--demo"]):
        # stdout is a pipe here: the app must not start and flood it with escape codes
        p = subprocess.run(
            [sys.executable, "-m", "tracetui.cli", *argv], capture_output=True, stdin=subprocess.DEVNULL, env=env, timeout=60
        )
        assert p.returncode == 2 and p.stdout == b"", (argv, p)
        err = p.stderr.decode()
        assert err.count("\n") == 1 and err.startswith("tracetui: stdout is not a terminal"), err
        assert "tracetui state" in err and "tracetui card" in err


# -- the demo --------------------------------------------------------------------------------
def test_shipped_demo_is_what_the_generator_writes() -> None:
    m, a = build_demo()
    main, sub, meta = demo_files()
    assert main.read_bytes() == m.data()
    assert sub.read_bytes() == a.data()
    assert orjson.loads(meta.read_bytes()) == subagent_meta(a)


def test_demo_moves_every_pane(tmp_path: Path) -> None:
    r = SessionReader(demo_session(tmp_path))
    r.poll()
    st = r.snapshot()
    c = st.counters
    assert c.tool_errors >= 2 and c.interrupts == 1 and c.compactions == 1 and c.api_errors == 1
    assert st.main.subagents and st.main.subagents[0].source == 1
    assert st.pending and st.main.todos and st.files
    kinds = {row.kind for row in anomaly_rows(st, FROZEN_NOW)[0]}
    assert {"tool_loop", "interrupted_dangling"} <= kinds


def test_demo_replay_appends_every_record_in_time_order(tmp_path: Path) -> None:
    stamps = iter(range(10**6))
    r = DemoReplay(tmp_path, sleep=lambda s: None, clock=lambda: 1_700_000_000.0 + next(stamps))
    path = r.start()
    assert r.done.wait(10)
    r.stop(cleanup=False)
    assert path.name == f"{DEMO_SESSION_ID}.jsonl" and r.written == r.total
    main, sub, _meta = demo_files()
    lines = path.read_bytes().splitlines()
    assert len(lines) == len(main.read_bytes().splitlines())
    assert len(r.agent_path.read_bytes().splitlines()) == len(sub.read_bytes().splitlines())
    assert r.agent_path.with_name(f"agent-{r.agent_path.stem[6:]}.meta.json").exists()
    ts = [orjson.loads(x).get("timestamp") for x in lines]
    ts = [t for t in ts if t]
    assert ts == sorted(ts)  # restamped with the (increasing) clock at write time


# -- view model ------------------------------------------------------------------------------
def test_episode_rows_and_state_as_of(tmp_path: Path) -> None:
    r = SessionReader(demo_session(tmp_path))
    r.poll()
    st = r.snapshot()
    rows = episode_rows(st)
    assert [x.index for x in rows] == [1, 2, 3, 4, 5]
    assert rows[-1].live and rows[0].status == "errors" and rows[1].status == "interrupted"
    first = state_as_of(st, 1)
    assert first.main.prompts == 1 and first.main.ledger_len == st.history[0].ledger_len
    assert first.counters.tool_calls == st.history[0].counters.tool_calls
    with pytest.raises((IndexError, ValueError)):
        state_as_of(st, 5)
    used, anchor = context_usage(st)
    assert used > 0 and anchor is not None and anchor.src == 0


def test_main_model_is_the_one_with_most_tokens(tmp_path: Path) -> None:
    from tracetui.demo.build import TranscriptBuilder
    from tracetui.tui.view_model import main_model

    b = TranscriptBuilder(model="claude-opus-4-1")
    b.prompt("go")
    b.text("short", output=10)
    b.model = "claude-haiku-4-5"
    b.text("a much longer answer", output=5000)
    path = b.write(tmp_path / "m.jsonl")
    r = SessionReader(path)
    r.poll()
    name, others = main_model(r.snapshot())
    assert name == "claude-haiku-4-5" and others == 1


def test_not_a_transcript_names_files_with_lines_but_no_record(tmp_path: Path) -> None:
    from tracetui.tui.view_model import not_a_transcript

    def state_of(data: bytes):
        p = tmp_path / "f.txt"
        p.write_bytes(data)
        r = SessionReader(p)
        r.poll(final=False)
        return r.snapshot()

    assert not_a_transcript(state_of(b"one line\n")) == {0: "f.txt: not a transcript (1 line, none a JSON object)"}
    assert not_a_transcript(state_of(b"a\nb\n[1, 2]\n")) == {0: "f.txt: not a transcript (3 lines, none a JSON object)"}
    torn = b'{"type": "user", "mess'  # a first line still being written
    assert not_a_transcript(state_of(torn)) == {0: f"f.txt: not a transcript yet (no complete line in {len(torn)} bytes)"}
    path = tmp_path / "s.jsonl"
    small_session(path)
    r = SessionReader(path)
    r.poll()
    assert not_a_transcript(r.snapshot()) == {}


def test_anomaly_message_paths_relative_to_the_session() -> None:
    from tracetui.tui.view_model import PATH_CHARS, anomaly_message

    cwd = "/home/u/projects/spotter"
    inside = "/home/u/projects/spotter/src/app/x.py"
    assert (
        anomaly_message(f"{inside} edited 5 times in this episode", f"edit_thrash:{inside}", cwd)
        == "src/app/x.py edited 5 times in this episode"
    )
    # a sibling folder that only shares the prefix is not inside: its long path keeps its end
    outside = "/home/u/projects/spotter-worktree-feature-branch/src/app/x.py"
    got = anomaly_message(f"{outside} read 3 times with no edit in between", f"reread_loop:{outside}", cwd + "/")
    assert got.startswith("…") and got.split(" ")[0] == "…" + outside[-(PATH_CHARS - 1) :]
    assert got.endswith(" read 3 times with no edit in between")
    assert anomaly_message("Grep(x) called 3 times", "tool_loop:abc", None) == "Grep(x) called 3 times"


def test_compaction_anomaly_message_names_it_once(tmp_path: Path) -> None:
    from tracetui.model.anomalies import detect_anomalies

    r = SessionReader(demo_session(tmp_path))
    r.poll()
    st = r.snapshot()
    msgs = [a.message for a in detect_anomalies(st, FROZEN_NOW, getattr(st, "episodes", None) or None) if a.kind == "compaction"]
    assert msgs and all(m.startswith("context compacted (manual, ") and "compaction" not in m for m in msgs), msgs


@pytest.mark.parametrize("late", [600, 2 * 3600 + 5 * 60, 277 * 86400 + 10 * 3600 + 59])
def test_stall_message_says_its_age_as_the_monitor_does(tmp_path: Path, late: int) -> None:
    # it said "no new record for 23969243 s"
    from tracetui.model.anomalies import detect_anomalies
    from tracetui.tui.format import parse_ts

    r = SessionReader(demo_session(tmp_path))
    r.poll()
    st = r.snapshot()
    last = max(parse_ts(a.last_timestamp) for a in (st.main, *st.agents))
    stall = [a for a in detect_anomalies(st, last + late) if a.kind == "stall"]
    assert len(stall) == 1
    assert stall[0].message.startswith(f"no new record for {fmt_age(late)} with 1 call pending")
    assert fmt_age(late) in ("10m00s", "2h05m", "277d10h")


def test_model_duration_format() -> None:
    from tracetui.model.anomalies import fmt_span

    got = [fmt_span(s) for s in (0, 59, 60, 3599, 3600, 86399, 86400, 23969243)]
    assert got == ["0s", "59s", "1m00s", "59m59s", "1h00m", "23h59m", "1d00h", "277d10h"]


# -- the footer's keys -------------------------------------------------------------------------
def test_footer_key_widths_are_the_drawn_ones() -> None:
    from tracetui.tui.footer import key_cells, palette_cells

    # compact: "F1 Help " (key, space, description, margin); full: " F1 Help " (padded key)
    assert key_cells("F1", "Help", compact=True) == len("F1 Help ")
    assert key_cells("F1", "Help", compact=False) == len(" F1 Help ")
    # "▏^p palette " as the compact footer draws it at the right end
    assert palette_cells("^p", "palette", compact=True) == len("▏^p palette ")


def test_footer_leaves_out_the_least_wanted_optional_keys_first() -> None:
    from tracetui.tui.footer import FooterItem, left_out

    items = [
        FooterItem("help", 8),
        FooterItem("quit", 7),
        FooterItem("next-tab", 15),
        FooterItem("sessions", 11),
        FooterItem("pause", 8),
        FooterItem("palette", 12),
    ]
    essential = 8 + 7
    assert left_out(items, essential + 15 + 11 + 8 + 12) == set()
    assert left_out(items, essential + 15 + 11 + 8 + 11) == {"palette"}
    assert left_out(items, essential + 15 + 11 + 7) == {"pause", "palette"}
    # a shorter, less wanted key takes room a longer one cannot
    assert left_out(items, essential + 15 + 8) == {"sessions", "palette"}
    # help and quit stay even when they alone do not fit
    assert left_out(items, 10) == {"next-tab", "sessions", "pause", "palette"}


def test_footer_leaves_out_whole_essential_keys_but_help_and_quit_when_they_do_not_fit() -> None:
    # trial 6 §9: at 40 columns, or beside the Keys panel, the footer drew "c Ca" and "q Qu"
    from tracetui.tui.footer import FooterItem, left_out

    items = [FooterItem(i, c) for i, c in (("help", 8), ("history-back", 7), ("drill-down", 7), ("copy-card", 7))]
    items += [FooterItem("copy-worker", 7), FooterItem("quit", 7), FooterItem("pause", 8)]
    assert left_out(items, 43) == {"pause"}
    # the rightmost essential keys leave first, whole; help and quit stay
    assert left_out(items, 42) == {"pause", "copy-worker"}
    assert left_out(items, 40) == {"pause", "copy-worker"}
    assert left_out(items, 35) == {"pause", "copy-worker", "copy-card"}
    assert left_out(items, 16) == {"pause", "copy-worker", "copy-card", "drill-down", "history-back"}
    assert left_out(items, 3) == {"pause", "copy-worker", "copy-card", "drill-down", "history-back"}


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@given(
    st.lists(
        st.tuples(st.sampled_from(["help", "quit", "a", "b", "next-tab", "sessions", "pause", "palette"]), st.integers(1, 30)),
        unique_by=lambda t: t[0],
    ),
    st.integers(0, 150),
)
def test_footer_fit_properties(pairs: list[tuple[str, int]], width: int) -> None:
    from tracetui.tui.footer import KEPT, OPTIONAL, FooterItem, left_out

    items = [FooterItem(i, c) for i, c in pairs]
    out = left_out(items, width)
    assert not out & set(KEPT)  # help and quit never leave
    kept = sum(i.cells for i in items if i.id not in out)
    essential = sum(i.cells for i in items if i.id not in OPTIONAL)
    if essential <= width:
        assert out <= {i.id for i in items if i.id in OPTIONAL}  # only optional keys leave
        assert kept <= width
        # nothing left out would still have fitted
        assert all(i.cells > width - kept for i in items if i.id in out)
    elif sum(i.cells for i in items if i.id in KEPT) <= width:
        assert kept <= width  # whole keys only: what is drawn fits
        # the essential keys that leave are the rightmost ones (but help and quit), and every optional one
        ess = [i.id for i in items if i.id not in OPTIONAL and i.id not in KEPT]
        gone = [i for i in ess if i in out]
        assert gone == ess[len(ess) - len(gone) :]
        assert {i.id for i in items if i.id in OPTIONAL} <= out


def test_demo_speed_is_how_many_times_as_fast() -> None:
    # found by the third tester: --demo-speed 100 made the demo slower (it multiplied the gaps)
    from tracetui.tui.main import build_settings

    fast = build_settings(["--demo", "--demo-speed", "100"])
    slow = build_settings(["--demo", "--demo-speed", "0.5"])
    assert fast.demo_speed == pytest.approx(0.01) and slow.demo_speed == pytest.approx(2.0)
    assert build_settings(["--demo"]).demo_speed == pytest.approx(1 / 3)


def test_a_hang_up_ends_the_app_as_ctrl_c_does(monkeypatch: pytest.MonkeyPatch) -> None:
    # found by the third tester: closing the terminal left the demo's temporary folder behind
    # (SIGHUP ended the process before run_app's clean-up); by the fourth: a monitor whose
    # terminal was gone still ran 40 minutes later, so a process still alive after the grace
    # time is cleaned up and ended
    import os
    import signal
    import threading

    import tracetui.tui.main as tui_main

    monkeypatch.setattr(tui_main, "HANGUP_GRACE", 0.01)
    done = threading.Event()
    seen: list[object] = []

    def end(code: int) -> None:
        seen.append(code)
        done.set()

    old = tui_main._on_hangup(lambda: seen.append("cleanup"), end)
    try:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGHUP)
    finally:
        tui_main._restore(old)
    assert signal.getsignal(signal.SIGHUP) is old
    assert done.wait(30) and seen == ["cleanup", 128 + signal.SIGHUP]


def test_a_record_time_far_ahead_of_the_clock_has_no_age() -> None:
    # "0s ago" for a record of year 9999 was an age invented (sixth user trial)
    now = 1_800_000_000.0
    assert age_of("9999-12-31T23:59:59.999Z", now) is None
    ts = "2027-01-15T08:00:00Z"
    t = datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    assert age_of(ts, t - 30) == 0.0  # a clock a little ahead: just now
    assert age_of(ts, t + 5) == 5.0


def test_main_model_of_a_session_whose_usage_is_all_rejected(tmp_path: Path) -> None:
    # trial 12: the header said "no model yet" where state and card list the model
    import json

    from tracetui.demo.build import TranscriptBuilder
    from tracetui.tui.view_model import main_model

    b = TranscriptBuilder(model="claude-sonnet-4-5")
    b.prompt("go")
    b.text("an answer", output=10)
    path = b.write(tmp_path / "m.jsonl")
    lines = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        usage = rec.get("message", {}).get("usage") if isinstance(rec.get("message"), dict) else None
        if isinstance(usage, dict):
            usage["output_tokens"] = "10"
        lines.append(json.dumps(rec))
    path.write_text("\n".join(lines) + "\n")
    r = SessionReader(path)
    r.poll()
    st = r.snapshot()
    assert st.counters.usage_rejected >= 1 and not st.tokens_by_model
    assert main_model(st) == ("claude-sonnet-4-5", 0)
