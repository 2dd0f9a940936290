"""OpenAI chat-completions and Anthropic messages lists.

Accepted shapes:

* ``.json``: a bare list of messages (one run), an object with ``messages`` plus optional run
  metadata (``model``, ``task``, ``system``, ``outcome``/``success``/``reward``/``exit_status``,
  ``metadata`` ...), or a list of such objects (one run each).
* ``.jsonl``: one run per line (an object with ``messages``, or a bare list of messages).

Step mapping (0-based, in message order):

* ``system``/``developer`` message -> ``system`` step; ``user`` text -> ``user`` step.
* assistant ``reasoning_content``/``reasoning`` and Anthropic ``thinking`` blocks -> a
  ``thought`` step before the message.
* assistant text without tool calls -> ``message`` step.
* each tool call (OpenAI ``tool_calls``/``function_call``, Anthropic ``tool_use`` block) ->
  one ``tool_call`` step with ``tool_name``/``tool_args``/``tool_call_id``; text that
  accompanies the calls is the text of the first call's step.
* ``tool``/``function`` messages and Anthropic ``tool_result`` blocks -> ``observation``
  steps (role ``tool``) with ``is_error`` from the explicit flag or error-looking content.
* a user message that answers an assistant message and gives the environment's result under an
  ``Observation:``/``Current Observation:`` line (agent loops without a tool role, which re-send
  the prompt each turn: ReAct harnesses, OpenManus-RL/AgentDebug, ALFWorld/WebShop-style
  environments) -> one ``observation`` step (role ``tool``, agent ``environment``) whose text is
  the result without the re-sent prompt (:func:`user_observation`); other user messages stay
  ``user`` steps. One message is still one step, so message indices keep their meaning.

mini-swe-agent ``.traj.json`` files and Who&When/tau-bench files are left to their importers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer.errors import DamagedRecord, ImportFailure
from analyzer.import_messages import MessageValueError, imsg, wrap
from analyzer.loading.jsonio import (
    args_text,
    as_text,
    finite_float,
    first_json_char,
    iter_jsonl,
    label_native_steps,
    read_json_document,
)
from analyzer.loading.structure import JsonShape
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory

# ---------------------------------------------------------------------------------------------
# error-looking tool output

_ERROR_PATTERNS: tuple[tuple[re.Pattern[str], str | None], ...] = (
    (re.compile(r"Traceback \(most recent call last\)"), None),
    (re.compile(r"^\s*(?:error|fatal|exception)\b\s*[:!\-]", re.IGNORECASE | re.MULTILINE), None),
    (re.compile(r"^\s*(?:result|output|observation)\s*:\s*(?:error|exception)(?:\s*[:!\-]|\s+(?:executing|while|when"
                r"|during|calling|running|fetching|occurred)\b)", re.IGNORECASE | re.MULTILINE), None),
    (re.compile(r"\b(?:exit(?:ed)?(?: with)? (?:code|status)|return ?code|returncode)\s*[:=]?\s*([1-9]\d*)\b",
                re.IGNORECASE), None),
    (re.compile(r"^\s*(?:E\s+)?[A-Za-z_][\w.]*(?:Error|Exception): ", re.MULTILINE), None),
    (re.compile(r"^=* ?(?:\d+ failed|FAILED\b)", re.MULTILINE), "tests failed"),
    (re.compile(r"\bcommand not found\b|\bNo such file or directory\b|\bPermission denied\b"), None),
    (re.compile(r"\b429\b.*\bToo Many Requests\b|(?<![\w-])rate[ _-]?limit(?:ed)?(?![\w-])", re.IGNORECASE), "rate limited"),
    (re.compile(r"\btimed out\b|\btimeout\b.*\bexceeded\b|\bTimeoutError\b", re.IGNORECASE), "timed out"),
    (re.compile(r"\b(?:50[0234]) (?:Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out)\b",
                re.IGNORECASE), "server error"),
)
_EXC_LINE = re.compile(r"^\s*(?:E\s+)?([A-Za-z_][\w.]*(?:Error|Exception): .*)$", re.MULTILINE)
_ERROR_SCAN_CHARS = 4000


def _line_at(text: str, pos: int) -> str:
    """The stripped line of ``text`` that holds position ``pos``."""
    end = text.find("\n", pos)
    return text[text.rfind("\n", 0, pos) + 1:end if end >= 0 else len(text)].strip()


def error_in_output(text: str) -> str | None:
    """Short error description when a tool output looks like an error, else None.

    Looks at the head and tail of the text only (long outputs quote error words freely in
    the middle), for tracebacks, ``Error:`` lines, non-zero exit codes, missing files or
    commands, rate limits, timeouts and 5xx responses.
    """
    if not text:
        return None
    sample = text if len(text) <= 2 * _ERROR_SCAN_CHARS else text[:_ERROR_SCAN_CHARS] + "\n" + text[-_ERROR_SCAN_CHARS:]
    for pattern, label in _ERROR_PATTERNS:
        m = pattern.search(sample)
        if m:
            exc = list(_EXC_LINE.finditer(sample))
            if exc:
                return exc[-1].group(1).strip()[:300]
            if label:
                return label
            return _line_at(sample, m.start())[:300] or m.group(0)
    return None


# ---------------------------------------------------------------------------------------------
# outcome normalisation

_SUCCESS_WORDS = frozenset({"true", "yes", "pass", "passed", "success", "succeeded", "successful", "resolved",
                            "correct", "c", "solved", "completed_success", "ok"})
_FAILURE_WORDS = frozenset({"false", "no", "fail", "failed", "failure", "unresolved", "incorrect", "i", "wrong",
                            "error", "errored", "timeout", "timed_out", "exit_cost", "exit_context", "exit_format",
                            "exit_error", "exit_api", "exit_forfeit", "exit_command_timeout", "limits_exceeded",
                            "max_steps", "max_turns", "autosubmission (exit_cost)", "crashed", "aborted"})
_OUTCOME_KEYS = ("outcome", "success", "resolved", "is_correct", "correct", "passed", "reward", "score",
                 "exit_status", "status")


def normalise_outcome(value: Any, key: str = "outcome") -> tuple[Outcome, str | None, float | None]:
    """Normalise one success value to ``(outcome, raw text, numeric score)``.

    Booleans map directly; numbers are success when ``>= 1`` (a full reward), else failure;
    strings are matched against success/failure words and exit statuses (``submitted`` alone
    is unknown: a submission may still be wrong); numeric strings are treated as numbers.
    """
    if value is None:
        return Outcome.UNKNOWN, None, None
    raw = str(value)
    if isinstance(value, bool):
        return (Outcome.SUCCESS if value else Outcome.FAILURE), raw, float(value)
    if isinstance(value, (int, float)):
        return (Outcome.SUCCESS if value >= 1 else Outcome.FAILURE), raw, finite_float(value)
    if isinstance(value, str):
        low = value.strip().lower()
        try:
            num = float(low)
        except ValueError:
            num = None
        if num is not None and key not in ("exit_status", "status"):
            return (Outcome.SUCCESS if num >= 1 else Outcome.FAILURE), raw, num
        if low in _SUCCESS_WORDS:
            return Outcome.SUCCESS, raw, None
        if low in _FAILURE_WORDS or low.startswith("exit_"):
            return Outcome.FAILURE, raw, None
        return Outcome.UNKNOWN, raw, None
    if isinstance(value, Mapping):
        for k in _OUTCOME_KEYS:
            if k in value:
                out, _, score = normalise_outcome(value[k], k)
                if out != Outcome.UNKNOWN:
                    return out, as_text(value), score
    return Outcome.UNKNOWN, as_text(value), None


def outcome_of(obj: Mapping[str, Any]) -> tuple[Outcome, str | None, float | None]:
    """Outcome of a run object from the first success-like key that decides it."""
    first_raw: tuple[Outcome, str | None, float | None] | None = None
    for key in _OUTCOME_KEYS:
        if key in obj and obj[key] is not None:
            res = normalise_outcome(obj[key], key)
            if res[0] != Outcome.UNKNOWN:
                return res
            first_raw = first_raw or res
    return first_raw or (Outcome.UNKNOWN, None, None)


# ---------------------------------------------------------------------------------------------
# messages -> steps


class BadMessages(MessageValueError):
    """The messages list has a shape that cannot be read (the reason in ``message``)."""


@dataclass
class _Builder:
    steps: list[Step] = field(default_factory=list)
    call_names: dict[str, str] = field(default_factory=dict)
    prompt_lines: frozenset[str] | None = None  # lines of the run's first user message (the prompt)

    def add(self, **kw: Any) -> Step:
        step = Step(index=len(self.steps), **kw)
        self.steps.append(step)
        return step


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(msg: Mapping[str, Any]) -> tuple[int | None, int | None]:
    usage = msg.get("usage")
    if not isinstance(usage, Mapping):
        return None, None
    tin = _int(usage.get("prompt_tokens", usage.get("input_tokens")))
    tout = _int(usage.get("completion_tokens", usage.get("output_tokens")))
    return tin, tout


def _opt_str(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else as_text(value)


def _role_of(raw: Any) -> str:
    role = str(raw or "").strip().lower()
    return {"developer": "system", "human": "user", "model": "assistant", "ai": "assistant", "bot": "assistant",
            "function": "tool", "ipython": "tool", "observation": "tool"}.get(role, role)


def _agent_of(msg: Mapping[str, Any]) -> str:
    """Agent name of a message whose role is not a standard one: its name, role or source, else ``assistant``.

    Never the text ``None``: a message with ``type`` but no ``role`` (an AutoGen AgentChat
    ``TextMessage`` read here by "Open with...") still gets a real name.
    """
    for key in ("name", "role", "source"):
        val = msg.get(key)
        if val is not None and str(val).strip():
            return str(val)
    return "assistant"


def _observation(b: _Builder, text: str, *, agent: str, call_id: str | None, tool_name: str | None,
                 flag: Any, native: int, meta: dict[str, Any], timestamp: str | None = None) -> None:
    if isinstance(flag, bool):
        is_err = flag
        err = error_in_output(text) or ("tool reported an error" if flag else None)
    elif isinstance(flag, str) and flag:
        is_err, err = True, flag[:300]
    elif isinstance(flag, Mapping) and flag:  # Inspect-style {"type": ..., "message": ...}
        is_err, err = True, as_text(flag.get("message") or flag)[:300]
    else:
        err = error_in_output(text)
        is_err = err is not None
    b.add(agent=agent, role=Role.TOOL, kind=StepKind.OBSERVATION, text=text, tool_name=tool_name,
          tool_call_id=call_id, is_error=is_err, error_text=err if is_err else None, native_index=native,
          metadata=meta, timestamp=timestamp)


def _tool_call_fields(call: Any, native: int) -> tuple[str | None, str | None, str | None]:
    """(name, args_json, id) of an OpenAI tool call (``function`` as object or, Inspect-style, a name)."""
    if not isinstance(call, Mapping):
        raise BadMessages(imsg("chat_call_not_object", index=native))
    fn = call.get("function")
    if isinstance(fn, Mapping):
        name, args = fn.get("name"), fn.get("arguments")
    else:
        name, args = fn if isinstance(fn, str) else call.get("name"), call.get("arguments", call.get("input"))
    cid = call.get("id")
    return (str(name) if name is not None else None), args_text(args), (str(cid) if cid is not None else None)


def _assistant(b: _Builder, msg: Mapping[str, Any], native: int) -> None:
    agent = str(msg.get("name") or "assistant")
    tin, tout = _usage(msg)
    ts = _opt_str(msg.get("timestamp"))
    first_of_msg = len(b.steps)

    def add(**kw: Any) -> None:
        b.add(agent=agent, role=Role.ASSISTANT, native_index=native, timestamp=ts, **kw)

    for key in ("reasoning_content", "reasoning", "thinking"):
        val = msg.get(key)
        if isinstance(val, str) and val.strip():
            add(kind=StepKind.THOUGHT, text=val)
            break
    content = msg.get("content")
    pending_text: list[str] = []
    calls: list[tuple[str | None, str | None, str | None]] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                pending_text.append(block)
                continue
            if not isinstance(block, Mapping):
                continue
            btype = block.get("type")
            if btype in ("thinking", "reasoning", "redacted_thinking"):
                text = as_text(block.get("thinking", block.get("reasoning", block.get("text"))))
                if btype == "redacted_thinking" and not text:
                    text = "[redacted thinking]"
                if text.strip():
                    add(kind=StepKind.THOUGHT, text=text)
            elif btype in ("tool_use", "server_tool_use", "tool_call", "function_call"):
                name = block.get("name")
                cid = block.get("id", block.get("call_id"))
                calls.append((str(name) if name is not None else None,
                              args_text(block.get("input", block.get("arguments"))),
                              str(cid) if cid is not None else None))
            elif btype in ("text", "output_text", None):
                pending_text.append(as_text(block.get("text", block.get("content"))))
    elif content is not None:
        pending_text.append(as_text(content))
    tool_calls = msg.get("tool_calls")
    if isinstance(tool_calls, list):
        calls.extend(_tool_call_fields(c, native) for c in tool_calls)
    elif tool_calls is not None:
        raise BadMessages(imsg("chat_calls_not_list", index=native))
    fc = msg.get("function_call")
    if isinstance(fc, Mapping):
        calls.append((_opt_str(fc.get("name")), args_text(fc.get("arguments")), None))
    text = "\n".join(t for t in pending_text if t.strip())
    if calls:
        for i, (name, args, cid) in enumerate(calls):
            if cid and name:
                b.call_names[cid] = name
            add(kind=StepKind.TOOL_CALL, text=text if i == 0 else "", tool_name=name, tool_args=args,
                tool_call_id=cid)
    elif text.strip() or len(b.steps) == first_of_msg:
        add(kind=StepKind.MESSAGE, text=text)
    # token usage belongs to the model call behind the message: put it on its first step
    if (tin is not None or tout is not None) and len(b.steps) > first_of_msg:
        first = b.steps[first_of_msg]
        first.tokens_in, first.tokens_out = tin, tout


def _user(b: _Builder, msg: Mapping[str, Any], native: int, *, after_assistant: bool = False) -> None:
    content = msg.get("content")
    agent = str(msg.get("name") or "user")
    ts = _opt_str(msg.get("timestamp"))
    if isinstance(content, list) and any(isinstance(p, Mapping) and p.get("type") == "tool_result" for p in content):
        texts: list[str] = []
        for p in content:
            if isinstance(p, Mapping) and p.get("type") == "tool_result":
                cid = _opt_str(p.get("tool_use_id"))
                _observation(b, as_text(p.get("content")), agent="tool", call_id=cid,
                             tool_name=b.call_names.get(cid or ""), flag=p.get("is_error"), native=native,
                             meta={})
            else:
                texts.append(as_text([p]))
        text = "\n".join(t for t in texts if t.strip())
        if text:
            b.add(agent=agent, role=Role.USER, kind=StepKind.USER, text=text, native_index=native, timestamp=ts)
        return
    text = as_text(content)
    if b.prompt_lines is None:
        b.prompt_lines = _prompt_lines(text)
    elif after_assistant:
        obs = user_observation(text, b.prompt_lines)
        if obs is not None:
            _observation(b, obs, agent="environment", call_id=None, tool_name=None, flag=None, native=native,
                         meta={"delivered_as": "user", "message_chars": len(text)}, timestamp=ts)
            return
    b.add(agent=agent, role=Role.USER, kind=StepKind.USER, text=text, native_index=native, timestamp=ts)


_OBSERVATION_HEADER = re.compile(r"^[ \t]*(?:(?:Current )?Observation(?: \d+)?[ \t]*:|<observation>)[ \t]*",
                                 re.MULTILINE | re.IGNORECASE)
_OBSERVATION_CLOSE = re.compile(r"</observation>", re.IGNORECASE)
_SHORT_LINE = 20


def _prompt_lines(text: str) -> frozenset[str]:
    """The (stripped, non-blank) lines of a run's first user message, to recognise a re-sent prompt."""
    return frozenset(ln.strip() for ln in text.splitlines() if ln.strip())


def _resent(line: str, prompt_lines: frozenset[str]) -> bool:
    """True for a (stripped) line long enough to tell that it re-sends the prompt.

    A short line (``Observation:``, ``<observation>``, ``}``) may stand in the prompt and in a
    result alike, so it says nothing.
    """
    return len(line) >= _SHORT_LINE and line in prompt_lines


def user_observation(text: str, prompt_lines: frozenset[str]) -> str | None:
    """The environment's output inside a user message, or None when the message carries none.

    Agent loops without a tool role (ReAct harnesses, OpenManus-RL/AgentDebug, ALFWorld- and
    WebShop-style environments) answer each action with a user message that re-sends the prompt
    and gives the result under an ``Observation:`` (or ``Current Observation:``) line, or inside an
    ``<observation>`` tag. The result is the text after the *last* such header whose line does
    not re-send the prompt (:func:`_resent`: a format instruction such as ``Observation: the
    result of the action``), up to the closing tag and up to the re-sent prompt: the first line
    that re-sends it, and the blank or prompt lines just before it (a heading such as
    ``Available Tools:``). Without a header the message is the user's, and stays a user step.
    """
    heads = [h for h in _OBSERVATION_HEADER.finditer(text) if not _resent(_line_at(text, h.start()), prompt_lines)]
    if not heads:
        return None
    rest = text[heads[-1].end():]
    close = _OBSERVATION_CLOSE.search(rest) if heads[-1].group(0).strip().startswith("<") else None
    lines = (rest[:close.start()] if close else rest).splitlines()
    end = next((i for i, ln in enumerate(lines) if _resent(ln.strip(), prompt_lines)), len(lines))
    if end < len(lines):
        while end > 0 and (not lines[end - 1].strip() or lines[end - 1].strip() in prompt_lines):
            end -= 1
    return "\n".join(lines[:end]).strip()


def messages_to_steps(messages: list[Any], list_path: str = "messages") -> list[Step]:
    """Convert an OpenAI/Anthropic messages list into canonical steps.

    Each step's ``native_step_id`` is ``<list_path>[i]``, the message it came from.

    Raises:
        BadMessages: When a message is not an object or a field has an unreadable shape.
    """
    b = _Builder()
    prev_role = ""
    for i, msg in enumerate(messages):
        if not isinstance(msg, Mapping):
            raise BadMessages(imsg("chat_message_not_object", index=i))
        role = _role_of(msg.get("role", msg.get("type")))
        if role == "system":
            b.add(agent="system", role=Role.SYSTEM, kind=StepKind.SYSTEM, text=as_text(msg.get("content")),
                  native_index=i)
        elif role == "user":
            _user(b, msg, i, after_assistant=prev_role == "assistant")
        elif role == "assistant":
            _assistant(b, msg, i)
        elif role == "tool":
            cid = _opt_str(msg.get("tool_call_id"))
            name = _opt_str(msg.get("name", msg.get("function"))) or b.call_names.get(cid or "")
            flag = msg.get("is_error", msg.get("error"))
            _observation(b, as_text(msg.get("content")), agent="tool", call_id=cid, tool_name=name,
                         flag=flag if flag is not None else None, native=i, meta={})
        elif role == "":
            raise BadMessages(imsg("chat_no_role", index=i))
        elif role == "exit":  # some producers append {"role": "exit"} when the run stops
            b.add(agent="exit", role=Role.ENVIRONMENT, kind=StepKind.OBSERVATION,
                  text=as_text(msg.get("content")), native_index=i, metadata={"raw_role": msg.get("role")})
        else:  # an agent name used as the role (multi-agent chat logs)
            b.add(agent=_agent_of(msg), role=Role.ASSISTANT, kind=StepKind.MESSAGE,
                  text=as_text(msg.get("content")), native_index=i, metadata={"raw_role": msg.get("role")})
        prev_role = role
    label_native_steps(b.steps, list_path)
    return b.steps


def first_user_text(steps: list[Step]) -> str:
    """Text of the first user step (the task as the agent saw it), or ''."""
    return next((s.text for s in steps if s.kind == StepKind.USER and s.text.strip()), "")


def last_answer(steps: list[Step]) -> str | None:
    """Text of the last assistant ``message`` step (the run's final answer), if any."""
    return next((s.text for s in reversed(steps) if s.kind == StepKind.MESSAGE and s.role == Role.ASSISTANT
                 and s.text.strip()), None)


# ---------------------------------------------------------------------------------------------
# runs

_TASK_KEYS = ("task", "instruction", "problem_statement", "question", "prompt", "goal")
_ID_KEYS = ("id", "run_id", "instance_id", "sample_id", "task_id", "conversation_id", "session_id")
_ANSWER_KEYS = ("final_answer", "answer", "submission", "prediction")
_RUN_KEYS = frozenset({"messages", "model", "system", "metadata", "framework", "task_family", "tools",
                       *_TASK_KEYS, *_ID_KEYS, *_ANSWER_KEYS, *_OUTCOME_KEYS, "ground_truth", "target"})


def _tool_name(tool: Any) -> str | None:
    if not isinstance(tool, Mapping):
        return None
    fn = tool.get("function")
    name = tool.get("name") or (fn.get("name") if isinstance(fn, Mapping) else None)
    return name if isinstance(name, str) else None


def run_to_trajectory(obj: Any, record: str, ctx: ImportContext) -> Trajectory | None:
    """Convert one run (object with ``messages`` or a bare list); errors go to ``ctx``."""
    meta: dict[str, Any] = {}
    if isinstance(obj, list):
        run: Mapping[str, Any] = {"messages": obj}
    elif isinstance(obj, Mapping):
        run = obj
    else:
        ctx.error(record, imsg("chat_not_messages"))
        return None
    messages = run.get("messages")
    if not isinstance(messages, list):
        ctx.error(record, imsg("chat_no_messages" if messages is None else "chat_messages_not_list"))
        return None
    try:
        steps = messages_to_steps(messages)
    except BadMessages as exc:
        ctx.error(record, wrap("chat_run_skipped", exc.message))
        return None
    system = run.get("system")  # Anthropic keeps the system prompt beside the messages
    if system is not None and as_text(system).strip():
        steps.insert(0, Step(index=0, agent="system", role=Role.SYSTEM, kind=StepKind.SYSTEM, text=as_text(system),
                             native_step_id="system"))
        for i, st in enumerate(steps):
            st.index = i
    if not steps:
        ctx.error(record, imsg("chat_messages_empty"))
        return None
    extra = run.get("metadata")
    if isinstance(extra, Mapping):
        meta.update(extra)
    for k, v in run.items():
        if k not in _RUN_KEYS:
            meta[k] = v
    tools = run.get("tools")
    if isinstance(tools, list):
        meta["tools"] = [n for n in (_tool_name(t) for t in tools) if n]
    if extra is not None and not isinstance(extra, Mapping):
        meta["metadata"] = extra
    outcome, raw, score = outcome_of(run)
    if score is None and isinstance(run.get("score"), (int, float)) and not isinstance(run.get("score"), bool):
        score = finite_float(run["score"])
    task = next((as_text(run[k]) for k in _TASK_KEYS if run.get(k)), "") or first_user_text(steps)
    native = next((run[k] for k in _ID_KEYS if run.get(k) is not None), None)
    answer = next((as_text(run[k]) for k in _ANSWER_KEYS if run.get(k) is not None), None)
    model = _opt_str(run.get("model")) or next(
        (str(m["model"]) for m in messages if isinstance(m, Mapping) and isinstance(m.get("model"), str)), None)
    return Trajectory(
        native_id=None if native is None else str(native),
        record=record,
        task=task,
        model=model,
        framework=_opt_str(run.get("framework")),
        outcome=outcome,
        outcome_raw=raw,
        score=score,
        final_answer=answer if answer is not None else last_answer(steps),
        ground_truth=_opt_str(run.get("ground_truth", run.get("target"))),
        task_family=_opt_str(run.get("task_family")),
        metadata=meta,
        steps=steps,
    )


def is_agentchat_message_keys(keys: Iterable[str]) -> bool:
    """True for the keys of an AutoGen AgentChat message: ``source`` and ``type``, no ``role``.

    AgentChat messages (``TextMessage``, ``ToolCallRequestEvent`` ...) name their sender in
    ``source`` and their class in ``type``; chat messages have a ``role``.
    """
    have = set(keys)
    return "source" in have and "type" in have and "role" not in have


_NOT_MINE = (b'"trajectory_format"', b'"resourceSpans"', b'"schema_version"')
_NOT_MINE_KEYS = frozenset({"trajectory_format", "resourceSpans", "schema_version"})


def _is_who_and_when(head: bytes) -> bool:
    return b'"history"' in head and (b'"mistake_step"' in head or b'"mistake_agent"' in head
                                    or b'"question_ID"' in head or b'"question"' in head)


def _is_tau_bench(head: bytes) -> bool:
    return b'"traj"' in head and (b'"task_id"' in head or b'"reward"' in head)


class ChatImporter:
    """Reads OpenAI chat-completions and Anthropic messages lists."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims JSON/JSONL holding role-tagged messages, leaving known richer formats alone."""
        first = first_json_char(head)
        if first not in ("{", "["):
            return False
        if any(k in head for k in _NOT_MINE) or _is_who_and_when(head) or _is_tau_bench(head):
            return False
        if b'"samples"' in head and b'"eval"' in head:  # Inspect logs
            return False
        if b'"role"' not in head:
            return False
        if first == "{":
            return b'"messages"' in head
        return True

    def sniff_structure(self, shape: JsonShape, path: Path) -> bool:
        """Claims a run object with a ``messages`` list, a list of such runs, or a bare message list.

        The richer formats' shapes (Who&When ``history``, tau-bench ``traj``, Inspect logs,
        versioned formats) are left alone, and so are AutoGen AgentChat messages (a ``source``
        and a ``type`` such as ``TextMessage`` but no ``role``: the ``autogen_agentchat``
        importer reads them).
        """
        keys = set(shape.record_keys)
        if keys & _NOT_MINE_KEYS or {"history", "traj"} & keys or {"samples", "eval"} <= keys:
            return False
        if shape.kind("messages") == "list":
            child = shape.child("messages")
            if is_agentchat_message_keys(child):
                return False
            return not child or "role" in child or "type" in child
        return shape.container == "list" and "role" in keys

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per run."""
        if path.suffix.lower() in (".jsonl", ".ndjson"):
            for lineno, obj in iter_jsonl(path, ctx):
                t = ctx.guarded(f"line {lineno}", run_to_trajectory, obj, f"line {lineno}", ctx)
                if t is not None:
                    yield t
            return
        doc = read_json_document(path, records=("",))
        runs = isinstance(doc, list) and bool(doc) and all(
            isinstance(x, DamagedRecord) or (isinstance(x, Mapping) and "messages" in x) for x in doc)
        if not runs and isinstance(doc, list) and any(isinstance(x, DamagedRecord) for x in doc):
            doc = read_json_document(path)  # a damaged message list is one run: its error is the file's
        if runs and isinstance(doc, list):
            for i, obj in enumerate(doc):
                if ctx.cancel.cancelled:
                    return
                t = ctx.guarded(f"[{i}]", run_to_trajectory, obj, f"[{i}]", ctx)
                if t is not None:
                    yield t
            return
        if isinstance(doc, (list, dict)):
            t = ctx.guarded("$", run_to_trajectory, doc, "$", ctx)
            if t is not None:
                yield t
            return
        raise ImportFailure(imsg("chat_shape"))
