"""A path's text (ingest/files.py ``path_text``): valid UTF-8 whatever the name's bytes, the
same text for the same name, a UTF-8 name unchanged; and ``file_of``, the file a text names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracetui.ingest.discover import list_sessions
from tracetui.ingest.files import file_of, path_text
from tracetui.ingest.session_files import all_transcripts


def _bad_file(tmp_path: Path, name: bytes, data: bytes) -> Path:
    """``tmp_path/-tmp-\\xff\\xfe/NAME`` holding ``data`` (the test skips on a file system that
    takes no name that is not UTF-8)."""
    try:
        folder = tmp_path / os.fsdecode(b"-tmp-\xff\xfe")
        folder.mkdir()
        f = folder / os.fsdecode(name)
        f.write_bytes(data)
    except (OSError, UnicodeError) as exc:
        pytest.skip(f"this file system takes no name that is not UTF-8: {exc}")
    return f


def test_a_utf8_name_is_itself() -> None:
    for name in ("/home/dev/shop/a.jsonl", "/tmp/café/日本.jsonl", "back\\slash", ""):
        assert path_text(name) == name
        assert path_text(Path(name or ".")) == str(Path(name or "."))


def test_each_undecodable_byte_is_an_escape() -> None:
    name = os.fsdecode(b"/tmp/-tmp-\xff\xfe/bad\x80name.jsonl")
    text = path_text(name)
    assert text == "/tmp/-tmp-\\xff\\xfe/bad\\x80name.jsonl"
    text.encode("utf-8")  # valid UTF-8: no lone surrogate left
    assert path_text(Path(name)) == text
    assert path_text(text) == text  # a text is its own text
    assert path_text(os.fsdecode(b"/tmp/\xfe\xff")) != path_text(os.fsdecode(b"/tmp/\xff\xfe"))  # a key: different bytes, different texts
    assert path_text("a\ud800b") == "a\\ud800b"  # a lone surrogate that stands for no byte (a Windows name)


def test_file_of_maps_a_text_back_through_the_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = _bad_file(tmp_path, b"bad\xffname.jsonl", b"{}\n")
    literal = tmp_path / "lit\\xffname"  # a name holding the four characters themselves
    literal.write_bytes(b"")
    assert file_of(path_text(f)) == str(f)
    assert file_of(str(literal)) == str(literal)  # as it is, when it names a file
    assert file_of(path_text(tmp_path / "gone\\xff")) == str(tmp_path / "gone\\xff")  # nothing matches: the text
    assert file_of(str(tmp_path / "plain.jsonl")) == str(tmp_path / "plain.jsonl")
    monkeypatch.chdir(tmp_path)
    assert file_of(path_text(f.relative_to(tmp_path))) == str(f.relative_to(tmp_path))


def test_discovery_gives_the_names_as_text(tmp_path: Path) -> None:
    main = _bad_file(tmp_path, b"s\xff.jsonl", b'{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}\n')
    (info,) = list_sessions(tmp_path, agent="claude")
    assert (info.path, info.project, info.session_id) == (main, "-tmp-\\xff\\xfe", "s\\xff")
    (tf,) = all_transcripts(tmp_path)
    assert (tf.path, tf.project, tf.session_id) == (main, "-tmp-\\xff\\xfe", "s\\xff")
