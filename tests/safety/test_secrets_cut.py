"""A secret cut short by a view, an excerpt or the frontier never shows a piece of itself: the
views mask before they cut, and the redactor masks a token that starts like a secret and runs
into the cut (``«redacted: github token (cut)»``)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tracetui.demo.build import TranscriptBuilder
from tracetui.ingest.secret_detectors import rules_spec
from tracetui.ingest.secrets import GATE_SHAPES, GATE_WORDS, may_hold_secret, redact

GH = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"
AWS = "AKIAQ3EXAMPLE7KEY9ZZ"
SECRETS = (GH, AWS)


def pieces(text: str, n: int = 8) -> list[str]:
    """The runs of ``n`` characters of a secret of :data:`SECRETS` that ``text`` holds."""
    return [s[i : i + n] for s in SECRETS for i in range(len(s) - n + 1) if s[i : i + n] in text]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (GH[:30] + "…", "github token (cut)"),
        ("see github_pat_11ABCDEFG…", "github token (cut)"),
        (AWS[:15] + "…", "aws access key (cut)"),
        ("key sk-ant-api03-abcdef…", "anthropic api key (cut)"),
        ("key sk-proj-abcdef…", "openai api key (cut)"),
        ("sk_live_abc123…", "stripe access key (cut)"),
        ("xoxb-12345-abcd…", "slack token (cut)"),
        ("AIzaSyA12345…", "google api key (cut)"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIi…", "json web token"),
        ("-----BEGIN RSA PRIV…", "private key (cut)"),
        ("git clone https://bob:s3cr3tpa…", "basic auth credentials (cut)"),
        ("export PASSWORD=hunter2hunt…", "password or secret"),
        ('"access_token": "abcdefgh…', "password or secret (cut)"),
        ("curl -H 'Authorization: Bearer abcdefghijklm…", "bearer token (cut)"),
        ("Bash(curl -H 'authorization: bearer abcd…)", "bearer token (cut)"),
        ("run hf_abcdefghijklmnopq…", "hugging face token (cut)"),
        ("curl -H Authorization:Bearer\\ X3SCb8FN…", "bearer token (cut)"),
    ],
)
def test_a_secret_cut_by_a_marker_is_masked(text: str, kind: str) -> None:
    out, kinds = redact(text)
    # a whole detector that still matches the head (``sk-ant-``'s) is as good as the cut one
    assert any(k.removesuffix(" (cut)") == kind.removesuffix(" (cut)") for k in kinds), (text, out, kinds)
    assert "«redacted: " in out


def test_the_text_end_counts_as_a_cut_only_when_said() -> None:
    assert redact("token " + GH[:20])[1] == ()
    assert redact("token " + GH[:20], cut=True)[0] == "token «redacted: github token (cut)»"


@pytest.mark.parametrize("text", ["a task-… risk", "normal text … more", "ASIA…", "tokens: 12 and…", "secret: $VAR…"])
def test_text_cut_without_a_secret_is_left_as_it_is(text: str) -> None:
    assert redact(text) == (text, ())


def test_every_detector_has_a_gate() -> None:
    """The pre-filter is exact only if every kind of detector has a gate (a kind without one is
    searched in every text: correct, but slow)."""
    kinds = {str(r[0]) for r in rules_spec()["rules"]}  # type: ignore[union-attr]
    gated = set(GATE_WORDS) | set(GATE_SHAPES)
    assert kinds <= gated, kinds - gated


def test_the_gate_lets_every_secret_through_and_stops_plain_text() -> None:
    """Every secret the detectors mask is let through by the gate (:func:`may_hold_secret`);
    ordinary text is stopped."""
    from test_secrets import ALL, PASSWORD, PRIVATE_KEY, SECRETS, URL_PASS

    texts = [f"the key {s} here" for s, _ in SECRETS.values()]
    texts += [f"password={PASSWORD}", PRIVATE_KEY, f"git clone https://bob:{URL_PASS}@git.example.com/r.git"]
    texts += [GH, AWS, "Token " + GH[:20] + "…"]
    for t in texts:
        if redact(t)[1]:
            assert may_hold_secret(t), t
    assert ALL
    for t in ("Bash(ls -la /home/dev/app/src)", "Read file src/app/models.py and fix the failing tests", "x" * 400):
        assert not may_hold_secret(t) and redact(t)[0] is t


def _session(projects: Path, n: int) -> Path:
    """A session whose prompt, Bash command and tool result hold a secret after ``n``
    characters of filler; its last action (the frontier) is one of the three."""
    b = TranscriptBuilder(f"5ec7e700-0000-4000-8000-{n:012d}", "/home/dev/app")
    prompt = "x" * n + f" {GH} tail"
    command = "echo " + "y" * n + f" {AWS} done"
    result = "z" * n + f" {GH} end {AWS}"
    order = n % 3
    if order == 0:
        b.tick(1).tool("Bash", {"command": command}, result)
        b.tick(1).prompt(prompt)
    elif order == 1:
        b.prompt(prompt)
        b.tick(1).tool("Bash", {"command": command}, result)
    else:
        b.prompt(prompt)
        b.tick(1).tool("Bash", {"command": command}, result)
        b.tick(1).tool_use("Bash", {"command": command})
    return b.write(projects / "-home-dev-app" / f"{b.session_id}.jsonl")


def test_no_output_shows_a_piece_of_a_cut_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tracetui.cli import main
    from tracetui.hook.run import run_hook
    from tracetui.session.reader import SessionReader
    from tracetui.views.card import render_card
    from tracetui.views.safe import export_text
    from tracetui.views.worker import render_worker_view

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    now = dt.datetime(2026, 3, 2, 10, 0, tzinfo=dt.UTC)
    for n in range(60, 331, 9):
        path = _session(tmp_path / "projects", n)
        outputs: dict[str, str] = {}
        for cmd in (["state"], ["state", "--json"], ["view"], ["card"]):
            assert main([*cmd, str(path)]) == 0
            outputs[" ".join(cmd)] = capsys.readouterr().out
        payload = {
            "session_id": path.stem,
            "transcript_path": str(path),
            "cwd": "/",
            "hook_event_name": "SessionStart",
            "source": "compact",
        }
        outputs["hook"] = run_hook(json.dumps(payload), always=True, now=now)
        reader = SessionReader([path])
        reader.poll()
        state = reader.snapshot()
        # what the monitor's c and w keys copy (tracetui.tui.copy_actions.compile_export)
        outputs["copy card"] = export_text(render_card(state, episode=None, now=now))
        outputs["copy worker"] = export_text(render_worker_view(state, episode=None, now=now))
        for name, out in outputs.items():
            assert out, (n, name)
            assert pieces(out) == [], (n, name, pieces(out))


def _figures(v: object) -> object:
    """A JSON value without its strings: the counts, sizes and flags a state says."""
    if isinstance(v, dict):
        return {k: _figures(x) for k, x in v.items() if not isinstance(x, str)}
    if isinstance(v, list):
        return [_figures(x) for x in v if not isinstance(x, str)]
    return v


def test_the_session_store_keeps_no_secret_and_the_same_figures(tmp_path: Path) -> None:
    import sqlite3
    import zlib

    from tracetui.session.reader import SessionReader
    from tracetui.session.store import cache_path, open_cached
    from tracetui.views.state_json import state_to_json

    masked = 0
    for n in (10, 60, 80, 85, 97, 130, 331):
        path = _session(tmp_path / "projects", n)
        r = open_cached([path], price=False)
        r.poll()
        cold = r.snapshot()
        assert r.save_cache()
        db = cache_path([path])
        c = sqlite3.connect(db)
        excerpts = [e for (e,) in c.execute("SELECT excerpt FROM events") if e]
        raws = [bytes(raw).decode("latin-1") for (raw,) in c.execute("SELECT raw FROM fold")]
        # history snapshots and episode versions are compressed: read them as the store does
        raws += [zlib.decompress(b).decode("latin-1") for (b,) in c.execute("SELECT state FROM history")]
        raws += [zlib.decompress(b).decode("latin-1") for (b,) in c.execute("SELECT episode FROM episodes")]
        raws += [bytes(h).decode("latin-1") for (h,) in c.execute("SELECT head FROM sources") if h]
        c.close()
        masked += sum("«redacted: " in e for e in excerpts)
        for text in excerpts + raws:
            assert pieces(text) == [], (n, pieces(text), text[:300])
        for f in db.parent.glob(db.name + "*"):  # the database and its write-ahead log, byte for byte
            assert pieces(f.read_bytes().decode("latin-1")) == [], f
        warm = open_cached([path], price=False)
        assert warm.cache_status == "warm", warm.cache_status
        warm.poll()
        fresh = SessionReader([path], price=False)
        fresh.poll()
        want = _figures(state_to_json(fresh.snapshot()))
        assert _figures(state_to_json(warm.snapshot())) == want
        assert _figures(state_to_json(cold)) == want
    assert masked > 0


def test_a_bearer_token_in_a_cut_brief_shows_no_piece_of_itself(tmp_path: Path) -> None:
    """Fourth user trial: a Bash call's brief cut inside ``Authorization: Bearer <token>`` showed
    the token's head in the frontier, the view and the card, for every cut position."""
    from tracetui.ingest.tools import brief_input
    from tracetui.views.safe import redacted

    token = "abcdefghijklmnopqrstuvwxyz123456"
    for pad in range(0, 60):
        cmd = "cd /srv" + " " * pad + f" && curl https://example.com/api -H 'Authorization: Bearer {token}' -d @body.json"
        brief = brief_input("Bash", {"command": cmd})
        shown = redacted(f"Bash({brief})")[0]
        assert not any(token[i : i + 4] in shown for i in range(len(token) - 3)), (pad, shown)


@pytest.mark.parametrize(
    "text, secret",
    [
        ("please deploy run --token=r0zhMqA8bRCBQ0kerBpZj718llg4sCaR", "r0zhMqA8bRCBQ0kerBpZj718llg4sCaR"),
        ('{"access_token": "abcdefgh12345678"}', "abcdefgh12345678"),
        ("curl -H Authorization:Bearer\\ X3SCb8FNVgnX6JVR7siFTrUTLzFoJusT", "X3SCb8FNVgnX6JVR7siFTrUTLzFoJusT"),
        ("curl -H Authorization:Bearer%20X3SCb8FNVgnX6JVR7siFTrUTLzFoJusT", "X3SCb8FNVgnX6JVR7siFTrUTLzFoJusT"),
        ("mysql -u root --password s3cretValue9xyz -h db", "s3cretValue9xyz"),
    ],
)
def test_what_a_cut_detector_masks_is_masked_whole_too(text: str, secret: str) -> None:
    """Fifth user trial: a ``--token=`` value was masked where a brief cut it and shown whole
    in the goal; a bearer token after a shell-escaped space was never masked."""
    out, kinds = redact(text)
    assert kinds and secret[:8] not in out, out
    cut_out, _ = redact(text[: text.index(secret) + 6] + "…")
    assert secret[:6] not in cut_out, cut_out


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens: 4096",
        "input_tokens: 12 output_tokens: 5",
        "token: $GITHUB_TOKEN",
        "tokenizer: bert-base",
        "mysql --password $DB_PASS",
        "tool --password -x",
    ],
)
def test_token_counts_and_references_are_no_token_values(text: str) -> None:
    assert redact(text) == (text, ())


def test_a_long_word_costs_the_token_detectors_no_quadratic_search() -> None:
    """``\\w*token`` searched at every place backtracked over a long word (a run of base64):
    the token key's detectors start at ``token`` itself."""
    from tracetui.ingest import secret_detectors

    secret_detectors.installed_rules()
    text = "A" * 400_000 + " x=abc\u2026"
    assert redact(text, cut=True)[0] == text
    assert redact("token " + "A" * 400_000)[1] == ()
    assert not secret_detectors.TOKEN_RULE.regex.pattern.startswith("(?i:\\w*")
