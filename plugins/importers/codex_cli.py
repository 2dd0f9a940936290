"""OpenAI Codex CLI session rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``).

Each line is a ``RolloutLine`` (``codex-rs/protocol``): ``{"timestamp", "type", "payload"}`` with
``type`` one of ``session_meta`` (first line: ``id``, ``cwd``, ``cli_version``, ``originator``,
``model_provider``, ``git``, ``source``), ``turn_context`` (per turn: ``model``, ``cwd``,
``approval_policy``, ``sandbox_policy``, ``effort``), ``response_item`` (what the model saw and
said), ``compacted`` (a compaction summary) and ``event_msg`` (runtime events). One file is one
run. ``response_item`` payloads map to steps:

* ``message``: ``user`` -> the task (the first one) or a later ``user`` step; user messages
  Codex injects (``# AGENTS.md instructions for ...``, ``<environment_context>``,
  ``<user_instructions>``, ``<skill>``, ``<turn_aborted>`` ...) and ``developer``/``system``
  messages are ``system`` context steps, never the task; ``assistant`` -> a ``message``;
* ``reasoning``: its summary (or readable content) -> a ``thought`` (encrypted-only reasoning
  is counted in ``metadata["encrypted_reasoning"]``);
* ``function_call`` (``name``, JSON-string ``arguments``, ``call_id``), ``custom_tool_call``
  (``name``, free-form ``input``: ``apply_patch``), ``local_shell_call`` (``action.command``) and
  ``web_search_call`` -> ``tool_call`` steps;
* ``function_call_output`` / ``custom_tool_call_output`` (``call_id``, ``output``) -> an
  ``observation`` linked by ``call_id``; the exit code is read from the structured form
  (``{"output", "metadata": {"exit_code"}}``) or the ``Exit code: N`` / ``Process exited with
  code N`` header, and a non-zero one (or a shared output-error heuristic) flags the error.

``event_msg`` records that repeat response items (``user_message``, ``agent_message``,
``agent_reasoning``) are skipped; ``token_count`` puts ``info.last_token_usage`` on the first
model step of the response it counts (``info.total_token_usage`` of the last one goes to
``metadata["token_usage"]``); ``exec_command_end`` exit codes and failed ``patch_apply_end``
events fill in what an output lacks; ``task_complete.last_agent_message`` is the final answer
(else the last assistant message); ``error`` events are ``environment`` error steps. Rollouts
carry no verdict: the outcome is unknown.

The older layout (Codex CLI before the envelope, 2025) is read too: a first line
``{"id", "timestamp", "instructions"}``, ``{"record_type": "state"}`` lines, and bare response
items (``{"type": "message" | "function_call" | ..., ...}``) one per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg
from analyzer.loading.jsonio import (
    args_text,
    as_text,
    first_json_char,
    head_bytes,
    iter_jsonl,
    parse_json,
)
from analyzer.loading.records import current_view
from analyzer.loading.structure import JsonShape, KeyRule
from analyzer.plugin_host.protocols import ImportContext
from analyzer.reasons import reason
from analyzer.schema.models import Role, Step, StepKind, Trajectory
from plugins.importers.swe_agent import opt_int, output_error

ROLLOUT_TYPES = frozenset({"session_meta", "response_item", "compacted", "turn_context", "event_msg"})
RESPONSE_TYPES = frozenset({
    "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
    "custom_tool_call_output", "local_shell_call", "web_search_call", "tool_search_call", "tool_search_output",
    "image_generation_call", "ghost_snapshot", "compaction", "compaction_summary",
})
CONTEXT_PREFIXES = (
    "# AGENTS.md instructions", "<environment_context>", "<user_instructions>", "<skill>",
    "<user_shell_command>", "<turn_aborted>", "<subagent_notification>", "<collaboration_mode>",
    "<realtime_conversation>", "<personality_spec>", "<INSTRUCTIONS>",
)
"""User-role messages Codex injects into the history (``codex-rs/core`` contextual user fragments)."""

_USER_REQUEST_MARK = "## My request for Codex:"
_DUPLICATE_EVENTS = frozenset({"user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
                               "agent_reasoning_section_break"})
_MODEL_KINDS = frozenset({StepKind.THOUGHT, StepKind.MESSAGE, StepKind.TOOL_CALL})
_EXIT_HEADER_RE = re.compile(r"\A\s*Exit code:\s*(-?\d+)\s*$", re.MULTILINE)
_PROCESS_EXIT_RE = re.compile(r"^Process exited with code (-?\d+)\s*$", re.MULTILINE)
_OUTPUT_MARK_RE = re.compile(r"^Output:\s*\n", re.MULTILINE)
_RULE = KeyRule("a Codex CLI rollout", all_of=("timestamp", "type", "payload"), distinctive=("payload",))
_LEGACY_META_KEYS = frozenset({"id", "timestamp", "instructions", "git"})
_LEGACY_ITEM_TYPES = frozenset({"message", "function_call", "function_call_output", "reasoning"})
_LEGACY_HEAD_RE = re.compile(rb'"record_type"\s*:\s*"state"|"type"\s*:\s*"(?:message|function_call|reasoning)"')
_ENVELOPE_TYPE_RE = re.compile(rb'"type"\s*:\s*"(?:session_meta|response_item|turn_context|event_msg|compacted)"')
_PAYLOAD_RE = re.compile(rb'"payload"\s*:\s*\{')


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _content_text(content: Any) -> str:
    """Text of a message's ``content`` items (``input_text``/``output_text``; images as ``[image]``)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return as_text(content)
    parts: list[str] = []
    for item in content:
        if isinstance(item, Mapping):
            if isinstance(item.get("text"), str):
                parts.append(item["text"])
            elif str(item.get("type", "")).endswith("image"):
                parts.append("[image]")
        elif isinstance(item, str):
            parts.append(item)
    return "\n".join(parts)


def context_kind(text: str) -> str | None:
    """Which injected-context fragment a user message is (``AGENTS.md``, ``environment_context`` ...)."""
    head = text.lstrip()
    for prefix in CONTEXT_PREFIXES:
        if head.startswith(prefix):
            return prefix.strip("#<> ").split(" ")[0]
    return None


def split_output(output: Any) -> tuple[str, int | None, bool | None]:
    """``(text, exit code, success flag)`` of a ``function_call_output`` ``output``.

    The output is a string (plain, ``Exit code: N ... Output:`` headed, or the JSON of
    ``{"output", "metadata": {"exit_code", "duration_seconds"}}``), a list of content items, or
    (older rollouts) ``{"content", "success"}``.
    """
    success: bool | None = None
    if isinstance(output, Mapping):
        success = output["success"] if isinstance(output.get("success"), bool) else None
        output = output.get("content", output.get("output"))
    if isinstance(output, list):
        return _content_text(output), None, success
    text = output if isinstance(output, str) else as_text(output)
    if text.lstrip().startswith("{") and '"metadata"' in text:
        try:
            doc = parse_json(text, "output")
        except ImportFailure:
            doc = None
        if isinstance(doc, Mapping) and isinstance(doc.get("output"), str):
            md = doc.get("metadata")
            return doc["output"], opt_int(md.get("exit_code")) if isinstance(md, Mapping) else None, success
    out = _OUTPUT_MARK_RE.search(text, 0, 2000)
    header = text[: out.start()] if out else text[:2000]
    m = _EXIT_HEADER_RE.match(header) or _PROCESS_EXIT_RE.search(header)
    if m:
        return (text[out.end():] if out else text), int(m.group(1)), success
    return text, None, success


def _call_text(name: str, args: str | None) -> str:
    """A readable text for a call: the shell command when the arguments hold one."""
    if args and args.lstrip().startswith("{"):
        try:
            doc = parse_json(args, "arguments")
        except ImportFailure:
            return args
        cmd = doc.get("command", doc.get("cmd")) if isinstance(doc, Mapping) else None
        if isinstance(cmd, list) and all(isinstance(c, str) for c in cmd):
            if len(cmd) >= 3 and cmd[1] in ("-lc", "-c"):
                return str(cmd[2])
            return " ".join(cmd)
        if isinstance(cmd, str):
            return cmd
    return args or name


class _Rollout:
    """Accumulates the records of one rollout file."""

    def __init__(self, ctx: ImportContext) -> None:
        self.ctx = ctx
        self.steps: list[Step] = []
        self.meta: dict[str, Any] = {}
        self.session_id: str | None = None
        self.models: list[str] = []
        self.task: str | None = None
        self.final: str | None = None
        self.tool_of_call: dict[str, str] = {}
        self.obs_of_call: dict[str, Step] = {}
        self.exit_of_call: dict[str, int] = {}
        self.failed_patch: dict[str, str] = {}
        self.pending_usage: Step | None = None
        self.counts: dict[str, int] = {}

    def count(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1

    def add(self, lineno: int, ts: str | None, **kw: Any) -> Step:
        st = Step(index=len(self.steps), timestamp=ts, native_index=lineno - 1, native_step_id=f"line {lineno}", **kw)
        self.steps.append(st)
        if st.kind in _MODEL_KINDS and st.role == Role.ASSISTANT and self.pending_usage is None:
            self.pending_usage = st
        return st

    # -- records ------------------------------------------------------------------------------
    def record(self, lineno: int, obj: Any) -> None:
        if not isinstance(obj, Mapping):
            self.ctx.error(f"line {lineno}", imsg("oh_event_not_object", type=type(obj).__name__))
            return
        ts = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        rtype = obj.get("type") if isinstance(obj.get("type"), str) else None  # a dict here is no type
        if rtype in ROLLOUT_TYPES and "payload" in obj:
            payload = obj["payload"]
            if not isinstance(payload, Mapping):
                self.ctx.error(f"line {lineno}", imsg("oh_event_not_object", type=type(payload).__name__))
                return
            if rtype == "session_meta":
                self.session_meta(payload)
            elif rtype == "turn_context":
                self.turn_context(payload)
            elif rtype == "response_item":
                self.response_item(lineno, ts, payload)
            elif rtype == "compacted":
                self.add(lineno, ts, agent="context", role=Role.SYSTEM, kind=StepKind.SYSTEM,
                         text=as_text(payload.get("message")), metadata={"context": "compacted"})
            else:
                self.event(lineno, ts, payload)
            return
        # the older layout: a meta first line, state lines and bare response items
        if "record_type" in obj:
            self.count(f"record_type:{obj.get('record_type')}")
            return
        if rtype in RESPONSE_TYPES:
            self.response_item(lineno, ts, obj)
            return
        if lineno == 1 and "id" in obj and "instructions" in obj:
            self.meta["layout"] = "legacy"
            self.session_meta(obj)
            return
        self.count(f"unknown:{rtype}")

    def session_meta(self, p: Mapping[str, Any]) -> None:
        if p.get("id") is not None and self.session_id is None:
            self.session_id = str(p["id"])
        for key in ("cwd", "cli_version", "originator", "model_provider", "source", "forked_from_id", "git",
                    "agent_nickname", "agent_role"):
            if p.get(key) not in (None, "", {}) and key not in self.meta:
                self.meta[key] = p[key]
        instructions = p.get("instructions")
        if isinstance(instructions, str) and instructions:
            self.meta["instructions_chars"] = len(instructions)

    def turn_context(self, p: Mapping[str, Any]) -> None:
        model = p.get("model")
        if isinstance(model, str) and model and model not in self.models:
            self.models.append(model)
        for key in ("approval_policy", "effort"):
            if isinstance(p.get(key), str) and key not in self.meta:
                self.meta[key] = p[key]
        sandbox = p.get("sandbox_policy")
        if isinstance(sandbox, Mapping) and "sandbox_policy" not in self.meta and isinstance(sandbox.get("type"), str):
            self.meta["sandbox_policy"] = sandbox["type"]
        self.count("turns")

    def response_item(self, lineno: int, ts: str | None, p: Mapping[str, Any]) -> None:
        kind = p.get("type")
        if kind == "message":
            self.message(lineno, ts, p)
        elif kind == "reasoning":
            texts = [as_text(s.get("text")) for s in p.get("summary") or [] if isinstance(s, Mapping)]
            if not any(t.strip() for t in texts):
                texts = [as_text(c.get("text")) for c in p.get("content") or [] if isinstance(c, Mapping)]
            text = "\n".join(t for t in texts if t.strip())
            if text:
                self.add(lineno, ts, agent="codex", role=Role.ASSISTANT, kind=StepKind.THOUGHT, text=text)
            else:
                self.count("encrypted_reasoning")
        elif kind in ("function_call", "custom_tool_call"):
            name = str(p.get("name") or kind)
            args = args_text(p.get("arguments") if kind == "function_call" else p.get("input"))
            meta: dict[str, Any] = {"item_type": kind}
            if isinstance(p.get("namespace"), str):
                meta["namespace"] = p["namespace"]
            self.call(lineno, ts, name, args, p.get("call_id"), meta, _call_text(name, args))
        elif kind == "local_shell_call":
            action = _mapping(p.get("action"))
            cmd = action.get("command")
            text = " ".join(str(c) for c in cmd) if isinstance(cmd, list) else as_text(cmd)
            self.call(lineno, ts, "local_shell", args_text(action), p.get("call_id") or p.get("id"),
                      {"item_type": kind, "status": p.get("status")}, text)
        elif kind == "web_search_call":
            action = _mapping(p.get("action"))
            text = as_text(action.get("query") or action.get("url")) or "web search"
            self.call(lineno, ts, "web_search", args_text(action), p.get("id"), {"item_type": kind}, text)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self.output(lineno, ts, p)
        else:
            self.count(f"item:{kind}")

    def message(self, lineno: int, ts: str | None, p: Mapping[str, Any]) -> None:
        role = str(p.get("role") or "")
        text = _content_text(p.get("content"))
        if role == "assistant":
            self.add(lineno, ts, agent="codex", role=Role.ASSISTANT, kind=StepKind.MESSAGE, text=text)
            if text.strip():
                self.final = text
            return
        if role in ("developer", "system"):
            self.add(lineno, ts, agent="context", role=Role.SYSTEM, kind=StepKind.SYSTEM, text=text,
                     metadata={"raw_role": role})
            return
        ctx_kind = context_kind(text)
        if ctx_kind is not None:
            self.add(lineno, ts, agent="context", role=Role.SYSTEM, kind=StepKind.SYSTEM, text=text,
                     metadata={"raw_role": role, "context": ctx_kind})
            return
        self.add(lineno, ts, agent="user", role=Role.USER, kind=StepKind.USER, text=text,
                 metadata={} if role == "user" else {"raw_role": role})
        self.pending_usage = None
        if self.task is None and text.strip():
            request = text.split(_USER_REQUEST_MARK, 1)[1] if _USER_REQUEST_MARK in text else text
            self.task = request.strip()

    def call(self, lineno: int, ts: str | None, name: str, args: str | None, call_id: Any, meta: dict[str, Any],
             text: str) -> None:
        cid = str(call_id) if call_id not in (None, "") else None
        if cid:
            self.tool_of_call[cid] = name
        self.add(lineno, ts, agent="codex", role=Role.ASSISTANT, kind=StepKind.TOOL_CALL, text=text, tool_name=name,
                 tool_args=args, tool_call_id=cid, metadata=meta)

    def output(self, lineno: int, ts: str | None, p: Mapping[str, Any]) -> None:
        cid = str(p["call_id"]) if p.get("call_id") not in (None, "") else None
        text, code, success = split_output(p.get("output"))
        meta: dict[str, Any] = {"item_type": p.get("type")}
        if code is not None:
            meta["exit_code"] = code
        st = self.add(lineno, ts, agent="tool", role=Role.TOOL, kind=StepKind.OBSERVATION, text=text,
                      tool_name=self.tool_of_call.get(cid or ""), tool_call_id=cid, metadata=meta)
        self._flag(st, code, success)
        if cid:
            self.obs_of_call[cid] = st
        self.pending_usage = None

    @staticmethod
    def _flag(st: Step, code: int | None, success: bool | None) -> None:
        err = output_error(st.text)
        if code is not None and code != 0:
            err = err or f"exit code {code}"
        if err is None and success is False:
            err = "tool reported failure"
        st.is_error, st.error_text = err is not None, err

    def event(self, lineno: int, ts: str | None, p: Mapping[str, Any]) -> None:
        kind = str(p.get("type"))
        if kind in _DUPLICATE_EVENTS:
            self.count(f"event:{kind}")
        elif kind == "token_count":
            info = p.get("info")
            if not isinstance(info, Mapping):
                return
            last, total = info.get("last_token_usage"), info.get("total_token_usage")
            if isinstance(total, Mapping):
                self.meta["token_usage"] = dict(total)
            if isinstance(last, Mapping) and self.pending_usage is not None:
                st = self.pending_usage
                st.tokens_in, st.tokens_out = opt_int(last.get("input_tokens")), opt_int(last.get("output_tokens"))
                for key in ("cached_input_tokens", "reasoning_output_tokens"):
                    if opt_int(last.get(key)):
                        st.metadata[key] = last[key]
            self.pending_usage = None
        elif kind == "task_complete":
            if isinstance(p.get("last_agent_message"), str) and p["last_agent_message"].strip():
                self.final = p["last_agent_message"]
        elif kind == "exec_command_end":
            code = opt_int(p.get("exit_code"))
            if p.get("call_id") and code is not None:
                self.exit_of_call[str(p["call_id"])] = code
        elif kind == "patch_apply_end":
            if p.get("call_id") and p.get("success") is False:
                self.failed_patch[str(p["call_id"])] = as_text(p.get("stderr")).strip() or "patch failed to apply"
        elif kind == "error":
            msg = as_text(p.get("message")) or "error"
            self.add(lineno, ts, agent="environment", role=Role.ENVIRONMENT, kind=StepKind.OBSERVATION, text=msg,
                     is_error=True, error_text=msg[:300], metadata={"event": kind})
        elif kind == "turn_aborted":
            self.meta.setdefault("aborted_turns", []).append(p.get("reason"))
        else:
            self.count(f"event:{kind}")

    # -- the run ------------------------------------------------------------------------------
    def trajectory(self, path: Path) -> Trajectory:
        for cid, code in self.exit_of_call.items():
            st = self.obs_of_call.get(cid)
            if st is not None and "exit_code" not in st.metadata:
                st.metadata["exit_code"] = code
                if code != 0 and not st.is_error:
                    st.is_error, st.error_text = True, f"exit code {code}"
        for cid, err in self.failed_patch.items():
            st = self.obs_of_call.get(cid)
            if st is not None and not st.is_error:
                st.is_error, st.error_text = True, err.splitlines()[0][:300]
        meta = dict(self.meta)
        if len(self.models) > 1:
            meta["models"] = list(self.models)
        if self.counts:
            meta["skipped_records"] = dict(self.counts)
        return Trajectory(
            native_id=self.session_id or path.stem, record="$", task=self.task or "",
            model=self.models[0] if self.models else None, framework="codex-cli", final_answer=self.final,
            metadata=meta, steps=self.steps,
        )


class CodexCliImporter:
    """Reads Codex CLI rollout JSONL files (one session, one run)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims JSONL whose first line is a rollout envelope, or the older meta + state layout."""
        if first_json_char(head) != "{":
            return False
        first = head.split(b"\n", 1)[0]
        if b'"timestamp"' in first and _PAYLOAD_RE.search(first) and _ENVELOPE_TYPE_RE.search(first[:400]):
            return True
        return b'"instructions"' in first and b'"id"' in first and _LEGACY_HEAD_RE.search(head) is not None

    def sniff_structure(self, shape: JsonShape, path: Path) -> bool:
        """Claims rollout envelopes, or the older ``{"id", "timestamp", "instructions"}`` first line.

        An envelope is ``{"timestamp", "type": <rollout item type>, "payload": {...}}``; the older
        first line must be followed by ``record_type`` state or bare response item lines.
        """
        if shape.container != "lines":
            return False
        if _RULE.matches(shape.record_keys):
            return shape.value("type") in ROLLOUT_TYPES and shape.kind("payload") == "object"
        if current_view() > 0:  # claiming line by line (line 1 fits no format): a legacy state or item line
            return shape.value("record_type") == "state" or (
                shape.value("type") in _LEGACY_ITEM_TYPES and "id" in shape.record_keys)
        keys = set(shape.record_keys)
        if {"id", "timestamp", "instructions"} <= keys <= _LEGACY_META_KEYS:
            try:
                head = head_bytes(path)
            except OSError:
                return False
            rest = head.split(b"\n", 1)[1] if b"\n" in head else b""
            return _LEGACY_HEAD_RE.search(rest) is not None
        return False

    def near_miss(self, shape: JsonShape, path: Path) -> tuple[float, str] | None:
        """Names what a line with a rollout ``payload`` lacks."""
        if shape.container != "lines":
            return None
        return _RULE.near_miss(shape.record_keys)

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield the session as one trajectory (a bad line costs only that line)."""
        rollout = _Rollout(ctx)
        for lineno, obj in iter_jsonl(path, ctx):
            ctx.guarded(f"line {lineno}", rollout.record, lineno, obj)
        if ctx.cancel.cancelled:
            return
        if not rollout.steps:
            raise ImportFailure(reason("no_runs"))
        t = ctx.guarded("$", rollout.trajectory, path)
        if t is not None:
            yield t
