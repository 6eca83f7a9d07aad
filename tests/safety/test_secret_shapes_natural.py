"""Secret shapes detect-secrets' patterns miss, as a prompt or a command writes them: an AWS
secret access key without quotes, HTTP Basic credentials, Hugging Face tokens, a URL password
holding ``/``; and what looks like them but is not a secret is left as it is."""

from __future__ import annotations

import pytest

from tracetui.ingest.secrets import redact

AWS_ID = "AKIAZ3MHQ7RX2LBN4TQP"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYZQ8pLm2Vt9"
BASIC = "YWRtaW46UzNjcjN0UGFzc3cwcmQ="  # admin:S3cr3tPassw0rd
HF = "hf_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"

FOUND = [
    (f"Deploy with key {AWS_ID} secret {AWS_SECRET} now", AWS_SECRET, "aws secret access key"),
    (f"key id {AWS_ID}, and {AWS_SECRET}", AWS_SECRET, "aws secret access key"),
    (f"the secret is {AWS_SECRET}.", AWS_SECRET, "aws secret access key"),
    (f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET, "password or secret"),
    (f"{AWS_ID}:{AWS_SECRET}", AWS_SECRET, "aws secret access key"),
    (f"curl -H 'Authorization: Basic {BASIC}' https://api.example.com", BASIC, "http basic credentials"),
    (f'{{"headers": {{"authorization": "basic {BASIC}"}}}}', BASIC, "http basic credentials"),
    (f"sent Basic {BASIC} to the proxy", BASIC, "http basic credentials"),
    (f"HF_TOKEN is {HF} for the hub", HF, "hugging face token"),
    (f"go https://u:{AWS_SECRET}@example.com now", AWS_SECRET, "basic auth credentials"),
    ("clone https://deploy:ab/cd+ef/gh1234@git.example.com/r.git", "ab/cd+ef/gh1234", "basic auth credentials"),
]


@pytest.mark.parametrize(("text", "secret", "kind"), FOUND)
def test_a_natural_secret_is_masked_with_its_kind(text: str, secret: str, kind: str) -> None:
    out, kinds = redact(text)
    assert secret[:6] not in out and secret[-6:] not in out, out
    assert f"\u00abredacted: {kind}\u00bb" in out and kind in kinds, out
    assert redact(out) == (out, ())  # masked once for all


@pytest.mark.parametrize(
    ("text", "head"),
    [
        (f"token {HF[:20]}\u2026", HF[3:12]),
        (f"Authorization: Basic {BASIC[:10]}\u2026", BASIC[:8]),
        (f"https://u:{AWS_SECRET[:20]}\u2026", AWS_SECRET[:8]),
    ],
)
def test_a_natural_secret_cut_short_is_masked_by_its_head(text: str, head: str) -> None:
    out, kinds = redact(text)
    assert head not in out and kinds, out


NOT_SECRETS = [
    "Basic instructions for the basic setup, see Basic usage",
    "Basic usage: run make2 then make3",
    "the secret commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "the secret sauce is in src/tracetui/ingest/secret_patterns.py",
    "secret santa: AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH+more",  # longer than a key
    'img = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"',
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "from huggingface_hub import hf_hub_download; hf_hub_download(repo_id=x)",
    "see https://github.com/org/repo/commit/3f786850e387550fdab836ed7e6dc881de23001b",
    "http://localhost:8080/api/v1/users/@alice",
    "https://example.com:443/a/b@c and postgres://db.internal:5432/app",
    "ssh://git@host:2222/org/repo@v1 and git@github.com:org/repo.git",
    "http://localhost:3000/\u2026",
    "https://registry.example.com:5000/v2/\u2026",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_what_only_looks_like_a_secret_is_left(text: str) -> None:
    assert redact(text) == (text, ()), redact(text)
