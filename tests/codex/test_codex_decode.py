"""The rollout's decoding rules (tracetui/ingest/codex_decode.py): the first-line test, tool
arguments given as a JSON string, apply_patch paths exactly as written, update_plan todos,
the parent a session_meta names."""

from __future__ import annotations

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.ingest.codex_decode import call_arguments, call_brief, is_codex_first_line, parent_of, patch_files, plan_todos
from tracetui.model.session_fold import fold_bytes

META = b'{"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{"id":"t-1","cwd":"/x"}}'


def test_the_first_line_decides_by_its_first_object_only() -> None:
    assert is_codex_first_line(META)
    assert is_codex_first_line(META + b" trailing garbage")
    assert is_codex_first_line(b"  " + META + b"  ")
    assert not is_codex_first_line(META.replace(b'"id":"t-1",', b""))  # no thread id
    assert not is_codex_first_line(b'{"type":"session_meta","payload":"x"}')
    assert not is_codex_first_line(b'{"type":"user","message":{"content":"session_meta"}}')
    assert not is_codex_first_line(META[:40])  # torn


def test_a_byte_order_mark_before_the_first_record_is_not_part_of_it() -> None:
    st = fold_bytes(b"\xef\xbb\xbf" + RolloutBuilder().turn("hi").data())
    assert st.agent == "codex" and st.counters.user_prompts == 1 and st.main.unknown == ()


def test_function_call_arguments_are_a_json_string() -> None:
    assert call_arguments(msgspec.Raw(b'"{\\"cmd\\": \\"ls -la\\"}"')) == {"cmd": "ls -la"}
    assert call_arguments(msgspec.Raw(b'{"cmd": "ls"}')) == {"cmd": "ls"}  # an object as it is
    assert call_arguments(msgspec.Raw(b'"not json"')) == "not json"
    assert call_brief("exec_command", {"cmd": "pytest -q"}) == "pytest -q"
    assert call_brief("local_shell", {"command": ["bash", "-lc", "ls"]}) == "bash -lc ls"


def test_patch_paths_exactly_as_written() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: docs/A b.md\n+x\n*** Update File: ./src/app.py\r\n@@\n-a\n+b\n"
        "*** Update File: /abs/old.py\n*** Move to: /abs/new.py\n*** Delete File: ../junk\n"
        "+*** Add File: not/a/header.py\n*** End Patch\n"
    )
    assert patch_files(patch) == [
        ("docs/A b.md", "write"),
        ("./src/app.py", "edit"),
        ("/abs/old.py", "edit"),
        ("/abs/new.py", "write"),
        ("../junk", "write"),
    ]
    assert patch_files("no patch here") == []
    assert call_brief("apply_patch", patch) == "docs/A b.md (+4)"


def _headers_by_splitting(patch: str) -> list[tuple[str, str]]:
    """patch_files' rule read the plain way: every line split out and tried."""
    ops = {"*** Add File: ": "write", "*** Update File: ": "edit", "*** Delete File: ": "write", "*** Move to: ": "write"}
    out = []
    for line in patch.split("\n"):
        for prefix, kind in ops.items():
            if line.startswith(prefix) and line[len(prefix) :].rstrip("\r"):
                out.append((line[len(prefix) :].rstrip("\r"), kind))
    return out


_PIECES = ["*** ", "*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ", "\n", "\r", "a.py", " ", "+", "*"]


@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_patch_headers_found_by_scanning_are_those_of_every_line(pieces: list[str]) -> None:
    patch = "".join(pieces)
    assert patch_files(patch) == _headers_by_splitting(patch)


def test_update_plan_todos() -> None:
    args = {"explanation": "e", "plan": [{"step": "Read", "status": "completed"}, {"step": "Fix"}, "junk"]}
    assert plan_todos(args) == [("Read", "completed"), ("Fix", "pending")]
    assert plan_todos({"explanation": "no plan"}) is None


def test_the_parent_a_session_meta_names() -> None:
    spawn = msgspec.Raw(b'{"subagent":{"thread_spawn":{"parent_thread_id":"p-1","agent_nickname":"Harvey","agent_role":"explorer"}}}')
    assert parent_of(spawn, None) == ("p-1", "Harvey", "explorer")
    assert parent_of(msgspec.Raw(b'{"subagent":"review"}'), None) == (None, None, None)
    assert parent_of(msgspec.Raw(b'"cli"'), "p-2") == ("p-2", None, None)
