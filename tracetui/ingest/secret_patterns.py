"""What a secret looks like: the detectors tracetui adds to detect-secrets', the literals and
shapes every finding of a kind holds (the gates), and the heads of a secret cut short. Plain
data: :mod:`tracetui.ingest.secrets` compiles and runs them."""

from __future__ import annotations

import re

__all__ = [
    "EXTRA",
    "KEYWORD",
    "GENERIC_KINDS",
    "VALUE_KINDS",
    "VALUE_END",
    "TOKEN_TAIL",
    "JWT_TAIL",
    "SKIP_PLUGINS",
    "KEY_END",
    "GATE_WORDS",
    "KEYWORD_WORDS",
    "GATE_SHAPES",
    "GATE_RUNS",
    "CUT_MARK",
    "CUT",
    "MASK_FORMAT",
]

#: base64 of 12 characters or more, padded (``(?:....){3,}`` then ``xx==`` or ``xxx=``)
_BASE64_12 = r"(?:[A-Za-z0-9+/]{4}){3,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"
#: an AWS secret access key standing alone: 40 characters of base64, upper and lower case
#: letters both (a git hash is hex of one case)
_AWS_SECRET = r"(?<![0-9A-Za-z/+])((?=[0-9A-Za-z/+]{0,39}[A-Z])(?=[0-9A-Za-z/+]{0,39}[a-z])[0-9A-Za-z/+]{40})(?![0-9A-Za-z/+=])"

#: an AWS secret access key with nothing before it to tell: 40 characters of base64 holding an
#: upper and a lower case letter, a digit and a ``/`` or ``+`` (a git hash is hex of one case and
#: holds neither; a path holds ``.``, ``-`` or ``_``), at most two ``/`` (``a/b/c/d`` is a path),
#: no ``/`` at either end, standing alone: after a space, a quote, ``=``, ``:``, a bracket or a JSON
#: escape (``\\n``), and before one of these or ``.`` ending a sentence (not before ``.py``)
_AWS_BARE = (
    r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9/+=._\-%@~\\$]))"
    r"(?=[A-Za-z0-9/+]{0,39}[/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[0-9])"
    r"(?![A-Za-z0-9+]*/[A-Za-z0-9+]*/[A-Za-z0-9+]*/)(?!/)"
    r"([A-Za-z0-9/+]{39}[A-Za-z0-9+])(?![A-Za-z0-9/+=_\-@~%]|\.[A-Za-z0-9])"
)
#: the MySQL and MariaDB clients whose ``-p`` takes the password glued to it (``-pS3cret``;
#: ``-p`` alone asks for it, ``-P`` is the port)
_MYSQL = r"\b(?:mysql(?:dump|admin|import|show|check|pump|sh|binlog|slap)?|mariadb(?:-dump|-admin|-import|-show|-check|-binlog|-slap)?)"
#: a ``.pgpass`` line (``host:port:database:user:password``, the password a ``\\:``-escaped field
#: to the line's end): a host with a letter, a dot or ``*``, a port of digits or ``*``
_PGPASS = r"(?=[^:\s]*[A-Za-z.*])[^:\s'\",]+:(?:\d{1,5}|\*):[^:\s'\",]+:[^:\s'\",]+:((?:[^:\s\\'\"]|\\.)+)"

#: a value that is no reference (``$PW``, ``%PW%``, ``${x}``, ``<x>``, ``(cmd)``) nor a mask
_NO_REF = r"(?![$%{<(\u00ab-])"

#: detectors of the same form as detect-secrets' regex plugins, for shapes it does not know:
#: ``(kind, pattern, re flags, group holding the secret: 0 for the whole match)``
EXTRA: tuple[tuple[str, str, int, int], ...] = (
    # a key's prefix is enough to mask what follows it, so a key cut by an excerpt goes too
    ("anthropic api key", r"sk-ant-[A-Za-z0-9_-]{6,}", 0, 0),
    ("openai api key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}", 0, 0),
    ("google api key", r"AIza[0-9A-Za-z_-]{35}", 0, 0),
    ("github token", r"github_pat_[A-Za-z0-9_]{22,}", 0, 0),
    # an opaque bearer token in an Authorization header (curl -H, HTTP traces)
    # (the space after ``Bearer`` may be written escaped, as a shell does without quotes:
    # ``-H Authorization:Bearer\ TOKEN``, or URL-encoded)
    ("bearer token", r"\bBearer(?:\s|\\ |%20)+([A-Za-z0-9._~+/=-]{16,})", re.IGNORECASE, 1),
    # HTTP Basic credentials (base64 of ``user:password``): in an Authorization header, or
    # after ``Basic`` as whole base64 of 12 characters or more holding a digit, ``+``, ``/`` or
    # ``=`` (not a word: ``Basic instructions``)
    ("http basic credentials", r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:basic)\s+([A-Za-z0-9+/]{4,}={0,2})", 0, 1),
    ("http basic credentials", rf"\bBasic\s+((?=[A-Za-z]*[0-9+/=]){_BASE64_12})(?![A-Za-z0-9+/=])", 0, 1),
    # Hugging Face access tokens
    ("hugging face token", r"\bhf_[A-Za-z0-9]{34}(?![A-Za-z0-9_])", 0, 0),
    # an AWS secret access key written without quotes (detect-secrets' own pattern wants them):
    # 40 characters of base64 in both cases, a key id or the word ``secret`` shortly before it
    # (``secret=…``, ``secret: …`` are the keyword detector's)
    ("aws secret access key", rf"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{{16}}[^\n=]{{0,40}}?{_AWS_SECRET}", 0, 1),
    ("aws secret access key", rf"(?i:secret)[^\n=:]{{0,24}}?{_AWS_SECRET}", 0, 1),
    # a URL's password holding ``/`` (detect-secrets' pattern stops there: RFC 3986 wants it
    # escaped, base64 passwords hold it raw); not a port (``host:8080/path@x``)
    ("basic auth credentials", r"://[^:/?#\[\]@\s]+:(?!\d*/)([^?#\[\]@\s]*/[^?#\[\]@\s]*)@(?=[A-Za-z0-9\[])", 0, 1),
    # and one standing alone (``aws configure set aws_secret_access_key KEY`` is found above, a
    # credentials file's ``aws_secret_access_key = KEY`` by the keyword detector)
    ("aws secret access key", _AWS_BARE, 0, 1),
    # a MySQL/MariaDB client's password glued to ``-p`` (``mysql -u root -pS3cret db``); not a
    # reference (``-p$MYSQL_PWD``) nor a mask (``«``)
    ("database password", rf"{_MYSQL}\b[^\n;|&]*?\s-p(?:\\?['\"])?(?![$%{{<(\u00ab-])([^\s'\"`;|&)\\]+)", 0, 1),
    # a ``.pgpass`` line's password: a line of its own (a file shown, a heredoc; after a Read
    # tool's line number), or written to ``.pgpass`` by a command (``echo LINE >> ~/.pgpass``)
    ("database password", rf"(?m)^[ \t]*(?:\d+(?:\u2192|\t))?[ \t]*{_PGPASS}[ \t]*$", 0, 1),
    ("database password", rf"(?<![^\s'\"]){_PGPASS}(?=\\?['\"]?\s*>>?\s*\S*pgpass)", 0, 1),
    # a Docker ``config.json``'s registry credentials (``"auth": "<base64 of user:password>"``),
    # its quotes escaped too (the file in a tool's JSON input); the value must decode to
    # ``user:password`` (:func:`tracetui.ingest.secrets._finding`)
    ("docker registry auth", r"\\?\"auth\\?\"\s*:\s*\\?\"([A-Za-z0-9+/]{8,}={0,2})\\?\"", 0, 1),
    # a URL's password after an empty user (``redis://:PW@cache:6379``, ninth user trial; the
    # patterns above want a user before the colon)
    ("basic auth credentials", r"://:(?![$%{<(\u00ab])([^:/?#\[\]@\s]+)@(?=[A-Za-z0-9\[])", 0, 1),
    # a password on a command line: ``sshpass -p PW`` (or ``-pPW``, quoted), ``curl -u user:PW``
    # (``--user``, glued, quoted); not a reference (``-p "$PW"``) nor a mask
    ("command-line password", rf"\bsshpass\b[^\n;|&]*?\s-p\s*(?:\\?['\"])?{_NO_REF}([^\s'\"`;|&)\\]+)", 0, 1),
    (
        "command-line password",
        rf"\bcurl\b[^\n;|&]*?\s(?:-u|--user)(?:\s+|=)?(?:\\?['\"])?[^\s:'\"`;|&]+:{_NO_REF}([^\s'\"`;|&)\\]+)",
        0,
        1,
    ),
    # a Discord webhook URL's token (whoever has the URL posts to the channel)
    ("discord webhook", r"\bdiscord(?:app)?\.com/api/webhooks/\d+/([A-Za-z0-9_-]{20,})", 0, 1),
    # a key word's value in JSON written inside a JSON string (a file's content in a tool's
    # input: ``"content": "{\\"password\\": \\"PW\\"}"``): the key-word detector wants plain quotes
    ("password or secret", r'(?i)\\"[\w-]*(?:password|passwd|pwd|secret|api_?key|access_?key|token)\\"\s*:\s*\\"([^\\"\s]+)\\"', 0, 1),
    # a command-line option's value after a space (``mysql --password s3cret``, ``-p`` is too
    # short to tell): the key-word detectors know ``password=`` only (fifth user trial)
    (
        "password or secret",
        r"(?<![\w-])--(?:password|passwd|pwd|pass|secret|api[-_]?key|access[-_]?key)\s+([^\s'\"`,;)\u2026-][^\s'\"`,;)\u2026]*)",
        re.IGNORECASE,
        1,
    ),
)
#: the kind of a ``password = …`` / ``secret: …`` finding (detect-secrets' keyword plugin)
KEYWORD = "password or secret"
#: kinds whose detector's group is the secret however short it is (a password), not a prefix
#: (GitHub's ``ghp``, which a finding of fewer than 8 characters is)
VALUE_KINDS = ("database password", "docker registry auth", "command-line password", "discord webhook")
#: kinds that say where a secret is, not what it is: a named detector's kind wins over them
GENERIC_KINDS = (KEYWORD, "bearer token")
#: where a keyword's value ends in running text
VALUE_END = re.compile(r"[\s'\"`,;)]")
#: a token's characters: a whole-match finding runs on over them (a pattern that stops early
#: leaves no piece of the token); a JSON Web Token's over its dots too (its lazy pattern stops
#: before the signature). Not over ``/`` or ``.`` otherwise: a key in a path keeps the path.
TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-=]*")
JWT_TAIL = re.compile(r"[A-Za-z0-9_\-=.+/]*")

#: detect-secrets plugins not used: entropy (ids and hashes), public IP addresses, and the
#: keyword plugin (used through its config-file patterns instead, see :func:`tracetui.ingest.secret_detectors.rules_spec`)
SKIP_PLUGINS = ("HighEntropyString", "IPPublicDetector", "KeywordDetector")
#: the end of a private-key block
KEY_END = re.compile(r"-----END [A-Z0-9 ]*-----|---- END SSH2 ENCRYPTED PRIVATE KEY ----")

#: the words (lower case) one of which every match of the keyword plugin's key words (its
#: ``DENYLIST``: ``api_?key``, ``password``, ``pwd``, ``secret``, ``contraseña``...) holds:
#: an ASCII text with none of them skips that search (a text hit by ``token`` alone, a cut
#: ``token=…``'s word, is the common case: "tokens" is a word of every transcript)
KEYWORD_WORDS: tuple[str, ...] = ("key", "pass", "pwd", "secret", "contrase")
#: the words (lower case) one of which every finding of a kind holds, by kind: a text whose
#: lower-cased form holds none of them (one search of one regex of literals, ~1-2 µs for an
#: excerpt), and no shape of :data:`GATE_SHAPES`, holds no secret and skips the detectors. A
#: kind in neither (a detector a newer detect-secrets adds) is searched in every text.
GATE_WORDS: dict[str, tuple[str, ...]] = {
    "anthropic api key": ("sk-ant-",),
    "openai api key": ("sk-",),
    "openai token": ("t3blbkfj",),
    "google api key": ("aiza",),
    "github token": ("github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "bearer token": ("bearer",),
    "http basic credentials": ("basic",),
    "hugging face token": ("hf_",),
    # (a key standing alone has the shape of :data:`GATE_SHAPES` instead)
    "aws secret access key": ("a3t", "abia", "acca", "akia", "asia", "secret"),
    # (a ``.pgpass`` line: the shape of :data:`GATE_SHAPES`)
    "database password": ("mysql", "mariadb"),
    "docker registry auth": ('auth"', 'auth\\"'),
    "command-line password": ("sshpass", "curl"),
    "discord webhook": ("/api/webhooks/",),
    "aws access key": ("a3t", "abia", "acca", "akia", "asia", "aws"),
    "azure storage account access key": ("accountkey=",),
    "basic auth credentials": ("://",),
    "cloudant credentials": ("key", "pw", "pass", "token"),
    "ibm cos hmac credentials": ("key",),
    "ibm cloud iam key": ("key", "pwd", "pass", "token"),
    "softlayer credentials": ("key", "pwd", "pass", "token", "softlayer"),
    "gitlab token": ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-", "gr1348941"),
    "json web token": ("eyj",),
    "mailchimp access key": ("-us",),
    "npm tokens": ("_authtoken=",),
    "private key": ("begin", "putty-user-key-file"),
    "pypi token": ("pypi-",),
    "sendgrid api key": ("sg.",),
    "slack token": ("xox", "hooks.slack.com"),
    "square oauth secret": ("sq0csp-",),
    "stripe access key": ("k_live_",),
    # the keyword detectors' words (``api_key``, ``db_pass``, ``passwd``...) and ``token`` (a
    # cut ``token=…``, :data:`CUT`)
    KEYWORD: (*KEYWORD_WORDS, "token"),
}
#: the kinds without a telling word: a shape (case-sensitive, starting with a literal, so the
#: search skips ahead fast) each finding holds, searched in the text as it is
GATE_SHAPES: dict[str, str] = {
    "artifactory credentials": r"AKC|AP[\dA-F]",
    "database password": r":(?:\d{1,5}|\*):[^:\s'\",]+:[^:\s'\",]+:[^:\s'\"]",
    "discord bot token": r"\.[\w-]{6}\.",
    "telegram bot token": r":[\w-]{35}",
    "twilio api key": r"AC[a-z0-9]{32}|SK[a-z0-9]{32}",
}

#: the kinds with neither a word nor a literal to start a shape: a run of characters each
#: finding is, holding ``/`` or ``+`` (looked for first), searched apart from :data:`GATE_SHAPES`
#: (joined with them, a shape starting with a class slows the search of every shape ~4x). An AWS
#: secret access key standing alone: a run of 40 characters of base64, or 41 after a JSON
#: escape's ``\\n`` (where a run starts only, after a character not of it: ~1 µs for an excerpt)
GATE_RUNS: dict[str, str] = {
    "aws secret access key": r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40,41}(?![A-Za-z0-9/+])",
}

#: what a secret of a kind is replaced by (``str.format`` of the kind)
MASK_FORMAT = "\u00abredacted: {}\u00bb"
#: the marker a cut text ends with (the views', the fold's excerpts')
CUT_MARK = "\u2026"
#: a secret cut short by a truncation marker, which its full detector no longer matches: a
#: token that starts like a known secret and runs into the marker, by kind (``(kind, pattern,
#: group)``, the marker (or the text's end, for a text said cut) right after the match)
CUT: tuple[tuple[str, str, int], ...] = (
    ("github token", r"\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]*", 0),
    ("aws access key", r"\b(?:AKIA|ASIA|A3T[A-Z0-9]|ABIA|ACCA)[0-9A-Z]{1,15}", 0),
    ("anthropic api key", r"\bsk-ant-[A-Za-z0-9_-]*", 0),
    ("openai api key", r"\bsk-[A-Za-z0-9_-]*", 0),
    ("stripe access key", r"\b[sr]k_live_[0-9a-zA-Z]*", 0),
    ("slack token", r"\bxox[abposr]-[A-Za-z0-9-]*", 0),
    ("google api key", r"\bAIza[0-9A-Za-z_-]*", 0),
    ("gitlab token", r"\bgl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[A-Za-z0-9_-]*", 0),
    ("json web token", r"\beyJ[A-Za-z0-9_\-=.+/]*", 0),
    ("private key", r"-----BEGIN[A-Z0-9 ]*", 0),
    ("basic auth credentials", r"://[^:/?#\[\]@\s]+:(?!\d*(?:/|\u2026))([^?#\[\]@\s\u2026]+)", 1),
    # any run into the cut: a token's head can be lower case only (``hf_abcdefgh…``); an
    # identifier cut there (``hf_hub…``) is masked too, which costs a name, never a secret
    ("hugging face token", r"\bhf_[A-Za-z0-9]+", 0),
    ("http basic credentials", r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:basic)\s+([A-Za-z0-9+/]+)", 1),
    # a bearer token cut short (a call's brief cut inside ``-H 'Authorization: Bearer …'``)
    ("bearer token", r"\b(?i:bearer)(?:\s|\\ |%20)+([A-Za-z0-9._~+/=-]+)", 1),
    # an option's value after a space, as in EXTRA
    (
        "password or secret",
        r"(?<![\w-])--(?i:password|passwd|pwd|pass|secret|api[-_]?key|access[-_]?key)\s+([^\s'\"`,;)\u2026-][^\s'\"`,;)\u2026]*)",
        1,
    ),
)
