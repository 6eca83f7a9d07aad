"""The one-line brief of a tool input (the Pending calls pane, the card's frontier, drill-down)."""

from __future__ import annotations

from tracetui.ingest.tools import brief_input, one_line_name


def test_a_line_break_in_a_path_is_its_control_picture_not_a_space() -> None:
    # a file may be named so: folding its newline to a space would show another file's name
    assert brief_input("Read", {"file_path": "/src/new\nline.py"}) == "/src/new\u240aline.py"
    assert brief_input("NotebookEdit", {"notebook_path": "a\tb.ipynb"}) == "a\u2409b.ipynb"
    assert brief_input("Grep", {"pattern": "TODO", "path": "/src/odd\r\nname"}) == "TODO in /src/odd\u240d\u240aname"


def test_a_command_still_folds_its_white_space_to_one_line() -> None:
    assert brief_input("Bash", {"command": "cd /src &&\n  pytest -q"}) == "cd /src && pytest -q"


def test_a_long_path_is_cut_to_the_limit() -> None:
    brief = brief_input("Read", {"file_path": "/x/" + "a" * 200}, limit=40)
    assert len(brief) == 40 and brief.endswith("…")


def test_one_line_name_leaves_a_plain_name_as_it_is() -> None:
    name = "src/app.py"
    assert one_line_name(name) is name
