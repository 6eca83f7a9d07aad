"""Many sessions: every tab loads, whatever their number, and the picker opens meanwhile.

Before the fix each tab's follow loop held a thread of Textual's default executor for good
(``min(32, cores + 4)`` threads: six on the project machine): past five tabs the others stayed
"reading …" for ever, and the session picker, whose listing needs a thread too, never filled.
Now one watcher and a few fold workers serve every tab (tracetui.session.follow).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import open_sessions, settings_for, small_session, wait_until

from tracetui.tui.app import make_app
from tracetui.tui.session_view import SessionView

pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")

#: more tabs than Textual's default executor has threads on any machine with up to 20 cores
N = 24


def _sessions(tmp_path: Path, n: int = N) -> list[Path]:
    out = []
    for i in range(n):
        p = tmp_path / "projects" / f"-home-dev-p{i % 3}" / f"5e55a0c1-0000-4000-8000-{i:012d}.jsonl"
        small_session(p)
        out.append(p)
    return out


@pytest.mark.parametrize("watch", [True, False])
async def test_every_tab_of_many_sessions_loads(tmp_path: Path, watch: bool) -> None:
    paths = _sessions(tmp_path)
    settings = settings_for(paths, tmp_path, follow=True, watch=watch)
    settings.all_hours = 24  # as with --all: the sessions watch runs too
    app = make_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: len(app.views) == N, 1500, 0.02)  # tabs past the first few follow the first screen
        views = list(app.query(SessionView))
        assert len(views) == N
        await wait_until(pilot, lambda: all(v.state is not None for v in views), 1500, 0.02)
        assert [v.spec.paths[0] for v in views if v.state is None] == []
        assert all(v.state.main.prompts == 2 for v in views)


async def test_the_picker_opens_while_many_sessions_load(tmp_path: Path) -> None:
    paths = _sessions(tmp_path)
    app = make_app(settings_for(paths, tmp_path, follow=True, watch=True))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_sessions(pilot, app)
        assert len(screen.sessions) == N
        await pilot.press("escape")
        await wait_until(pilot, lambda: len(app.views) == N, 1500, 0.02)
        views = list(app.query(SessionView))
        await wait_until(pilot, lambda: all(v.state is not None for v in views), 1500, 0.02)
        assert all(v.state is not None for v in views)


async def test_quitting_saves_every_opened_sessions_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.session import follow

    saved: list[str] = []
    real = follow.Followed.save

    def save(self) -> None:
        real(self)
        saved.append(self.key)

    monkeypatch.setattr(follow.Followed, "save", save)
    paths = _sessions(tmp_path, 8)
    settings = settings_for(paths, tmp_path, follow=True, watch=True)
    settings.use_cache = True
    app = make_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        views = list(app.query(SessionView))
        await wait_until(pilot, lambda: all(v.state is not None for v in views), 1500, 0.02)
        await pilot.press("q")
    assert sorted(saved) == sorted(str(p) for p in paths)
