"""Microsoft AutoGen AgentChat (``autogen-agentchat`` 0.4+) message logs and saved team state.

Accepted shapes (``.json``; ``.jsonl`` holds one such document per line, or one message per line):

* a bare list of AgentChat messages, ``[m.model_dump() for m in result.messages]``;
* a ``TaskResult`` dump, ``{"messages": [...], "stop_reason": ...}`` (or a list of them);
* ``team.save_state()``, ``{"type": "TeamState", "agent_states": {"<manager>/<id>":
  {"type": "RoundRobinManagerState", "message_thread": [...]}, "<agent>/<id>": {...}}}``: the
  group chat manager's ``message_thread`` is the run; a state without one falls back to the
  longest agent model context (``agent_state.llm_context.messages``, ``autogen_core.models``
  ``UserMessage``/``AssistantMessage``/``FunctionExecutionResultMessage``/``SystemMessage``);
* ``agent.save_state()`` of one ``AssistantAgent`` (``{"type": "AssistantAgentState",
  "llm_context": {"messages": [...]}}``).

Field names follow ``autogen_agentchat/messages.py``, ``state/_states.py`` and
``autogen_core`` (``FunctionCall``, ``FunctionExecutionResult``, ``CodeResult``) of
microsoft/autogen. Every message has ``type``, ``source`` (the agent name; ``user`` for the
user), ``models_usage`` (``{prompt_tokens, completion_tokens}`` or null) and ``metadata``.

The messages are rewritten in the OpenAI chat shape and read by
:func:`plugins.importers.chat.messages_to_steps`:

* a message from ``user`` -> ``user`` step; the other chat messages (``TextMessage``,
  ``MultiModalMessage`` with images as ``[image]``, ``StructuredMessage`` as JSON,
  ``HandoffMessage``, ``StopMessage``) -> ``message`` steps of agent ``source``;
* ``ToolCallRequestEvent`` -> one ``tool_call`` step per ``FunctionCall`` (``id``, ``name``,
  ``arguments``); ``ToolCallExecutionEvent`` -> one ``observation`` per
  ``FunctionExecutionResult``, linked by ``call_id`` and flagged by ``is_error``;
* a ``ToolCallSummaryMessage`` right after the execution event of the same agent repeats the
  results (``reflect_on_tool_use=False``) and is skipped;
* a ``TextMessage`` right after a ``CodeExecutionEvent`` of the same agent that repeats its output
  (the ``CodeExecutorAgent``'s reply, e.g. Magentic-One's ``ComputerTerminal``: "The script ran,
  then exited with an error (POSIX exit code: 1)", then the output) is skipped too: it is the
  observation again, not a decision of the executor;
* ``ThoughtEvent`` -> ``thought``; ``CodeGenerationEvent`` -> a ``code_execution`` tool call
  whose arguments are the code blocks; ``CodeExecutionEvent`` -> its ``observation`` (agent
  ``source``), an error when ``result.exit_code`` is not 0; ``MemoryQueryEvent`` -> a ``memory``
  observation;
* ``ModelClientStreamingChunkEvent``, ``SelectSpeakerEvent``, ``SelectorEvent`` and
  ``UserInputRequestedEvent`` are not steps (counted in ``metadata["dropped_events"]``);
* ``models_usage`` -> ``tokens_in``/``tokens_out`` of the message's first step; ``created_at``
  -> ``timestamp``.

``native_step_id`` is the message's place in the file: ``messages[3]``, ``[3]`` (bare list),
``agent_states.<manager>.message_thread[2].content[1]`` (the second call or result of an
event), ``line 4`` (JSONL). A message that cannot be read (not an object, no ``source``, an
event whose ``content`` is not a list) is reported under that locator and skipped; the rest
of the run loads.

The task is the first user text (a Magentic-One state's ``task`` when there is none); the
final answer is the last text message of an agent other than ``user``. AgentChat logs record
no verdict, so the outcome is ``unknown``; ``stop_reason`` (and a ``StopMessage``) is kept in
``outcome_raw``/``metadata`` and decides the outcome only when it is a plain success or
failure word.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer import guard
from analyzer.errors import DamagedRecord, ImportFailure
from analyzer.import_messages import imsg, itext, wrap
from analyzer.loading.jsonio import as_text, first_json_char, iter_jsonl, read_json_document
from analyzer.loading.structure import JsonShape
from analyzer.messages import Message
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory
from plugins.importers.chat import (
    BadMessages,
    error_in_output,
    first_user_text,
    is_agentchat_message_keys,
    messages_to_steps,
    normalise_outcome,
)

FRAMEWORK = "autogen-agentchat"

CHAT_MESSAGE_TYPES = frozenset({"TextMessage", "MultiModalMessage", "StopMessage", "HandoffMessage",
                                "ToolCallSummaryMessage", "StructuredMessage"})
"""``BaseChatMessage`` types (``StructuredMessage`` also appears as ``StructuredMessage[Model]``)."""

EVENT_TYPES = frozenset({"ToolCallRequestEvent", "ToolCallExecutionEvent", "ThoughtEvent", "MemoryQueryEvent",
                         "UserInputRequestedEvent", "ModelClientStreamingChunkEvent", "SelectSpeakerEvent",
                         "SelectorEvent", "CodeGenerationEvent", "CodeExecutionEvent"})
"""``BaseAgentEvent`` types."""

LLM_MESSAGE_TYPES = frozenset({"SystemMessage", "UserMessage", "AssistantMessage", "FunctionExecutionResultMessage"})
"""``autogen_core.models`` messages of an agent's model context (``llm_context.messages``)."""

AGENTCHAT_TYPES = CHAT_MESSAGE_TYPES | EVENT_TYPES

_DROPPED = frozenset({"ModelClientStreamingChunkEvent", "SelectSpeakerEvent", "SelectorEvent",
                      "UserInputRequestedEvent"})
_ANSWER_TYPES = frozenset({"TextMessage", "MultiModalMessage", "StructuredMessage", "ToolCallSummaryMessage"})
_STATE_TYPES = frozenset({"TeamState", "AssistantAgentState"})
_USER = "user"


def _type_of(msg: Mapping[str, Any]) -> str:
    raw = msg.get("type")
    if not isinstance(raw, str):
        return ""
    return "StructuredMessage" if raw.startswith("StructuredMessage") else raw


def _is_run_object(value: Any) -> bool:
    """A TaskResult-like object, a TeamState or an AssistantAgentState."""
    if not isinstance(value, Mapping):
        return False
    if isinstance(value.get("type"), str) and value["type"] in _STATE_TYPES:
        return True
    return isinstance(value.get("messages"), list) and "role" not in value


# ---------------------------------------------------------------------------------------------
# AgentChat messages -> chat messages


@dataclass
class _Origin:
    """Where the chat message ``i`` came from: the AgentChat message and the part of it."""

    native: int  # position of the AgentChat message in its list (or its JSONL line)
    locator: str  # its address in the record: ``messages[3]``
    part: str = ""  # ``calls`` (the k-th tool-call step is ``content[k]``) or a fixed ``content[r]``
    agent: str | None = None  # agent of its steps when not the chat importer's choice
    mtype: str = ""
    timestamp: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Converted:
    chat: list[dict[str, Any]] = field(default_factory=list)
    origins: list[_Origin] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    skipped_summaries: int = 0
    skipped_executor_replies: int = 0
    final_answer: str | None = None
    stop_texts: list[str] = field(default_factory=list)

    def add(self, msg: dict[str, Any], origin: _Origin) -> None:
        self.chat.append(msg)
        self.origins.append(origin)


def _text_of(content: Any) -> str:
    """Plain text of a message's content: strings kept, images as ``[image]``, objects as JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for p in content:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, Mapping) and set(p) <= {"data", "type"} and isinstance(p.get("data"), str):
                parts.append("[image]")  # autogen_core.Image dumps as {"data": <base64>}
            else:
                parts.append(as_text([p]))
        return "\n".join(parts)
    if isinstance(content, Mapping):
        return guard.dumps(content)
    return as_text(content)


def _usage(msg: Mapping[str, Any]) -> dict[str, Any]:
    usage = msg.get("models_usage")
    return {"usage": dict(usage)} if isinstance(usage, Mapping) else {}


def _created_at(msg: Mapping[str, Any]) -> str | None:
    ts = msg.get("created_at")
    return ts if isinstance(ts, str) and ts else None


def _repeats_output(reply: str, output: str) -> bool:
    """Whether an executor's reply only repeats the execution's output (or says it printed none)."""
    body, out = " ".join(reply.split()), " ".join(output.split())
    if out and out not in body:
        return False
    rest = body.replace(out, "", 1).strip() if out else body
    return not rest or rest.casefold().startswith("the script ran")


def _source(msg: Mapping[str, Any]) -> str | None:
    src = msg.get("source")
    return src if isinstance(src, str) and src.strip() else None


class _Reader:
    """Converts one list of AgentChat (or agent-context) messages, reporting bad ones to ``ctx``."""

    def __init__(self, ctx: ImportContext, prefix: str) -> None:
        self.ctx = ctx
        self.prefix = prefix  # record prefix of error locators (``[2] `` in a list of runs)
        self.out = _Converted()
        self.prev_type = ""
        self.prev_source: str | None = None
        self.code_call: dict[str, str] = {}  # source -> id of its pending CodeGenerationEvent call
        self.exec_output = ""  # output of the last CodeExecutionEvent

    def error(self, locator: str, reason: Message) -> None:
        self.ctx.error(f"{self.prefix}{locator}", reason)

    def items(self, content: Any, locator: str) -> list[tuple[int, Mapping[str, Any]]] | None:
        """The object items of an event's ``content`` list; None (reported) when it is not a list."""
        if not isinstance(content, list):
            self.error(locator, imsg("adp_content_not_list"))
            return None
        good: list[tuple[int, Mapping[str, Any]]] = []
        for k, item in enumerate(content):
            if isinstance(item, Mapping):
                good.append((k, item))
            else:
                self.error(f"{locator}.content[{k}]", imsg("adp_content_not_object", type=type(item).__name__))
        return good

    def message(self, native: int, locator: str, msg: Any) -> None:
        if not isinstance(msg, Mapping):
            self.error(locator, imsg("chat_message_not_object", index=native))
            return
        mtype = _type_of(msg)
        if mtype in LLM_MESSAGE_TYPES:
            self.llm_message(native, locator, msg, mtype)
            return
        src = _source(msg)
        if src is None:
            self.error(locator, imsg("chat_no_role", index=native))
            return
        if mtype in _DROPPED:
            self.out.dropped[mtype] += 1
            return
        origin = _Origin(native, locator, mtype=mtype or "?", timestamp=_created_at(msg))
        meta = msg.get("metadata")
        if isinstance(meta, Mapping) and meta:
            origin.meta["message_metadata"] = dict(meta)
        content = msg.get("content")
        if mtype == "ToolCallRequestEvent":
            self.tool_calls(msg, src, content, origin)
        elif mtype == "ToolCallExecutionEvent":
            self.tool_results(content, origin)
        elif mtype == "ToolCallSummaryMessage" and self.prev_type == "ToolCallExecutionEvent" \
                and self.prev_source == src:
            self.out.skipped_summaries += 1  # the joined results again: already observations
        elif mtype == "TextMessage" and self.prev_type == "CodeExecutionEvent" and self.prev_source == src \
                and _repeats_output(_text_of(content), self.exec_output):
            self.out.skipped_executor_replies += 1  # the execution's output again: already an observation
        elif mtype == "ThoughtEvent":
            self.out.add({"role": "assistant", "name": src, "reasoning": _text_of(content), **_usage(msg)}, origin)
        elif mtype == "CodeGenerationEvent":
            self.code_generation(msg, src, content, origin)
        elif mtype == "CodeExecutionEvent":
            self.code_execution(msg, src, origin)
        elif mtype == "MemoryQueryEvent":
            origin.agent = src
            self.out.add({"role": "tool", "name": "memory", "content": _text_of(content)}, origin)
        else:  # chat messages, and message types this importer does not know (custom ones)
            text = _text_of(content)
            if mtype == "HandoffMessage" and isinstance(msg.get("target"), str):
                origin.meta["handoff_target"] = msg["target"]
            if mtype == "StopMessage":
                self.out.stop_texts.append(text)
            role = "user" if src == _USER else "assistant"
            self.out.add({"role": role, "name": src, "content": text, **_usage(msg)}, origin)
            if src != _USER and mtype in _ANSWER_TYPES and text.strip():
                self.out.final_answer = text
        if mtype == "ToolCallSummaryMessage" and src != _USER and isinstance(content, str) and content.strip():
            self.out.final_answer = content  # a summary is the agent's reply, even when skipped as a step
        self.prev_type, self.prev_source = mtype, src

    def tool_calls(self, msg: Mapping[str, Any], src: str, content: Any, origin: _Origin) -> None:
        items = self.items(content, origin.locator)
        if not items:
            return
        calls = [{"id": c.get("id"), "type": "function",
                  "function": {"name": c.get("name"), "arguments": c.get("arguments")}} for _, c in items]
        origin.part = "calls"
        origin.meta["call_positions"] = [k for k, _ in items]
        self.out.add({"role": "assistant", "name": src, "content": None, "tool_calls": calls, **_usage(msg)}, origin)

    def tool_results(self, content: Any, origin: _Origin) -> None:
        for k, r in self.items(content, origin.locator) or []:
            flag = r.get("is_error")
            part = _Origin(origin.native, origin.locator, part=f"content[{k}]", mtype=origin.mtype,
                           timestamp=origin.timestamp, meta=dict(origin.meta))
            self.out.add({"role": "tool", "tool_call_id": r.get("call_id"), "name": r.get("name"),
                          "content": _text_of(r.get("content")),
                          "is_error": flag if isinstance(flag, bool) else None}, part)

    def code_generation(self, msg: Mapping[str, Any], src: str, content: Any, origin: _Origin) -> None:
        call_id = f"code:{origin.locator}"
        blocks = msg.get("code_blocks")
        args: Any = blocks if isinstance(blocks, list) else {"code": _text_of(content)}
        self.code_call[src] = call_id
        if isinstance(msg.get("retry_attempt"), int):
            origin.meta["retry_attempt"] = msg["retry_attempt"]
        origin.part = "code"
        self.out.add({"role": "assistant", "name": src, "content": _text_of(content),
                      "tool_calls": [{"id": call_id, "function": {"name": "code_execution", "arguments": args}}],
                      **_usage(msg)}, origin)

    def code_execution(self, msg: Mapping[str, Any], src: str, origin: _Origin) -> None:
        result = msg.get("result")
        flag: Any = None
        if isinstance(result, Mapping):  # CodeResult {exit_code, output} (0.5+)
            text = _text_of(result.get("output"))
            code = result.get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool):
                origin.meta["exit_code"] = code
                flag = False if code == 0 else (error_in_output(text) or f"exit code {code}")
            if isinstance(result.get("code_file"), str):
                origin.meta["code_file"] = result["code_file"]
        else:  # 0.4: result is the output text
            text = _text_of(result if result is not None else msg.get("content"))
        if isinstance(msg.get("retry_attempt"), int):
            origin.meta["retry_attempt"] = msg["retry_attempt"]
        origin.agent = src
        self.exec_output = text
        self.out.add({"role": "tool", "tool_call_id": self.code_call.pop(src, None), "name": "code_execution",
                      "content": text, "is_error": flag}, origin)

    def llm_message(self, native: int, locator: str, msg: Mapping[str, Any], mtype: str) -> None:
        """One ``autogen_core.models`` message of an agent's model context."""
        origin = _Origin(native, locator, mtype=mtype)
        content = msg.get("content")
        src = _source(msg)
        if mtype == "SystemMessage":
            self.out.add({"role": "system", "content": _text_of(content)}, origin)
        elif mtype == "FunctionExecutionResultMessage":
            self.tool_results(content, origin)
        elif src is None:
            self.error(locator, imsg("chat_no_role", index=native))
        elif mtype == "AssistantMessage" and isinstance(content, list):
            thought = msg.get("thought")
            if isinstance(thought, str) and thought.strip():
                self.out.add({"role": "assistant", "name": src, "reasoning": thought},
                             _Origin(native, locator, mtype=mtype))
            self.tool_calls(msg, src, content, origin)
        else:
            role = "user" if src == _USER else "assistant"
            text = _text_of(content)
            self.out.add({"role": role, "name": src, "content": text,
                          **({"reasoning": msg["thought"]} if isinstance(msg.get("thought"), str) else {})}, origin)
            if role == "assistant" and text.strip():
                self.out.final_answer = text
        self.prev_type, self.prev_source = mtype, src


def _label(steps: list[Step], origins: list[_Origin]) -> None:
    """Point each step at its AgentChat message (and the call or result in it)."""
    seen_calls: Counter[int] = Counter()
    for st in steps:
        j = st.native_index
        if j is None or not 0 <= j < len(origins):
            continue
        o = origins[j]
        st.native_index = o.native
        if o.part == "calls" and st.kind == StepKind.TOOL_CALL:
            positions = o.meta.get("call_positions") or []
            k = seen_calls[j]
            seen_calls[j] += 1
            pos = positions[k] if k < len(positions) else k
            st.native_step_id = f"{o.locator}.content[{pos}]"
        elif o.part.startswith("content["):
            st.native_step_id = f"{o.locator}.{o.part}"
        else:
            st.native_step_id = o.locator
        if o.agent is not None:
            st.agent = o.agent
        if o.timestamp and st.timestamp is None:
            st.timestamp = o.timestamp
        meta = {k: v for k, v in o.meta.items() if k != "call_positions"}
        st.metadata = {**st.metadata, "agentchat_type": o.mtype, **meta}
        if o.mtype == "CodeExecutionEvent" and st.is_error and not st.error_text:
            st.error_text = f"exit code {o.meta.get('exit_code')}"


# ---------------------------------------------------------------------------------------------
# runs


@dataclass
class _Thread:
    """One list of messages to read as a run."""

    entries: list[tuple[int, str, Any]]  # (native index, locator within the record, message)
    layout: str
    meta: dict[str, Any] = field(default_factory=dict)
    task: str = ""


def _list_thread(messages: list[Any], path: str, layout: str) -> _Thread:
    return _Thread([(i, f"{path}[{i}]", m) for i, m in enumerate(messages)], layout)


def _context_messages(state: Mapping[str, Any]) -> list[Any] | None:
    """``llm_context.messages`` of an agent state (directly or inside a ``ChatAgentContainerState``)."""
    for holder in (state, state.get("agent_state")):
        if isinstance(holder, Mapping):
            ctx = holder.get("llm_context")
            msgs = ctx.get("messages") if isinstance(ctx, Mapping) else None
            if isinstance(msgs, list):
                return msgs
    return None


def _team_threads(doc: Mapping[str, Any]) -> list[_Thread]:
    """The manager threads of a ``TeamState`` (else the longest agent model context)."""
    states = doc.get("agent_states")
    if not isinstance(states, Mapping):
        return []
    threads: list[_Thread] = []
    for key, st in states.items():
        if isinstance(st, Mapping) and isinstance(st.get("message_thread"), list) and st["message_thread"]:
            t = _list_thread(st["message_thread"], f"agent_states.{key}.message_thread", "TeamState")
            t.meta["manager"] = str(key)
            if isinstance(st.get("type"), str):
                t.meta["manager_state"] = st["type"]
            for k in ("current_turn", "n_rounds", "n_stalls", "facts", "plan", "previous_speaker",
                      "current_speaker"):
                if st.get(k) not in (None, ""):
                    t.meta[k] = st[k]
            if isinstance(st.get("task"), str):  # MagenticOneOrchestratorState
                t.task = st["task"]
            threads.append(t)
    if threads:
        return threads
    best: tuple[str, list[Any]] | None = None
    for key, st in states.items():
        msgs = _context_messages(st) if isinstance(st, Mapping) else None
        if msgs and (best is None or len(msgs) > len(best[1])):
            best = (str(key), msgs)
    if best is None:
        return []
    key, msgs = best
    holder = "agent_state.llm_context" if isinstance(states[key].get("agent_state"), Mapping) else "llm_context"
    t = _list_thread(msgs, f"agent_states.{key}.{holder}.messages", "TeamState agent context")
    t.meta["agent_context"] = key
    return [t]


def _threads(doc: Any) -> list[_Thread]:
    if isinstance(doc, list):
        return [_list_thread(doc, "", "message list")]
    if not isinstance(doc, Mapping):
        return []
    if doc.get("type") == "TeamState":
        return _team_threads(doc)
    if doc.get("type") == "AssistantAgentState":
        msgs = _context_messages(doc)
        return [_list_thread(msgs, "llm_context.messages", "agent context")] if msgs is not None else []
    if isinstance(doc.get("messages"), list):
        return [_list_thread(doc["messages"], "messages", "TaskResult")]
    return []


def _outcome(stop_reason: Any, stop_texts: list[str]) -> tuple[Outcome, str | None]:
    """Unknown unless the stop reason (or a StopMessage) is a plain success/failure word."""
    raw = stop_reason if isinstance(stop_reason, str) and stop_reason.strip() else None
    for value in ([raw] if raw else []) + stop_texts:
        outcome, _, _ = normalise_outcome(value.strip(), "status")
        if outcome != Outcome.UNKNOWN:
            return outcome, value
    return Outcome.UNKNOWN, raw


def thread_to_trajectory(thread: _Thread, record: str, doc: Any, ctx: ImportContext) -> Trajectory | None:
    """Convert one thread; bad messages are reported and skipped, an empty run is reported."""
    prefix = "" if record == "$" else f"{record} "
    reader = _Reader(ctx, prefix)
    for native, locator, msg in thread.entries:
        reader.message(native, locator, msg)
    conv = reader.out
    if not conv.chat:
        ctx.error(record, imsg("chat_messages_empty"))
        return None
    try:
        steps = messages_to_steps(conv.chat)
    except BadMessages as exc:  # not expected: the chat messages are built here
        ctx.error(record, wrap("chat_run_skipped", exc.message))
        return None
    _label(steps, conv.origins)
    meta: dict[str, Any] = {"layout": thread.layout, **thread.meta}
    stop_reason = doc.get("stop_reason") if isinstance(doc, Mapping) else None
    if stop_reason is not None:
        meta["stop_reason"] = stop_reason
    if conv.stop_texts:
        meta["stop_messages"] = conv.stop_texts
    if conv.dropped:
        meta["dropped_events"] = dict(conv.dropped)
    if conv.skipped_summaries:
        meta["repeated_summaries_skipped"] = conv.skipped_summaries
    if conv.skipped_executor_replies:
        meta["repeated_executor_replies_skipped"] = conv.skipped_executor_replies
    agents = sorted({s.agent for s in steps if s.role == Role.ASSISTANT and s.agent})
    if agents:
        meta["agents"] = agents
    outcome, raw = _outcome(stop_reason, conv.stop_texts)
    team_id = doc.get("team_id") if isinstance(doc, Mapping) else None
    return Trajectory(
        native_id=str(team_id) if isinstance(team_id, (str, int)) and not isinstance(team_id, bool) else None,
        record=record,
        task=first_user_text(steps) or thread.task,
        framework=FRAMEWORK,
        outcome=outcome,
        outcome_raw=raw,
        final_answer=conv.final_answer,
        metadata=meta,
        steps=steps,
    )


def doc_runs(doc: Any, record: str, ctx: ImportContext) -> Iterator[Trajectory]:
    """The runs of one document (a message list, TaskResult, TeamState or agent state)."""
    if isinstance(doc, list) and doc and all(isinstance(x, DamagedRecord) or _is_run_object(x) for x in doc) \
            and not all(isinstance(x, DamagedRecord) for x in doc):
        for i, obj in enumerate(doc):  # a list of TaskResults
            if ctx.cancel.cancelled:
                return
            where = f"[{i}]" if record == "$" else f"{record} [{i}]"
            if isinstance(obj, DamagedRecord):
                ctx.error(where, obj.message)
                continue
            yield from doc_runs(obj, where, ctx)
        return
    threads = _threads(doc)
    if not threads:
        ctx.error(record, imsg("chat_no_messages" if isinstance(doc, Mapping) else "chat_not_messages"))
        return
    for t in threads:
        if ctx.cancel.cancelled:
            return
        where = record if len(threads) == 1 else \
            f"{'' if record == '$' else record + ' '}agent_states.{t.meta.get('manager')}"
        run = ctx.guarded(where, thread_to_trajectory, t, where, doc, ctx)
        if run is not None:
            yield run


class AutogenAgentChatImporter:
    """Reads AutoGen AgentChat message lists, TaskResults and saved team/agent state."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims heads with a ``source`` and an AgentChat ``type`` (or a saved ``TeamState``)."""
        if first_json_char(head) not in ("{", "["):
            return False
        if b'"TeamState"' in head and b'"agent_states"' in head:
            return True
        return b'"source"' in head and any(f'"type": "{t}"'.encode() in head or f'"type":"{t}"'.encode() in head
                                           for t in AGENTCHAT_TYPES)

    def sniff_structure(self, shape: JsonShape, path: Path) -> bool:
        """Claims AgentChat message lists, TaskResult-like objects and saved team/agent state.

        A message is an object with ``source`` and ``type`` but no ``role`` (a bare list or a JSONL
        line is judged by its first item's ``type`` value); a run object has such a ``messages``
        list, or is a ``TeamState`` with ``agent_states`` or an ``AssistantAgentState``.
        """
        keys = shape.record_keys
        value_type = shape.value("type")
        if value_type == "TeamState":
            return shape.kind("agent_states") == "object"
        if value_type == "AssistantAgentState":
            return shape.kind("llm_context") == "object"
        if shape.container in ("list", "lines") and "role" not in keys and value_type is not None:
            if value_type in AGENTCHAT_TYPES or value_type.startswith("StructuredMessage["):
                return "source" in keys
            if value_type in LLM_MESSAGE_TYPES:  # a dumped model context
                return "content" in keys
        if shape.kind("messages") == "list":
            child = shape.child("messages")
            if child:
                return is_agentchat_message_keys(child)
            return "stop_reason" in keys  # an empty TaskResult: reported as empty, not left unclaimed
        return False

    def near_miss(self, shape: JsonShape, path: Path) -> tuple[float, str] | None:
        """Names what a ``TeamState`` without ``agent_states`` lacks."""
        if shape.value("type") == "TeamState" and shape.kind("agent_states") != "object":
            return 0.9, itext("near_no_key", label="AutoGen TeamState", key="agent_states")
        return None

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per run (per manager thread of a saved team)."""
        if path.suffix.lower() in (".jsonl", ".ndjson"):
            yield from self._read_lines(path, ctx)
            return
        doc = read_json_document(path, records=("",))
        if isinstance(doc, list) and any(isinstance(x, DamagedRecord) for x in doc) \
                and not all(isinstance(x, DamagedRecord) or _is_run_object(x) for x in doc):
            doc = read_json_document(path)  # a damaged message list is one run: its error is the file's
        if not isinstance(doc, (list, Mapping)):
            raise ImportFailure(imsg("chat_shape"))
        yield from doc_runs(doc, "$", ctx)

    def _read_lines(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """JSONL: lines that are runs give a run each; lines that are messages make one run."""
        entries: list[tuple[int, str, Any]] = []
        for lineno, obj in iter_jsonl(path, ctx):
            if isinstance(obj, list) or _is_run_object(obj):  # a whole run (or list of runs) per line
                yield from doc_runs(obj, f"line {lineno}", ctx)
            else:
                entries.append((lineno, f"line {lineno}", obj))
        if entries and not ctx.cancel.cancelled:
            run = ctx.guarded("$", thread_to_trajectory, _Thread(entries, "message lines"), "$", None, ctx)
            if run is not None:
                yield run
