"""A hostile session written in code: terminal escapes in every field the monitor and the views
can show (tool names, file paths, prompts, todos, agent names, titles, project folder, session
and subagent file names), for the tests that prove none of them reaches a terminal raw.

Nothing here is copied from the corpus; the shapes are the demo builder's (Claude Code 2.1
layout: ``<project>/<sid>.jsonl`` and ``<sid>/subagents/agent-<id>.jsonl`` with its
``.meta.json``).
"""

from __future__ import annotations

from pathlib import Path

import orjson

from tracetui.demo.build import TranscriptBuilder

#: a terminal retitle (OSC 0, BEL-terminated)
OSC_TITLE = "\x1b]0;PWNED-TITLE\x07"
#: a clipboard write (OSC 52, ST-terminated): "pwned" in base64
OSC_CLIP = "\x1b]52;c;cHduZWQ=\x1b\\"
#: colours and a cursor move (CSI), a screen clear
CSI = "\x1b[31m\x1b[2J\x1b[H"
#: the 8-bit forms: CSI (0x9b), OSC (0x9d) ... ST (0x9c), DCS (0x90), and a lone NEL (0x85)
C1 = "\x9b31m\x9d0;C1-TITLE\x9c\x90q\x9c\x85"
#: every escape at once, with a bell, a backspace and a carriage return
EVIL = OSC_TITLE + OSC_CLIP + CSI + C1 + "\x07\x08\r"
#: the same for a file name (no NUL, no slash)
EVIL_NAME = "\x1b]0;PWNED-FILE\x07\x1b]52;c;ZmlsZQ==\x07\x1b[5m\x9b1m\x9d2;C1\x07"


def is_dirty(text: str) -> list[str]:
    """The terminal control characters in ``text`` (ESC, BEL, any C0 but newline and tab, DEL,
    C1), as ``repr``s; empty when ``text`` is safe to print."""
    return [repr(c) for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0]


def hostile_session(projects: Path) -> tuple[Path, Path]:
    """Write the hostile session under ``projects`` (a projects folder): ``(main, subagent)``.

    The project folder, the session file, the subagent file, the working directory, the git
    branch, the version, the model, the title, the prompts, the tool names, the file paths, the
    commands, the results, the todos, the Task description and type, and the assistant's text
    all carry :data:`EVIL` (or :data:`EVIL_NAME` in file names). The last call stays pending,
    the session has a failing call and an interrupted one, so every pane has rows."""
    sid = "e5c0e5c0-0000-4000-8000-" + EVIL_NAME
    cwd = "/home/dev/" + EVIL + "proj"
    m = TranscriptBuilder(sid, cwd, model="claude-sonnet-4-5" + EVIL, version="2.1.30" + EVIL, git_branch="main" + EVIL)
    a = TranscriptBuilder(sid, cwd, agent_id="a9e" + EVIL, model="claude-haiku-4-5" + EVIL)
    m.meta("custom-title", customTitle="title " + EVIL)
    m.meta("ai-title", aiTitle="ai title " + EVIL)
    m.prompt("first prompt " + EVIL + " do the thing")
    todos = {"todos": [{"content": "todo " + EVIL, "status": "in_progress", "activeForm": "doing " + EVIL}]}
    m.tick(1).tool("TodoWrite", todos, "ok " + EVIL, structured={"oldTodos": [], "newTodos": todos["todos"]})
    task = m.tick(1).tool_use("Task", {"description": "agent " + EVIL, "prompt": "explore " + EVIL, "subagent_type": "Explore" + EVIL})
    a.parent_tool_use_id = task
    a.t = m.t
    a.tick(0.5).prompt("explore " + EVIL)
    a.tick(1).tool("Grep" + EVIL, {"pattern": EVIL, "path": cwd}, "hit " + EVIL, took=0.2)
    a.tick(1).text("sub found " + EVIL)
    m.tick(3).tool_result(task, "report " + EVIL)
    path = cwd + "/src/" + EVIL + "x.py"
    for _ in range(3):
        m.tick(1).tool("Read", {"file_path": path}, "     1\tline " + EVIL, took=0.1)
    m.tick(1).tool("Edit" + EVIL, {"file_path": path, "old_string": "a" + EVIL, "new_string": "b" + EVIL}, "edited " + EVIL)
    m.tick(1).tool("Bash", {"command": "make " + EVIL}, "Exit code 2\nerror " + EVIL, is_error=True)
    m.tick(1).api_error(529, "Overloaded " + EVIL)
    m.tick(1).text("I will retry " + EVIL)
    m.tick(2).prompt("second prompt " + EVIL)
    m.tick(1).tool("mcp__evil" + EVIL + "__tool", {"q": EVIL}, "r " + EVIL)
    m.tick(1).tool_use("Bash" + OSC_TITLE, {"command": "sleep 99 " + EVIL, "description": "wait " + EVIL})
    proj = projects / ("-home-dev-" + EVIL_NAME)
    main = m.write(proj / f"{sid}.jsonl")
    sub = a.write(proj / sid / "subagents" / f"agent-{a.agent_id.replace('/', '_')}.jsonl")
    meta = {"agentType": "Explore" + EVIL, "description": "meta " + EVIL, "toolUseId": task, "spawnDepth": 1}
    sub.with_name(sub.name[: -len(".jsonl")] + ".meta.json").write_bytes(orjson.dumps(meta))
    return main, sub
