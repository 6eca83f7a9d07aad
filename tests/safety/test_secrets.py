"""Secrets never leave in a view or an export: masked in place with their kind, counted and
said; ``state --json --no-redact`` keeps them; every file written is private."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from tui_support import app_for, wait_for_state, wait_until

from tracetui.demo.build import TranscriptBuilder
from tracetui.ingest.secrets import redact, summary

#: one made-up secret of each kind, with the kind it is masked as
SECRETS = {
    "anthropic": ("sk-ant-api03-" + "Zx9_kLm2-Qw8" * 7 + "AA", "anthropic api key"),
    "openai": ("sk-proj-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn" + "T3BlbkFJ" + "Op7Qr8St9Uv0Wx1Yz2Ab", "openai"),
    "openai-plain": ("sk-" + "q8R2t5Y7u1I3o6P9a4S0d2F5g7H1j3K8", "openai api key"),
    "aws": ("AKIAQ3EGRTYU7VWXZ2AB", "aws access key"),
    "github": ("ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6", "github token"),
    "github-pat": ("github_pat_11ABCDEFG0" + "a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6A7B8C9D0E1F2", "github token"),
    "slack": ("xoxb-2718281828-3141592653589-" + "aQ7wE3rT9yU1iO5pL2kJ8hG4", "slack token"),
    "stripe": ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "stripe access key"),
    "jwt": (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "json web token",
    ),
    "google": ("AIza" + "SyD3kL9mN2pQ5rS8tU1vW4xY7zA0bC3dE6f", "google api key"),
}
PASSWORD = "Tr0ub4dor&3-horse"
URL_PASS = "s3cr3tPassw0rd"
PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx7Qk3vZ\nq2Wm9Yt8Kp1Lr5Ns0Jd4Hf6Gb\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_each_kind_of_secret_is_masked_with_its_kind(name: str) -> None:
    secret, kind = SECRETS[name]
    text, kinds = redact(f"export X={secret} # and more")
    assert secret not in text and secret[8:-4] not in text
    assert len(kinds) == 1 and kind in kinds[0] and f"«redacted: {kinds[0]}»" in text
    assert text.startswith("export X=") and text.endswith(" # and more")


def test_passwords_private_keys_and_url_credentials_are_masked() -> None:
    text, kinds = redact(
        f"mysql -u root password={PASSWORD} && git clone https://bob:{URL_PASS}@git.example.com/r.git\n{PRIVATE_KEY}\nafter"
    )
    assert PASSWORD not in text and URL_PASS not in text and "MIIEow" not in text and "q2Wm9" not in text
    assert "git.example.com/r.git" in text and text.endswith("\nafter")
    assert sorted(kinds) == ["basic auth credentials", "password or secret", "private key"]
    # an excerpt cut inside the block: masked to its end
    cut, k = redact("key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU")
    assert "b3Bl" not in cut and k == ("private key",)
    assert summary(kinds) == "3 secrets redacted (1 basic auth credentials, 1 password or secret, 1 private key)"


@pytest.mark.parametrize(
    "text, secret, kind",
    [
        ('curl -H "Authorization: Bearer q7Zr2LmX9vKp4TsW8nYb" https://x', "q7Zr2LmX9vKp4TsW8nYb", "bearer token"),
        ('{"password": "hunter2-Xy", "user": "bob"}', "hunter2-Xy", "password or secret"),
        ("PGPASSWORD=s3cretpw psql -h db", "s3cretpw", "password or secret"),
        ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG", "password or secret"),
        # a key an excerpt cut short still goes
        ("rotate sk-ant-api03-AbCdEfGh…", "AbCdEfGh", "anthropic api key"),
        ("psql postgres://app:p%40ss-w0rd@db.internal:5432/app", "p%40ss-w0rd", "basic auth credentials"),
    ],
)
def test_other_shapes_of_secrets(text: str, secret: str, kind: str) -> None:
    out, kinds = redact(text)
    assert secret not in out and kinds == (kind,), (out, kinds)


def test_a_named_kind_wins_over_a_generic_one() -> None:
    out, kinds = redact(f"Authorization: Bearer {SECRETS['github'][0]}")
    assert kinds == ("github token",) and out == "Authorization: Bearer «redacted: github token»"


def test_a_secret_in_a_path_keeps_the_path() -> None:
    out, kinds = redact(f"/home/dev/app/keys/{SECRETS['aws'][0]}.pem and {SECRETS['github'][0]}/x")
    assert out == "/home/dev/app/keys/«redacted: aws access key».pem and «redacted: github token»/x"


def test_text_without_a_secret_is_left_as_it_is() -> None:
    for text in (
        "Read(/home/dev/shop-api/app/main.py) toolu_01abcdef0123456789abcd 5e55a0c1-0000-4000-8000-000000000001",
        "password: str",
        "DB_PASSWORD=$DB_PASSWORD",
        "tokens in 12.3k out 4.5k; the secret is to test first",
        "Bearer token handling in auth.py",
        "",
    ):
        out, kinds = redact(text)
        assert out is text and kinds == ()


def secret_session(projects: Path) -> Path:
    """A session with a secret of each kind in the prompts, Bash commands, tool results and file
    paths; the last call stays pending (its command holds a key)."""
    b = TranscriptBuilder("5ec7e700-0000-4000-8000-000000000001", "/home/dev/app")
    keys = [s for s, _ in SECRETS.values()]
    b.prompt(f"Deploy with ANTHROPIC_API_KEY={SECRETS['anthropic'][0]} and the DB password={PASSWORD}")
    for i, k in enumerate(keys):
        b.tick(1).tool(
            "Bash",
            {"command": f"curl -H 'Authorization: Bearer {k}' https://api.example.com/{i}"},
            f"Exit code 1\nbad key {k}",
            is_error=True,
        )
    b.tick(1).tool("Read", {"file_path": f"/home/dev/app/keys/{SECRETS['aws'][0]}.pem"}, PRIVATE_KEY)
    b.tick(1).tool("Bash", {"command": f"git clone https://bob:{URL_PASS}@git.example.com/r.git"}, "fatal: auth failed")
    b.tick(1).text(f"The token {SECRETS['github'][0]} is rejected; trying {SECRETS['slack'][0]}")
    b.tick(2).prompt(f"use {SECRETS['stripe'][0]} instead")
    b.tick(1).tool_use("Bash", {"command": f"STRIPE_KEY={SECRETS['stripe'][0]} ./pay.sh"})
    return b.write(projects / "-home-dev-app" / f"{b.session_id}.jsonl")


ALL = [s for s, _ in SECRETS.values()] + [PASSWORD, URL_PASS, "MIIEowIBAAKCAQEAx7Qk3vZ", "q2Wm9Yt8Kp1Lr5Ns0Jd4Hf6Gb"]


def leaked(text: str) -> list[str]:
    """The secrets of :data:`ALL` (or a 16-character piece of one) that ``text`` holds."""
    return [s for s in ALL if s in text or any(s[i : i + 16] in text for i in range(0, max(1, len(s) - 16), 8))]


def _run(*args: str, env: dict, stdin: str | None = None):
    return subprocess.run(
        [sys.executable, "-m", "tracetui.cli", *args], capture_output=True, text=True, env=dict(os.environ, **env), input=stdin
    )


def test_no_view_no_json_and_no_hook_output_holds_a_secret(tmp_path: Path) -> None:
    main = secret_session(tmp_path / "projects")
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path)}
    for cmd in (["state"], ["view"], ["card"], ["view", "--episode", "1"], ["card", "--episode", "1"]):
        out = _run(*cmd, str(main), env=env)
        assert out.returncode == 0, out.stderr
        assert leaked(out.stdout) == [], (cmd, leaked(out.stdout))
        assert "«redacted: " in out.stdout, cmd
    card = _run("card", str(main), env=env).stdout
    assert "secrets redacted (" in card  # said on the card
    js = _run("state", "--json", str(main), env=env)
    assert leaked(js.stdout) == []
    obj = json.loads(js.stdout)
    assert obj["secrets_redacted"]["count"] >= 5 and "redacted" in obj["secrets_redacted"]["summary"]
    raw = _run("state", "--json", "--no-redact", "--no-cache", str(main), env=env)
    obj = json.loads(raw.stdout)
    assert "secrets_redacted" not in obj and SECRETS["stripe"][0] in raw.stdout  # the raw text, on request
    summary = _run("state", "--no-redact", str(main), env=env)  # the summary masks, whatever is asked
    assert summary.returncode == 2 and summary.stdout == "" and "--no-redact applies to --json" in summary.stderr
    # --no-redact never reads the session store (it keeps masked text only): the raw text
    # comes from a private fold however warm the store is
    for _ in range(2):
        warm = _run("state", "--json", "--no-redact", str(main), env=env)
        assert warm.returncode == 0, warm.stderr
        assert SECRETS["stripe"][0] in warm.stdout and "«redacted: " not in warm.stdout
    payload = {
        "session_id": main.stem,
        "transcript_path": str(main),
        "cwd": "/home/dev/app",
        "hook_event_name": "SessionStart",
        "source": "compact",
    }
    hook = _run("hook", stdin=json.dumps(payload), env=env)
    assert hook.returncode == 0 and "«redacted: " in hook.stdout, hook.stderr
    assert leaked(hook.stdout) == []


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


async def test_exports_hold_no_secret_and_are_private(tmp_path: Path) -> None:
    main = secret_session(tmp_path / "projects")
    app = app_for([main], tmp_path)
    old = os.umask(0o022)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for_state(pilot)
            for key in ("c", "w"):
                await pilot.press(key)
                await wait_until(pilot, lambda: app.clipboard)
                assert leaked(app.clipboard) == [] and "secrets redacted" in app.clipboard
    finally:
        os.umask(old)
    files = sorted((tmp_path / "exports").iterdir())
    assert len(files) == 2
    assert _mode(tmp_path / "exports") == 0o700
    for f in files:
        assert _mode(f) == 0o600, f
        assert leaked(f.read_text()) == []


def test_the_hook_state_files_are_private(tmp_path: Path) -> None:
    main = secret_session(tmp_path / "projects")
    cache = tmp_path / "cache"
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path), "TRACETUI_CACHE_DIR": str(cache)}
    payload = {"session_id": main.stem, "transcript_path": str(main), "cwd": "/", "hook_event_name": "UserPromptSubmit", "prompt": "x"}
    old = os.umask(0o022)
    try:
        out = _run("hook", "--always", stdin=json.dumps(payload), env=env)
    finally:
        os.umask(old)
    assert out.returncode == 0, out.stderr
    made = [p for p in cache.rglob("*") if "hook" in str(p.relative_to(cache))]
    assert made, sorted(cache.rglob("*"))
    for p in made:
        assert _mode(p) == (0o700 if p.is_dir() else 0o600), p


async def test_the_monitor_shows_no_secret(tmp_path: Path) -> None:
    from test_terminal_safe import written

    from tracetui.tui.screens.episode import EpisodeScreen

    main = secret_session(tmp_path / "projects")
    app = app_for([main], tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for_state(pilot)
        await pilot.pause()
        screens = {"main": written(app)}
        for ep in ("1", "2"):
            view = app.current_view
            await pilot.press("left_square_bracket" if ep == "1" else "l", "e")
            await wait_until(pilot, lambda: isinstance(app.screen, EpisodeScreen))
            await pilot.pause()
            screens[f"drill-down {ep}"] = written(app)
            await pilot.press("escape")
            del view
    for name, out in screens.items():
        assert leaked(out) == [], (name, leaked(out))
    assert "«redacted: " in screens["main"] and "«redacted: " in screens["drill-down 1"]
