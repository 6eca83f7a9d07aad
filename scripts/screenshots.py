"""Regenerate the SVG screenshots in ``screenshots/`` from the bundled demo session.

The demo is written whole to a temporary folder and shown with a frozen clock (two minutes
after its last record; ten for the stall), so the pictures are the same on every run. Never edit
the SVGs by hand: run ``python scripts/screenshots.py``.
"""

from __future__ import annotations

import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual._doc import take_svg_screenshot  # noqa: E402

from tracetui.demo.build import write_demo  # noqa: E402
from tracetui.tui.app import make_app  # noqa: E402
from tracetui.tui.screens.episode import EpisodeScreen  # noqa: E402
from tracetui.tui.settings import SessionSpec, Settings  # noqa: E402

OUT = ROOT / "screenshots"
NOW = datetime(2026, 3, 2, 9, 6, 0, tzinfo=UTC).timestamp()


async def _ready(pilot) -> None:
    for _ in range(500):
        view = pilot.app.current_view
        if view is not None and view.state is not None:
            break
        await pilot.pause(0.02)
    await pilot.pause()


def _keys(*keys: str, drill: bool = False):
    async def run(pilot) -> None:
        await _ready(pilot)
        await pilot.press(*keys)
        if drill:
            for _ in range(200):
                if isinstance(pilot.app.screen, EpisodeScreen) and pilot.app.screen.loaded:
                    break
                await pilot.pause(0.02)
        await pilot.pause()

    return run


SHOTS = [
    # name, terminal size, clock, run_before
    ("main", (120, 40), NOW, _ready),
    ("main-80x24", (80, 24), NOW, _ready),
    ("history", (120, 40), NOW, _keys("left_square_bracket", "left_square_bracket", "left_square_bracket")),
    ("drill-down", (120, 40), NOW, _keys(*["left_square_bracket"] * 4, "e", drill=True)),
    ("anomalies-stall", (120, 40), NOW + 600, _ready),
    ("help", (120, 40), NOW, _keys("f1")),
    ("light-theme", (120, 40), NOW, _ready),
]


def main() -> int:
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        main_path, _sub = write_demo(Path(d) / "projects" / "-home-dev-shop-api")
        for name, size, now, run_before in SHOTS:
            settings = Settings(
                sessions=[SessionSpec((main_path,), "demo")],
                follow=False,
                watch=False,
                use_cache=False,
                clock=lambda now=now: now,
                export_dir=Path(d) / "exports",
                tick_seconds=3600,
                theme="textual-light" if name == "light-theme" else None,
            )
            svg = take_svg_screenshot(make_app(settings), terminal_size=size, run_before=run_before, title=f"tracetui · {name}")
            (OUT / f"{name}.svg").write_text(svg, encoding="utf-8")
            print(OUT / f"{name}.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
