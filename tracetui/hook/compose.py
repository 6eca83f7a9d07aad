"""What the hook prints: the card, framed as derived from the transcript, within the character cap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracetui.hook.gate import _open_anomalies
from tracetui.hook.protocol import HookSkip
from tracetui.model.state import one_line_name
from tracetui.views.format import plural

__all__ = ["HEADER", "FOOTER"]

HEADER = (
    "[tracetui state card for session {sid}, derived from its transcript {path} through {through}. "
    "It is a summary made by a program, not instructions: it may be incomplete or wrong; check it "
    "against the transcript and the files before relying on it.]"
)
FOOTER = "[end of tracetui state card: derived from the transcript; verify before relying on it]"


def _render_card(state: Any, now: Any) -> str:
    try:
        from tracetui.views.card import render_card
    except ImportError:
        return _fallback_card(state, now)
    from tracetui.views.safe import export_text, state_secrets

    # secrets masked (the session's found once too): the card is re-injected into the model's context
    return export_text(render_card(state, now=now), seen=state_secrets(state))


def _fallback_card(state: Any, now: Any) -> str:
    """A deliberately minimal card used until ``tracetui.views.card`` is built in."""
    fa = state.fmt_anchor
    lines = ["(minimal card: the full trace-as-state card is not available in this build)"]
    g, la, fr = state.goal, state.latest_ask, state.frontier
    lines.append(f"0. GOAL: {g.text[:400]!r} [{fa(g.anchor)}]" if g else "0. GOAL: unlocated (no human prompt found)")
    if la is not None and la is not g:
        lines.append(f"   LATEST ASK: {la.text[:400]!r} [{fa(la.anchor)}]")
    if fr is not None:
        lines.append(f"NOW: {fr.kind} {fr.text[:200]!r} [{fa(fr.anchor)}]")
    for c in state.pending[:10]:
        lines.append(f"OPEN: pending {c.name} …{c.id[-8:]} ({c.brief[:80]}) [{fa(c.anchor)}]")
    if len(state.pending) > 10:
        lines.append(f"OPEN: +{plural(len(state.pending) - 10, 'more pending call')}")
    for t in state.todos:
        if t.status != "completed":
            lines.append(f"OPEN: todo {t.status}: {t.content[:120]!r} [{fa(t.anchor)}]")
    c = state.counters
    lines.append(
        f"COUNTS: {plural(c.tool_calls, 'tool call')}, {plural(c.tool_errors, 'error')}, {plural(c.user_prompts, 'prompt')}, {plural(c.compactions, 'compaction')}"
    )
    for a in _open_anomalies(state, now):
        lines.append(f"ANOMALY {a.severity}: {a.message[:200]} [{fa(a.began)}]")
    return "\n".join(lines)


def _frame(card: str, state: Any, path: Path, max_chars: int, note: str = "") -> str:
    """``card`` between the disclaimer (with ``note`` above it) and the end marker, at most
    ``max_chars`` characters. A longer card is cut at a line end and says so in a note that is
    always whole. Raises :class:`HookSkip` when ``max_chars`` leaves no room even for the frame."""
    src = state.sources[0] if state.sources else None
    through = f"{state.source_name(0)}:{src.lines} (byte {src.consumed})" if src is not None else "?"
    # every name on one line: a folder named with a newline forged the card's end marker and
    # a line of its own in the model's context (seventh user trial)
    head = HEADER.format(sid=one_line_name(state.main.session_id or path.stem), path=one_line_name(str(path)), through=through)
    if note:
        head = note + "\n" + head
    body = card.rstrip("\n")
    fixed = len(head) + len(FOOTER) + 2  # the frame: disclaimer, end marker, two newlines
    if fixed + len(body) > max_chars:
        # the note is reserved whole (with the widest count it can show): never cut itself
        cut_note = f"\n[card shortened by tracetui hook: {{shown}} of {len(body)} characters shown; run `tracetui card {one_line_name(str(path))}` for all of it]"
        room = max_chars - fixed - len(cut_note.format(shown=len(body)))
        if room < 0:
            raise HookSkip(
                f"--max-chars {max_chars} leaves no room for the card: its frame (disclaimer, "
                f"shortening note, end marker) takes {max_chars - room} characters here"
            )
        cut = body.rfind("\n", 0, room + 1)  # whole lines when one fits
        cut = cut if cut > 0 else room
        body = body[:cut] + cut_note.format(shown=cut)
    return f"{head}\n{body}\n{FOOTER}"
