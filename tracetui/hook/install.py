"""``tracetui hook install`` / ``uninstall``: merge the hook's entries into Claude Code's settings.json."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from tracetui.hook.run import EVENTS, HOOK_TIMEOUT, SESSION_END_MATCHER, SESSION_START_MATCHER, HookError
from tracetui.hook.settings_file import read_settings, settings_text, write_settings
from tracetui.views.safe import safe_text

__all__ = ["install_hooks", "uninstall_hooks", "merge_settings", "remove_from_settings", "settings_path", "default_command", "cmd_install"]


# -- settings.json ------------------------------------------------------------------------
_OURS = re.compile(r"(^|[\s/\\\"'])tracetui(\.exe)?[\"']?\s+hook(\s|$)|tracetui\.cli[\"']?\s+hook(\s|$)")


def _is_ours(h: Any) -> bool:
    if not isinstance(h, dict):
        return False
    cmd = h.get("command")
    return isinstance(cmd, str) and bool(_OURS.search(cmd)) and not re.search(r"\bhook\s+(install|uninstall)\b", cmd)


def settings_path(scope: str, project_dir: Path | None = None) -> Path:
    """Where ``scope`` keeps its settings: ``project`` (the default), the project's own
    ``<project>/.claude/settings.local.json`` (not committed: the entry names this machine's
    path of tracetui); ``shared``, the project's committed ``<project>/.claude/settings.json``;
    ``user``, ``<claude dir>/settings.json`` (the claude dir is ``$CLAUDE_CONFIG_DIR`` when
    set, else ``~/.claude``)."""
    if scope == "user":
        from tracetui.ingest.discover import claude_dir

        return claude_dir() / "settings.json"
    name = "settings.json" if scope == "shared" else "settings.local.json"
    return (project_dir or Path.cwd()) / ".claude" / name


def _check_shape(settings: Any, where: str) -> None:
    if not isinstance(settings, dict):
        raise HookError(f"{where}: not a JSON object; not touching it")
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HookError(f"{where}: 'hooks' is not an object; not touching it")
    for ev, groups in hooks.items():
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise HookError(f"{where}: hooks.{ev} is not a list of objects; not touching it")
        for g in groups:
            if "hooks" in g and not isinstance(g["hooks"], list):
                raise HookError(f"{where}: a hooks.{ev} entry has 'hooks' that is not a list; not touching it")


def _strip(hooks: dict[str, Any], events: tuple[str, ...] | None) -> dict[str, Any]:
    """``hooks`` without our command entries (in ``events``, or all); emptied groups go."""
    out: dict[str, Any] = {}
    for ev, groups in hooks.items():
        if events is not None and ev not in events:
            out[ev] = groups
            continue
        kept = []
        for g in groups:
            hs = g.get("hooks")
            if isinstance(hs, list) and any(_is_ours(h) for h in hs):
                rest = [h for h in hs if not _is_ours(h)]
                if not rest:
                    continue
                g = {**g, "hooks": rest}
            kept.append(g)
        if kept:
            out[ev] = kept
    return out


def _entry(event: str, command: str) -> dict[str, Any]:
    h = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    if event == "SessionStart":
        return {"matcher": SESSION_START_MATCHER, "hooks": [h]}
    if event == "SessionEnd":
        return {"matcher": SESSION_END_MATCHER, "hooks": [h]}
    return {"hooks": [h]}


def merge_settings(settings: dict[str, Any], events: tuple[str, ...], command: str, where: str = "settings") -> dict[str, Any]:
    """A copy of ``settings`` with our hook for each of ``events`` (and for no other event).

    Every other hook stays as it was, in its place; an earlier entry of ours is replaced by one
    entry at the end of its event's list, so installing twice gives the same result.
    Raises :class:`HookError` when the file's shape is not the documented one."""
    _check_shape(settings, where)
    hooks = _strip(dict(settings.get("hooks", {})), None)
    for ev in events:
        hooks[ev] = [*hooks.get(ev, []), _entry(ev, command)]
    out = dict(settings)
    out["hooks"] = hooks
    return out


def remove_from_settings(settings: dict[str, Any], where: str = "settings") -> dict[str, Any]:
    """A copy of ``settings`` without any hook entry of ours; others untouched."""
    _check_shape(settings, where)
    out = dict(settings)
    if "hooks" in out:
        hooks = _strip(out["hooks"], None)
        if hooks:
            out["hooks"] = hooks
        elif out["hooks"] != {}:
            del out["hooks"]
    return out


def _change(path: Path, new: dict[str, Any], old: dict[str, Any], old_text: str | None, dry_run: bool, out) -> tuple[bool, Path | None]:
    """Write ``new`` (the settings ``old`` changed) to ``path``, in the file's own style: no
    write when nothing changes. With ``dry_run``, the unified diff of the bytes that would be
    written against the bytes on disk goes to ``out`` instead."""
    import difflib

    if old_text is not None and new == old:
        return False, None
    if old_text is None and new == {}:
        return False, None
    new_text = settings_text(new, old, old_text)
    if dry_run:
        before = old_text or ""
        diff = difflib.unified_diff(before.splitlines(True), new_text.splitlines(True), f"{path} (now)", f"{path} (after)")
        text = "".join(d if d.endswith("\n") else d + "\n\\ No newline at end of file\n" for d in diff)
        # the diff quotes the settings file and the command as given: terminal-safe
        out.write(safe_text(text))
        return True, None
    _dest, backup = write_settings(path, new_text, old_text)
    return True, backup


def install_hooks(path: Path, events: tuple[str, ...], command: str, dry_run: bool = False, out=None) -> tuple[bool, Path | None]:
    """Merge our hook into the settings file at ``path``: ``(changed, backup path)``.
    With ``dry_run``, writes a unified diff to ``out`` instead. Raises :class:`HookError`."""
    old, old_text = read_settings(path)
    new = merge_settings(old, events, command, str(path))
    # a file created now, or one created by an earlier install and untouched since, is noted
    # (an uninstall then removes it rather than leave it as {})
    ours = old_text is None or created_by_install(path, old, old_text)
    changed, backup = _change(path, new, old, old_text, dry_run, out or sys.stdout)
    if changed and not dry_run:
        _note_created(path, settings_text(new, old, old_text), ours and not path.is_symlink())
    return changed, backup


def _created_file() -> Path:
    """Where ``install`` notes the settings files it created: ``<cache dir>/hook/created.json``
    (``session/store/db.py`` ``cache_dir``), ``{absolute path: [device, inode, SHA-256 of the
    text written]}``."""
    from tracetui.session.store.db import cache_dir

    return cache_dir() / "hook" / "created.json"


def _created() -> dict[str, list[Any]]:
    import json

    try:
        obj = json.loads(_created_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def _stamp(path: Path, text: str) -> list[Any]:
    import hashlib

    st = os.stat(path)
    return [st.st_dev, st.st_ino, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()]


def _note_created(path: Path, text: str, created: bool) -> None:
    """Note (``created``) or forget the settings file at ``path`` holding ``text`` as one install
    created. Best effort: a note that cannot be written only keeps the uninstall from removing
    the file (it leaves ``{}``, as a file of the user's)."""
    import json

    notes = _created()
    key = os.path.abspath(path)
    try:
        if created:
            notes[key] = _stamp(path, text)
        elif notes.pop(key, None) is None:
            return
        f = _created_file()
        f.parent.mkdir(parents=True, exist_ok=True)
        tmp = f.with_name(f".{f.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(notes), encoding="utf-8")
        os.replace(tmp, f)
    except OSError:
        pass


def created_by_install(path: Path, old: dict[str, Any], old_text: str) -> bool:
    """The settings file at ``path`` (read as ``old``, text ``old_text``) is one ``install``
    created (there was no file) and nobody changed since: noted then (:func:`_note_created`)
    with the same device, inode and text; it holds our hook entries and nothing else, and is
    no symlink. Such a file, which an uninstall would leave as ``{}``, is removed instead; a
    file of the user's (one that was there before install, even ``{}``) never is."""
    if path.is_symlink() or not old or remove_from_settings(old, str(path)) != {}:
        return False
    try:
        return _created().get(os.path.abspath(path)) == _stamp(path, old_text)
    except OSError:
        return False


def uninstall_hooks(path: Path, dry_run: bool = False, out=None) -> tuple[bool, Path | None]:
    """Remove our hook entries from the settings file at ``path``: ``(changed, backup)``. A
    file install created and this leaves empty (:func:`created_by_install`) is deleted (no
    backup: it held only what install wrote); with ``dry_run`` the diff shows it removed."""
    import difflib

    old, old_text = read_settings(path)
    if old_text is None:
        return False, None
    if created_by_install(path, old, old_text):
        if dry_run:
            diff = difflib.unified_diff(old_text.splitlines(True), [], f"{path} (now)", f"{path} (removed)")
            (out or sys.stdout).write(safe_text("".join(diff)))
        else:
            path.unlink()
            _note_created(path, old_text, False)
        return True, None
    new = remove_from_settings(old, str(path))
    return _change(path, new, old, old_text, dry_run, out or sys.stdout)


def _events_arg(values: list[str] | None) -> tuple[str, ...]:
    if not values:
        return EVENTS
    evs = tuple(dict.fromkeys(x.strip() for v in values for x in v.split(",") if x.strip()))
    bad = [e for e in evs if e not in EVENTS]
    if bad:
        raise HookError(f"unknown event {', '.join(bad)} (this hook answers {', '.join(EVENTS)})")
    return evs


def _shell_quote(word: str) -> str:
    """``word`` quoted for the shell Claude Code runs a hook command with (``sh`` on POSIX,
    ``cmd`` rules on Windows); unchanged when it needs no quoting."""
    if os.name == "nt":
        import subprocess

        return subprocess.list2cmdline([word])
    import shlex

    return shlex.quote(word)


def default_command() -> str:
    """The hook command ``hook install`` writes: the absolute path of the ``tracetui`` that is
    running (its console script; else the one installed beside this python; else the one
    ``shutil.which`` finds on PATH), quoted for the shell, then ``hook``; without a script,
    ``<this python> -m tracetui.cli hook``. A bare
    ``tracetui hook`` breaks when tracetui is only on a virtualenv's PATH, which Claude Code
    does not have. Symlinks are kept as they are (a venv's ``python`` is one)."""
    import shutil

    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name in ("tracetui", "tracetui.exe") and argv0.is_file():
        return f"{_shell_quote(os.path.abspath(argv0))} hook"
    # ``python -m tracetui.cli``: the script installed with this python first, then PATH's
    beside = Path(sys.executable).parent / ("tracetui.exe" if os.name == "nt" else "tracetui")
    found = str(beside) if sys.executable and beside.is_file() else shutil.which("tracetui")
    if found:
        return f"{_shell_quote(os.path.abspath(found))} hook"
    return f"{_shell_quote(sys.executable)} -m tracetui.cli hook"


def _has_ours(path: Path) -> bool:
    """The settings file at ``path`` holds a hook entry of ours (unreadable: no)."""
    try:
        settings, _text = read_settings(path)
        return settings != remove_from_settings(settings, str(path))
    except (HookError, OSError):
        return False


def cmd_install(ns: argparse.Namespace, action: str) -> int:
    scope = "user" if ns.user else "shared" if getattr(ns, "shared", False) else "project"
    command = getattr(ns, "command", None) or default_command()
    try:
        if getattr(ns, "dir", None) and not Path(ns.dir).is_dir():
            # a typo would otherwise make a stray folder with a settings file in it
            raise HookError(f"{ns.dir}: no such project folder")
        path = settings_path(scope, Path(ns.dir) if getattr(ns, "dir", None) else None)
        if action == "install":
            events = _events_arg(ns.events)
            changed, backup = install_hooks(path, events, command, ns.dry_run)
            what = f"tracetui hook for {', '.join(events)} (command: {command})"
        else:
            changed, backup = uninstall_hooks(path, ns.dry_run)
            what = "tracetui hook entries"
    except HookError as exc:
        print(f"tracetui: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"tracetui: {exc.filename or path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    verb = "installed" if action == "install" else "removed"
    if action == "install":
        same = f"{path}: already as wanted"
    elif not path.exists() and not path.is_symlink():  # nothing to read: say so, not "no entries in it"
        same = f"{path}: no such file, so no tracetui hook entries to remove"
    else:
        same = f"{path}: no tracetui hook entries to remove"
    where = str(path)
    if path.is_symlink():
        where = f"{path} (a symlink: written to {os.path.realpath(path)})"
    # the lines quote the command and paths as given: terminal-safe, as every line the CLI prints
    if ns.dry_run:
        print(
            safe_text(f"dry run: {where} would change ({verb} {what}); nothing written" if changed else f"dry run: {same}; nothing to do")
        )
    elif changed and not path.exists() and not path.is_symlink():  # uninstall: a file install created
        print(safe_text(f"{verb} {what}: {where} held only them, as install created it, and is removed"))
    elif changed:
        print(safe_text(f"{verb} {what} in {where}" + (f" (backup: {backup})" if backup else "")))
    else:
        print(safe_text(f"{same}; unchanged"))
    if scope in ("project", "shared"):
        # Claude Code runs the hooks of both project files: one of ours in the other is run twice
        other = settings_path("shared" if scope == "project" else "project", path.parent.parent)
        if _has_ours(other):
            flag = "--shared" if scope == "project" else "--project"
            print(f"tracetui: note: {other} has tracetui hook entries too; 'tracetui hook uninstall {flag}' removes them", file=sys.stderr)
    if action == "install" and command.split()[0] == "tracetui":
        import shutil

        if shutil.which("tracetui") is None:
            print(
                "tracetui: note: 'tracetui' is not on PATH here; Claude Code must find it, or pass --command with a full path",
                file=sys.stderr,
            )
    return 0
