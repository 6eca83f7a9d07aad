"""A secret found once in a session is masked wherever it comes again (eighth user trial: an AWS
secret key masked in the prompt, ``aws_secret_access_key=KEY``, was shown whole in a later tool
result): the session's set keeps digests, never values, within bounds, and masks copies only."""

from __future__ import annotations

import msgspec

from tracetui.ingest.secret_values import MAX_VALUES, SeenSecrets
from tracetui.ingest.secrets import redact

KEY = "Hk3Lm9Pq2Rs7Tv1Wx5Yz8Ab4Cd6Ef0GhIjKlMnOp"  # an AWS secret key without / or +: alone, no detector knows it
PASSWORD = "Tr0ub4dorHorse9"


def test_a_value_found_with_its_context_is_masked_alone_later() -> None:
    seen = SeenSecrets()
    assert redact(KEY, seen=seen) == (KEY, ())  # before: nothing tells it
    first, kinds = redact(f"export aws_secret_access_key={KEY} and run ./login --password {PASSWORD}", seen=seen)
    assert kinds == ("password or secret", "password or secret") and KEY not in first and len(seen) == 2
    for text, masked in (
        (KEY, "«redacted: password or secret»"),
        (f"checked {KEY}: valid", "checked «redacted: password or secret»: valid"),
        (f'{{"stdout": "{KEY}\\n"}}', '{"stdout": "«redacted: password or secret»\\n"}'),
        (f"the password is\n{PASSWORD}.", "the password is\n«redacted: password or secret»."),
        (f"login admin:{PASSWORD}@x", "login admin:«redacted: password or secret»@x"),
        (f"PW={PASSWORD}", "PW=«redacted: password or secret»"),
    ):
        assert redact(text, seen=seen)[0] == masked, text
    # not a copy: a longer token holding it, another value, and the text object itself back
    other = f"{PASSWORD}x and {KEY[:-1]}"
    assert redact(other, seen=seen) == (other, ())
    assert redact(KEY) == (KEY, ())  # without the session's set, as before


def test_the_set_keeps_digests_only_within_bounds() -> None:
    seen = SeenSecrets()
    assert seen.add(KEY, "aws secret access key")
    # too short, code, words a detector took in code (corpus of real sessions), placeholders
    not_kept = ("admin", "self.password", "settings.SECRET_KEY", "os.environ[x]", "process.env.JWT_SECRET!", "two words here")
    not_kept += ("$DB_PASSWORD", "x" * 600, "password", "clientKey", "required", "TestLogging_WhenNoGlobalSet")
    not_kept += ("sk-ant-oat01-...", "auth_test.go:345:", "://test:test@localhost")
    for v in not_kept:
        assert not seen.add(v, "password or secret"), v
    raw = seen.to_cache()
    assert KEY.encode() not in raw and KEY[:12].encode() not in raw
    assert msgspec.msgpack.encode(seen) == raw and SeenSecrets.from_cache(raw) == seen
    assert SeenSecrets.from_cache(raw).mask(KEY)[0] == "«redacted: aws secret access key»"
    many = SeenSecrets()
    for i in range(MAX_VALUES + 10):
        many.add(f"secret-value-{i:06d}", "password or secret")
    assert len(many) == MAX_VALUES


def test_an_empty_set_costs_nothing_and_changes_nothing() -> None:
    seen = SeenSecrets()
    text = "a plain line with /paths/and words"
    assert redact(text, seen=seen)[0] is text and seen.mask(text)[0] is text and not seen


def test_a_text_remembered_as_holding_no_copy_is_masked_once_its_value_is_found() -> None:
    seen = SeenSecrets()
    seen.add(KEY, "aws secret access key")
    text = f"later: {PASSWORD}"
    assert seen.mask(text) == (text, ())  # remembered: no copy of what the set keeps
    seen.add(PASSWORD, "password or secret")
    assert seen.mask(text) == ("later: «redacted: password or secret»", ("password or secret",))


def test_reading_a_text_for_its_secrets_keeps_what_masking_it_keeps() -> None:
    """``note_secrets`` (what the derive process and ``state_secrets`` read excerpts with) keeps
    in the set exactly what ``redact`` with the set keeps, also once the set holds values, and
    for a text cut short."""
    from tracetui.ingest.secrets import CUT_MARK, note_secrets

    texts = [
        "nothing here",
        f"export aws_secret_access_key={KEY}",
        f"run ./login --password {PASSWORD}",
        f"again {KEY} and {PASSWORD}",
        "token: ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2,
        "password=Zq8" + "x" * 30 + CUT_MARK,
        "",
    ]
    by_redact, by_note = SeenSecrets(), SeenSecrets()
    by_note.key = by_redact.key  # the same digests
    for t in texts:
        redact(t, cut=t.endswith(CUT_MARK), seen=by_redact)
        note_secrets(t, by_note, t.endswith(CUT_MARK))
        assert by_note.found == by_redact.found, t
    assert len(by_note) >= 2
