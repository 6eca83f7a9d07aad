"""The user's settings file: what the monitor and ``tracetui sessions`` take when no option says
otherwise.

Where: ``$TRACETUI_CONFIG`` when set, else ``settings.toml`` in the user config folder
(``platformdirs.user_config_dir("tracetui")``, ``~/.config/tracetui`` on Linux). A missing file
is no error. TOML, every key optional::

    bell = false              # no terminal bell when a session turns waiting on you or failing
    budget_usd = 5.0          # a budget per session, USD
    budget_usd_day = 40.0     # a budget for all sessions' spend on the current UTC day, USD

    [fleet]                   # the fleet's state rules' thresholds, seconds (tracetui/views/fleet.py)
    quiet_after = 15
    stall_after = 300
    idle_after = 1800
    ended_after = 10800

Command-line options win over the file. A file that is not TOML, an unknown key or a value of
the wrong kind is left out with one line saying what and where (:attr:`UserSettings.warnings`);
the rest of the file still applies. So are ``idle_after`` and ``ended_after`` when, taken with
the defaults, the session would turn ended before it could turn idle.
"""

from __future__ import annotations

import math
import os
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracetui.model.anomaly_rules import STALL_SECONDS
from tracetui.model.numbers import fmt_bytes_exact, fmt_count

__all__ = ["UserSettings", "settings_path", "load_user_settings", "FLEET_KEYS", "FLEET_DEFAULTS"]

#: the ``[fleet]`` thresholds and their defaults, seconds (the fleet's state rules,
#: :class:`tracetui.views.fleet.FleetRules`, take these as theirs)
FLEET_DEFAULTS = {"quiet_after": 15.0, "stall_after": float(STALL_SECONDS), "idle_after": 1800.0, "ended_after": 10800.0}
FLEET_KEYS = tuple(FLEET_DEFAULTS)
#: bytes a settings file may hold (a few keys: more is not a settings file)
MAX_SETTINGS_BYTES = 1 << 20


@dataclass
class UserSettings:
    """What the settings file holds (``None``: not set there) and the lines about what it could
    not take. ``fleet``: the ``[fleet]`` thresholds that were set, seconds."""

    path: Path | None = None
    bell: bool | None = None
    budget_usd: float | None = None
    budget_usd_day: float | None = None
    fleet: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def settings_path() -> Path:
    """``$TRACETUI_CONFIG``, else ``<user config dir>/tracetui/settings.toml``."""
    env = os.environ.get("TRACETUI_CONFIG")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("tracetui")) / "settings.toml"


def _positive(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    f = float(v)
    return f if math.isfinite(f) and f > 0 else None


def load_user_settings(path: Path | None = None) -> UserSettings:
    """The settings of ``path`` (default :func:`settings_path`). Never raises: an unreadable
    or malformed file, or a bad entry, is a line in ``warnings`` naming the file and the key."""
    p = path if path is not None else settings_path()
    out = UserSettings(path=p)
    try:
        st = os.stat(p)
        if not stat.S_ISREG(st.st_mode):
            # a FIFO would block the open, a device (/dev/zero) fill the memory (fifth user trial)
            out.warnings.append(f"settings file {p}: not a regular file; using the defaults")
            return out
        if st.st_size > MAX_SETTINGS_BYTES:
            out.warnings.append(
                f"settings file {p}: {fmt_bytes_exact(st.st_size)}, more than {fmt_count(MAX_SETTINGS_BYTES)}; using the defaults"
            )
            return out
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if path is None and os.environ.get("TRACETUI_CONFIG"):
            # named by the user, so meant to be there (the default file is optional)
            out.warnings.append(f"settings file {p} ($TRACETUI_CONFIG): no such file; using the defaults")
        return out
    except (OSError, UnicodeDecodeError) as e:
        out.warnings.append(f"settings file {p}: cannot read it ({e.__class__.__name__}); using the defaults")
        return out
    except tomllib.TOMLDecodeError as e:
        out.warnings.append(f"settings file {p}: not TOML ({e}); using the defaults")
        return out
    for key, v in data.items():
        if key == "bell":
            if isinstance(v, bool):
                out.bell = v
            else:
                out.warnings.append(f"settings file {p}: bell must be true or false, not {v!r}; left out")
        elif key in ("budget_usd", "budget_usd_day"):
            f = _positive(v)
            if f is None:
                out.warnings.append(f"settings file {p}: {key} must be a positive number of USD, not {v!r}; left out")
            else:
                setattr(out, key, f)
        elif key == "fleet" and isinstance(v, dict):
            for k, sv in v.items():
                f = _positive(sv) if k in FLEET_KEYS else None
                if k not in FLEET_KEYS:
                    out.warnings.append(f"settings file {p}: [fleet] has no key {k!r} (keys: {', '.join(FLEET_KEYS)}); left out")
                elif f is None:
                    out.warnings.append(f"settings file {p}: [fleet] {k} must be a positive number of seconds, not {sv!r}; left out")
                else:
                    out.fleet[k] = f
        else:
            out.warnings.append(f"settings file {p}: unknown key {key!r} (keys: bell, budget_usd, budget_usd_day, [fleet]); left out")
    _check_order(out, p)
    return out


def _check_order(out: UserSettings, p: Path) -> None:
    """Leave out the ``[fleet]`` idle and ended thresholds the file set when, with the defaults
    for the one it did not set, ``ended_after`` is below ``idle_after`` (a session would turn
    ended before it could be idle), in one line of ``out.warnings`` (trial 11: it was taken
    silently). Without them the defaults apply, which are in order."""
    idle = out.fleet.get("idle_after", FLEET_DEFAULTS["idle_after"])
    ended = out.fleet.get("ended_after", FLEET_DEFAULTS["ended_after"])
    if ended >= idle:
        return
    set_here = [k for k in ("idle_after", "ended_after") if k in out.fleet]
    for k in set_here:
        del out.fleet[k]
    out.warnings.append(
        f"settings file {p}: [fleet] ended_after ({ended:g} s) is below idle_after ({idle:g} s), so no session would be idle;"
        f" {' and '.join(set_here)} left out"
    )
