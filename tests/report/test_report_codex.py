"""Codex CLI rollouts in the cross-session index: ``tracetui report`` counts their responses by
Codex's token rules (the recount of report_folder.py, and figures worked out by hand), files
them under their session and working folder as agent ``codex``, ``--agent`` narrows, and
``tracetui search`` finds their prompts and tool calls with their anchors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_folder import CODEX_CHILD, CODEX_MAIN, CODEX_OLD, Folder, recount

from tracetui.cli import main
from tracetui.demo.codex_records import RolloutBuilder
from tracetui.ingest.discover import list_sessions
from tracetui.ingest.session_files import codex_transcripts
from tracetui.session.index import KINDS, build_report, open_index, refresh, search, update


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _figures(rows: list[dict]) -> dict[str, tuple]:
    return {r["key"]: (r["messages"], r["tokens"]["input"], r["tokens"]["output"], r["tokens"]["cache_read"]) for r in rows}


def _want(w: dict[str, dict]) -> dict[str, tuple]:
    return {k: (v["messages"], v["input"], v["output"], v["cache_read"]) for k, v in w.items()}


def test_codex_session_tokens_by_hand(folder: Folder) -> None:
    index, stats = refresh(folder.root)
    assert stats.errors == []
    rows = {g.key: g for g in build_report(index.conn, "session").rows}
    g = rows[CODEX_MAIN]
    # main: (12,000 in, 8,000 cached, 900 out), its total written twice: one response; then
    # +15,000/12,000/400; the child's own +3,000/1,000/200 (its replayed copy of the main's
    # two totals not counted); +9,000/7,500/300; a total below the last: 2,000/0/100, whole
    assert g.messages == 5
    assert (g.tokens.input, g.tokens.cache_read, g.tokens.output, g.tokens.cache_creation) == (12_500, 28_500, 1_900, 0)
    assert g.agent == "codex" and g.project == "/work/delta" and g.sessions == 1
    assert g.cost_usd is not None and g.cost_usd > 0
    days = {d.key: d.messages for d in build_report(index.conn, "daily", agent="codex").rows}
    assert days == {"2026-03-05": 4, "2026-03-06": 1, "2026-03-12": 1}
    assert rows[CODEX_OLD].cost_usd is None  # a model without a price: unknown, never zero


def test_a_snapshot_copy_of_a_rollout_counts_once(folder: Folder) -> None:
    """A copy of a rollout taken earlier (a prefix of it, as backups and syncing tools leave
    them) holds the same responses of the same thread: counted once, as a Claude Code message
    id repeated across files is."""
    lines = folder.codex_main.read_bytes().split(b"\n")
    copy = folder.codex / "archived_sessions" / f"rollout-copy-{CODEX_MAIN}.jsonl"
    copy.write_bytes(b"\n".join(lines[: len(lines) // 2]) + b"\n")
    index, stats = refresh(folder.root)
    assert stats.errors == []
    g = next(g for g in build_report(index.conn, "session").rows if g.key == CODEX_MAIN)
    assert (g.messages, g.tokens.input, g.tokens.cache_read, g.tokens.output, g.sessions) == (5, 12_500, 28_500, 1_900, 1)
    for kind in ("daily", "session"):
        assert _figures([_row(g) for g in build_report(index.conn, kind).rows]) == _want(recount(folder.root, kind))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_agent_narrows_the_report(folder: Folder, capsys: pytest.CaptureFixture[str], kind: str, agent: str) -> None:
    rc, out, err = _run(capsys, "report", kind, "--agent", agent, "--json")
    assert rc == 0 and err == ""
    obj = json.loads(out)
    want = recount(folder.root, kind, agent=agent)
    assert obj["agent"] == agent and want
    assert _figures(obj["rows"]) == _want(want)
    if kind in ("project", "session"):
        assert {r["agent"] for r in obj["rows"]} == {agent}
    both = json.loads(_run(capsys, "report", kind, "--json")[1])
    other = recount(folder.root, kind, agent="codex" if agent == "claude" else "claude")
    assert both["total"]["messages"] == obj["total"]["messages"] + sum(w["messages"] for w in other.values())


def test_report_table_names_the_agent(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "report", "session")
    assert rc == 0
    lines = out.splitlines()
    head = next(ln for ln in lines if ln.startswith("SESSION"))
    assert head.split()[:3] == ["SESSION", "AGENT", "PROJECT"]
    cells = {ln.split()[0]: ln.split()[1] for ln in lines if ln.startswith(("a1 ", "b1 ", CODEX_MAIN))}
    assert cells == {"a1": "claude", "b1": "claude", CODEX_MAIN: "codex"}
    rc, out, _ = _run(capsys, "report", "project", "--agent", "codex")
    assert rc == 0 and "of Codex CLI sessions only" in out.splitlines()[0]
    assert "-work-alpha" not in out and "/work/delta" in out


def test_search_finds_codex_prompts_and_calls_with_their_anchors(folder: Folder, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(capsys, "search", "migrate", "schema", "--json")
    assert rc == 0
    # the child's replayed copy of the main's prompt is no prompt of its own
    hits = json.loads(out)["results"]
    assert [(h["kind"], h["anchor"], h["agent"], h["session"], h["project"]) for h in hits] == [
        ("prompt", f"{folder.codex_main}:{folder.codex_prompt_line}", "codex", CODEX_MAIN, "/work/delta")
    ]
    line = folder.codex_main.read_bytes().split(b"\n")[folder.codex_prompt_line - 1]
    assert json.loads(line)["payload"] == {"type": "user_message", "message": "migrate the schema to version two", "images": []}
    rc, out, _ = _run(capsys, "search", "FAILED", "migrate.log", "--json")
    (hit,) = json.loads(out)["results"]
    assert (hit["kind"], hit["name"], hit["anchor"]) == ("tool_use", "exec_command", f"{folder.codex_child}:{folder.codex_child_call_line}")
    assert hit["session"] == CODEX_MAIN  # a child rollout is its parent's session's file
    line = folder.codex_child.read_bytes().split(b"\n")[folder.codex_child_call_line - 1]
    assert json.loads(line)["payload"]["type"] == "function_call"
    rc, out, _ = _run(capsys, "search", "schema.sql", "--json")  # apply_patch: a custom tool call
    assert [h["name"] for h in json.loads(out)["results"]] == ["apply_patch"]
    rc, out, _ = _run(capsys, "search", "migrate", "--agent", "claude", "--json")
    assert json.loads(out)["results"] == []
    rc, out, _ = _run(capsys, "search", "migrate", "schema")
    assert f"{folder.codex_main}:{folder.codex_prompt_line}  prompt  session {CODEX_MAIN} (Codex CLI)  2026-03-05" in out


def test_codex_transcripts_are_list_sessions_and_their_children(folder: Folder) -> None:
    found = {(str(t.path), t.project, t.session_id, t.role, t.agent) for t in codex_transcripts()}
    mains = list_sessions(folder.root, agent="codex")
    want = {(str(s.path), s.project, s.session_id, "main", "codex") for s in mains}
    want.add((str(folder.codex_child), "/work/delta", CODEX_MAIN, "subagent", "codex"))
    assert found == want
    assert {s.session_id for s in mains} == {CODEX_MAIN, CODEX_OLD}
    assert codex_transcripts(folder.codex / "missing") == []


def test_child_of_a_parent_not_on_disk_is_a_session_of_its_own(folder: Folder) -> None:
    """Keyed by its own thread, as ``sessions`` and ``state <id>`` know it, never by the
    thread that has no rollout (F13 of the third tester)."""
    folder.codex_main.unlink()
    (t,) = [t for t in codex_transcripts() if t.path == folder.codex_child]
    assert (t.session_id, t.role) == (CODEX_CHILD, "main")
    index, _ = refresh(folder.root)
    rows = {g.key: g for g in build_report(index.conn, "session", agent="codex").rows}
    assert CODEX_MAIN not in rows
    assert rows[CODEX_CHILD].messages == 1  # the child's own response only
    assert set(rows) == set(recount(folder.root, "session", agent="codex"))


def test_grown_rollout_goes_on_from_its_resume_point(folder: Folder, tmp_path: Path) -> None:
    refresh(folder.root)
    b = RolloutBuilder(CODEX_OLD, start="2026-03-12T11:00:00.000Z", cwd="/work/omega")
    b.lines.clear()
    b.totals = {"input_tokens": 1_000, "cached_input_tokens": 0, "output_tokens": 10, "reasoning_output_tokens": 0, "total_tokens": 1010}
    b.turn("and the timeline")
    b.tokens(4_000, 3_000, 50)
    with folder.codex_old.open("ab") as f:
        f.write(b.data())
    index, stats = refresh(folder.root)
    assert (stats.redone, stats.grown, stats.new) == (0, 1, 0)
    for kind in ("daily", "session"):
        assert _figures([_row(g) for g in build_report(index.conn, kind).rows]) == _want(recount(folder.root, kind))
    g = next(g for g in build_report(index.conn, "session").rows if g.key == CODEX_OLD)
    assert (g.messages, g.tokens.input, g.tokens.cache_read, g.tokens.output) == (2, 2_000, 3_000, 60)
    fresh = open_index(tmp_path / "fresh.sqlite")
    update(fresh, folder.root)
    q = "SELECT f.path, m.msg, m.day, m.model, m.input, m.output, m.cache_read FROM messages m JOIN files f ON f.id = m.file ORDER BY 2"
    assert index.conn.execute(q).fetchall() == fresh.conn.execute(q).fetchall()
    assert [h.kind for h in search(index.conn, "timeline", index.fts)] == ["prompt"]


def _row(g) -> dict:
    return {
        "key": g.key,
        "messages": g.messages,
        "tokens": {"input": g.tokens.input, "output": g.tokens.output, "cache_read": g.tokens.cache_read},
    }


def test_rollouts_without_a_thread_id_are_not_merged(tmp_path: Path) -> None:
    """Two rollouts whose thread id the fold could not read (a session_meta of a bad shape) key
    their responses by count only: the index keeps each file's apart."""
    home = tmp_path / "codex"
    for n in (1, 2):
        b = RolloutBuilder(f"0199c0de-0000-7000-8000-00000000f00{n}", start=f"2026-03-0{n}T09:00:00.000Z")
        b.lines[0]["payload"]["cli_version"] = 5  # not a string: the record is unknown, the thread too
        b.turn("same work")
        b.tokens(1_000, 0, 10)
        b.write(home / "archived_sessions" / f"rollout-{n}.jsonl")
    index = open_index(tmp_path / "idx.sqlite")
    update(index, tmp_path / "no-projects", codex_home=home)
    rep = build_report(index.conn, "daily")
    assert rep.total.messages == 2 and rep.total.tokens.input == 2_000
    assert [g.messages for g in rep.rows] == [1, 1]


_ROWS = (
    "SELECT f.path, m.msg, m.day, m.model, m.input, m.output, m.cache_creation, m.cache_read FROM msgs m JOIN files f ON f.id = m.file ORDER BY 1, 2",
    "SELECT f.path, d.line, d.block, d.kind, d.name, d.timestamp, d.text FROM docs d JOIN files f ON f.id = d.file ORDER BY 1, 2, 3, 4",
    "SELECT path, project, session, agent, role, cwd, first_ts, last_ts, sidechain, malformed, resume FROM files ORDER BY path",
)


@pytest.mark.parametrize("which", ["codex_main", "codex_child"])
def test_a_rollout_read_in_two_parts_is_indexed_as_at_once(folder: Folder, tmp_path: Path, which: str) -> None:
    """Every split of a rollout (between lines, and inside one: a torn last line held) read as
    two updates gives the rows of one read; the child's splits fall inside its replayed copy too."""
    path: Path = getattr(folder, which)
    data = path.read_bytes()
    fresh = open_index(tmp_path / "fresh.sqlite")
    update(fresh, folder.root)
    want = [fresh.conn.execute(q).fetchall() for q in _ROWS]
    index = open_index(tmp_path / "idx.sqlite")
    ends = [i + 1 for i, c in enumerate(data) if c == 0x0A][:-1]
    cuts = sorted({*ends, *(e + 7 for e in ends[::5])})
    for cut in cuts:
        with path.open("r+b") as f:
            f.truncate(cut)
        update(index, folder.root)
        with path.open("ab") as f:
            f.write(data[cut:])
        stats = update(index, folder.root)
        assert (stats.grown, stats.redone) == (1, 0), cut
        assert [index.conn.execute(q).fetchall() for q in _ROWS] == want, cut


def test_a_resume_state_of_other_code_reads_the_rollout_again(folder: Folder, tmp_path: Path) -> None:
    index = open_index(tmp_path / "idx.sqlite")
    update(index, folder.root)
    index.conn.execute("UPDATE files SET resume = ? WHERE path = ?", (b'["not", "a", "state"]', str(folder.codex_old)))
    with folder.codex_old.open("ab") as f:
        f.write(b'{"timestamp":"2026-03-12T11:00:00.000Z","type":"event_msg","payload":{"type":"agent_message","message":"more"}}\n')
    stats = update(index, folder.root)
    assert (stats.redone, stats.grown, stats.errors) == (1, 0, [])
    fresh = open_index(tmp_path / "fresh.sqlite")
    update(fresh, folder.root)
    assert [index.conn.execute(q).fetchall() for q in _ROWS] == [fresh.conn.execute(q).fetchall() for q in _ROWS]
