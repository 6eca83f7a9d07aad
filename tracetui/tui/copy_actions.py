"""The copy keys (card, worker view) and the screenshot: what is sent, written and said."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tracetui.ingest.files import path_text
from tracetui.model.state import RunState
from tracetui.session.reader import describe_os_error
from tracetui.tui.export import cap_text, export_dir, osc52, tmux_wrap, write_export
from tracetui.tui.format import parse_ts
from tracetui.tui.session_view import SessionView
from tracetui.tui.view_model import state_as_of
from tracetui.views.format import fmt_bytes_exact, plural

__all__ = ["CopyActions", "compile_export", "copy_note", "export_inputs"]


def copy_note(
    label: str, scope: str, chars: int, path: Path | None, cut: int | None, tmux: bool, narrow: bool, failed: str | None = None
) -> str:
    """What the copy keys say. The app cannot know whether the terminal took the OSC 52
    sequence (tmux with its default ``set-clipboard external`` drops it; some terminals refuse
    it), so it says it *sent* the text, and where the file is, or, ``failed``, why the file
    could not be written. ``narrow``: one short line, the file named without its folder
    (``d3m0c0de…-card-live.txt``)."""
    if narrow:
        name = path.name if path is not None else ""
        m = re.fullmatch(r"(.{8}).{5,}?(-(?:card|worker)-\w+\.txt)", name)
        if m:  # <session>-<kind>-<scope>.txt (export.write_export): the session id shortened
            name = f"{m[1]}…{m[2]}"
        return f"{label.capitalize()} sent by OSC 52" + (f"; file {name}" if path else "; file not written" if failed else "; no file")
    where = f" and wrote it to {path}" if path is not None else f"; the file could not be written: {failed}" if failed else ""
    hint = "the terminal may refuse it; under tmux it needs set-clipboard on" if tmux else "if the terminal accepts it"
    note = f", cut to {fmt_bytes_exact(cut)}" if cut else ""
    return f"Sent the {label} ({scope}, {plural(chars, 'char')}{note}) to the clipboard by OSC 52 ({hint}){where}"


def export_inputs(view: SessionView) -> tuple[RunState, int | None, float | None]:
    """What a copy of ``view`` compiles, taken on the UI thread: the live state, the scrubbed
    episode (``None``: live) and the "now" the panes on screen were drawn with
    (``view.shown.now``), so the copy says what the screen says; ``None`` when the panes wait
    for the state as of the episode (read on a worker thread): :func:`compile_export` then
    takes the end of that episode, as the panes will."""
    live = view.state
    assert live is not None
    k = view.episode
    shown = view.shown
    if shown is None or shown.live is not live or shown.episode != k:
        view.refresh_panes()
        shown = view.shown
    if shown is not None and shown.live is live and shown.episode == k:
        return live, k, shown.now
    return live, k, None


def compile_export(kind: str, live: RunState, k: int | None, now: float | None, clock_now: float) -> str:
    """The text of ``kind`` (``card`` or ``worker``) for ``live`` as of episode ``k``
    (``None``: live), compiled by the headless views; a plain state summary when this build
    lacks them. It reads a stored session's database (its episodes, the state as of ``k``), so
    the copy keys run it on a worker thread. ``now``: the seconds since the epoch ages are
    measured to; ``None``: the end of episode ``k`` (its last record's time), else
    ``clock_now`` (Scrubbing.now_for's rule)."""
    if now is None:
        now = clock_now
        if k is not None:
            ended = parse_ts(state_as_of(live, k).main.last_timestamp)
            now = ended if ended is not None else clock_now
    try:
        if kind == "card":
            from tracetui.views.card import render_card as render
        else:
            from tracetui.views.worker import render_worker_view as render
    except ImportError:
        render = None
    if render is not None:
        from tracetui.views.safe import export_text, state_secrets

        return export_text(render(live, episode=k, now=now), seen=state_secrets(live))
    from tracetui.views.state_json import state_summary

    shown = state_as_of(live, k) if k is not None else live
    scope = "live" if k is None else f"as of the end of episode {k}"
    return (
        f"tracetui {kind} ({scope}); the {kind} view is not in this build, state summary instead:\n\n{state_summary(shown)}\n"  # redacted
    )


class CopyActions:
    """The app's copy actions (``c``, ``w``, the palette's copies), its OSC 52 clipboard and
    its screenshot folder; mixed into :class:`tracetui.tui.app.TraceApp`, whose
    ``key_view``, ``settings``, ``narrow`` and ``notify`` they use."""

    def action_copy_card(self) -> None:
        self._copy("card")

    def action_copy_worker(self) -> None:
        self._copy("worker")

    def _copy(self, kind: str) -> None:
        view = self.key_view  # the tab the key was typed on
        if view is None or view.state is None:
            self.bell()
            return
        label = "card" if kind == "card" else "worker view"
        live, k, now = export_inputs(view)
        clock_now = view.settings.clock()
        session = live.main.session_id or path_text(Path(view.spec.paths[0]).stem)
        folder = self.settings.export_dir

        def work() -> None:
            # the views read a stored session's database and the file is written here: the UI
            # thread waits on neither (it sends the text and says so when this is done)
            try:
                text = compile_export(kind, live, k, now, clock_now)
            except Exception as exc:  # noqa: BLE001 - a view bug must not end the monitor: said in one line
                self._call_back(self.notify, f"Could not compile the {label}: {type(exc).__name__}: {exc}", severity="error", markup=False)
                return
            path: Path | None = None
            failed: str | None = None
            try:
                path = write_export(text, kind, session, k, export_dir(folder))
            except OSError as exc:
                failed = describe_os_error(exc.filename or folder or "the export folder", exc)
            self._call_back(self._send_copy, label, k, text, path, failed)

        self.run_worker(work, thread=True, group="copy", exit_on_error=False)

    def _call_back(self, fn: Any, *args: Any, **kw: Any) -> None:
        try:
            self.call_from_thread(fn, *args, **kw)
        except RuntimeError:  # the app closed while the copy was compiled
            pass

    def _send_copy(self, label: str, k: int | None, text: str, path: Path | None, failed: str | None) -> None:
        """Send a compiled copy by OSC 52 and say what was sent and written (the UI thread)."""
        clip, cut = cap_text(text, self.settings.clipboard_cap, path)
        self.copy_to_clipboard(clip)
        scope = "live" if k is None else f"as of episode {k}"
        narrow = self.narrow
        note = copy_note(
            label, scope, len(text), path, self.settings.clipboard_cap if cut else None, bool(os.environ.get("TMUX")), narrow, failed
        )
        self.notify(note, title="" if narrow else "Copy", markup=False, timeout=8, severity="warning" if failed else "information")

    def copy_to_clipboard(self, text: str) -> None:
        """OSC 52 as Textual writes it, plus the same sequence wrapped for tmux's passthrough
        when ``TMUX`` is set (tmux ≥ 3.3 drops unwrapped OSC 52 unless set-clipboard is on)."""
        super().copy_to_clipboard(text)
        driver = getattr(self, "_driver", None)
        if os.environ.get("TMUX") and driver is not None:
            driver.write(tmux_wrap(osc52(text)))

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None, time_format: str | None = None) -> str | None:
        """Save an SVG of the screen (the palette's Screenshot) into ``path``, by default the
        folder copies are written to, made when missing (Textual's default, ~/Downloads, need
        not exist); a folder that cannot be made is said in one notification (``None``)."""
        folder = Path(path).expanduser() if path else export_dir(self.settings.export_dir)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.notify(f"Screenshot not saved: cannot make {folder}: {exc.strerror or exc}", severity="error")
            return None
        return super().deliver_screenshot(filename, str(folder), time_format)
