"""The Anomalies pane: one badge per anomaly, coloured by severity (open ones first)."""

from __future__ import annotations

import threading

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tracetui.ingest.files import path_text
from tracetui.tui.format import one_line
from tracetui.tui.view_model import AnomalyRow, anomaly_rows
from tracetui.tui.widgets.pane import Shown, guarded, set_title, short_anchor
from tracetui.views import anomaly_memo
from tracetui.views.anomaly_memo import timeless_of
from tracetui.views.format import plural

__all__ = ["AnomalyBadges", "CLEARED_MARK", "more_line", "budget_rows"]

#: cleared anomalies listed at most (all are counted)
CLEARED_SHOWN = 3

#: how a cleared anomaly's badge begins
CLEARED_MARK = "✓ cleared"

_ICON = {"info": "ℹ", "warning": "⚠", "error": "✖", "critical": "‼"}


def more_line(more_open: int, more_cleared: int, width: int) -> Text:
    """``+4 more anomalies (0 open, 4 cleared)`` on one line of ``width`` cells: the longest
    form that fits (``+4 more (0 open, 4 cleared)``, then ``+4 more``), cut with ``…`` when
    even that does not (third user trial: at 80x24 it wrapped and the pane cut it mid-word)."""
    n = more_open + more_cleared
    forms = [
        f"+{plural(n, 'more anomaly', 'more anomalies')} ({more_open} open, {more_cleared} cleared)",
        f"+{n} more ({more_open} open, {more_cleared} cleared)",
        f"+{n} more",
    ]
    text = next((f for f in forms if cell_len(f) <= width), forms[-1])
    return Text(text, style="italic", no_wrap=True, overflow="ellipsis")


#: episodes to price above which a past episode's anomalies are computed on a thread
THREAD_EPISODES = 400


def _ready(shown: Shown) -> bool:
    """Whether the anomalies of ``shown.state`` are cheap to have now: kept (the live state's
    are, by the fold worker's read-ahead: tui/session_feed.py), taken from the live state's,
    or few episodes to price."""
    st = shown.state
    eps = st.episodes or None
    return anomaly_memo.ready(st, eps, shown.live) is not None or anomaly_memo.to_price(st, eps) < THREAD_EPISODES


def budget_rows(app: object, state: object) -> list[AnomalyRow]:
    """The session budget's anomaly (:func:`tracetui.views.burn.budget_anomaly`: crossed, or
    crossed within the hour at the current rate) as the fleet's row of this session has it
    (``app.fleet_feed``, keyed by the main transcript's path); none without a budget."""
    feed = getattr(app, "fleet_feed", None)
    sources = getattr(state, "sources", ())
    if feed is None or not sources or getattr(feed.settings, "budget_usd", None) is None:
        return []
    from tracetui.views.burn import budget_anomaly

    key = sources[0].path  # the path's text; the fleet's key is the path
    row = next((r for r in feed.rows if path_text(r.facts.key) == key), None)
    a = budget_anomaly(row.budget) if row is not None and row.budget is not None else None
    if a is None:
        return []
    return [AnomalyRow("budget", "error" if a.severity == "error" else "warning", a.message, None, key="budget")]


class AnomalyBadges(Vertical):
    """Badges for the anomalies of the shown state; the colours come from the theme (tcss
    classes ``-info``, ``-warning``, ``-error``, ``-critical``, ``-cleared``)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.border_title = "Anomalies"
        self.rows: list[AnomalyRow] = []
        self.derived = True
        self._key: object = None
        self._latest: Shown | None = None
        #: the past state whose anomalies the thread is to compute next, and whether it runs
        self._want: Shown | None = None
        self._busy = False

    def _later(self, shown: Shown) -> None:
        self._want = shown
        if not self._busy:
            self._busy = True
            threading.Thread(target=self._work, name="tracetui-anomalies", daemon=True).start()

    def _work(self) -> None:
        while True:
            shown = self._want
            if shown is None:
                break
            try:
                timeless_of(shown.state, shown.state.episodes or None, shown.live)
            except Exception:  # noqa: BLE001 - the pane computes them again and says what failed
                pass
            if self._want is shown:
                break
        self._busy = False
        try:
            self.app.call_from_thread(self._computed)
        except Exception:  # noqa: BLE001 - the app has ended
            pass

    def _computed(self) -> None:
        if self._latest is not None and self.is_attached:
            self.show(self._latest)

    def compose(self) -> ComposeResult:
        yield Static(Text("none", style="dim italic"), classes="anomaly-empty")

    @guarded
    def show(self, shown: Shown) -> None:
        self._latest = shown
        if not _ready(shown):
            # anomalies that mean pricing every episode (a past episode's, or a live state the
            # fold worker's read-ahead has not kept): on a thread of their own (latest asked for
            # wins), drawn when they are there; the keys go on
            as_of = f"as of episode {shown.episode}: " if shown.history else ""
            set_title(self, f"Anomalies ({as_of}computing…)")
            self._key = None  # the next rows drawn whatever they are (the title says computing)
            self._later(shown)
            return
        rows, derived = anomaly_rows(shown.state, shown.now, shown.live)  # the now the copies use too
        if not shown.history:
            rows = budget_rows(self.app, shown.live) + rows
        key = (tuple((r.kind, r.severity, r.message, r.cleared, r.anchor) for r in rows), derived, self.size.height)
        if key == self._key:
            return
        self._key = key
        self.rows, self.derived = rows, derived
        open_n = sum(1 for r in rows if not r.cleared)
        set_title(self, f"Anomalies ({open_n} open, {len(rows) - open_n} cleared)" if rows else "Anomalies")
        self.border_subtitle = None if derived else "ingest checks only"
        st = shown.state
        room = max(1, self.content_size.height or 1)
        widgets = []
        # open ones first; cleared ones stay in the history but only a few are listed here
        opened = [r for r in rows if not r.cleared]
        cleared = [r for r in rows if r.cleared]
        show_rows = opened + cleared[:CLEARED_SHOWN]
        show = show_rows if len(show_rows) <= room and len(show_rows) == len(rows) else show_rows[: room - 1]
        for r in show:
            label = Text(no_wrap=True, overflow="ellipsis")
            # cleared ones say so first (a cut line keeps it), not only by their grey italic
            label.append(f" {CLEARED_MARK} {r.kind} " if r.cleared else f" {_ICON.get(r.severity, '•')} {r.kind} ", style="bold")
            label.append(one_line(r.message, 200))
            label.append(f"  {short_anchor(st, r.anchor)}" if r.anchor else "")
            widgets.append(Static(label, classes=f"badge -{'cleared' if r.cleared else r.severity}"))
        if len(show) < len(rows):
            more_open = len(opened) - sum(1 for r in show if not r.cleared)
            more_cleared = len(cleared) - sum(1 for r in show if r.cleared)
            widgets.append(Static(more_line(more_open, more_cleared, max(1, self.content_size.width)), classes="anomaly-more"))
        if not widgets:
            widgets.append(Static(Text("none", style="dim italic"), classes="anomaly-empty"))
        with self.app.batch_update():
            self.remove_children()
            self.mount_all(widgets)
