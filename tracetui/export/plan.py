"""The folded state of a session as OpenTelemetry spans, following the GenAI semantic conventions.

:func:`plan_spans` turns a :class:`~tracetui.model.state.RunState` into :class:`SpanSpec` s:

* ``invoke_agent {agent}``: the session (key ``session``, the trace's root,
  ``gen_ai.conversation.id`` = the session id); one per subagent (``agent:<tool_use id>``) under
  the ``execute_tool`` span of the Task/Agent call that started it;
* ``episode {n}``: one per episode of the main thread (its current version: status, version,
  the prompt with ``content``), under the session span;
* ``chat {model}``: one per API message, under its episode (a subagent's: under its agent span),
  with its usage: ``gen_ai.usage.input_tokens`` = input + cache read + cache creation (the
  conventions' rule for Anthropic, whose ``input_tokens`` leaves the cache out), the parts as
  ``gen_ai.usage.cache_read.input_tokens`` / ``gen_ai.usage.cache_creation.input_tokens``;
* ``execute_tool {name}``: one per tool call (``gen_ai.tool.call.id`` = the tool_use id; error
  status on a tool error), beside the chat spans;
* anomalies: span events (``tracetui.anomaly``) on the episode or agent span they began in, or on
  the session span; an anomaly whose span was sent before it was seen gets a span of its own.

Every span carries ``tracetui.anchor`` (``file:line`` of its source record); start and end
times are the records' timestamps. A span is planned once it is complete, so that what is sent
seldom needs sending again: a call when its result is in, a message when another message or a
prompt follows it in its file, an episode when the next prompt closed it and none of its calls
is open (a late result would make a new version) or the episode after it is closed too, a
subagent when its call returned, the session never by itself. Once the session is *settled* (no
record for ``settle`` seconds before ``now``) everything still open is complete as it stands.
``sent`` holds the keys already exported; they are left out, except that a sent span that may
still change (an episode, the session, a call, message or subagent sent while open) is planned
again as a *revision* when its version is not the one it went at (tracetui/export/revise.py).
Pure: no clock (``now`` is an argument), no I/O but ``model_of``.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Collection

import msgspec

from tracetui.model.state import AgentState, Anchor, Event, RunState
from tracetui.model.types import Episode
from tracetui.views.safe import export_text, state_secrets

from .anomaly_events import anomalies_of, place_anomalies
from .revise import revision, tagged_keys
from .spans import AGENT_NAMES, PROVIDERS, AttrValue, SpanSpec, mask_spec, rev_key, ts_ns, usage_attributes

__all__ = ["Plan", "plan_spans", "DEFAULT_SETTLE", "usage_attributes"]  # usage_attributes: from spans

#: seconds without a record after which a session counts as over and its open spans are sent
#: as they stand: longer than the tests and builds a call usually waits for (the stall
#: anomaly's five minutes, model/anomaly_rules.py ``STALL_SECONDS``)
DEFAULT_SETTLE = 300.0

_MSG_KINDS = frozenset(("assistant_text", "thinking", "tool_use", "api_error"))
#: events after which no record of an earlier API message of the file comes
_CLOSING_KINDS = frozenset(("prompt", "interrupt", "compaction", "compact_summary"))


class Plan(msgspec.Struct):
    """What :func:`plan_spans` found: the complete spans not sent yet, and how many spans and
    anomalies are ``held`` (not complete yet: a later run sends them)."""

    spans: list[SpanSpec]
    held: int = 0


class _Msg:
    __slots__ = ("src", "mid", "first", "last", "anchor", "start", "end", "usage", "error", "excerpt", "closed")

    def __init__(self, src: int, mid: str, i: int, ev: Event, prev_ts: str | None) -> None:
        self.src, self.mid, self.first, self.last, self.anchor = src, mid, i, i, ev.anchor
        # the request went out after the record before the message (a tool result, the prompt)
        self.start = prev_ts or ev.timestamp
        self.end = ev.timestamp
        self.usage: tuple[int, ...] | None = None
        self.error = False
        self.excerpt = ""
        #: another message or a prompt followed it in its file: no record of it comes later
        #: (a tool result does not close it: the next parallel call of the message may follow)
        self.closed = False


class _Call:
    __slots__ = ("src", "i", "ev", "result")

    def __init__(self, src: int, i: int, ev: Event) -> None:
        self.src, self.i, self.ev = src, i, ev
        self.result: Event | None = None


def _max_usage(a: tuple[int, ...] | None, b: tuple[int, ...]) -> tuple[int, ...]:
    return b if a is None else tuple(max(x, y) for x, y in zip(a, b))


def plan_spans(
    state: RunState,
    *,
    session_id: str | None = None,
    content: bool = False,
    now: float | None = None,
    settle: float = DEFAULT_SETTLE,
    sent: Collection[str] = frozenset(),
    model_of: Callable[[int, Anchor], str | None] | None = None,
) -> Plan:
    """The spans of ``state`` that are complete and not in ``sent`` (see the module docstring).

    ``session_id`` defaults to the main transcript's; ``now`` is epoch seconds (``None``: the
    session is settled only when ``settle`` <= 0); ``content`` adds the prompt and tool text,
    secrets masked (:func:`tracetui.views.safe.export_text`); ``model_of(src, anchor)`` names the
    model of the API message at ``anchor`` when its file used several (``None``: unknown)."""
    return _Planner(state, session_id, content, now, settle, sent, model_of).run()


class _Planner:
    def __init__(self, state: RunState, sid: str | None, content: bool, now: float | None, settle: float, sent, model_of) -> None:
        self.state = state
        #: the session's secrets: a value found once is masked wherever it is sent
        self.seen = state_secrets(state)
        self.sid = sid or state.main.session_id or "unknown"
        self.agent = getattr(state, "agent", "claude") or "claude"
        self.provider = PROVIDERS.get(self.agent, self.agent)
        self.content = content
        self.sent = sent
        #: the sent keys recorded with the version they went at (tracetui/export/revise.py)
        self.tagged = tagged_keys(sent)
        #: events per source, and in all: the session's and a subagent's version tags
        self.n_events: dict[int, int] = {}
        self.model_of = model_of
        self.files = (state.main, *state.agents)
        lasts = [t for t in (ts_ns(s.last_timestamp) for s in self.files) if t is not None]
        firsts = [t for t in (ts_ns(s.first_timestamp) for s in self.files) if t is not None]
        self.last_ns = max(lasts, default=0)
        self.first_ns = min(firsts, default=self.last_ns)
        if settle <= 0:
            self.settled = True
        elif now is None:
            self.settled = False
        else:
            self.settled = not lasts or now * 1e9 - self.last_ns >= settle * 1e9
        self.out: list[SpanSpec] = []
        self.held = 0
        #: the sources of the subagents whose call returned: their last records are final
        self.agents_done: set[int] = set()
        self.base: dict[str, AttrValue] = {"gen_ai.provider.name": self.provider, "gen_ai.conversation.id": self.sid}
        eps = [e for e in state.episodes if e.lifecycle != "superseded"]
        self.episodes: list[Episode] = sorted(eps, key=lambda e: e.ledger_start)
        self._starts = [e.ledger_start for e in self.episodes]

    # -- helpers -----------------------------------------------------------------------------
    def _text(self, text: str) -> str:
        return export_text(text, seen=self.seen)

    def _anchor(self, a: Anchor | None) -> str:
        return self.state.fmt_anchor(a)

    def _ns(self, ts: str | None, fallback: int) -> int:
        v = ts_ns(ts)
        return fallback if v is None else v

    def _emit(self, spec: SpanSpec, complete: bool, tag: str | None = None, final: bool = False) -> None:
        """Plan ``spec`` if it is not sent and ``complete`` (or the session settled). ``tag``
        names the version of a span that may change after it went (``final``: it cannot any
        more): a sent span whose tag is not recorded goes again as a revision
        (tracetui/export/revise.py)."""
        key = spec.key
        if key in self.sent:
            if tag is None or key not in self.tagged or rev_key(tag, key) in self.sent:
                return
            if not (complete or self.settled):
                self.held += 1
                return
            spec = revision(spec, tag, self.tagged[key])
        elif not (complete or self.settled):
            self.held += 1
            return
        elif tag is not None and not final:
            spec.marks = (rev_key(tag, key),)
        spec.end_ns = max(spec.end_ns, spec.start_ns)
        self.out.append(spec)

    def _episode_of(self, i: int) -> Episode | None:
        k = bisect.bisect_right(self._starts, i) - 1
        if k >= 0 and i < self.episodes[k].ledger_end:
            return self.episodes[k]
        return None

    def _parent_in(self, st: AgentState, i: int, agent_keys: dict[int, str]) -> str:
        if st.src != self.state.main.src:
            return agent_keys.get(st.src, "session")
        ep = self._episode_of(i)
        return f"episode:{ep.index}" if ep is not None else "session"

    # -- the plan ----------------------------------------------------------------------------
    def run(self) -> Plan:
        state = self.state
        msgs: dict[str, _Msg] = {}
        calls: dict[str, _Call] = {}
        anomalies = anomalies_of(self)
        want = {(a.began.src, a.began.line) for _, a in anomalies if a.began is not None}
        seen_ts: dict[tuple[int, int], str] = {}
        for st in self.files:
            events = state.events(st.src)
            self.n_events[st.src] = len(events)
            prev_ts: str | None = None
            #: the file's messages not yet followed by another message or a prompt
            open_msgs: list[_Msg] = []
            for i, ev in enumerate(events):
                k = ev.kind
                mid = ev.message_id
                # a Codex response is its token_count (a metadata event with usage)
                if mid is not None and (k in _MSG_KINDS or k == "metadata" and ev.usage is not None):
                    m = msgs.get(mid)
                    if m is None:
                        m = msgs[mid] = _Msg(st.src, mid, i, ev, prev_ts)
                    if m.src == st.src:  # a message copied into another file counts once
                        if open_msgs and open_msgs[-1] is not m:
                            for o in open_msgs:
                                o.closed = True
                            open_msgs.clear()
                        if not open_msgs:
                            open_msgs.append(m)
                        m.last = i
                        m.end = ev.timestamp or m.end
                        if ev.usage is not None:
                            m.usage = _max_usage(m.usage, ev.usage)
                        if k == "api_error":
                            m.error, m.excerpt = True, ev.excerpt
                elif k in _CLOSING_KINDS:
                    for o in open_msgs:
                        o.closed = True
                    open_msgs.clear()
                if k == "tool_use" and ev.tool_use_id and ev.tool_use_id not in calls:
                    calls[ev.tool_use_id] = _Call(st.src, i, ev)
                elif k == "tool_result" and ev.tool_use_id:
                    c = calls.get(ev.tool_use_id)
                    if c is not None and c.result is None:
                        c.result = ev
                if ev.timestamp:
                    prev_ts = ev.timestamp
                    if (ev.anchor.src, ev.anchor.line) in want:
                        seen_ts.setdefault((ev.anchor.src, ev.anchor.line), ev.timestamp)
        agent_keys = self._agents(calls)
        self._session()
        self._episodes()
        by_src = {st.src: st for st in self.files}
        for m in msgs.values():
            self._chat(m, by_src[m.src], agent_keys)
        for tid, c in calls.items():
            self._tool(tid, c, by_src[c.src], agent_keys)
        place_anomalies(self, anomalies, agent_keys, seen_ts)
        for spec in self.out:  # no secret leaves, whatever field of the transcript held it
            mask_spec(spec, self.seen)
        return Plan(self.out, self.held)

    def _session(self) -> None:
        st, state = self.state.main, self.state
        name = AGENT_NAMES.get(self.agent, self.agent)
        attrs = {**self.base, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
        if st.models:
            attrs["gen_ai.request.model"] = st.models[0]
        t = state.tokens
        attrs.update(usage_attributes((t.input, t.output, t.cache_creation, t.cache_read), self.provider))
        attrs["tracetui.anchor"] = f"{state.source_name(st.src)}:1"
        attrs["tracetui.tool_calls"] = state.counters.tool_calls
        attrs["tracetui.tool_errors"] = state.counters.tool_errors
        attrs["tracetui.api_messages"] = state.counters.api_messages
        if state.cost_usd is not None:
            attrs["tracetui.cost_usd"] = round(state.cost_usd, 6)
        if st.version:
            attrs["tracetui.claude_code.version"] = st.version
        spec = SpanSpec("session", None, f"invoke_agent {name}", "internal", self.first_ns, self.last_ns, attrs)
        # never complete by itself (a session may resume any time): it goes when settled, and
        # again as a revision when it settled again with more records
        self._emit(spec, False, f"n{sum(self.n_events.values())}")

    def _agents(self, calls: dict[str, _Call]) -> dict[int, str]:
        """The span key of every subagent file (by source), its span planned."""
        links = {ln.source: ln for st in self.files for ln in st.subagents if ln.source is not None}
        keys: dict[int, str] = {}
        for st in self.state.agents:
            ln = links.get(st.src)
            key = f"agent:{ln.tool_use_id}" if ln is not None else f"agent:{st.agent_id or st.src}"
            keys[st.src] = key
            parent = f"tool:{ln.tool_use_id}" if ln is not None and ln.tool_use_id in calls else "session"
            name = (ln.subagent_type if ln is not None else None) or "subagent"
            attrs = {**self.base, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
            if st.agent_id:
                attrs["gen_ai.agent.id"] = st.agent_id
            if self.content and ln is not None and ln.description:
                attrs["gen_ai.agent.description"] = self._text(ln.description)
            if st.models:
                attrs["gen_ai.request.model"] = st.models[0]
            t = st.tokens
            attrs.update(usage_attributes((t.input, t.output, t.cache_creation, t.cache_read), self.provider))
            attrs["tracetui.anchor"] = f"{self.state.source_name(st.src)}:1"
            if ln is not None:
                attrs["tracetui.subagent.status"] = ln.status
            start = self._ns(st.first_timestamp, self.first_ns)
            spec = SpanSpec(key, parent, f"invoke_agent {name}", "internal", start, self._ns(st.last_timestamp, start), attrs)
            if ln is not None and ln.status == "error":
                spec.status = "error"
            done = ln is not None and ln.status in ("completed", "error")
            if done:
                self.agents_done.add(st.src)
            self._emit(spec, done, f"{ln.status if ln is not None else 'unlinked'}.{self.n_events.get(st.src, 0)}", done)
        return keys

    def _episodes(self) -> None:
        n = len(self.episodes)
        for k, ep in enumerate(self.episodes):
            attrs: dict[str, AttrValue] = {
                "gen_ai.conversation.id": self.sid,
                "tracetui.episode.index": ep.index,
                "tracetui.episode.version": ep.version,
                "tracetui.episode.status": ep.status,
                "tracetui.episode.lifecycle": ep.lifecycle,
                "tracetui.episode.tool_calls": ep.tool_calls,
                "tracetui.episode.tool_errors": ep.tool_errors,
                "tracetui.episode.api_errors": ep.api_errors,
                "tracetui.anchor": self._anchor(ep.ask_anchor or ep.first),
            }
            t = ep.tokens
            attrs.update(usage_attributes((t.input, t.output, t.cache_creation, t.cache_read), self.provider))
            if ep.reason:
                attrs["tracetui.episode.reason"] = ep.reason
            if self.content and ep.ask:
                msg = [{"role": "user", "parts": [{"type": "text", "content": self._text(ep.ask)}]}]
                attrs["gen_ai.input.messages"] = json.dumps(msg, ensure_ascii=False)
            if self.content and ep.conclusion:
                out = [{"role": "assistant", "parts": [{"type": "text", "content": self._text(ep.conclusion)}]}]
                attrs["gen_ai.output.messages"] = json.dumps(out, ensure_ascii=False)
            start = self._ns(ep.start, self.first_ns)
            spec = SpanSpec(f"episode:{ep.index}", "session", f"episode {ep.index}", "internal", start, self._ns(ep.end, start), attrs)
            if ep.status == "unresolved":
                spec.status, spec.status_message = "error", "the episode ended on an error or without an answer"
            # closed by the next prompt, and no call of it still open: a late result would make
            # a new version (it comes during the next episode, if at all: once that one is
            # closed too, the episode goes as it stands). What changes later goes as a revision
            closed = ep.status != "in_progress" and (not ep.dangling or k + 2 < n)
            # an episode sent open (the session settled) is revised as more of its records come:
            # its version changes only once it is closed (sixth user trial)
            self._emit(spec, closed, f"v{ep.version}" if ep.status != "in_progress" else f"v{ep.version}+{ep.ledger_end}")

    def _chat(self, m: _Msg, st: AgentState, agent_keys: dict[int, str]) -> None:
        model = st.models[0] if len(st.models) == 1 else None
        if model is None and self.model_of is not None:
            model = self.model_of(m.src, m.anchor)
        model = model or (st.models[0] if st.models else "unknown")
        attrs: dict[str, AttrValue] = {
            **self.base,
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": model,
            "gen_ai.response.model": model,
            "gen_ai.response.id": m.mid,
            "tracetui.anchor": self._anchor(m.anchor),
        }
        if m.usage is not None:
            attrs.update(usage_attributes(m.usage, self.provider))
        start = self._ns(m.start, self.first_ns)
        spec = SpanSpec(
            f"chat:{m.mid}", self._parent_in(st, m.first, agent_keys), f"chat {model}", "client", start, self._ns(m.end, start), attrs
        )
        if m.error:
            spec.status, spec.status_message = "error", self._text(m.excerpt)
            attrs["error.type"] = "api_error"
        if st.src == self.state.main.src:
            ep = self._episode_of(m.first)
            over = ep is not None and ep.status != "in_progress"
        else:
            over = st.src in self.agents_done
        # one sent while open (the session settled) is revised if more of its records come
        self._emit(spec, m.closed or over, f"r{m.last}", m.closed or over)

    def _tool(self, tid: str, c: _Call, st: AgentState, agent_keys: dict[int, str]) -> None:
        ev, res = c.ev, c.result
        name = ev.name or "?"
        attrs: dict[str, AttrValue] = {
            **self.base,
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": tid,
            "gen_ai.tool.type": "function",
            "tracetui.anchor": self._anchor(ev.anchor),
        }
        start = self._ns(ev.timestamp, self.first_ns)
        end = self._ns(res.timestamp, start) if res is not None else self.last_ns
        spec = SpanSpec(f"tool:{tid}", self._parent_in(st, c.i, agent_keys), f"execute_tool {name}", "internal", start, end, attrs)
        if self.content:
            brief = ev.excerpt[len(name) + 1 : -1] if ev.excerpt.startswith(name + "(") and ev.excerpt.endswith(")") else ev.excerpt
            attrs["gen_ai.tool.call.arguments"] = self._text(brief)
        if res is None:
            attrs["tracetui.tool.pending"] = True
        else:
            attrs["tracetui.result_anchor"] = self._anchor(res.anchor)
            if self.content:
                attrs["gen_ai.tool.call.result"] = self._text(res.excerpt)
            if res.is_error:
                spec.status = "error"
                spec.status_message = self._text(res.excerpt) if self.content else "tool error"
                attrs["error.type"] = "tool_error"
        self._emit(spec, res is not None, "pending" if res is None else "done", res is not None)
