"""FileFold's output: the frontier and the frozen :class:`AgentState` snapshot of one file (a
mixin of :class:`tracetui.model.fold.FileFold`, whose state the methods read)."""

from __future__ import annotations

from typing import Any

import msgspec

from tracetui.model.state import AgentState, Frontier
from tracetui.model.state import share as _share

__all__ = ["SnapshotMixin"]


class SnapshotMixin:
    """The output methods of :class:`~tracetui.model.fold.FileFold` (``self`` is the fold)."""

    #: the previous snapshot, whose unchanged tuples the next one reuses (set in FileFold.__init__)
    _last_snapshot: AgentState | None
    #: what the fold had folded (records, malformed parts) when :attr:`_last_snapshot` was
    #: taken as a whole snapshot (not a history one): the same then is the same snapshot
    _snap_at: tuple[int, int] | None = None

    # -- output -----------------------------------------------------------------------------
    def frontier(self: Any) -> Frontier | None:
        """The newest main-thread call in flight, else the last action."""
        for call in reversed(self.pending.values()):
            if not call.sidechain or self.sidechain_file:
                return Frontier("in_flight", f"{call.name}({call.brief})", call.anchor, call.name, call.id, call.timestamp)
        return self.last_action

    def snapshot(self: Any, history: bool = False) -> AgentState:
        """A frozen copy of this file's state: containers copied, leaves shared (the fold
        replaces a leaf instead of mutating it, so a snapshot never changes afterwards).

        A container that did not change since the previous snapshot is the same object
        (``old.files is new.files``, likewise the dicts ``tools_by_name`` and
        ``tokens_by_model``): views can skip work, and the per-prompt history costs memory only
        for what changed. With ``history`` (the snapshot kept in :attr:`history` as a prompt
        closes an episode) the derived state leaves out the episodes (``derived.episodes`` is
        empty): every version records where it was made, so the episodes as of that point are
        ``episodes_as_of(state.episodes, snapshot.ledger_len)`` (views/text.py), and a copy per
        prompt would cost time and memory quadratic in the prompts.

        A fold that folded nothing since its last whole snapshot gives that snapshot again (the
        same object): a session of thousands of files, most of them done, snapshots the few
        that moved. Only :meth:`feed_line` and :meth:`feed_record` change a fold, and each
        counts a record or a malformed part."""
        last = self._last_snapshot
        at = (self.counters.records, self.counters.malformed)
        if not history and last is not None and self._snap_at == at:
            return last
        if last is None:
            pending, files, todos, subagents = (
                tuple(self.pending.values()),
                tuple(self.files.values()),
                tuple(self.todos.values()),
                tuple(self.subagents.values()),
            )
            compactions, quarantine, unknown, pr_links = (
                tuple(self.compactions),
                tuple(self.quarantine),
                tuple(self.unknown),
                tuple(self.pr_links),
            )
        else:
            pending = _share(last.pending, self.pending.values())
            files = _share(last.files, self.files.values())
            todos = _share(last.todos, self.todos.values())
            subagents = _share(last.subagents, self.subagents.values())
            compactions = _share(last.compactions, self.compactions)
            quarantine = _share(last.quarantine, self.quarantine)
            unknown = _share(last.unknown, self.unknown)
            pr_links = _share(last.pr_links, self.pr_links)
        tools_by_name = self.tools_by_name
        tokens_by_model = self.usage.tokens_by_model()
        if last is not None and last.tools_by_name == tools_by_name:
            tools_by_name = last.tools_by_name
        else:
            tools_by_name = dict(tools_by_name)
        if last is not None and last.tokens_by_model == tokens_by_model:
            tokens_by_model = last.tokens_by_model
        usage_buckets = self.usage.usage_buckets()
        if last is not None and last.usage_buckets == usage_buckets:
            usage_buckets = last.usage_buckets
        snap = self._last_snapshot = AgentState(
            src=self.src,
            agent_id=self.agent_id,
            counters=msgspec.structs.replace(self.counters),
            tools_by_name=tools_by_name,
            tokens=self.usage.tokens(),
            tokens_by_model=tokens_by_model,
            models=tuple(sorted(self.models)),
            pending=pending,
            files=files,
            todos=todos,
            goal=self.goal,
            latest_ask=self.latest_ask,
            frontier=self.frontier(),
            subagents=subagents,
            compactions=compactions,
            quarantine=quarantine,
            unknown=unknown,
            prompts=self.prompts,
            ledger_len=len(self.events),
            session_id=self.session_id,
            cwd=self.cwd,
            version=self.version,
            git_branch=self.git_branch,
            title=self.title,
            first_timestamp=self.first_timestamp,
            last_timestamp=self.last_timestamp,
            newest_timestamp=self.newest_timestamp,
            last_anchor=self.last_anchor,
            sidechain_file=bool(self.sidechain_file),
            pr_links=pr_links,
            derived=self.derive.snapshot(self, episodes=not history) if self.derive is not None else None,
            usage_buckets=usage_buckets,
        )
        self._snap_at = None if history else at
        return snap
