"""The exported-keys ledger (``tracetui.export.sent``) names an endpoint by its digest: the
database keeps no URL, so none of the credentials a URL can carry, and rows an older version
kept under the plain URL are moved to the digest without losing a key."""

from __future__ import annotations

import sqlite3

from tracetui.export.sent import SentLedger, endpoint_key

URL = "https://bench-user:s3cr3t-Token-value@collector.example:4318/v1/traces?api_key=k3y-Value-123"


def test_the_file_holds_no_part_of_the_endpoint_url(tmp_path):
    db = tmp_path / "otlp.sqlite"
    ledger = SentLedger(URL, db)
    ledger.mark("sess", ["span:a", "span:b"])
    assert ledger.keys("sess") == {"span:a", "span:b"}
    ledger.close()
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    for part in (b"s3cr3t-Token-value", b"k3y-Value-123", b"bench-user", b"collector.example"):
        assert part not in data
    assert endpoint_key(URL).encode() in data


def test_each_endpoint_keeps_its_own_keys(tmp_path):
    db = tmp_path / "otlp.sqlite"
    a, b = SentLedger(URL, db), SentLedger(URL.replace("s3cr3t", "other"), db)
    a.mark("sess", ["span:a"])
    assert b.keys("sess") == set() and a.keys("sess") == {"span:a"}
    a.close()
    b.close()


def test_rows_under_the_plain_url_move_to_its_digest(tmp_path):
    db = tmp_path / "otlp.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE sent(endpoint TEXT, session TEXT, key TEXT, PRIMARY KEY(endpoint, session, key)) WITHOUT ROWID")
    conn.executemany("INSERT INTO sent VALUES (?,?,?)", [(URL, "sess", "span:old"), ("http://elsewhere/v1/traces", "sess", "span:x")])
    conn.commit()
    conn.close()
    ledger = SentLedger(URL, db)
    assert ledger.keys("sess") == {"span:old"}  # nothing is sent again
    ledger.mark("sess", ["span:old", "span:new"])
    assert ledger.keys("sess") == {"span:old", "span:new"}
    ledger.close()
    rows = sqlite3.connect(db).execute("SELECT endpoint, key FROM sent ORDER BY key").fetchall()
    assert (URL, "span:old") not in rows and ("http://elsewhere/v1/traces", "span:x") in rows
    assert b"s3cr3t-Token-value" not in db.read_bytes()
