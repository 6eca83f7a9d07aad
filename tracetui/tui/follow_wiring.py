"""The app's wiring to the follow (one watcher thread, a few fold workers), the sessions
watch and the fleet feed."""

from __future__ import annotations

from tracetui.tui.messages import SessionsFound
from tracetui.tui.settings import MAX_TABS, SessionSpec, Settings

__all__ = ["FollowWiring"]


class FollowWiring:
    """The app's follow, made at first use and stopped at unmount; the sessions that start
    while it runs; the fleet feed and its screen. Mixed into :class:`tracetui.tui.app.TraceApp`,
    whose ``settings``, ``views``, ``_follow``, ``open_session`` and ``notify`` they use."""

    def _wire_fleet(self, settings: Settings) -> None:
        """Make the fleet feed the fold workers fill; a turn that ends alerts (:func:`tracetui.tui.fleet_feed.alert`)."""
        from tracetui.tui.fleet_feed import FleetFeed, alert

        #: every session's fleet facts, from the fold workers (tracetui/tui/fleet_feed.py)
        self.fleet_feed = FleetFeed(settings)
        self.fleet_feed.on_turn = lambda rows: alert(self, rows)

    @property
    def follow(self):  # -> tracetui.session.follow.Follow
        """The one follow of every session (one watcher thread, a few fold workers), made at
        first use."""
        if self._follow is None:
            from tracetui.session.follow import Follow

            s = self.settings
            self._follow = Follow(follow=s.follow, events=s.watch)
            if self._follow.problem:
                self.notify(self._follow.problem, severity="warning", markup=False)
        return self._follow

    #: the terminal went away (:meth:`hang_up`): the app ends without saving the stores
    hung_up = False

    def hang_up(self) -> None:
        """The terminal went away (SIGHUP, :func:`tracetui.tui.main.run_app`): exit now, with
        code 129 (128 + SIGHUP), leaving the workers and the stores' saves behind (a save of a
        long first read took seconds; a store left unsaved costs a refold at the next open, never
        a wrong figure). Runs on the app's loop."""
        import signal

        self.hung_up = True
        self.exit(return_code=128 + signal.SIGHUP)

    def on_unmount(self) -> None:
        self.fleet_feed.stop()
        if self.replay is not None:
            self.replay.stop()
        if self._follow is not None:
            # ends the watcher and the workers, then saves every opened session's store
            # (after a hang-up: neither waits for the workers nor saves)
            self._follow.stop(timeout=0.0 if self.hung_up else 10.0, save=not self.hung_up)

    def watch_sessions(self) -> None:
        """Notice sessions that start while the app runs (the follow's watcher and workers)."""
        from tracetui.tui.sessions_watch import SessionsWatch

        s = self.settings
        self.sessions_watch = SessionsWatch(
            self.post_message, {sp.key for sp in s.sessions}, s.projects_root, s.all_hours, s.clock, s.agent
        )
        self.sessions_watch.attach(self.follow)

    def on_sessions_found(self, message: SessionsFound) -> None:
        """``--all``: open a tab per new session; otherwise say that one started."""
        from tracetui.ingest.agents import agent_name

        if self.settings.all_hours is None and self.fleet_feed.discovered:  # the fleet follows its window
            self.fleet_feed.follow_window(self.follow, message.sessions, set(self.views), self.settings.subagents, self.settings.use_cache)
        for info in message.sessions:
            what = f"New {agent_name(info.agent)} session {info.session_id[:8]} in {info.project}"
            if self.settings.all_hours is not None and len(self.views) < MAX_TABS:
                self.open_session(SessionSpec((info.path,), f"{info.project[-16:]}/{info.session_id[:8]}"), activate=False)
                self.notify(f"{what}: opened in a tab", title="Sessions", markup=False)
            else:
                self.notify(f"{what}: press s to open it", title="Sessions", markup=False)

    def action_fleet(self) -> None:
        """Show the fleet screen (every session's state), over the monitor."""
        from tracetui.tui.screens.fleet import FleetScreen

        if not isinstance(self.screen, FleetScreen):
            self.push_screen(FleetScreen(self.fleet_feed))
