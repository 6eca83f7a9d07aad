"""Fold rules (issue 2 §5): tokens, tool calls, errors, prompts, compactions, pending calls, files,
todos, subagent links and the per-agent breakdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures import (
    assistant,
    bash_input,
    compact_boundary,
    envelope,
    jsonl,
    progress,
    prompt,
    slash,
    system,
    text_block,
    tool_call,
    tool_result,
    tool_use_block,
    usage,
    user,
    write,
)

from tracetui.model.fold import FileFold
from tracetui.model.session_fold import fold, fold_bytes
from tracetui.session.reader import SessionReader
from tracetui.views.state_json import state_to_json

# -- tokens -----------------------------------------------------------------------------------


def test_tokens_max_per_field_per_message_id_then_summed() -> None:
    # one API message written as three records (one per block), usage repeated, output growing
    recs = [
        assistant([{"type": "thinking", "thinking": "", "signature": "s"}], msg_id="m1", u=usage(10, 1, 100, 1000)),
        assistant([text_block("hi")], msg_id="m1", u=usage(10, 5, 100, 1000)),
        assistant([tool_use_block("t1", "Bash", {"command": "ls"})], msg_id="m1", u=usage(10, 42, 100, 1000)),
        # a second message, where one field is largest on an earlier record
        assistant([text_block("a")], msg_id="m2", u=usage(3, 7, 0, 50)),
        assistant([text_block("b")], msg_id="m2", u=usage(2, 9, 0, 40)),
    ]
    st = fold(recs)
    t = st.tokens
    assert (t.input, t.output, t.cache_creation, t.cache_read) == (10 + 3, 42 + 9, 100 + 0, 1000 + 50)
    assert st.counters.api_messages == 2
    # the per-record usage is kept on the events for tracing
    assert [e.usage for e in st.events(0) if e.message_id == "m1"][-1] == (10, 42, 100, 1000, 0)


def test_tokens_fallback_key_request_id_then_uuid() -> None:
    recs = [
        # no message.id: grouped by requestId
        assistant([text_block("a")], msg_id=None, request_id="req_A", u=usage(5, 1)),
        assistant([text_block("b")], msg_id=None, request_id="req_A", u=usage(5, 3)),
        # neither: grouped by the record's own uuid (two records, two messages)
        assistant([text_block("c")], msg_id=None, request_id=None, u=usage(1, 1)),
        assistant([text_block("d")], msg_id=None, request_id=None, u=usage(1, 1)),
    ]
    st = fold(recs)
    assert st.counters.api_messages == 3
    assert st.tokens.input == 5 + 1 + 1 and st.tokens.output == 3 + 1 + 1


def test_synthetic_model_records_are_skipped() -> None:
    recs = [
        assistant([text_block("real")], msg_id="m1", u=usage(10, 10)),
        assistant([text_block("API Error: 500")], msg_id="m2", model="<synthetic>", u=usage(0, 0), request_id=None, isApiErrorMessage=True),
        assistant([text_block("No response requested.")], msg_id="m3", model="<synthetic>", u=usage(99, 99)),
    ]
    st = fold(recs)
    assert st.counters.api_messages == 1
    assert st.tokens.input == 10 and st.tokens.output == 10
    assert st.models == ("claude-sonnet-4-5-20250929",)
    assert st.counters.api_errors == 1


def test_records_without_usage_are_not_api_messages() -> None:
    st = fold([assistant([text_block("x")], msg_id="m1", u=None)])
    assert st.counters.api_messages == 0 and st.tokens.total == 0


def test_unknown_model_gives_unknown_cost_not_zero() -> None:
    st = fold([assistant([text_block("x")], msg_id="m1", model="totally-unknown-model-xyz", u=usage(1000, 1000))], price=True)
    assert st.cost_usd is None
    assert "totally-unknown-model-xyz" in st.cost_note


# -- tools ------------------------------------------------------------------------------------


def test_tool_calls_count_distinct_ids_and_by_name() -> None:
    recs = [
        tool_call("t1", "Bash", {"command": "ls"}),
        tool_call("t1", "Bash", {"command": "ls"}),  # the same tool_use written twice
        tool_call("t2", "Read", {"file_path": "a.py"}),
        tool_call("t3", "Bash", {"command": "pwd"}),
    ]
    st = fold(recs)
    assert st.counters.tool_calls == 3
    assert st.tools_by_name == {"Bash": 2, "Read": 1}
    assert state_to_json(st)["tool_calls_by_name"] == {"Bash": 2, "Read": 1}


def test_tool_errors_count_results_with_is_error_true() -> None:
    recs = [
        tool_call("t1", "Bash", {"command": "false"}),
        tool_result("t1", "Exit code 1", is_error=True, result="Error: Exit code 1"),
        tool_call("t2", "Bash", {"command": "true"}),
        tool_result("t2", "", is_error=False),
        tool_call("t3", "Read", {"file_path": "x"}),
        tool_result("t3", "content"),  # is_error absent
    ]
    st = fold(recs)
    assert st.counters.tool_errors == 1
    ev = [e for e in st.events(0) if e.kind == "tool_result"]
    assert [e.is_error for e in ev] == [True, False, False]
    assert [e.name for e in ev] == ["Bash", "Bash", "Read"]


def test_pending_calls_are_tool_uses_without_result() -> None:
    recs = [
        tool_call("t1", "Bash", {"command": "ls"}),
        tool_result("t1", "ok"),
        tool_call("t2", "Read", {"file_path": "/x/y.py"}),
        tool_call("t3", "Grep", {"pattern": "foo"}),
        tool_result("t3", "none"),
    ]
    st = fold(recs)
    assert [p.id for p in st.pending] == ["t2"]
    js = state_to_json(st)["pending_calls"]
    assert js[0]["id"] == "t2" and js[0]["name"] == "Read"
    assert js[0]["anchor"] == {"file": "transcript.jsonl", "line": 3, "offset": js[0]["anchor"]["offset"]}
    assert st.frontier.kind == "in_flight" and st.frontier.tool_use_id == "t2"


def test_result_for_unknown_call_is_kept_not_paired() -> None:
    st = fold([tool_result("ghost", "late")])
    assert st.counters.tool_calls == 0 and st.pending == ()
    assert [e.kind for e in st.events(0)] == ["tool_result"]


def test_files_reads_writes_edits_paths_exactly_as_input() -> None:
    recs = [
        tool_call("t1", "Read", {"file_path": "/repo/a.py"}),
        tool_call("t2", "Read", {"file_path": "/repo/a.py"}),
        tool_call("t3", "Edit", {"file_path": "/repo/a.py", "old_string": "x", "new_string": "y"}),
        tool_call("t4", "Write", {"file_path": "./b.txt", "content": "hi"}),
        tool_call("t5", "MultiEdit", {"file_path": "/repo/../repo/a.py", "edits": []}),
        tool_call("t6", "NotebookEdit", {"notebook_path": "nb.ipynb", "new_source": ""}),
        tool_call("t7", "Grep", {"pattern": "x", "path": "/repo/a.py"}),  # not a file op
        tool_call("t8", "Read", {}),  # no path: nothing
    ]
    st = fold(recs)
    files = {f.path: (f.reads, f.writes, f.edits) for f in st.files}
    assert files == {
        "/repo/a.py": (2, 0, 1),
        "./b.txt": (0, 1, 0),
        "/repo/../repo/a.py": (0, 0, 1),
        "nb.ipynb": (0, 0, 1),
    }
    js = {f["path"]: f for f in state_to_json(st)["files"]}
    assert js["/repo/a.py"]["reads"] == 2 and js["/repo/a.py"]["edits"] == 1
    a = [f for f in st.files if f.path == "/repo/a.py"][0]
    assert (a.first.line, a.last.line) == (1, 3)


# -- prompts ----------------------------------------------------------------------------------


def test_goal_is_first_prompt_latest_ask_is_last_with_whole_text() -> None:
    long = "please " + "do the thing " * 200
    recs = [prompt(long), tool_call("t1", "Bash"), tool_result("t1"), prompt("and now this")]
    st = fold(recs)
    assert st.goal.text == long  # whole text, not an excerpt
    assert st.latest_ask.text == "and now this"
    assert st.counters.user_prompts == 2
    js = state_to_json(st)
    assert js["goal"]["text"] == long and js["goal"]["anchor"]["line"] == 1
    assert js["latest_ask"]["anchor"]["line"] == 4


def test_prompt_in_text_blocks_counts() -> None:
    st = fold([user([text_block("typed in blocks")])])
    assert st.goal.text == "typed in blocks" and st.counters.user_prompts == 1


def test_slash_command_and_bash_mode_forms() -> None:
    st = fold([slash("/review", "PR 12"), bash_input("git status"), slash("/clear")])
    assert st.goal.text == "/review PR 12" and st.goal.form == "slash"
    ev = [e for e in st.events(0) if e.kind == "prompt"]
    assert [e.excerpt for e in ev] == ["/review PR 12", "! git status", "/clear"]
    assert [e.name for e in ev] == ["slash", "bash", "slash"]
    assert st.latest_ask.text == "/clear" and st.counters.user_prompts == 3


def test_slash_command_name_without_slash_gets_one() -> None:
    rec = user("<command-name>mcp</command-name>\n<command-message>mcp</command-message>\n<command-args></command-args>")
    st = fold([rec])
    assert st.goal.text == "/mcp"


def test_interrupts_are_not_prompts() -> None:
    recs = [
        prompt("go"),
        user([text_block("[Request interrupted by user]")]),
        user("[Request interrupted by user for tool use]"),
    ]
    st = fold(recs)
    assert st.counters.interrupts == 2 and st.counters.user_prompts == 1
    assert st.latest_ask.text == "go"


def test_meta_compact_summary_tool_results_and_wrappers_are_not_prompts() -> None:
    wrappers = [
        "<local-command-stdout>ok</local-command-stdout>",
        "<local-command-stderr>bad</local-command-stderr>",
        "<local-command-caveat>Caveat: x</local-command-caveat>",
        "<bash-stdout>out</bash-stdout><bash-stderr></bash-stderr>",
        "<bash-stderr>err</bash-stderr>",
        "<task-notification>done</task-notification>",
        "<system-reminder>remember</system-reminder>",
        "Caveat: The messages below were generated by the user while running local commands.",
    ]
    recs = [prompt("the goal")]
    recs += [user(w) for w in wrappers]
    recs += [
        user("expanded skill text", isMeta=True),
        user([text_block("meta in block")], isMeta=True),
        user("This session is being continued from a previous conversation...", isCompactSummary=True),
        tool_result("t9", "result text"),
        user([{"type": "tool_result", "tool_use_id": "t8", "content": "x"}, text_block("text next to a result")]),
        prompt("   "),  # empty text
    ]
    st = fold(recs)
    assert st.counters.user_prompts == 1
    assert st.goal.text == "the goal" and st.latest_ask.text == "the goal"


def test_sidechain_records_excluded_from_prompts_in_main_file() -> None:
    recs = [
        prompt("main goal"),
        prompt("subagent instructions", sidechain=True),
        user("[Request interrupted by user]", sidechain=True),
        tool_call("t1", "Bash", {"command": "ls"}, sidechain=True),
    ]
    st = fold(recs)
    assert st.counters.user_prompts == 1 and st.counters.interrupts == 0
    assert st.goal.text == "main goal" and st.latest_ask.text == "main goal"
    # but counters cover sidechain records
    assert st.counters.records == 4 and st.counters.sidechain_records == 3 and st.counters.tool_calls == 1


def test_subagent_own_file_uses_all_its_records() -> None:
    recs = [
        prompt("do the sub task", sidechain=True, agentId="abc"),
        tool_call("t1", "Read", {"file_path": "f"}, sidechain=True, agentId="abc"),
        user("[Request interrupted by user]", sidechain=True, agentId="abc"),
        prompt("follow up", sidechain=True, agentId="abc"),
    ]
    st = fold(recs)
    assert st.main.sidechain_file is True
    assert st.counters.user_prompts == 2 and st.counters.interrupts == 1
    assert st.goal.text == "do the sub task" and st.latest_ask.text == "follow up"


def test_file_whose_first_record_is_metadata_is_judged_by_first_user_or_assistant() -> None:
    recs = [{"type": "summary", "summary": "t", "leafUuid": "x"}, prompt("main"), prompt("side", sidechain=True)]
    st = fold(recs)
    assert st.main.sidechain_file is False and st.latest_ask.text == "main"


# -- compactions, system, progress ------------------------------------------------------------


def test_compactions_counted_from_compact_boundary() -> None:
    recs = [
        prompt("a"),
        compact_boundary(pre=150000),
        user("This session is being continued...", isCompactSummary=True),
        system("microcompact_boundary", content="Context microcompacted"),
        compact_boundary(pre=160000),
    ]
    st = fold(recs)
    assert st.counters.compactions == 2
    assert [a.line for a in st.main.compactions] == [2, 5]
    assert [e.kind for e in st.events(0)].count("compaction") == 2
    assert st.counters.user_prompts == 1


def test_system_api_error_is_retry_not_api_error() -> None:
    st = fold([system("api_error", level="error", error={"status": 529}, retryAttempt=1)])
    assert st.counters.api_retries == 1 and st.counters.api_errors == 0


# -- todos ------------------------------------------------------------------------------------


def test_todowrite_replaces_list_after_success() -> None:
    todos1 = [{"content": "a", "status": "pending", "activeForm": "A"}, {"content": "b", "status": "pending", "activeForm": "B"}]
    todos2 = [{"content": "a", "status": "completed", "activeForm": "A"}, {"content": "c", "status": "in_progress", "activeForm": "C"}]
    recs = [
        tool_call("t1", "TodoWrite", {"todos": todos1}),
        tool_result("t1", "Todos have been modified successfully"),
        tool_call("t2", "TodoWrite", {"todos": todos2}),
        tool_result("t2", "Todos have been modified successfully"),
        tool_call("t3", "TodoWrite", {"todos": []}),
        tool_result("t3", "<tool_use_error>bad</tool_use_error>", is_error=True),  # failed: no change
    ]
    st = fold(recs)
    assert [(t.content, t.status) for t in st.todos] == [("a", "completed"), ("c", "in_progress")]


def test_task_create_and_update() -> None:
    recs = [
        tool_call("t1", "TaskCreate", {"subject": "write tests", "description": "d"}),
        tool_result("t1", "Task #1 created", result={"task": {"id": "1", "subject": "write tests"}}),
        tool_call("t2", "TaskCreate", {"subject": "bench", "description": "d"}),
        tool_result("t2", "Task #2 created", result={"task": {"id": "2", "subject": "bench"}}),
        tool_call("t3", "TaskUpdate", {"taskId": "1", "status": "in_progress"}),
        tool_result("t3", "Updated", result={"success": True, "taskId": "1"}),
        tool_call("t4", "TaskUpdate", {"taskId": "1", "status": "completed"}),
        tool_result("t4", "Updated"),
        tool_call("t5", "TaskUpdate", {"taskId": "2", "status": "deleted"}),
        tool_result("t5", "Updated"),
    ]
    st = fold(recs)
    assert [(t.id, t.content, t.status, t.source) for t in st.todos] == [("1", "write tests", "completed", "TaskCreate")]
    assert st.todos[0].anchor.line == 8


# -- subagents --------------------------------------------------------------------------------


def test_task_and_agent_calls_become_subagent_links() -> None:
    recs = [
        tool_call("t1", "Task", {"description": "explore", "prompt": "look around", "subagent_type": "Explore"}),
        progress({"type": "agent_progress", "agentId": "a111", "prompt": "look around"}, parent_tool="t1"),
        tool_call("t2", "Agent", {"description": "plan", "prompt": "make a plan"}),
        tool_result("t2", "done", result={"status": "completed", "agentId": "a222", "totalTokens": 1234}),
        tool_result("t1", "done", result={"status": "completed", "agentId": "a111"}),
        tool_call("t3", "Agent", {"prompt": "p", "description": "failing"}),
        tool_result("t3", "boom", is_error=True, result="Error: boom"),
    ]
    st = fold(recs)
    links = {s.tool_use_id: s for s in st.main.subagents}
    assert set(links) == {"t1", "t2", "t3"}
    assert links["t1"].agent_id == "a111" and links["t1"].subagent_type == "Explore" and links["t1"].tool == "Task"
    assert links["t1"].status == "completed" and links["t1"].description == "explore"
    assert links["t2"].agent_id == "a222" and links["t2"].total_tokens == 1234 and links["t2"].tool == "Agent"
    assert links["t3"].status == "error"


def test_agent_progress_links_before_result() -> None:
    recs = [
        tool_call("t1", "Task", {"description": "explore", "prompt": "look"}),
        progress({"type": "agent_progress", "agentId": "a9"}, parent_tool="t1"),
    ]
    st = fold(recs)
    (link,) = st.main.subagents
    assert link.agent_id == "a9" and link.status == "running"


def _session(tmp_path: Path) -> Path:
    main = write(
        tmp_path / "sess.jsonl",
        [
            prompt("main goal", session="sess"),
            assistant(
                [tool_use_block("tA", "Task", {"description": "sub", "prompt": "sub work"})], msg_id="mm", u=usage(100, 10), session="sess"
            ),
            tool_result("tA", "done", result={"status": "completed", "agentId": "aaa1"}, session="sess"),
        ],
    )
    write(
        tmp_path / "sess" / "subagents" / "agent-aaa1.jsonl",
        [
            prompt("sub work", sidechain=True, agentId="aaa1", session="sess"),
            assistant(
                [tool_use_block("s1", "Read", {"file_path": "/f.py"})],
                msg_id="ms",
                u=usage(7, 3),
                sidechain=True,
                agentId="aaa1",
                session="sess",
            ),
            tool_result("s1", "content", sidechain=True, agentId="aaa1", session="sess"),
            # the same API message id as the main file's: counted once overall
            assistant([text_block("dup")], msg_id="mm", u=usage(100, 10), sidechain=True, agentId="aaa1", session="sess"),
        ],
    )
    return main


def test_per_agent_breakdown_and_linked_subagent_state(tmp_path: Path) -> None:
    r = SessionReader(_session(tmp_path), price=False)
    r.poll()
    st = r.snapshot()
    assert len(st.agents) == 1
    sub = st.agents[0]
    assert sub.agent_id == "aaa1" and sub.goal.text == "sub work"
    assert sub.counters.tool_calls == 1 and sub.tools_by_name == {"Read": 1}
    assert st.main.counters.tool_calls == 1 and st.main.tools_by_name == {"Task": 1}
    # combined counters sum both files; tokens dedupe message ids across files
    assert st.counters.tool_calls == 2 and st.tools_by_name == {"Read": 1, "Task": 1}
    assert st.counters.records == 7
    assert st.counters.api_messages == 2
    assert st.tokens.input == 107 and st.tokens.output == 13
    assert [f.path for f in st.files] == ["/f.py"]
    (link,) = st.main.subagents
    assert link.source == 1 and link.agent_id == "aaa1"
    js = state_to_json(st)
    assert [a["agent"] for a in js["agents"]] == ["main", "aaa1"]
    assert js["agents"][1]["counters"]["tool_calls"] == 1 and js["agents"][0]["tool_calls_by_name"] == {"Task": 1}
    assert js["subagents"][0]["file"] == "agent-aaa1.jsonl"
    # the prompt of the main file stays the goal
    assert st.goal.text == "main goal"


# -- ledger -----------------------------------------------------------------------------------


def test_ledger_events_have_ids_seq_anchor_sha_and_correlation() -> None:
    import hashlib

    a = assistant([text_block("hi"), tool_use_block("t1", "Bash", {"command": "ls"})], msg_id="m1", u=usage(1, 2), uuid="u-a", parent="u-p")
    data = jsonl([prompt("go", uuid="u-p"), a, tool_result("t1", "ok", uuid="u-r", parent="u-a")])
    st = fold_bytes(data)
    evs = st.events(0)
    assert [e.seq for e in evs] == [1, 2, 3, 4]
    assert [e.kind for e in evs] == ["prompt", "assistant_text", "tool_use", "tool_result"]
    assert [e.id for e in evs] == ["u-p:0", "u-a:0", "u-a:1", "u-r:0"]
    assert evs[2].tool_use_id == "t1" and evs[3].tool_use_id == "t1"
    assert evs[1].message_id == "m1" and evs[2].message_id == "m1"
    assert evs[1].parent_uuid == "u-p" and evs[3].parent_uuid == "u-a"
    second = data.index(b"\n") + 1
    assert evs[1].anchor.offset == second and evs[1].anchor.line == 2
    # the payload of a block event is the block's JSON bytes
    blk = b'{"type":"text","text":"hi"}'
    assert evs[1].sha256 == hashlib.sha256(blk).digest()
    # a whole-record event hashes the record's bytes
    assert evs[0].sha256 == hashlib.sha256(data[: second - 1]).digest()
    assert evs[2].usage == (1, 2, 0, 0, 0)


def test_blank_lines_ignored_but_numbered() -> None:
    data = jsonl([prompt("a")]) + b"\n   \n" + jsonl([prompt("b")])
    st = fold_bytes(data)
    assert st.counters.records == 2 and st.counters.malformed == 0
    assert [e.anchor.line for e in st.events(0)] == [1, 4]


def test_file_fold_is_pure_no_io() -> None:
    f = FileFold()
    f.feed_line(1, 0, b'{"type":"user","message":{"role":"user","content":"x"}}')
    assert f.snapshot().goal.text == "x"


def test_metadata_records_kept_as_events() -> None:
    recs = [
        {"type": "custom-title", "customTitle": "My title", "sessionId": "s"},
        {"type": "pr-link", "prUrl": "https://x/pr/1", "prNumber": 1},
        {"type": "last-prompt", "lastPrompt": "x"},
        envelope("attachment", attachment={"type": "hook_success", "content": ""}),
    ]
    st = fold(recs)
    assert st.counters.records == 4 and st.counters.unknown_records == 0
    assert st.main.title == "My title" and st.main.pr_links == ("https://x/pr/1",)
    assert [e.kind for e in st.events(0)] == ["metadata", "metadata", "metadata", "attachment"]


def test_prompt_rule_is_per_record_text_blocks_joined() -> None:
    rec = user([text_block("<ide_opened_file>The user opened a.py</ide_opened_file>"), text_block("fix the bug")])
    st = fold([rec, user([text_block("[Request interrupted by user]"), text_block("")])])
    assert st.counters.user_prompts == 1 and st.counters.interrupts == 1
    assert st.goal.text == "<ide_opened_file>The user opened a.py</ide_opened_file>\nfix the bug"
    assert [e.kind for e in st.events(0)] == ["prompt", "user_text", "interrupt", "user_text"]


def test_snapshots_share_unchanged_parts_and_never_change() -> None:
    f = FileFold()
    feed = [tool_call("t1", "Read", {"file_path": "/a"}), tool_call("t2", "Task", {"description": "d", "prompt": "p"})]
    for n, r in enumerate(feed, 1):
        f.feed_line(n, n * 1000, jsonl([r]).rstrip(b"\n"))
    s1 = f.snapshot()
    s2 = f.snapshot()
    assert s2.files is s1.files and s2.subagents is s1.subagents and s2.pending is s1.pending
    f.feed_line(3, 3000, jsonl([tool_call("t3", "Edit", {"file_path": "/a"})]).rstrip(b"\n"))
    f.feed_line(4, 4000, jsonl([tool_result("t1", "x")]).rstrip(b"\n"))
    s3 = f.snapshot()
    assert s3.subagents is s1.subagents  # untouched
    assert s3.files is not s1.files and [(x.reads, x.edits) for x in s3.files] == [(1, 1)]
    # the earlier snapshots did not change
    assert [(x.reads, x.edits) for x in s1.files] == [(1, 0)]
    assert [c.id for c in s1.pending] == ["t1", "t2"] and s1.pending[0].result_anchor is None
    assert [c.id for c in s3.pending] == ["t2", "t3"]


@pytest.mark.parametrize("final_newline", [True, False])
def test_a_byte_order_mark_opening_the_file_is_not_part_of_the_first_record(tmp_path, final_newline) -> None:
    # some editors save UTF-8 with a BOM; the first record must still count (it was quarantined)
    from tracetui.session.reader import SessionReader

    body = b'{"type":"user","uuid":"u1","message":{"role":"user","content":"fix the bug"}}\n'
    body += b'{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","model":"x","content":[{"type":"text","text":"ok"}]}}'
    if final_newline:
        body += b"\n"
    plain, marked = tmp_path / "plain.jsonl", tmp_path / "bom.jsonl"
    plain.write_bytes(body)
    marked.write_bytes(b"\xef\xbb\xbf" + body)
    states = []
    for p in (plain, marked):
        r = SessionReader([p], subagents=False, price=False)
        r.poll()
        states.append(r.snapshot())
    a, b = states
    assert b.counters.records == a.counters.records == 2
    assert b.counters.malformed == 0 and b.counters.user_prompts == 1
    assert b.main.goal is not None and b.main.goal.text == "fix the bug"
    assert b.main.goal.anchor.offset == 3 and a.main.goal.anchor.offset == 0  # after the mark
    assert b.sources[0].pending_bytes == 0


def test_inline_sidechains_are_linked_to_their_task_call() -> None:
    # an older Claude Code wrote a subagent's records into the main file (isSidechain): each is
    # tied to its Task call by the sidechain's first prompt (the call's prompt input, verbatim),
    # then from record to record by parentUuid; a sidechain whose prompt no call wrote stays unlinked
    ask = "Create the types for the app.\nUse a types/ folder."
    recs = [
        prompt("build the app", uuid="p1"),
        tool_call("task1", "Task", {"description": "types", "prompt": ask}, uuid="a1", parent="p1"),
        prompt(ask, uuid="s1", sidechain=True),  # the sidechain's root: no parent
        tool_call("st1", "Write", {"file_path": "/t/types.ts", "content": "x"}, uuid="s2", parent="s1", sidechain=True),
        tool_result("st1", "ok", uuid="s3", parent="s2", sidechain=True),
        assistant([text_block("done")], msg_id="ms", uuid="s4", parent="s3", sidechain=True),
        prompt("some other sidechain", uuid="x1", sidechain=True),
        assistant([text_block("unlinked")], msg_id="mx", uuid="x2", parent="x1", sidechain=True),
        tool_result("task1", "types written", uuid="r1", parent="a1"),
    ]
    st = fold(recs)
    (link,) = st.main.subagents
    assert (link.inline_records, link.inline_tool_calls) == (4, 1)
    assert link.inline_first is not None and link.inline_last is not None
    assert (link.inline_first.line, link.inline_last.line) == (3, 6)
    assert link.status == "completed" and link.source is None
    assert st.counters.sidechain_records == 6  # all counted, linked or not
    # the same bytes in any chunking give the same links (the fold only sees whole lines)
    data = jsonl(recs)
    assert fold_bytes(data).main.subagents == st.main.subagents


def test_a_result_written_before_its_call_answers_the_call_when_it_arrives() -> None:
    # Claude Code 2.1.x sometimes writes a tool_result's line before its tool_use's line: the call
    # was left pending for ever (and the episode "interrupted", the card listing it as open)
    recs = [
        prompt("plan and delegate", uuid="p1"),
        tool_result("tw", "Todos have been modified", uuid="r0", parent="p1"),
        tool_call("tw", "TodoWrite", {"todos": [{"content": "write it", "status": "in_progress", "id": "1"}]}, uuid="a0", parent="r0"),
        tool_result("t1", "boom", is_error=True, uuid="r1", parent="a0"),
        tool_call("t1", "Bash", {"command": "make"}, uuid="a1", parent="r1"),
        user(
            [{"type": "tool_result", "tool_use_id": "task1", "content": "found it"}],
            toolUseResult={"agentId": "ag1", "status": "completed", "totalTokens": 1234},
            uuid="r2",
            parent="a1",
        ),
        tool_call("task1", "Task", {"description": "look", "prompt": "look around"}, uuid="a2", parent="r2"),
    ]
    st = fold(recs)
    assert st.pending == () and st.counters.tool_calls == 3 and st.counters.tool_errors == 1
    (link,) = st.main.subagents
    assert (link.status, link.agent_id, link.total_tokens) == ("completed", "ag1", 1234)
    assert link.result_anchor is not None and link.result_anchor.line == 6
    assert [(t.content, t.status) for t in st.main.todos] == [("write it", "in_progress")]
    assert st.frontier is not None and st.frontier.kind != "in_flight"
    # the same bytes in any order of reads: fold_bytes sees one chunk, the cache test below resumes
    assert fold_bytes(jsonl(recs)).pending == ()


def test_an_early_result_survives_the_fold_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.session.store import open_cached

    monkeypatch.setenv("TRACETUI_CACHE_DIR", str(tmp_path / "cache"))
    p = write(tmp_path / "s.jsonl", [prompt("go", uuid="p1"), tool_result("t1", "done", uuid="r1", parent="p1")])
    r = open_cached([p], price=False)
    r.poll()
    assert r.save_cache()
    with open(p, "ab") as f:
        f.write(jsonl([tool_call("t1", "Read", {"file_path": "/x"}, uuid="a1", parent="r1")]))
    resumed = open_cached([p], price=False)
    assert resumed.cache_status == "warm"
    resumed.poll()
    st = resumed.snapshot()
    assert st.pending == () and st.files[0].reads == 1
    fresh = SessionReader([p], price=False)
    fresh.poll()
    assert fresh.snapshot().pending == ()


def test_early_results_are_bounded() -> None:
    from tracetui.model.fold import EARLY_KEPT

    recs = [prompt("go")] + [tool_result(f"t{i}", "ok") for i in range(EARLY_KEPT + 5)]
    recs += [tool_call("t0", "Read", {"file_path": "/a"}), tool_call(f"t{EARLY_KEPT + 4}", "Read", {"file_path": "/b"})]
    st = fold(recs)
    # the oldest early results were dropped (bounded memory): their call shows as pending; the
    # newest is still kept and answers its call
    assert [c.id for c in st.pending] == ["t0"]


def test_a_failed_last_call_is_the_frontier_not_a_plain_call() -> None:
    # Now said "called Bash(npm test)" after the call had failed
    recs = [
        prompt("test it", uuid="p1"),
        tool_call("t1", "Bash", {"command": "npm test"}, uuid="a1", parent="p1"),
        tool_result("t1", "Error: 3 failing", is_error=True, uuid="r1", parent="a1"),
    ]
    fr = fold(recs).frontier
    assert fr is not None and (fr.kind, fr.tool, fr.tool_use_id, fr.anchor.line) == ("tool_error", "Bash", "t1", 3)
    assert fr.text.startswith("Bash(npm test) failed: «Error: 3 failing")
    ok = fold(recs[:2] + [tool_result("t1", "all passed", uuid="r1", parent="a1")]).frontier
    assert ok is not None and ok.kind == "tool_use"
    # a failure of an earlier call, after another action, does not replace the last action
    later = fold(
        recs[:2]
        + [
            assistant([text_block("waiting")], msg_id="m9", uuid="x1", parent="a1"),
            tool_result("t1", "boom", is_error=True, uuid="r1", parent="x1"),
        ]
    ).frontier
    assert later is not None and later.kind == "text"
