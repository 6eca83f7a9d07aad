"""The app's notifications (toasts): made safe, short-lived in a narrow terminal, and held while
a dialog is up.

Textual draws the notifications on the screen on top, a dialog included: the help's text and
the session list were covered by toasts that had nothing to do with them (trial 11: the demo's
and the fleet's piled up over both). A screen whose class sets ``holds_toasts`` (the help, the
session list) takes the toasts on screen off as it opens and keeps the new ones back; when it
closes they are shown on the screen beneath (the app follows ``screen_change_signal``), each for the time it had left (at least
:data:`SHOWN_AT_LEAST` seconds), the new ones for their whole timeout.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from textual.notifications import Notify

from tracetui.views.safe import safe_text

__all__ = ["NARROW_BELOW", "NARROW_TIMEOUT", "HELD_AT_MOST", "SHOWN_AT_LEAST", "HeldToast", "ToastHold"]

#: below this many columns notifications are compact (``Screen.-narrow Toast`` in the tcss,
#: shorter texts, :data:`NARROW_TIMEOUT`): at 60 columns a full one covered a third of the screen
NARROW_BELOW = 100
#: seconds a notification stays at most in a narrow terminal (errors: twice this), so it does
#: not hide the panes beneath it for long
NARROW_TIMEOUT = 4.0
#: notifications kept back while a dialog is up, at most (the newest; a repeated one once)
HELD_AT_MOST = 6
#: seconds a notification held is shown at least once the dialog closes (one taken off the
#: screen as the dialog opened keeps the time it had left, but does not just flash)
SHOWN_AT_LEAST = 3.0


class HeldToast(NamedTuple):
    """A notification kept back while a dialog is up; ``timeout`` in seconds (``None``: Textual's default)."""

    message: str
    title: str
    severity: Any
    timeout: float | None
    markup: bool


def _holds(screen: object) -> bool:
    return bool(getattr(screen, "holds_toasts", False))


class ToastHold:
    """The app's :meth:`notify`, :attr:`narrow` and the toasts held while a dialog is up. Mixed
    into :class:`tracetui.tui.app.TraceApp` (before Textual's ``App``, whose ``notify``,
    ``size``, ``screen_stack``, ``_notifications`` and ``clear_notifications`` it uses)."""

    #: the notifications kept back while a dialog is up, oldest first (made per app by :meth:`_held_toasts`)
    _held: list[HeldToast] | None = None

    def _held_toasts(self) -> list[HeldToast]:
        if self._held is None:
            self._held = []
        return self._held

    @property
    def narrow(self) -> bool:
        """The terminal is narrower than :data:`NARROW_BELOW` columns (compact notifications)."""
        return self.size.width < NARROW_BELOW  # type: ignore[attr-defined]

    @property
    def toasts_held(self) -> bool:
        """The screen on top is a dialog that holds the notifications back."""
        stack = self.screen_stack  # type: ignore[attr-defined]
        return bool(stack) and _holds(stack[-1])

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None, markup: bool = True) -> None:
        """Textual's notification; in a narrow terminal it stays at most :data:`NARROW_TIMEOUT`
        seconds (errors twice that); while a dialog is up it is held until the dialog closes
        (:meth:`on_notify`). A message names files and sessions: its control characters are
        shown by their stand-ins (Textual would drop BEL and keep ESC)."""
        self._show(HeldToast(safe_text(message), safe_text(title), severity, timeout, markup))

    def _show(self, toast: HeldToast) -> None:
        message, title, severity, timeout, markup = toast
        if self.narrow:
            cap = NARROW_TIMEOUT * (2 if severity == "error" else 1)
            timeout = min(cap, self.NOTIFICATION_TIMEOUT if timeout is None else timeout)  # type: ignore[attr-defined]
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)  # type: ignore[misc]

    def on_notify(self, event: Notify) -> None:
        """A notification arriving while a dialog is up is held, not shown (Textual's handler,
        which shows it on the screen on top, is not run). Any notification: Textual's own too."""
        if self.toasts_held:
            n = event.notification
            self._hold(HeldToast(n.message, n.title, n.severity, n.timeout, n.markup))
            event.prevent_default()

    def _hold(self, toast: HeldToast) -> None:
        held = self._held_toasts()
        held[:] = [h for h in held if (h.message, h.title) != (toast.message, toast.title)]
        held.append(toast)
        del held[:-HELD_AT_MOST]

    def hold_toasts(self) -> None:
        """A dialog opened (or came back on top): the notifications on screen are taken off and
        held with the time they had left."""
        shown = [n for n in self._notifications if n.time_left > 0]  # type: ignore[attr-defined]
        if not shown:
            return
        for n in shown:
            self._hold(HeldToast(n.message, n.title, n.severity, max(SHOWN_AT_LEAST, n.time_left), n.markup))
        self.clear_notifications()  # type: ignore[attr-defined]
        # Textual redraws the toasts of the screen on top only: the dialog's backdrop showed the
        # screen beneath with its toasts still on it
        for screen in self.screen_stack:  # type: ignore[attr-defined]
            for rack in screen.query_children("ToastRack"):
                rack.show(self._notifications)  # type: ignore[attr-defined]

    def _wire_toasts(self) -> None:
        """Hold or show the notifications as screens open and close (at mount)."""
        self.screen_change_signal.subscribe(self, self._screen_changed)  # type: ignore[attr-defined]

    def _screen_changed(self, screen: object) -> None:
        """``screen`` is on top now: a dialog holds the notifications; any other screen shows
        those held (a dialog closing onto another dialog keeps holding them)."""
        if _holds(screen):
            self.hold_toasts()
            return
        held, self._held = self._held_toasts(), []
        for t in held:
            self._show(t)
