"""The monitor's tabs: one per session, mounted in batches, switched, activated."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from textual import events
from textual.content import Content
from textual.css.query import NoMatches
from textual.widgets import TabbedContent, TabPane

from tracetui.ingest.files import path_text
from tracetui.tui.format import file_label, one_line
from tracetui.tui.session_view import SessionView
from tracetui.tui.settings import SessionSpec

__all__ = ["FIRST_TABS", "TAB_BATCH", "TITLE_CHARS", "SessionTabPane", "SessionTabs", "TabActions", "distinct_title"]

#: tabs mounted with the first screen; the others follow it, :data:`TAB_BATCH` per refresh
#: (``--all`` with 200 sessions: the first screen waited for every tab)
FIRST_TABS = 12
TAB_BATCH = 24
#: keys on their way through the widgets whose tab is remembered (a held key's repeats at most)
KEYS_IN_FLIGHT = 256
#: characters of a tab's title at most
TITLE_CHARS = 40


def distinct_title(label: str, stem: str, shown: Collection[str], limit: int = TITLE_CHARS) -> str:
    """A tab's title: ``label`` (or :func:`~tracetui.tui.format.file_label` of ``stem``, the
    transcript's file name without ``.jsonl``: an id's first 8 characters, another name whole) on one line, at most ``limit`` characters, and none of ``shown``
    (the titles of the tabs open already), so that two tabs can be told apart. A title that
    clashes has its id, the label's last part when it is the start of ``stem``
    (``project/1234abcd``), written out whole (``project/1234abcd-5678-…``), then, when that
    clashes too (one session opened from two folders), a number: ``1234abcd (2)``."""
    base = label or file_label(stem, limit)
    title = one_line(base, limit)
    if title not in shown:
        return title
    head, sep, tail = base.rpartition("/")
    if len(tail) < len(stem) and stem.startswith(tail):
        title = one_line(head + sep + stem, limit)
        if title not in shown:
            return title
    n = 2
    while True:
        mark = f" ({n})"
        title = one_line(base, limit - len(mark)) + mark
        if title not in shown:
            return title
        n += 1


class SessionTabs(TabbedContent):
    """The monitor's tabs: a tab changes only when asked for (a key, a click, opening a
    session), never because a widget in a hidden tab took the focus (:class:`SessionTabPane`)."""


class SessionTabPane(TabPane):
    """A session's tab. Textual makes the pane of a newly focused widget the active tab (the
    pane reports the focus to its tabs). The monitor moves the focus only into the tab shown
    (``TabActions._focus_in``), so a report from a tab not shown is a stale one: a focus given
    before a switch and reported after it, as a focus message climbs one widget at a time (a
    loaded machine). It took the tab back, and the tab asked for was never shown (a fleet test
    waited 60 s for it; the scrub-tabs test flaked under load). Such a report is not made."""

    def _on_descendant_focus(self, event: events.DescendantFocus) -> None:
        tabs = next((a for a in self.ancestors if isinstance(a, SessionTabs)), None)
        if tabs is not None and tabs.active != self.id:
            event.prevent_default()  # TabPane's handler, which reports it, is not run


class TabActions:
    """The app's tabs: making a session's tab, mounting the rest after the first screen, the
    active tab's view, the tab a key was typed on, opening a session, cycling and activating
    tabs; mixed into :class:`tracetui.tui.app.TraceApp`, whose ``settings``, ``views``,
    ``monitor``, ``_keys_typed_on``, ``_update_chrome`` and ``_follow`` they use."""

    #: the tab of the key being handled (:meth:`on_event`), ``None`` outside a key's handling
    _typed_on: SessionView | None = None

    def _pane(self, spec: SessionSpec) -> TabPane:
        self._tab_n += 1
        text = distinct_title(spec.label, path_text(Path(spec.paths[0]).stem), self._tab_titles)
        self._tab_titles.add(text)
        title = Content(text)
        # only the first tab draws its panes at once; the others when first shown (mounting
        # the panes of 200 tabs took 12 s before the first screen)
        return SessionTabPane(title, SessionView(spec, self.settings, eager=self._tab_n == 1), id=f"tab-{self._tab_n}")

    async def _add_tabs(self, start: int) -> None:
        """Mount the tabs of ``settings.sessions[start:]`` after the first screen, a batch of
        :data:`TAB_BATCH` per refresh, so the screen answers while they come."""
        if not self.is_running or not self.screen_stack:
            return
        tabs = self.monitor.query_one(TabbedContent)
        batch = self.settings.sessions[start : start + TAB_BATCH]
        for spec in batch:
            if spec.key not in self.views:
                await tabs.add_pane(self._pane(spec))
        try:
            self._update_chrome()
        except NoMatches:  # the screen is being torn down
            return
        if start + TAB_BATCH < len(self.settings.sessions):
            self.call_after_refresh(self._add_tabs, start + TAB_BATCH)

    async def on_event(self, event: events.Event) -> None:
        """Remember which tab a key was typed on as it arrives, and act on that tab when the key
        comes back up to the app's bindings (:attr:`key_view`).

        A key goes from the app to the focused widget and bubbles back up through a queue per
        widget, while a priority key (``ctrl+pagedown``) runs as it arrives: ``[ [ [ C-PageDown``
        in one input read switched tabs before the three steps ran, and they stepped the tab
        switched to (user trial)."""
        if not isinstance(event, events.Key):
            await super().on_event(event)  # type: ignore[misc]
            return
        typed = self._keys_typed_on
        if event.is_forwarded:  # back up at the app: the tab it was typed on
            view = typed.pop(id(event), (event, None))[1]
        else:  # arriving: held (the event too, so its id is not reused) until it comes back
            view = self.current_view
            typed[id(event)] = (event, view)
            while len(typed) > KEYS_IN_FLIGHT:  # keys a widget stopped never come back
                del typed[next(iter(typed))]
        before, self._typed_on = self._typed_on, view
        try:
            await super().on_event(event)  # type: ignore[misc]
        finally:
            self._typed_on = before

    @property
    def key_view(self) -> SessionView | None:
        """The session view a key acts on: the tab it was typed on while a key is handled (if
        that tab is still open), else the active tab's (:attr:`current_view`)."""
        view = self._typed_on
        if view is not None and view.is_attached:
            return view
        return self.current_view

    @property
    def current_view(self) -> SessionView | None:
        """The session view of the active tab."""
        try:
            tabs = self.query_one(TabbedContent)
        except Exception:
            return None
        pane = tabs.active_pane
        if pane is None:
            return None
        try:
            return pane.query_one(SessionView)
        except Exception:
            return None

    def open_session(self, spec: SessionSpec, activate: bool = True) -> None:
        """Show ``spec`` in its tab (a new tab when it is not open; ``activate``: switch to it)."""
        tabs = self.monitor.query_one(TabbedContent)
        view = self.views.get(spec.key)
        if view is not None:
            pane = view.parent
            while pane is not None and not isinstance(pane, TabPane):
                pane = pane.parent
            if pane is not None and pane.id:
                tabs.active = pane.id
            return
        pane = self._pane(spec)
        added = tabs.add_pane(pane)

        async def mounted() -> None:
            # activated once mounted: set before, the tab bar could not find the new tab yet
            # and the first tab was shown (third user trial: s Down Down Enter with 2 tabs)
            await added
            if not pane.is_attached or not self.is_running:
                return  # the app is closing
            if activate and pane.id:
                tabs.active = pane.id
            try:
                self._update_chrome()
            except NoMatches:  # the screen is being torn down
                pass

        self.call_later(mounted)

    def _cycle_tab(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        ids = [p.id for p in tabs.query(TabPane) if p.id]
        if len(ids) < 2:
            self.bell()
            return
        i = ids.index(tabs.active) if tabs.active in ids else 0
        tabs.active = ids[(i + step) % len(ids)]

    def action_next_tab(self) -> None:
        self._cycle_tab(1)

    def action_previous_tab(self) -> None:
        self._cycle_tab(-1)

    async def on_tabbed_content_tab_activated(self) -> None:
        if not self.screen_stack:
            return  # a late activation while the app is torn down
        self._refresh_bindings()
        view = self.current_view
        if view is not None:
            if self._follow is not None:
                self._follow.prefer(view.spec.key)  # the tab on screen is folded first
            if not view.built:
                await view.build()
                if view is not self.current_view:
                    return  # another tab was asked for meanwhile: its own activation focuses it
            view.refresh_panes()
            self._focus_in(view)

    def _focus_in(self, view: SessionView) -> None:
        """Move focus into ``view``'s tab (its episode list), or nowhere. A screen closing over
        the monitor gives focus back to the widget focused before it opened, and Textual makes
        a focused widget's tab pane the active tab: focus left in another tab switched to it."""
        from tracetui.tui.widgets.episodes import EpisodesList

        screen = view.screen
        focused = screen.focused
        if focused is not None and view in focused.ancestors_with_self:
            return
        lists = view.query(EpisodesList)
        if lists:
            lists.first().focus(scroll_visible=False)
        else:
            screen.set_focus(None)
