"""Claude Code's settings file as the user keeps it: read (through a symlink), written back in its
own style with only the change made, its mode, owner and symlink kept, a backup beside it."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from tracetui.hook.run import HookError

__all__ = ["read_settings", "write_settings", "settings_text", "target_of"]


def _style(text: str | None) -> dict[str, Any]:
    """How ``text`` writes JSON: ``indent`` (spaces or a tab, as its first indented line has it;
    ``None`` for a file on one line), ``eol`` (its line ends: ``\\r\\n`` or ``\\n``) and
    ``newline`` (its final line end, or ``""``). A new file: two spaces, ``\\n``."""
    if not text or not text.strip():
        return {"indent": 2, "eol": "\n", "newline": "\n"}
    eol = "\r\n" if "\r\n" in text else "\n"
    newline = eol if text.endswith("\n") else ""
    body = text.strip()
    if "\n" not in body:
        return {"indent": None, "eol": eol, "newline": newline}
    m = re.search(r"\n([ \t]+)\S", body)
    indent: int | str = 2 if m is None else (m.group(1) if "\t" in m.group(1) else len(m.group(1)))
    return {"indent": indent, "eol": eol, "newline": newline}


def _dump(obj: Any, like: str | None = None) -> str:
    """``obj`` as JSON text written in the style of the file text ``like`` (:func:`_style`)."""
    import json

    st = _style(like)
    return json.dumps(obj, indent=st["indent"], ensure_ascii=False).replace("\n", st["eol"]) + st["newline"]


def _members(text: str, start: int) -> tuple[list[tuple[str, int, int]], int] | None:
    """The members of the JSON object that starts at ``text[start]`` (``{``): ``([(key,
    value start, value end), ...], index after the closing brace)``; ``None`` when it is not
    one."""
    import json

    dec = json.JSONDecoder()
    ws = re.compile(r"[ \t\n\r]*")

    def skip(i: int) -> int:
        m = ws.match(text, i)
        return m.end() if m else i

    if start >= len(text) or text[start] != "{":
        return None
    out: list[tuple[str, int, int]] = []
    i = skip(start + 1)
    try:
        while True:
            if text[i] == "}":
                return out, i + 1
            key, i = dec.raw_decode(text, i)
            i = skip(i)
            if not isinstance(key, str) or text[i] != ":":
                return None
            v0 = skip(i + 1)
            _value, v1 = dec.raw_decode(text, v0)
            out.append((key, v0, v1))
            i = skip(v1)
            if text[i] == ",":
                i = skip(i + 1)
            elif text[i] != "}":
                return None
    except (ValueError, IndexError):
        return None


def _indented(obj: Any, style: dict[str, Any], depth: int) -> str:
    """``obj`` as JSON in ``style`` (:func:`_style`), its lines indented for ``depth`` levels."""
    import json

    ind = style["indent"]
    if ind is None:
        return json.dumps(obj, ensure_ascii=False)
    unit = ind if isinstance(ind, str) else " " * ind
    return json.dumps(obj, indent=ind, ensure_ascii=False).replace("\n", style["eol"] + unit * depth)


def _splice(old_text: str, old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """``new`` written as ``old_text`` with only the change made: every top-level member but
    ``hooks`` and every event under it that stays the same keeps its bytes; the events that
    change (or the whole ``hooks`` member, when it is added) are written in the file's style.
    ``None`` when the change is not of that shape (the caller writes the whole file)."""
    import json

    lead = len(old_text) - len(old_text.lstrip())
    top = _members(old_text, lead)
    if top is None or old_text[top[1] :].strip():
        return None
    members, end = top
    keys = [k for k, _, _ in members]
    if len(set(keys)) != len(keys) or {k: v for k, v in new.items() if k != "hooks"} != {k: v for k, v in old.items() if k != "hooks"}:
        return None
    if [k for k in new if k != "hooks"] != [k for k in keys if k != "hooks"]:
        return None
    style = _style(old_text)
    ind = style["indent"]
    unit = "" if ind is None else ind if isinstance(ind, str) else " " * ind
    nl = "" if ind is None else style["eol"]
    sep = ", " if ind is None else ","
    if "hooks" not in new:
        return None  # removing the member: the whole file is written
    if "hooks" not in keys:
        if not members:
            return None
        at = members[-1][2]
        return old_text[:at] + f'{sep}{nl}{unit}"hooks": ' + _indented(new["hooks"], style, 1) + old_text[at:]
    _k, h0, h1 = members[keys.index("hooks")]
    inner = _members(old_text, h0)
    old_hooks = old.get("hooks") or {}
    if inner is None or not isinstance(old_hooks, dict):
        return None
    spans = {k: (a, b) for k, a, b in inner[0]}
    parts = []
    for ev, groups in new["hooks"].items():
        if ev in spans and old_hooks.get(ev) == groups:
            value = old_text[spans[ev][0] : spans[ev][1]]
        else:
            value = _indented(groups, style, 2)
        parts.append(f"{unit * 2}{json.dumps(ev, ensure_ascii=False)}: {value}")
    body = "{" + nl + (sep + nl).join(parts) + nl + unit + "}" if parts else "{}"
    return old_text[:h0] + body + old_text[h1:]


def target_of(path: Path) -> Path:
    """The file a change of ``path`` is written to: ``path``, or the file a symlink at ``path``
    points to (written in place, so the link stays a link). Raises :class:`HookError` for a
    symlink whose target does not exist or is not a file."""
    if not path.is_symlink():
        return path
    real = Path(os.path.realpath(path))
    if not real.exists():
        raise HookError(f"{path}: a symlink to {real}, which does not exist; not touching it")
    if not real.is_file():
        raise HookError(f"{path}: a symlink to {real}, which is not a file; not touching it")
    return real


def read_settings(path: Path) -> tuple[dict[str, Any], str | None]:
    """The settings at ``path`` (through a symlink) and their text as it is (line ends kept):
    ``({}, None)`` when there is no file, ``({}, text)`` when it is blank. Raises
    :class:`HookError` (one line, "not touching it") for a file that cannot be read, is not
    UTF-8 text or not JSON, or has a key twice in one object (a rewrite would drop one)."""
    import json

    try:
        with open(target_of(path), encoding="utf-8", newline="") as f:  # line ends as they are
            text = f.read()
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        raise HookError(f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:  # Latin-1, or UTF-16 as some editors write it
        raise HookError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); not touching it") from None
    if not text.strip():
        return {}, text
    twice: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for k, v in items:
            if k in obj:
                twice.append(k)
            obj[k] = v
        return obj

    try:
        obj = json.loads(text, object_pairs_hook=pairs)
    except ValueError as exc:
        raise HookError(f"{path}: not valid JSON ({exc}); not touching it") from None
    if twice:
        # a rewrite would drop one of the two members; which one Claude Code reads is its parser's
        # choice, so the file is left as it is
        raise HookError(f"{path}: the key {json.dumps(twice[0], ensure_ascii=False)} appears twice in one object; not touching it")
    return obj, text


def _write_like(dest: Path, text: str, like: os.stat_result | None) -> None:
    """Write ``text`` to ``dest`` atomically (a temporary file beside it, renamed over it), with
    the mode, and where allowed the owner, of ``like`` (the file it replaces); a new file is
    ``0600`` (less what the umask takes), as every file tracetui creates: a settings file can
    come to hold credentials (its ``env``), and it was 0644 where the README says 0600 (trial 13)."""
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    mode = 0o600 if like is None else stat.S_IMODE(like.st_mode)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        if like is None:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, mode & ~umask)
        else:
            os.chmod(tmp, mode)
            try:
                os.chown(tmp, like.st_uid, like.st_gid)
            except (OSError, AttributeError):  # another owner's file: it becomes ours, as any editor's save
                pass
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_settings(path: Path, new_text: str, old_text: str | None) -> tuple[Path, Path | None]:
    """Write ``new_text`` as the settings at ``path``, backing up the old file first (beside
    ``path``, with the old file's mode). A symlink at ``path`` is written through: its target
    changes, the link stays. Returns ``(the file written, the backup path or None)``."""
    import time

    dest = target_of(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        old_stat: os.stat_result | None = dest.stat()
    except FileNotFoundError:
        old_stat = None
    backup = None
    if old_text is not None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = path.with_name(f"{path.name}.bak-{stamp}")
        n = 1
        while backup.exists() or backup.is_symlink():
            n += 1
            backup = path.with_name(f"{path.name}.bak-{stamp}-{n}")
        _write_like(backup, old_text, old_stat)
    _write_like(dest, new_text, old_stat)
    return dest, backup


def settings_text(new: dict[str, Any], old: dict[str, Any], old_text: str | None) -> str:
    """The text to write for settings ``new`` replacing ``old`` (read as ``old_text``, ``None``
    for no file): ``old_text`` with only the change made where its shape allows
    (:func:`_splice`), else the whole of ``new`` in the file's style (:func:`_style`)."""
    spliced = _splice(old_text, old, new) if old_text and old_text.strip() else None
    return spliced if spliced is not None else _dump(new, old_text)
