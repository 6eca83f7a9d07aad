"""The deriver: episodes, facts and anomalies of one file, fed event by event by the fold.

:class:`Deriver` is the ``FileFold.derive`` hook. The fold calls ``on_event(fold, ev)`` after
every ledger event, ``on_call(fold, call, inp)`` for every new tool_use (with its decoded input),
and ``on_result(fold, call, content, rec)`` for every paired tool_result (its content, raw
or its whole text: decoded here only when a rule reads it).
The hot path stays cheap: per event a few dict operations; regular expressions run only on the
results of shell tools, and only on the first/last few KB of their text.

The deriver's state is made only of msgspec Structs, dicts, lists and scalars, so it encodes to
MessagePack for the fold cache (``msgspec.msgpack.encode(deriver)`` and
``decode(..., type=Deriver)``). :meth:`Deriver.snapshot` returns a frozen :class:`Derived`.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

from tracetui.ingest.content import result_tail, result_text
from tracetui.ingest.tools import EDIT_TOOLS, SUBAGENT_TOOLS, TODO_TOOLS, WRITE_TOOLS, file_ops
from tracetui.ingest.tools import one_line as _one_line
from tracetui.model.anomalies import AnomalyTracker
from tracetui.model.derive_rules import VOLATILE_KEYS, input_digest, normalised_input, retry_keys, statements
from tracetui.model.episodes import EpisodeBook
from tracetui.model.facts import (
    TAIL_BYTES,
    FactStore,
    extract_commits,
    extract_exit_code,
    extract_pr_urls,
    extract_test_runs,
)
from tracetui.model.state import Event
from tracetui.model.state import share as _share
from tracetui.model.types import Anchor, Derived, Fact, FileTouch, Note, ToolCall

__all__ = [
    "Derived",
    "Deriver",
    "Note",
    "SHELL_TOOLS",
    "NOTES_KEPT",
    "REJECTED_PREFIX",
    "STATED_KEPT",
    "VOLATILE_KEYS",
    "USAGE_KINDS",
    "retry_keys",
    "normalised_input",
]

#: tools whose results are scanned for test summaries, commits, PR links and exit codes (the
#: last two: the Codex CLI's shell command and its polls, model/codex_fold.py)
SHELL_TOOLS = frozenset({"Bash", "BashOutput", "TaskOutput", "PowerShell", "exec_command", "write_stdin"})
#: excluded hypotheses (ruled-out notes) kept per file; all are counted
NOTES_KEPT = 40
#: criteria/constraints stated by the user kept per file; all are counted
STATED_KEPT = 30
#: edits remembered per file for revert detection (an edit undoing one older than this is not seen)
EDITS_KEPT = 50
#: the text Claude Code gives a tool_result when the user rejects the tool use (transcript-format.md §6)
REJECTED_PREFIX = "The user doesn't want to proceed with this tool use"
#: the text of a tool_result the user interrupted
INTERRUPTED_PREFIX = "[Request interrupted by user"

#: events whose only derived effect is the episode book's (``EpisodeBook.on_event``)
_QUIET_KINDS = frozenset({"progress", "attachment", "user_text", "image", "unknown_block", "unknown_record", "compact_summary"})
#: events of an assistant message that carry its usage (the derive process reads it too)
USAGE_KINDS = frozenset({"assistant_text", "tool_use", "thinking"})


class Deriver(msgspec.Struct):
    """The derive hook of one :class:`~tracetui.model.fold.FileFold` (plain data: persistable).

    It holds no reference to the fold: the fold passes itself in on every call.
    """

    book: EpisodeBook = msgspec.field(default_factory=EpisodeBook)
    store: FactStore = msgspec.field(default_factory=FactStore)
    anomalies: AnomalyTracker = msgspec.field(default_factory=AnomalyTracker)
    ruled_out: list[Note] = msgspec.field(default_factory=list)
    ruled_out_total: int = 0
    stated: list[Note] = msgspec.field(default_factory=list)
    stated_total: int = 0
    commands: dict[str, str] = msgspec.field(default_factory=dict)  # pending shell call id -> command
    inputs: dict[str, Any] = msgspec.field(default_factory=dict)  # pending todo/task call id -> input
    edits: dict[str, list[str]] = msgspec.field(default_factory=dict)  # path -> ["old>new" digests]
    edit_anchor: dict[str, Anchor] = msgspec.field(default_factory=dict)  # "path|old>new" -> anchor
    todo_status: dict[str, str] = msgspec.field(default_factory=dict)
    task_subject: dict[str, str] = msgspec.field(default_factory=dict)
    ask_anchor: Union[Anchor, None] = None  # the prompt whose whole text is still to be read
    ops: dict[str, tuple[str, str]] = msgspec.field(default_factory=dict)  # pending write/edit call id -> (path, op)
    retry: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)  # pending call id -> retry_keys
    failed: dict[str, list[str]] = msgspec.field(default_factory=dict)  # retry key -> failed call ids not yet retried
    changed: dict[str, FileTouch] = msgspec.field(default_factory=dict)

    # -- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _main(fold: Any, sidechain: bool) -> bool:
        return not sidechain or bool(fold.sidechain_file)

    @staticmethod
    def _main_pending(fold: Any) -> list[ToolCall]:
        sf = bool(fold.sidechain_file)
        return [c for c in fold.pending.values() if sf or not c.sidechain]

    def _note(self, note: Note) -> None:
        self.ruled_out_total += 1
        self.ruled_out.append(note)
        if len(self.ruled_out) > NOTES_KEPT:
            del self.ruled_out[0]

    def _fill_ask(self, fold: Any) -> None:
        la = fold.latest_ask
        if la is None or la.anchor != self.ask_anchor:
            return
        self.ask_anchor = None
        self.book.fill_ask(la.text, la.anchor)
        for kind, s in statements(la.text):
            self.stated_total += 1
            if len(self.stated) < STATED_KEPT:
                self.stated.append(Note(kind, s, la.anchor, s, self.book.prompts))

    def _fact(self, key: str, value: Any, ev_anchor: Anchor, eid: str, n: int, quote: str) -> None:
        self.store.add(Fact(key, value, ev_anchor, eid, n, _one_line(quote, 160)))

    # -- hooks -------------------------------------------------------------------------------
    def on_event(self, fold: Any, ev: Event) -> None:
        """Called by the fold after every ledger event (the event is already in the ledger)."""
        if self.ask_anchor is not None:
            self._fill_ask(fold)
        k = ev.kind
        book = self.book
        if k == "prompt":
            pend = self._main_pending(fold)
            open_b = book.open
            if open_b is not None:
                mine = [c for c in pend if book.call_episode.get(c.id) == open_b.index]
                if mine and not open_b.interrupts:
                    self.anomalies.on_dangling(ev, mine, "prompt")
            self.anomalies.on_prompt(ev)
            book.on_prompt(ev, len(fold.events) - 1, pend)
            self.ask_anchor = ev.anchor
            return
        book.on_event(ev, len(fold.events) - 1)
        if k in _QUIET_KINDS:
            return  # the commonest events need nothing more
        if k == "tool_result":
            if not ev.sidechain or fold.sidechain_file:
                self.anomalies.on_result(ev)
        elif k in USAGE_KINDS:
            mid = ev.message_id
            if ev.usage is not None and mid:
                b = book.open
                # the model of a message is its first record's (UsageBook.model), so the
                # episode's copy is the book's once the message is known to the episode
                model = b.msg_model.get(mid) if b is not None else None
                if model is None:
                    model = fold.usage.model(mid)
                    if model is not None and b is not None:
                        b.msg_model[mid] = model  # EpisodeBook.on_model, known to be new here
                if not ev.sidechain or fold.sidechain_file:
                    self.anomalies.on_usage(ev, model)
        elif k == "metadata":
            if ev.name == "pr-link":
                url = ev.excerpt[len("pr-link: ") :] if ev.excerpt.startswith("pr-link: ") else ""
                if (not url or url.endswith("…")) and fold.pr_links:
                    url = fold.pr_links[-1]
                if url:
                    self._fact("pr.link", url, ev.anchor, ev.id, 0, url)
        elif k == "api_error":
            if not ev.sidechain or fold.sidechain_file:
                self.anomalies.on_api_error(ev, False)
        elif k == "system":
            if ev.name == "api_error" and (not ev.sidechain or fold.sidechain_file):
                self.anomalies.on_api_error(ev, True)
        elif k == "compaction":
            self.anomalies.on_compaction(ev)
        elif k == "interrupt":
            self.anomalies.on_dangling(ev, self._main_pending(fold), "interrupt")

    def on_call(self, fold: Any, call: ToolCall, inp: Any, op: Any = False) -> None:
        """Called by the fold for every new tool_use (deduplicated by id), with its input and
        ``op``, the file it touches (``tools.file_ops(name, inp)``; worked out here when not given)."""
        name = call.name
        if op is False:
            op = file_ops(name, inp)
        desc = None
        if name in SUBAGENT_TOOLS and isinstance(inp, dict):
            desc = str(inp.get("description") or _one_line(str(inp.get("prompt", "")), 60))
        self.book.on_call(call, op, desc)
        main = not call.sidechain or bool(fold.sidechain_file)
        keys = self.retry[call.id] = retry_keys(name, inp, op, main)
        if main:
            self.anomalies.on_call(call, keys[0][2:], op, desc is not None)
        if name in SHELL_TOOLS and isinstance(inp, dict):
            cmd = inp.get("command", inp.get("cmd"))  # a Codex exec_command names it ``cmd``
            self.commands[call.id] = str(cmd)[:500] if cmd is not None else call.brief
        elif name in TODO_TOOLS:
            self.inputs[call.id] = inp
        if op is None:
            return  # the rest is about files
        if op[1] != "read":
            self.ops[call.id] = op
        if op[1] == "edit" and name in EDIT_TOOLS and isinstance(inp, dict):
            old, new = inp.get("old_string"), inp.get("new_string")
            if isinstance(old, str) and isinstance(new, str):
                path = op[0]
                d_old, d_new = input_digest(old), input_digest(new)
                fwd, back = f"{d_old}>{d_new}", f"{d_new}>{d_old}"
                seen = self.edits.setdefault(path, [])
                if back in seen:
                    first = self.edit_anchor.get(f"{path}|{back}")
                    where = f" (edit at line {first.line} undone)" if first is not None else ""
                    self._note(Note("reverted", f"edit of {path} reverted{where}", call.anchor, "", self.book.prompts))
                seen.append(fwd)
                if len(seen) > EDITS_KEPT:
                    old_key = seen.pop(0)
                    if old_key not in seen:
                        self.edit_anchor.pop(f"{path}|{old_key}", None)
                self.edit_anchor[f"{path}|{fwd}"] = call.anchor
        elif op is not None and name in WRITE_TOOLS:
            for key in self.edits.pop(op[0], []):
                self.edit_anchor.pop(f"{op[0]}|{key}", None)

    def on_result(self, fold: Any, call: ToolCall, content: Any, rec: Any) -> None:
        """Called by the fold for every tool_result paired with a known call (``content``: the
        result's content, raw or its whole text, see ``ingest.content.result_text``; only failed
        calls and shell tools read it)."""
        anchor = call.result_anchor or call.anchor
        name = call.name
        tid = call.id
        cmd = self.commands.pop(tid, None) if self.commands else None
        inp = self.inputs.pop(tid, None) if self.inputs else None
        op = self.ops.pop(tid, None) if self.ops else None
        ep = self.book.prompts
        keys = self.retry.pop(tid, None)
        if keys is not None:
            if call.is_error:
                for k in keys:
                    self.failed.setdefault(k, []).append(tid)
            elif self.failed:
                for k in keys:
                    for t in self.failed.pop(k, ()):
                        self.book.resolve(t, anchor, len(fold.events) - 1)
        if not call.is_error and name not in SHELL_TOOLS and op is None and inp is None:
            return  # a call that worked and that no rule reads the result of (Read, Grep, ...)
        eid = f"{tid}:result"
        if op is not None and not call.is_error:
            # replaced, not mutated, so snapshots share these objects instead of copying them
            ft = self.changed.get(op[0]) or FileTouch(op[0], first=anchor)
            w, e = (ft.writes + 1, ft.edits) if op[1] == "write" else (ft.writes, ft.edits + 1)
            self.changed[op[0]] = FileTouch(op[0], ft.reads, w, e, ft.first, anchor)
        text = result_text(content) if call.is_error else ""
        if call.is_error:
            head = text.lstrip()[:200]
            if head.startswith(REJECTED_PREFIX):
                self._note(Note("rejected", f"user rejected {name}({call.brief})", anchor, "", ep))
            elif head.startswith(INTERRUPTED_PREFIX):
                self._note(Note("interrupted", f"user interrupted {name}({call.brief})", anchor, "", ep))
            else:
                self._note(Note("error", f"{name}({call.brief}) failed", anchor, _one_line(text, 140), ep))
        if name in SHELL_TOOLS:
            n = 0
            if call.is_error:
                code = extract_exit_code(text)
                if code is not None:
                    self._fact("cmd.exit_code", code, anchor, eid, n, f"Exit code {code}: {cmd or call.brief}")
                    n += 1
            c = cmd or call.brief
            # the whole text when a rule reads its start (a commit, a new pull request); else
            # only its end, the test summaries' place, is decoded (result_tail)
            whole = text if call.is_error else result_text(content) if "commit" in c or "pr create" in c else None
            tail = whole[-TAIL_BYTES:] if whole is not None else result_tail(content, TAIL_BYTES)
            for runner, counts, quote in extract_test_runs(tail):
                for field in sorted(counts):
                    self._fact(f"tests.{runner}.{field}", counts[field], anchor, eid, n, quote)
                    n += 1
            if "commit" in c and whole is not None:  # (``whole`` is the text whenever "commit" is in c)
                for h, subject, quote in extract_commits(whole):
                    self._fact("git.commit", f"{h} {subject}", anchor, eid, n, quote)
                    n += 1
            if "pr create" in c or "pull/" in tail[-300:]:
                if whole is None:
                    whole = result_text(content)
                for url in extract_pr_urls(whole):
                    self._fact("pr.link", url, anchor, eid, n, url)
                    n += 1
        elif not call.is_error and inp is not None:
            self._todo_facts(name, inp, rec, anchor, eid, ep)

    def _todo_facts(self, name: str, inp: Any, rec: Any, anchor: Anchor, eid: str, ep: int) -> None:
        if not isinstance(inp, dict):
            return
        if name == "TodoWrite" and isinstance(inp.get("todos"), list):
            new: dict[str, str] = {}
            for t in inp["todos"]:
                if isinstance(t, dict):
                    new[_one_line(str(t.get("content", "")), 100)] = str(t.get("status", "pending"))
            n = 0
            for content, status in new.items():
                old = self.todo_status.get(content)
                if old != status:
                    self._fact("todo.status", f"{content}: {old or 'new'} → {status}", anchor, eid, n, content)
                    n += 1
            for content, status in self.todo_status.items():
                if content not in new and status != "completed":
                    self._note(Note("dropped_todo", f"todo dropped while {status}: {content}", anchor, "", ep))
            self.todo_status = new
        elif name == "TaskCreate":
            from tracetui.ingest.content import decode_any

            res = decode_any(getattr(rec, "toolUseResult", None))
            task = res.get("task") if isinstance(res, dict) else None
            tid = str(task.get("id")) if isinstance(task, dict) and task.get("id") is not None else str(len(self.task_subject) + 1)
            subject = _one_line(str(inp.get("subject") or ""), 100)
            self.task_subject[tid] = subject
            self.todo_status[f"#{tid} {subject}"] = "pending"
            self._fact("todo.status", f"#{tid} {subject}: new → pending", anchor, eid, 0, subject)
        elif name == "TaskUpdate":
            tid = str(inp.get("taskId", ""))
            given = inp.get("status")
            if not isinstance(given, str):
                return
            status = given
            subject = self.task_subject.get(tid, f"task {tid}")
            key = f"#{tid} {subject}"
            old = self.todo_status.get(key)
            if status == "deleted":
                self.todo_status.pop(key, None)
                if old != "completed":
                    self._note(Note("dropped_todo", f"task #{tid} deleted while {old or 'unknown'}: {subject}", anchor, "", ep))
            elif old != status:
                self.todo_status[key] = status
            else:
                return
            self._fact("todo.status", f"{key}: {old or 'unknown'} → {status}", anchor, eid, 0, subject)

    # -- output ------------------------------------------------------------------------------
    def snapshot(self, fold: Any, episodes: bool = True) -> Derived:
        """The frozen derived state (open episode as ``in_progress``). Without ``episodes``
        (the fold's per-prompt history snapshots) ``episodes`` is left empty.

        Leaves are never mutated once handed out (facts, aggregates, anomalies and file touches
        are replaced when they change), so a container equal to the previous snapshot's
        (``fold._last_snapshot``) is that very object: the per-prompt history costs memory only
        for what changed."""
        if self.ask_anchor is not None:
            self._fill_ask(fold)
        last = getattr(fold, "_last_snapshot", None)
        prev: Derived | None = last.derived if last is not None else None
        if episodes:
            la = fold.latest_ask
            eps = self.book.snapshot(self._main_pending(fold), la.text if la else None, la.anchor if la else None)
        else:
            eps = ()
        store = self.store
        if prev is not None and prev.facts_total == store.added and prev.facts_evicted == store.evicted:
            facts, aggs, evicted = prev.facts, prev.aggregates, prev.facts_evicted
        else:
            facts, aggs, evicted = store.frozen()
        if prev is None:
            anomalies = self.anomalies.frozen()
            ruled_out, stated, changed = tuple(self.ruled_out), tuple(self.stated), tuple(self.changed.values())
        else:
            anomalies = self.anomalies.frozen(prev.anomalies)
            ruled_out = _share(prev.ruled_out, self.ruled_out)
            stated = _share(prev.stated, self.stated)
            changed = _share(prev.changed, self.changed.values())
        return Derived(
            episodes=eps,
            facts=facts,
            aggregates=aggs,
            facts_evicted=evicted,
            facts_total=store.added,
            anomalies=anomalies,
            ruled_out=ruled_out,
            ruled_out_total=self.ruled_out_total,
            stated=stated,
            stated_total=self.stated_total,
            changed=changed,  # leaves are replaced, never mutated
        )

    def on_known_message(self, key: str, before: tuple[int, int, int, int, int]) -> None:
        """The next record belongs to API message ``key``, which the session's usage book held
        already with usage ``before`` (a copied record set, a reused id), and it does not
        continue the previous record's message: the open episode counts only what it adds
        (:meth:`EpisodeBook.known_message`), so the episodes' tokens add up to the session's."""
        self.book.known_message(key, before)

    # -- the Codex fold's hooks (it talks to its deriver only through methods) ------------------
    def on_context_window(self, window: int) -> None:
        """The context window (tokens, ``> 0``) the agent declared for its model (Codex
        ``token_count.info.model_context_window``): what the ``context_pressure`` rule measures
        against from now on."""
        self.anomalies.window = window

    def on_model(self, key: str, model: str) -> None:
        """Message ``key`` (a usage entry of the fold's book) was priced as ``model``: the open
        episode's tokens by model take it, unless the episode knows that message already."""
        self.book.on_model(key, model)

    def on_codex_usage(self, ev: Event, model: str | None, context: int | None) -> None:
        """A Codex ``token_count`` event ``ev`` that added usage (``ev.usage`` set): a
        successful response, as a Claude assistant event with usage tells the anomaly trackers
        (an API error streak ends; the ``context_pressure`` rule reads ``context``, the tokens
        its request held, or ``None`` when the agent did not say)."""
        self.anomalies.on_usage(ev, model, context)

    def on_turn_done(self, done: bool) -> None:
        """Whether the open episode's turn ended (Codex ``task_complete``: ``True``; a new turn
        or prompt: ``False``). A done turn shows the status the next prompt will close it with,
        not ``in_progress`` (``EpisodeBook.turn_done``)."""
        self.book.turn_done = done
