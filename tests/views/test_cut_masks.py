"""A secret's mask is never cut, and a shortened quote still closes: every cut of a view's
line, of a quote and of a monitor pane's text keeps each ``«redacted: KIND»`` whole or leaves
it out, the ``[N secrets redacted (…)]`` line names only the detectors' kinds, and a quoted
datum shortened to fit its line still ends with ``»``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tracetui.demo.codex_records import RolloutBuilder
from tracetui.ingest.secrets import redact
from tracetui.session.reader import SessionReader
from tracetui.views.card import render_card
from tracetui.views.safe import cut_redacted, export_text, masks_in
from tracetui.views.text import Item, quote
from tracetui.views.worker import render_worker_view

SECRETS = {
    "aws access key": "AKIAQ3EGRTYU7VWXZ2AB",
    "github token": "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
    "json web token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "slack token": "xoxb-2718281828-3141592653589-" + "aQ7wE3rT9yU1iO5pL2kJ8hG4",
    "openai api key": "sk-proj-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn" + "T3BlbkFJ" + "Op7Qr8St9Uv0Wx1Yz2Ab",
    "stripe access key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
}
#: every kind a mask may name: the detectors' kinds, and the same for a secret an excerpt cut
KINDS = {k for k in SECRETS} | {f"{k} (cut)" for k in SECRETS} | {"openai"}
#: the head of any mask, whole or cut, and a whole mask
_HEAD = re.compile("\u00abr(?:e(?:d(?:a(?:c(?:t(?:e(?:d(?::(?: )?)?)?)?)?)?)?)?)?")
_WHOLE = re.compile("\u00abredacted: ([^\u00ab\u00bb\n\u2026]+)\u00bb")


def partial_masks(text: str) -> list[str]:
    """Every mask of ``text`` that is not whole (``«redacted: o…``, ``«reda…``), with what
    follows it; the heads of whole masks do not count."""
    whole = {m.start() for m in _WHOLE.finditer(text)}
    return [text[m.start() : m.start() + 30] for m in _HEAD.finditer(text) if m.start() not in whole and len(m.group()) > 2]


def open_quotes(line: str) -> int:
    """Guillemets opened and not closed on ``line`` (a whole mask counts as none)."""
    rest = _WHOLE.sub("", line)
    depth = 0
    for ch in rest:
        depth += ch == "«"
        depth -= ch == "»" and depth > 0
    return depth


def test_a_cut_never_falls_inside_a_mask() -> None:
    text = "my key is " + " and ".join(SECRETS.values()) + " thanks"
    masked = redact(text)[0]
    for limit in range(1, len(masked) + 2):
        out = cut_redacted(text, limit)
        assert len(out) <= limit
        assert partial_masks(out) == [], (limit, out)
        assert set(masks_in(out)) <= KINDS


def test_the_count_never_takes_a_cut_mark_for_a_kind() -> None:
    out = export_text("quoted «redacted: o…» and «redacted: slack tok…» and «redacted: github token»")
    assert out.endswith("[1 secret redacted (1 github token) by tracetui]"), out


@pytest.mark.parametrize("limit", range(12, 80))
def test_a_line_cut_keeps_its_quote_closed_and_its_masks_whole(limit: int) -> None:
    body = "Goal (first prompt): " + quote("can you get yourself oriented, my key is " + SECRETS["aws access key"] + " and go", 300)
    line = Item(body, "rollout-….jsonl:7").render(limit + 20)
    assert line.endswith(" @ rollout-….jsonl:7")
    assert partial_masks(line) == [] and open_quotes(line) == 0, line


def _rollout(path: Path) -> Path:
    b = RolloutBuilder(cwd="/home/dev/app")
    b.turn(
        "can you get yourself oriented in this repository and then kick off the spec work, my key is "
        + SECRETS["aws access key"]
        + " and the openai one "
        + SECRETS["openai api key"]
    )
    for kind, s in SECRETS.items():
        b.exec(f"curl -H 'Authorization: Bearer {s}' https://api.example.com/{kind[:3]}/with/a/long/path/to/cut", f"bad key {s}", 1)
    b.say(f"The token {SECRETS['github token']} is rejected; trying {SECRETS['slack token']}")
    b.tokens(1000, 0, 100).done("x")
    b.turn("use " + SECRETS["stripe access key"] + " instead please, and " + SECRETS["json web token"])
    b.exec("echo " + SECRETS["aws access key"] * 3, "")
    return b.write(path / "rollout-2026-03-02T09-00-00-0199c0de-0000-7000-8000-00000000d001.jsonl")


def test_views_of_a_session_with_secrets_show_whole_masks_and_closed_quotes(tmp_path: Path) -> None:
    reader = SessionReader([_rollout(tmp_path)])
    reader.poll()
    state = reader.snapshot()
    for text in (render_card(state), render_worker_view(state), render_worker_view(state, max_chars=1500)):
        out = export_text(text)
        assert partial_masks(out) == [], [ln for ln in out.splitlines() if partial_masks(ln)]
        assert set(masks_in(out)) <= KINDS
        last = out.splitlines()[-1]
        assert last.startswith("[") and "secrets redacted (" in last
        named = last.split(" redacted (", 1)[1].removesuffix(") by tracetui]").split(", ")
        assert {part.split(" ", 1)[1] for part in named} <= KINDS, last
        for ln in out.splitlines()[:-1]:
            assert open_quotes(ln) == 0, ln
