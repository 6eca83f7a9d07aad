"""The cached detectors (session/secret_rules.py) are read again when a module they are built
from changes: detect-secrets' install, ``tracetui.ingest.secret_detectors`` and the detectors it adds,
``tracetui.ingest.secret_patterns``."""

from __future__ import annotations

from tracetui.ingest import secret_detectors, secret_patterns, secrets
from tracetui.session import secret_rules


def test_the_cache_key_names_every_module_the_detectors_are_built_from() -> None:
    key = secret_rules._key()
    assert f"{secret_detectors.__file__}:" in key
    assert f"{secret_patterns.__file__}:" in key


def test_the_detectors_added_to_detect_secrets_live_in_the_patterns_module() -> None:
    spec = secret_detectors.rules_spec()
    rules = spec["rules"]
    assert isinstance(rules, list)
    kinds = {r[0] for r in rules}
    assert {k for k, *_ in secret_patterns.EXTRA} <= kinds
    assert secrets.EXTRA is secret_patterns.EXTRA
