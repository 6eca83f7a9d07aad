"""Secret shapes detect-secrets' patterns miss, as a prompt or a command writes them: an AWS
secret access key without quotes (or alone), HTTP Basic credentials, Hugging Face tokens, a URL
password holding ``/``, a MySQL client's ``-pPASSWORD``, a ``.pgpass`` line's password, a Docker
config's registry ``auth``; and what looks like them but is not a secret is left as it is."""

from __future__ import annotations

import pytest

from tracetui.ingest.secrets import redact

AWS_ID = "AKIAZ3MHQ7RX2LBN4TQP"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYZQ8pLm2Vt9"
BASIC = "YWRtaW46UzNjcjN0UGFzc3cwcmQ="  # admin:S3cr3tPassw0rd
HF = "hf_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"
MYSQL_PW = "S3cretPassw0rd"
DOCKER_AUTH = "dXNlcjpwYXNzd29yZDEyMw=="  # user:password123
PG_PW = "hunter2secret"

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
    # a MySQL/MariaDB client's password glued to -p (eighth user trial)
    (f"mysql -u root -p{MYSQL_PW} mydb", MYSQL_PW, "database password"),
    (f"docker exec db mysqldump -uroot -p'{MYSQL_PW}' shop > dump.sql", MYSQL_PW, "database password"),
    (f'{{"command": "mariadb -h db -u app -p\\"{MYSQL_PW}\\" -e \\"select 1\\""}}', MYSQL_PW, "database password"),
    # a Docker config.json's registry auth, as a file shown and inside a tool's JSON input
    (f'{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{DOCKER_AUTH}"}}}}}}', DOCKER_AUTH, "docker registry auth"),
    (f'{{"content": "{{\\"auths\\": {{\\"ghcr.io\\": {{\\"auth\\": \\"{DOCKER_AUTH}\\"}}}}}}"}}', DOCKER_AUTH, "docker registry auth"),
    # a .pgpass line: the file shown (after a Read tool's line number), or written by a command
    (f"db.example.com:5432:mydb:admin:{PG_PW}", PG_PW, "database password"),
    (f"     1\u2192localhost:*:*:postgres:x\n     2\u2192db.example.com:5432:mydb:admin:{PG_PW}\n", PG_PW, "database password"),
    (f"echo db.example.com:5432:mydb:admin:{PG_PW} > ~/.pgpass && chmod 600 ~/.pgpass", PG_PW, "database password"),
    (f"echo '10.0.0.5:5432:shop:app:{PG_PW}' >> $HOME/.pgpass", PG_PW, "database password"),
    # an AWS secret access key standing alone: in a command, a credentials file, a line of its own
    (f"[default]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}\n", AWS_SECRET, "aws secret access key"),
    (AWS_SECRET, AWS_SECRET, "aws secret access key"),
    (f"the new key:\n{AWS_SECRET}\nkeep it safe", AWS_SECRET, "aws secret access key"),
    (f'{{"stdout": "rotated\\n{AWS_SECRET}\\n"}}', AWS_SECRET, "aws secret access key"),
    (f"it is {AWS_SECRET}.", AWS_SECRET, "aws secret access key"),
    # a URL's password after an empty user, a password on sshpass's or curl's command line, a
    # Discord webhook's token, a key word's value in JSON inside a JSON string (ninth user trial)
    ("redis-cli -u redis://:RedisPassTrial10@cache:6379 ping", "RedisPassTrial10", "basic auth credentials"),
    ("sshpass -p 'SshPassTrial10zz' ssh root@db.example.com", "SshPassTrial10zz", "command-line password"),
    ("sshpass -pShort1 scp f host:", "Short1", "command-line password"),
    ("curl -u alice:CurlUPassTrial10 https://api.example.com/v1", "CurlUPassTrial10", "command-line password"),
    ('curl -s --user="bob:pw1234" https://x.example.com', "pw1234", "command-line password"),
    (
        "curl -X POST https://discord.com/api/webhooks/123456789012345678/Trial10DiscordTokenAbCdEfGhIjKlMnOp",
        "Trial10DiscordTokenAbCdEfGhIjKlMnOp",
        "discord webhook",
    ),
    ('{"content": "{\\"db\\": {\\"password\\": \\"JsonPassTrial10qwe\\"}}"}', "JsonPassTrial10qwe", "password or secret"),
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
    # a MySQL client asking for the password, a reference, the port; -p of another command
    "mysql -u root -p mydb",
    "mysql -u root -p$MYSQL_PWD -P 3306 mydb",
    "mkdir -pS3cretPassw0rd; cp -pR a b",
    # a Docker config's auth that is no user:password, or a word
    '{"auth": "required", "auths": {"x": {"auth": "bm9jb2xvbmhlcmU="}}}',
    # colon-separated lines that are no .pgpass line (a time, a MAC address, a compiler's message)
    "09:00:07 and 00:1a:2b:3c:4d:5e and 12:34:56:78:90",
    "src/app.py:12:5: E501 line too long",
    '"timestamp":"2026-03-02T09:00:07.000Z","entrypoint":"cli","level":"info"',
    # 40 characters that are no AWS key: a git hash, paths, base64 of data, words
    "commit 3f786850e387550fdab836ed7e6dc881de23001b and 3F786850E387550FDAB836ED7E6DC881DE23001B",
    "/Users/JohnDoe/Documents/Projects/MyApp2 and src/main/java/com/Example/Foo1/BarBazQux",
    "see github.com/OrgName/RepoName2/blob/mainBranch/Readme and /Ab1/Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab",
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "sha224: 1tzlvMGk0SlGYZfFtsR/MKbH9IWAiuQA6+9w+w== and a/b/c/dEf1+GhIjKlMnOpQrStUvWxYz0123456",
    "TestRun_IntegrationReplicateBootstrapsEmptyTarget2/x",
    # references and no passwords on sshpass's and curl's command lines, JSON of a reference
    'sshpass -p "$SSHPASS" ssh host and sshpass -e ssh host',
    "curl -u $USER:$TOKEN https://x and curl -u alice: https://x and curl https://example.com/a:b",
    '{"content": "{\\"password\\": \\"${DB_PASSWORD}\\"}"}',
    "see https://discord.com/channels/123/456 and discord.com/api/webhooks/123",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_what_only_looks_like_a_secret_is_left(text: str) -> None:
    assert redact(text) == (text, ()), redact(text)
