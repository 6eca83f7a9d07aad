"""The Now pane: what the main thread is doing (the frontier), and since when."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from tracetui.tui.format import age_of, fmt_age, one_line
from tracetui.tui.widgets.pane import Pane, Shown, anchor_text

__all__ = ["NowPane", "fit_frontier"]

_KIND = {"in_flight": "running", "tool_use": "called", "text": "said", "prompt": "asked"}

#: a body cut shorter than this many characters gives way to a shorter suffix first
_MIN_BODY = 12

_CONSOLE = Console(width=200, color_system=None, force_terminal=False)


def _wrap(text: Text, width: int) -> list[Text]:
    return list(text.wrap(_CONSOLE, width, overflow="fold"))


def fit_frontier(head: Text, body: str, suffixes: list[Text], tail: Text, width: int, rows: int) -> Text:
    """``head`` + ``body`` + a suffix, word-wrapped to ``width`` cells, then ``tail`` (age and
    anchor) on a line of its own, all within ``rows`` lines.

    ``body`` (transcript text, already on one line) is the part cut short, with ``…``, when
    everything does not fit; ``head``, the suffix and ``tail`` stay whole (``tail`` is cut with
    ``…`` only when it alone is wider than the pane). ``suffixes`` are tried longest first; a
    shorter one is taken when the longer leaves fewer than 12 characters of ``body``. When the
    text needs every row, ``tail`` ends its last line if there is room. Widths are in terminal
    cells (wide characters count two)."""
    width = max(1, width)
    rows = max(1, rows)
    tail = tail.copy()
    tail.truncate(width, overflow="ellipsis")
    tail_w = tail.cell_len
    body = body[: width * rows + 1]  # more than could ever show

    def attempt(n: int, suffix: Text) -> list[Text] | None:
        t = head.copy()
        t.append(one_line(body, n) if n < len(body) else body)
        t.append_text(suffix)
        lines = _wrap(t, width)
        if len(lines) < rows:
            return [*lines, tail]
        if len(lines) == rows and lines[-1].cell_len + 2 + tail_w <= width:
            last = lines[-1].copy()
            last.append("  ")
            last.append_text(tail)
            return [*lines[:-1], last]
        return None

    def best(suffix: Text, least: int) -> list[Text] | None:
        whole = attempt(len(body), suffix)
        if whole is not None:
            return whole
        found = None
        lo, hi = least, len(body) - 1
        while lo <= hi:  # the longest cut that fits (wrapping grows with the text)
            mid = (lo + hi) // 2
            got = attempt(mid, suffix)
            if got is None:
                hi = mid - 1
            else:
                found, lo = got, mid + 1
        return found

    options = suffixes or [Text()]
    for i, suffix in enumerate(options):
        least = 1 if i == len(options) - 1 else min(len(body), _MIN_BODY)
        lines = best(suffix, max(1, least))
        if lines is not None:
            return Text("\n").join(lines)
    # not even one character of the body fits: what fits of the text, then the tail
    t = head.copy()
    t.append(one_line(body, 2))
    t.append_text(options[-1])
    lines = _wrap(t, width)[: max(1, rows - 1)]
    if rows > 1:
        lines.append(tail)
    return Text("\n").join(lines)


class NowPane(Pane):
    """The frontier: the newest call in flight, else the last action, with its age.

    The text wraps to the pane's height and is cut with ``…`` only when it does not fit. In an
    idle session (its files not written within ``format.LIVE_WINDOW``) a call in flight is not
    said to be running: it has no result recorded and the transcript stops there. In HISTORY a
    call open at the end of the scrubbed episode is ``called X: no result by the end of episode
    N``, its age measured to the episode's last record (``shown.now``). A last call that failed
    (frontier kind ``tool_error``) is ``failed Bash(npm test): «excerpt»``, the verb in red,
    live and in HISTORY."""

    TITLE = "Now"

    def key(self, shown: Shown) -> object:
        f = shown.state.main.frontier
        age = age_of(f.timestamp, shown.now) if f is not None else None
        return (
            f,
            int(age) if age is not None else None,
            shown.live.main.newest_timestamp or shown.live.main.last_timestamp,
            shown.activity,
            shown.history,
        )

    def build(self, shown: Shown) -> Text:
        st = shown.state
        f = st.main.frontier
        if f is None:
            return Text("nothing yet", style="dim italic")
        act = shown.activity
        own = age_of(f.timestamp, shown.now)
        body = f.text
        idle_call = f.kind == "in_flight" and not shown.history and act != "live"
        head = Text()
        suffixes: list[Text] = []
        tail = Text(style="dim")
        if f.kind == "in_flight" and shown.history:
            # as of the episode's end the call had no result; what came after is not this state's
            k = shown.episode
            head.append("called ", style="bold")
            suffixes = [
                Text(f": no result by the end of episode {k}", style="yellow"),
                Text(f": no result by end of ep {k}", style="yellow"),
                Text(": no result", style="yellow"),
            ]
            tail.append(f"{fmt_age(own)} before the episode's end  ")
        elif idle_call:
            # the session stopped writing while this call ran: nothing is running now
            head.append("called ", style="bold")
            suffixes = [
                Text(f": no result recorded; session {act} (the transcript stops here)", style="yellow"),
                Text(f": no result recorded; session {act}", style="yellow"),
                Text(f": no result; {act}", style="yellow"),
            ]
            tail.append(f"{fmt_age(own)} ago  ")
        elif f.kind == "tool_error":
            # the model says "Bash(npm test) failed: «excerpt»"; the verb leads, in red
            call, sep, rest = f.text.partition(" failed: ")
            body = f"{call}: {rest}" if sep else f.text
            head.append("failed ", style="bold red")
            tail.append(f"{fmt_age(own)} ago  ")
        else:
            head.append(f"{_KIND.get(f.kind, f.kind)} ", style="bold yellow" if f.kind == "in_flight" else "bold")
            tail.append(f"for {fmt_age(own)}  " if f.kind == "in_flight" else f"{fmt_age(own)} ago  ")
        tail.append_text(anchor_text(st, f.anchor))
        last = age_of(shown.live.main.newest_timestamp or shown.live.main.last_timestamp, shown.now)
        # silence is worth saying when it is long, unless the line already says as much
        if not shown.history and last is not None and last >= 30 and (own is None or abs(own - last) > 5):
            tail.append(f"  · no record for {fmt_age(last)}", style="yellow")
        return fit_frontier(head, one_line(body), suffixes, tail, self.width_available, self.rows_available)
