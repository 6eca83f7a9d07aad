"""The human-prompt rule: which user text is a prompt, an interrupt, or machine-written.

Source: issue 2 §5 and transcript-format.md §11.
"""

from __future__ import annotations

import re

__all__ = ["MACHINE_WRAPPERS", "INTERRUPT_PREFIX", "classify_user_text"]

#: user text starting with one of these was written by Claude Code, not typed by a human
MACHINE_WRAPPERS = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "<system-reminder>",
    "Caveat: The messages below",
)
#: ``[Request interrupted by user]`` and ``[Request interrupted by user for tool use]``
INTERRUPT_PREFIX = "[Request interrupted"

_CMD_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_CMD_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)


def classify_user_text(text: str) -> tuple[str, str, str]:
    """Classify the text of a user record (already known not to be meta, a compaction summary,
    or a tool_result carrier).

    Returns ``(kind, text, form)``: kind is ``prompt``, ``interrupt`` or ``machine``; for a
    prompt, text is normalised (``/name args`` for a slash command, ``! cmd`` for bash mode) and
    form is ``text``, ``slash`` or ``bash``.
    """
    stripped = text.lstrip()
    if not stripped:
        return "machine", text, "text"
    if stripped.startswith(INTERRUPT_PREFIX):
        return "interrupt", stripped, "text"
    if stripped.startswith(MACHINE_WRAPPERS):
        return "machine", text, "text"
    if "<command-name>" in stripped:
        m = _CMD_NAME.search(stripped)
        if m:
            name = m.group(1).strip()
            a = _CMD_ARGS.search(stripped)
            args = a.group(1).strip() if a else ""
            if not name.startswith("/"):
                name = "/" + name
            return "prompt", f"{name} {args}".rstrip(), "slash"
    if stripped.startswith("<bash-input>"):
        m = _BASH_INPUT.search(stripped)
        if m:
            return "prompt", f"! {m.group(1).strip()}", "bash"
    return "prompt", text, "text"
