"""The monitor's panes cut a text as the views do: a secret's mask is shown whole or not at
all (``«redacted: o…`` read as a kind of its own)."""

from __future__ import annotations

from tracetui.tui.format import data, one_line

AWS = "AKIAQ3EGRTYU7VWXZ2AB"
MASK = "«redacted: aws access key»"


def test_a_pane_never_shows_part_of_a_mask() -> None:
    text = f"my key is {AWS} and again {AWS} done"
    whole = f"my key is {MASK} and again {MASK} done"
    assert one_line(text) == whole
    for limit in range(1, len(whole)):
        for out in (one_line(text, limit), data(text, limit=limit).plain, data(text, limit=limit, multiline=True).plain):
            assert len(out) <= limit and out.endswith("…"), (limit, out)
            head = out[:-1]
            assert head == whole[: len(head)], (limit, out)
            assert head.count("«") == head.count("»"), (limit, out)


def test_a_pane_cut_before_masking_shows_no_head_of_a_secret() -> None:
    """A long text is cut to a head before it is masked (the cost): a token the head's end cuts
    is masked by its head, not shown (``ghp_aB3dE6g…``)."""
    token = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
    for pad in range(1030, 1060):
        text = " " * pad + token + " more words"
        for out in (one_line(text, 100), data(text, limit=100).plain, data(text, limit=100, multiline=True).plain):
            assert "ghp_" not in out, (pad, out)
