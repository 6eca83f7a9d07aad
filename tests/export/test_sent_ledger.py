"""The exported-keys ledger (``tracetui.export.sent``) names an endpoint by the digest of its URL
without credentials: the database keeps no URL, so none of the credentials a URL can carry; the
same collector reached with other credentials (or with them in headers) is the same endpoint;
rows an older version kept under the plain URL or the digest of the whole URL are moved to the
digest without losing a key."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from tracetui.export.sent import SentLedger, endpoint_identity, endpoint_key

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
    a = SentLedger(URL, db)
    others = [SentLedger(u, db) for u in (URL.replace("collector.example", "other.example"), URL.replace("/v1/", "/tenant-b/v1/"))]
    others.append(SentLedger(URL.replace(":4318", ":4319"), db))
    others.append(SentLedger(URL + "&tenant=b", db))
    a.mark("sess", ["span:a"])
    assert a.keys("sess") == {"span:a"} and [o.keys("sess") for o in others] == [set()] * 4
    for x in (a, *others):
        x.close()


@pytest.mark.parametrize(
    "same",
    [
        "https://collector.example:4318/v1/traces",  # the credentials moved to --headers
        "https://bench-user:rotated-Token-value@collector.example:4318/v1/traces?api_key=n3w-Value-456",
        "HTTPS://Collector.Example:4318/v1/traces?token=abc#frag",
        "https://collector.example:4318/v1/traces?sig=x&access_token=y&auth=z",
    ],
)
def test_the_credentials_of_a_url_do_not_make_it_another_endpoint(tmp_path, same):
    # eighth user trial: moving user:pass from the URL to --headers sent everything again
    db = tmp_path / "otlp.sqlite"
    a = SentLedger(URL, db)
    a.mark("sess", ["span:a"])
    a.close()
    assert endpoint_identity(same) == endpoint_identity(URL) == "https://collector.example:4318/v1/traces"
    b = SentLedger(same, db)
    assert b.keys("sess") == {"span:a"}
    b.close()


def test_rows_under_the_digest_of_the_whole_url_move_to_the_url_without_credentials(tmp_path):
    # what an older version kept: the SHA-256 of the URL with its credentials
    db = tmp_path / "otlp.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE sent(endpoint TEXT, session TEXT, key TEXT, PRIMARY KEY(endpoint, session, key)) WITHOUT ROWID")
    whole = "sha256:" + hashlib.sha256(URL.encode()).hexdigest()
    conn.execute("INSERT INTO sent VALUES (?,?,?)", (whole, "sess", "span:old"))
    conn.commit()
    conn.close()
    ledger = SentLedger(URL, db)
    assert ledger.keys("sess") == {"span:old"}
    ledger.close()
    # then the credentials go to --headers: nothing is sent again
    ledger = SentLedger("https://collector.example:4318/v1/traces", db)
    assert ledger.keys("sess") == {"span:old"}
    ledger.close()
    rows = sqlite3.connect(db).execute("SELECT endpoint FROM sent").fetchall()
    assert rows == [(endpoint_key(URL),)] and whole.encode() not in db.read_bytes()


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
