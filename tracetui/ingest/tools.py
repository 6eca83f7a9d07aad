"""What the fold reads from a tool_use input: a one-line brief and the files it touches."""

from __future__ import annotations

from typing import Any

__all__ = [
    "one_line",
    "one_line_name",
    "brief_input",
    "file_ops",
    "READ_TOOLS",
    "WRITE_TOOLS",
    "EDIT_TOOLS",
    "SUBAGENT_TOOLS",
    "TODO_TOOLS",
]

#: tools whose ``file_path`` (``notebook_path``) input is counted as a read, write or edit
READ_TOOLS = frozenset({"Read"})
WRITE_TOOLS = frozenset({"Write"})
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "NotebookEdit"})
#: tools that start a subagent (``Task`` was renamed ``Agent`` in Claude Code 2.1.63)
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
#: tools that write the todo list or its tasks (their inputs are kept until their results)
TODO_TOOLS = frozenset({"TodoWrite", "TaskCreate", "TaskUpdate"})

_BRIEF_KEYS = (
    "command",
    "file_path",
    "notebook_path",
    "pattern",
    "path",
    "url",
    "query",
    "description",
    "subject",
    "skill",
    "prompt",
)


def one_line(text: str, limit: int) -> str:
    """``text`` on one line (whitespace runs folded), cut to ``limit`` characters with ``…``.

    Folds only the head of a long text, so a megabyte of tool output costs what its head costs.
    """
    if type(text) is not str:
        text = str(text)
    n = len(text)
    if n <= limit and text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        # nothing to fold (in a printable string the only white space is the ASCII space) or cut
        return text
    if n > 4 * limit + 64:
        # fold the head only (an input can be a whole file): the folded head is a prefix of the
        # folded whole, so when it is already too long the cut is the same
        head = " ".join(text[: 4 * limit].split())
        if len(head) > limit:
            return head[: limit - 1] + "…"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: the line breaks and tab of a name shown on one line, as their control pictures (the other
#: controls are the views' terminal-safety rule's, tracetui/views/safe.py)
_NAME_BREAKS = str.maketrans({"\n": "\u240a", "\r": "\u240d", "\t": "\u2409"})
#: the inputs that name a file or folder: a line break in one is part of the name, shown as its
#: control picture, never folded to a space (a different name)
_PATH_KEYS = frozenset({"file_path", "notebook_path", "path"})


def one_line_name(name: str) -> str:
    """``name`` (a file or folder name, a session id) with its line breaks and tabs as control
    pictures: on one line wherever it is shown."""
    return name.translate(_NAME_BREAKS) if ("\n" in name or "\r" in name or "\t" in name) else name


def brief_input(name: str, inp: Any, limit: int = 80) -> str:
    """A one-line summary of a tool input, at most ``limit`` characters.

    Picks the field that says most for the tool (the command of Bash, the path of Read, …);
    falls back to ``key=value`` pairs. A path keeps its line breaks and tabs, as their control
    pictures (:func:`one_line_name`); other white space runs are folded to one space. ``inp`` is the decoded input (any JSON value).
    """
    if not isinstance(inp, dict):
        return one_line(repr(inp), limit) if inp is not None else ""
    if name == "TodoWrite" and isinstance(inp.get("todos"), list):
        return f"{len(inp['todos'])} todos"
    if name == "TaskUpdate":
        return one_line(f"#{inp.get('taskId', '?')} {inp.get('status', '')}".strip(), limit)
    if name in ("Grep", "Glob") and "pattern" in inp:
        where = inp.get("path")
        return one_line(f"{inp['pattern']}" + (f" in {one_line_name(where)}" if isinstance(where, str) and where else ""), limit)
    for key in _BRIEF_KEYS:
        val = inp.get(key)
        if isinstance(val, str) and val:
            return one_line(one_line_name(val) if key in _PATH_KEYS else val, limit)
    parts = []
    for key, val in inp.items():
        if isinstance(val, (str, int, float, bool)):
            parts.append(f"{key}={val}")
    return one_line(" ".join(parts), limit)


def file_ops(name: str, inp: Any) -> tuple[str, str] | None:
    """``(path, op)`` with op in ``read``, ``write``, ``edit`` for file tools, else ``None``.

    The path is taken exactly as it appears in the call's input (``file_path``, or
    ``notebook_path`` for NotebookEdit); no normalisation, so views show what the agent wrote.
    """
    if not isinstance(inp, dict):
        return None
    path = inp.get("file_path") or inp.get("notebook_path")
    if not isinstance(path, str) or not path:
        return None
    if name in READ_TOOLS:
        return path, "read"
    if name in WRITE_TOOLS:
        return path, "write"
    if name in EDIT_TOOLS:
        return path, "edit"
    return None
