"""The Files pane: paths read, written and edited, most recently touched first."""

from __future__ import annotations

from rich.text import Text

from tracetui.tui.format import short_path
from tracetui.tui.widgets.pane import Folded, Pane, Shown, set_title

__all__ = ["FilesPane", "file_counts"]


def file_counts(reads: int, writes: int, edits: int) -> str:
    """``r1 w0 ed2``: reads, writes, edits of one file, letters first so they do not read as
    the Episodes pane's figures (``4 err``); the help screen explains them."""
    return f"r{reads} w{writes} ed{edits}"


class FilesPane(Pane):
    """Files touched (paths as the tool inputs gave them), with read/write/edit counts."""

    TITLE = "Files"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        #: the state :attr:`_files_key` is of: the key made once a state, not at every tick
        #: (thousands of files from thousands of subagents)
        self._key_of: object = None
        self._files_key: object = None

    def key(self, shown: Shown) -> object:
        if shown.state is not self._key_of:
            self._files_key = tuple((f.path, f.reads, f.writes, f.edits) for f in shown.state.files)
            self._key_of = shown.state
        return self._files_key

    @staticmethod
    def _files(shown: Shown) -> list:
        st = shown.state
        # most recently touched first: the main thread's by line, then the subagents' (lines of
        # different files do not order against each other)
        return sorted(st.files, key=lambda f: (f.last.src == st.main.src, f.last.line) if f.last else (False, 0), reverse=True)

    @staticmethod
    def _title(shown: Shown, files: list) -> str:
        return f"Files ({len(files)}){' (main thread)' if shown.history else ''}"

    def fold(self) -> Folded:
        """The pane's one-line summary in a column too short for it (tui/layout.py)."""
        if self.shown is None:
            return Folded(self.TITLE, 0)
        files = self._files(self.shown)
        first = short_path(files[0].path, self.shown.state.main.cwd, 60) if files else ""
        return Folded(self._title(self.shown, files), len(files), first)

    def build(self, shown: Shown) -> Text:
        st = shown.state
        files = self._files(shown)
        set_title(self, self._title(shown, files))
        if not files:
            return Text("no files touched", style="dim italic")
        rows = self.rows_available
        show = files if len(files) <= rows else files[: rows - 1]
        w = self.width_available
        out = Text(no_wrap=True, overflow="ellipsis")
        for i, f in enumerate(show):
            if i:
                out.append("\n")
            counts = file_counts(f.reads, f.writes, f.edits)
            name = short_path(f.path, st.main.cwd, max(8, w - len(counts) - 1))
            out.append(name)
            out.append(" " * max(1, w - len(name) - len(counts)))
            out.append(counts, style="bold yellow" if f.edits + f.writes else "dim")
        if len(show) < len(files):
            # on the first line when a one-row pane lists none above it
            out.append(("\n" if show else "") + f"+{len(files) - len(show)} more files", style="italic")
        return out
