"""The UserPromptSubmit gate: the open anomalies that open it, and what the last injection carried."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["GATE_SEVERITIES"]

#: anomaly severities that open the gate (the detectors use ``info``, ``warn``, ``error``)
GATE_SEVERITIES = ("warn", "error")


def _hook_state_path(session_id: str) -> Path:
    from tracetui.session.store import cache_dir

    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session_id)[:120] or "unknown"
    return cache_dir() / "hook" / f"{safe}.json"


def _load_hook_state(session_id: str) -> dict[str, Any]:
    import orjson

    try:
        obj = orjson.loads(_hook_state_path(session_id).read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(obj, dict):
        return {}
    # a damaged file (another shape, edited by hand) is as none: the gate starts afresh (seventh
    # user trial: "ValueError: invalid literal for int()" on every prompt)
    c, a, h = obj.get("compactions", 0), obj.get("anomalies", []), obj.get("head", "")
    if type(c) is not int or not isinstance(a, list) or not all(isinstance(x, str) for x in a) or not isinstance(h, str):
        return {}
    return obj


def _save_hook_state(session_id: str, state: dict[str, Any]) -> None:
    import orjson

    from tracetui.ingest.private import write_private

    write_private(_hook_state_path(session_id), orjson.dumps(state))


def _open_anomalies(state: Any, now: Any) -> list[Any]:
    """Open anomalies of severity warn or above, from the incremental detectors of every file
    (``AgentState.derived.anomalies``). The view-time detectors stay out of the gate: the stall
    detector measures idle time, which at a turn boundary is the user's, and the cost-spike
    detector needs the price table (0.3 s to import, more than the hook's budget)."""
    out = []
    for st in (state.main, *state.agents):
        d = getattr(st, "derived", None)
        for a in getattr(d, "anomalies", ()) or ():
            if a.open and a.severity in GATE_SEVERITIES:
                out.append(a)
    return out


def _anomaly_key(a: Any) -> str:
    began = getattr(a, "began", None)
    where = f"{began.src}:{began.line}" if began is not None else "-"
    return f"{a.key}@{where}"
