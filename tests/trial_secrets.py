"""The sessions of the eighth user trial's secret leaks, rebuilt (its files were lost): made-up
secrets of shapes the detectors missed, and secrets found once with what tells them and met again
alone. Each builder writes one Claude Code transcript and returns its path; :func:`leaked` says
which secret (or a 12-character piece of one) a text holds."""

from __future__ import annotations

from pathlib import Path

from tracetui.demo.transcript import TranscriptBuilder

#: a MySQL password glued to ``-p``
MYSQL_PW = "S3cretPassw0rd"
#: a Docker config's ``auth``: base64 of ``user:password123``
DOCKER_AUTH = "dXNlcjpwYXNzd29yZDEyMw=="
#: a ``.pgpass`` line's password
PG_PW = "hunter2secret"
#: an AWS secret access key (AWS's documentation's example shape: ``/`` in it)
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#: an AWS secret access key without ``/`` or ``+``: alone, nothing tells it from an id
AWS_PLAIN = "Hk3Lm9Pq2Rs7Tv1Wx5Yz8Ab4Cd6Ef0GhIjKlMnOp"
#: a password given as ``--password VALUE`` first, alone later
PASSWORD = "Tr0ub4dorHorse9"

#: the secrets of :func:`shapes_session`
SHAPES = (MYSQL_PW, DOCKER_AUTH, PG_PW, AWS_SECRET)
#: the secrets of :func:`recurring_session`
RECURRING = (AWS_PLAIN, PASSWORD)


def leaked(text: str, secrets: tuple[str, ...] = SHAPES + RECURRING) -> list[str]:
    """The secrets of ``secrets`` that ``text`` holds whole or by a 12-character piece."""
    return [s for s in secrets if any(s[i : i + 12] in text for i in range(0, len(s) - 11, 4))]


def shapes_session(projects: Path, session: str = "5ec7e700-0000-4000-8000-0000000e1001") -> Path:
    """A session whose Bash commands and tool results hold each secret of :data:`SHAPES`: a
    MySQL client's ``-pPASSWORD``, a Docker ``config.json`` read, a ``.pgpass`` read and written,
    an AWS secret key set by ``aws configure``, read from a credentials file and printed alone."""
    b = TranscriptBuilder(session_id=session, cwd="/home/dev/app")
    b.prompt("load the dump into the local database and log in to the registry")
    b.tick(1).tool("Bash", {"command": f"mysql -u root -p{MYSQL_PW} mydb < dump.sql"}, "")
    docker = f'{{\n  "auths": {{\n    "https://index.docker.io/v1/": {{\n      "auth": "{DOCKER_AUTH}"\n    }}\n  }}\n}}'
    b.tick(1).tool("Read", {"file_path": "/home/dev/.docker/config.json"}, docker)
    b.tick(1).tool("Read", {"file_path": "/home/dev/.pgpass"}, f"     1\u2192db.example.com:5432:mydb:admin:{PG_PW}\n")
    b.tick(1).tool("Bash", {"command": f"echo db.example.com:5432:mydb:admin:{PG_PW} > ~/.pgpass"}, "")
    b.tick(1).tool("Bash", {"command": f"aws configure set aws_secret_access_key {AWS_SECRET}"}, "")
    creds = f"[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = {AWS_SECRET}\n"
    b.tick(1).tool("Read", {"file_path": "/home/dev/.aws/credentials"}, creds)
    b.tick(1).tool("Bash", {"command": "cat new-key.txt"}, AWS_SECRET)
    b.tick(1).text("Loaded and logged in.")
    return b.write(projects / "-home-dev-app" / f"{session}.jsonl")


def recurring_session(projects: Path, session: str = "5ec7e700-0000-4000-8000-0000000e1002", later: bool = True) -> Path:
    """A session whose goal gives each secret of :data:`RECURRING` with what tells it
    (``aws_secret_access_key=``, ``--password``), then (with ``later``) a tool call and results
    that hold them alone, and a prompt that is one of them. Written without ``later`` and then
    with it, the file grows: the first bytes are the same."""
    b = TranscriptBuilder(session_id=session, cwd="/home/dev/app")
    b.prompt(f"use aws_secret_access_key={AWS_PLAIN} and run ./login --password {PASSWORD} first")
    b.tick(1).tool("Bash", {"command": "./login"}, "ok")
    if later:
        _later(b)
    return b.write(projects / "-home-dev-app" / f"{session}.jsonl")


def _later(b: TranscriptBuilder) -> None:
    b.tick(1).tool("Bash", {"command": "cat ~/.secret-key"}, AWS_PLAIN)
    b.tick(1).tool("Bash", {"command": f"echo {AWS_PLAIN} | ./check-key"}, f"checked {AWS_PLAIN}: valid")
    b.tick(1).tool("Bash", {"command": "./show-password"}, f"the password is\n{PASSWORD}\n")
    b.tick(1).text("The key checks out.")
    b.tick(5).prompt(AWS_PLAIN)
    b.tick(1).tool("Bash", {"command": f"./rotate {PASSWORD}"}, "rotated")
