"""OpenHands importer: V0 event streams, evaluation and resolver ``output.jsonl``, V1 SDK events.

* ``trajectory.json``: a list of events, or ``{"history": [...]}`` / ``{"trajectory": [...]}``
  (an optional ``metadata`` object beside the list is kept).
* ``output.jsonl``: one evaluation instance per line, ``{instance_id, instruction, history,
  test_result, metadata, metrics, error}`` (old files hold ``history`` as
  ``[action, observation]`` pairs; both are read).
* resolver ``output.jsonl``: one ``ResolverOutput`` per line, ``{issue {owner, repo, number,
  title, body}, issue_type, instruction, base_commit, git_patch, history, metrics, success,
  comment_success, result_explanation | success_explanation, error}``: the run's id is
  ``owner/repo#number``, its outcome ``success``; early files hold flat actions (the action's
  fields on the event itself, no ``args``/``source``), read too.
* V1 SDK events carry a ``kind`` discriminator (``MessageEvent``, ``ActionEvent``,
  ``ObservationEvent``, ``AgentErrorEvent`` ...).

Action events become ``system``/``user``/``message``/``thought``/``action``/``tool_call`` steps
(an action's ``thought`` becomes its own ``thought`` step first), observation events become
``observation`` steps (error observations and ``exit_code != 0`` are errors) linked to their
action through ``cause`` -> the action's ``tool_call_id`` (``event-<id>`` when the action had
none). The ``finish`` action gives the final answer (``final_thought``, ``outputs.content``,
``message``, else its ``thought``). ``agent_state_changed`` and ``recall``
events, ``think`` observations ("Your thought has been logged.") and V1 state/condensation
events are skipped and counted in ``metadata["skipped_events"]``. Outcome: ``test_result`` (``resolved``/``report.resolved``/
``success``/``score``) when present, else ``error`` or a final ``error`` agent state means
failure, else unknown. ``native_step_id`` is the event's ``id``, else ``history[i]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
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
    read_json_document,
)
from analyzer.loading.structure import JsonShape, KeyRule
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory
from plugins.importers.swe_agent import (
    as_dict,
    opt_float,
    opt_int,
    output_error,
    planted_of,
    problem_statement,
    truthy,
)

_SKIPPED_ACTIONS = frozenset({"agent_state_changed", "change_agent_state", "recall"})
_SKIPPED_OBSERVATIONS = frozenset({"agent_state_changed", "recall", "null", "think"})
_SKIPPED_KINDS = frozenset({"ConversationStateUpdateEvent", "Condensation", "CondensationRequest",
                            "CondensationSummaryEvent", "PauseEvent"})
_ARG_NOISE = frozenset({"thought", "confirmation_state", "security_risk", "is_confirmed", "hidden", "blocking",
                        "is_input", "impl_source", "include_extra", "kernel_init_code", "wait_for_response",
                        "image_urls", "file_urls", "action", "reasoning_content"})
_FLAT_EVENT_KEYS = frozenset({"action", "id", "timestamp", "source", "message", "cause", "tool_call_metadata",
                              "llm_metrics", "observation"})
_V1_KIND_RE = re.compile(rb'"kind"\s*:\s*"(?:ActionEvent|ObservationEvent|MessageEvent|SystemPromptEvent)"')
_ROLE_OF_SOURCE = {"user": Role.USER, "agent": Role.ASSISTANT, "environment": Role.ENVIRONMENT}


def first_line(text: str, default: str) -> str:
    """First informative line of an error text (a bare ``ERROR:`` header is skipped)."""
    for line in text.splitlines():
        s = line.strip()
        if s and s.rstrip(":").upper() != "ERROR":
            return s[:300]
    return default


def _events(history: Any) -> list[Any]:
    """Flatten ``history`` (events, or old ``[action, observation]`` pairs)."""
    out: list[Any] = []
    if not isinstance(history, list):
        return out
    for item in history:
        if isinstance(item, list):
            out.extend(item)
        else:
            out.append(item)
    return out


def _key(value: Any) -> int | str | None:
    """An event id usable as a dict key (ids are ints in V0, strings in V1)."""
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def _role(source: Any) -> Role:
    return _ROLE_OF_SOURCE.get(str(source), Role.ASSISTANT)


def _agent(source: Any) -> str:
    return str(source) if isinstance(source, str) and source else "agent"


class _Builder:
    """Turns one event list into steps, remembering links and counts."""

    def __init__(self, ctx: ImportContext, record: str) -> None:
        self.ctx = ctx
        self.record = record
        self.steps: list[Step] = []
        self.call_of_event: dict[Any, str] = {}
        self.tool_of_event: dict[Any, str] = {}
        self.skipped: dict[str, int] = {}
        self.final_answer: str | None = None
        self.final_state: str | None = None
        self.last_error: str | None = None
        self.first_user: str | None = None
        self.model: str | None = None
        self.seen_responses: set[str] = set()

    def skip(self, name: str) -> None:
        self.skipped[name] = self.skipped.get(name, 0) + 1

    def add(self, **kw: Any) -> Step:
        st = Step(index=len(self.steps), **kw)
        self.steps.append(st)
        return st

    # -- V0 ---------------------------------------------------------------
    def _usage(self, tcm: dict[str, Any]) -> tuple[int | None, int | None]:
        resp = as_dict(tcm.get("model_response"))
        if not self.model and isinstance(resp.get("model"), str):
            self.model = resp["model"]
        rid = str(resp.get("id") or "")
        if rid and rid in self.seen_responses:
            return None, None
        if rid:
            self.seen_responses.add(rid)
        usage = as_dict(resp.get("usage"))
        return opt_int(usage.get("prompt_tokens")), opt_int(usage.get("completion_tokens"))

    def action(self, i: int, ev: dict[str, Any]) -> None:
        kind = str(ev.get("action"))
        if kind in _SKIPPED_ACTIONS:
            self.skip(kind)
            return
        source = ev.get("source")
        if "args" in ev:
            args = as_dict(ev.get("args"))
        else:  # legacy flat actions (early resolver output): the fields sit on the event itself
            args = {k: v for k, v in ev.items() if k not in _FLAT_EVENT_KEYS}
            if source is None:
                source = "user" if kind == "message" and not self.steps else "agent"
        ts = ev.get("timestamp") if isinstance(ev.get("timestamp"), str) else None
        base: dict[str, Any] = {"agent": _agent(source), "timestamp": ts, "native_index": i}
        meta: dict[str, Any] = {"event_id": ev.get("id"), "action": kind}
        tcm = as_dict(ev.get("tool_call_metadata"))
        tok_in, tok_out = self._usage(tcm) if tcm else (None, None)
        if kind == "system":
            self.add(role=Role.SYSTEM, kind=StepKind.SYSTEM, text=as_text(args.get("content") or ev.get("message")),
                     metadata=meta, **base)
            return
        if kind == "message":
            text = as_text(args.get("content") or ev.get("message"))
            if source == "user":
                self.first_user = self.first_user if self.first_user is not None else text
                self.add(role=Role.USER, kind=StepKind.USER, text=text, metadata=meta, **base)
            else:
                self.add(role=Role.ASSISTANT, kind=StepKind.MESSAGE, text=text, tokens_in=tok_in, tokens_out=tok_out,
                         metadata=meta, **base)
            return
        thought = as_text(args.get("thought")).strip()
        if kind == "think":
            self.add(role=Role.ASSISTANT, kind=StepKind.THOUGHT, text=thought or as_text(ev.get("message")),
                     tokens_in=tok_in, tokens_out=tok_out, metadata=meta, **base)
            return
        if thought:
            self.add(role=_role(source), kind=StepKind.THOUGHT, text=thought, tokens_in=tok_in, tokens_out=tok_out,
                     metadata={"event_id": ev.get("id")}, **base)
            tok_in = tok_out = None
        call_id = str(tcm.get("tool_call_id")) if tcm.get("tool_call_id") else None
        tool = str(tcm.get("function_name") or kind)
        eid = _key(ev.get("id"))
        link = call_id or (f"event-{eid}" if eid is not None else None)
        if eid is not None:
            self.call_of_event[eid] = link or ""
            self.tool_of_event[eid] = tool
        tool_args = {k: v for k, v in args.items() if k not in _ARG_NOISE and v not in (None, "", [], {})}
        text = as_text(ev.get("message")) or args_text(tool_args) or kind
        if kind == "finish":
            final = args.get("final_thought") or as_dict(args.get("outputs")).get("content") or ev.get("message")
            self.final_answer = as_text(final) or None
            text = self.final_answer or text
            if self.final_answer is None and thought:  # {"action": "finish", "outputs": {}, "thought": ...}
                self.final_answer = thought
            meta["final"] = True
        self.add(role=_role(source), kind=StepKind.TOOL_CALL if call_id else StepKind.ACTION, text=text,
                 tool_name=tool, tool_args=args_text(tool_args), tool_call_id=link,
                 tokens_in=tok_in, tokens_out=tok_out, metadata=meta, **base)

    def observation(self, i: int, ev: dict[str, Any]) -> None:
        kind = str(ev.get("observation"))
        extras = as_dict(ev.get("extras"))
        if kind == "agent_state_changed":
            state = extras.get("agent_state")
            if isinstance(state, str):
                self.final_state = state
            if state == "error" and extras.get("reason"):
                self.last_error = str(extras["reason"])
            self.skip(kind)
            return
        if kind in _SKIPPED_OBSERVATIONS:
            self.skip(kind)
            return
        cause = _key(ev.get("cause"))
        tcm = as_dict(ev.get("tool_call_metadata"))
        call_id = str(tcm["tool_call_id"]) if tcm.get("tool_call_id") else (self.call_of_event.get(cause) or None)
        text = as_text(ev.get("content"))
        meta: dict[str, Any] = {"event_id": ev.get("id"), "observation": kind}
        if cause is not None:
            meta["cause"] = cause
        md = as_dict(extras.get("metadata"))
        exit_code = opt_int(md.get("exit_code", extras.get("exit_code", ev.get("exit_code"))))
        if exit_code is not None:
            meta["exit_code"] = exit_code
        err = first_line(text, "error observation") if kind == "error" else output_error(text)
        if err is None and exit_code is not None and exit_code != 0:
            err = "command timed out (no exit code)" if exit_code == -1 else f"exit code {exit_code}"
        if err is not None:
            self.last_error = err
        self.add(agent=_agent(ev.get("source")), role=Role.TOOL if call_id else Role.ENVIRONMENT,
                 kind=StepKind.OBSERVATION, text=text, tool_name=self.tool_of_event.get(cause) or kind,
                 tool_call_id=call_id, is_error=err is not None, error_text=err,
                 timestamp=ev.get("timestamp") if isinstance(ev.get("timestamp"), str) else None,
                 native_index=i, metadata=meta)

    # -- V1 SDK -------------------------------------------------------------
    def v1_event(self, i: int, ev: dict[str, Any]) -> None:
        kind = str(ev.get("kind"))
        source = ev.get("source")
        ts = ev.get("timestamp") if isinstance(ev.get("timestamp"), str) else None
        base: dict[str, Any] = {"agent": _agent(source), "timestamp": ts, "native_index": i}
        meta: dict[str, Any] = {"event_id": ev.get("id"), "event_kind": kind}
        if kind in _SKIPPED_KINDS:
            self.skip(kind)
        elif kind == "SystemPromptEvent":
            self.add(role=Role.SYSTEM, kind=StepKind.SYSTEM, text=as_text(ev.get("system_prompt")), metadata=meta,
                     **base)
        elif kind == "MessageEvent":
            msg = as_dict(ev.get("llm_message"))
            text = as_text(msg.get("content"))
            if source == "user":
                self.first_user = self.first_user if self.first_user is not None else text
                self.add(role=Role.USER, kind=StepKind.USER, text=text, metadata=meta, **base)
            else:
                self.add(role=Role.ASSISTANT, kind=StepKind.MESSAGE, text=text, metadata=meta, **base)
        elif kind == "ActionEvent":
            self._v1_action(ev, base, meta)
        elif kind in ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent"):
            self._v1_observation(kind, ev, base, meta)
        else:
            self.skip(kind)

    def _v1_action(self, ev: dict[str, Any], base: dict[str, Any], meta: dict[str, Any]) -> None:
        thought = (as_text(ev.get("reasoning_content")) + "\n" + as_text(ev.get("thought"))).strip()
        usage = as_dict(as_dict(ev.get("metrics")).get("usage"))
        tok_in, tok_out = opt_int(usage.get("prompt_tokens")), opt_int(usage.get("completion_tokens"))
        if thought:
            self.add(role=Role.ASSISTANT, kind=StepKind.THOUGHT, text=thought, tokens_in=tok_in, tokens_out=tok_out,
                     metadata=dict(meta), **base)
            tok_in = tok_out = None
        action = as_dict(ev.get("action"))
        call_id = str(ev.get("tool_call_id")) if ev.get("tool_call_id") else f"event-{ev.get('id')}"
        tool = str(ev.get("tool_name") or action.get("kind") or "action")
        args = {k: v for k, v in action.items() if k != "kind" and v not in (None, "", [], {})}
        text = as_text(args.get("command") or args.get("message")) or args_text(args) or tool
        if tool == "finish":
            self.final_answer = as_text(args.get("message")) or None
            meta["final"] = True
        self.tool_of_event[_key(ev.get("id"))] = tool
        self.add(role=Role.ASSISTANT, kind=StepKind.TOOL_CALL, text=text, tool_name=tool, tool_args=args_text(args),
                 tool_call_id=call_id, tokens_in=tok_in, tokens_out=tok_out, metadata=meta, **base)

    def _v1_observation(self, kind: str, ev: dict[str, Any], base: dict[str, Any], meta: dict[str, Any]) -> None:
        obs = as_dict(ev.get("observation"))
        call_id = str(ev.get("tool_call_id")) if ev.get("tool_call_id") else None
        err: str | None = None
        if kind == "AgentErrorEvent":
            text = as_text(ev.get("error"))
            err = first_line(text, "agent error")
        elif kind == "UserRejectObservation":
            text = as_text(ev.get("rejection_reason")) or "action rejected by the user"
            err = "rejected by the user"
        else:
            text = as_text(obs.get("content") if obs.get("content") is not None else obs.get("output"))
            exit_code = opt_int(obs.get("exit_code"))
            if exit_code is not None:
                meta["exit_code"] = exit_code
            err = output_error(text)
            if err is None and (obs.get("error") is True or obs.get("is_error") is True):
                err = "tool reported an error"
            elif err is None and exit_code is not None and exit_code != 0:
                err = f"exit code {exit_code}"
        if err is not None:
            self.last_error = err
        self.add(role=Role.TOOL if call_id else Role.ENVIRONMENT, kind=StepKind.OBSERVATION, text=text,
                 tool_name=str(ev.get("tool_name")) if ev.get("tool_name") else None, tool_call_id=call_id,
                 is_error=err is not None, error_text=err, metadata=meta, **base)

    def feed(self, events: list[Any]) -> None:
        for i, ev in enumerate(events):
            if not isinstance(ev, dict):
                self.ctx.error(f"{self.record} event {i}", imsg("oh_event_not_object", type=type(ev).__name__))
            elif isinstance(ev.get("kind"), str):
                self.v1_event(i, ev)
            elif "action" in ev:
                self.action(i, ev)
            elif "observation" in ev:
                self.observation(i, ev)
            else:
                self.ctx.error(f"{self.record} event {i}", imsg("oh_event_neither"))


def _outcome(test_result: Any, error: Any, final_state: str | None,
             last_error: str | None) -> tuple[Outcome, str | None, float | None]:
    tr = as_dict(test_result)
    report = as_dict(tr.get("report"))
    for key, holder in (("resolved", tr), ("resolved", report), ("success", tr), ("success", report)):
        if key in holder:
            flag = truthy(holder[key])
            if flag is not None:
                return (Outcome.SUCCESS if flag else Outcome.FAILURE), f"{key}={holder[key]}", 1.0 if flag else 0.0
    for key in ("score", "reward"):
        score = opt_float(tr.get(key))
        if score is not None:
            return (Outcome.SUCCESS if score >= 1.0 else Outcome.FAILURE), f"{key}={tr[key]}", score
    if error:
        return Outcome.FAILURE, as_text(error)[:500], None
    if final_state == "error":
        return Outcome.FAILURE, f"agent_state=error: {last_error}" if last_error else "agent_state=error", None
    return Outcome.UNKNOWN, f"agent_state={final_state}" if final_state else None, None


def _read_run(history: Any, wrapper: dict[str, Any], record: str, ctx: ImportContext,
              list_path: str = "history") -> Trajectory:
    """One run from its event list (a failure costs this run only, see ``ctx.guarded``)."""
    return _to_trajectory(_events(history), wrapper, record, ctx, list_path)


def _resolver_native_id(wrapper: dict[str, Any]) -> str | None:
    """``owner/repo#number`` of a resolver output's issue (or PR), or None."""
    issue = as_dict(wrapper.get("issue") or wrapper.get("pr_review"))
    number = issue.get("number")
    if number is None:
        return None
    where = "/".join(str(issue[k]) for k in ("owner", "repo") if issue.get(k))
    return f"{where}#{number}" if where else f"#{number}"


def _to_trajectory(events: list[Any], wrapper: dict[str, Any], record: str, ctx: ImportContext,
                   list_path: str = "history") -> Trajectory:
    b = _Builder(ctx, record)
    b.feed(events)
    for st in b.steps:  # the event's own id, else its place in the list
        eid = st.metadata.get("event_id")
        st.native_step_id = str(eid) if eid is not None else f"{list_path}[{st.native_index}]"
    md = as_dict(wrapper.get("metadata"))
    instance = as_dict(wrapper.get("instance"))
    task = ""
    if isinstance(instance.get("problem_statement"), str):
        task = instance["problem_statement"].strip()
    elif isinstance(wrapper.get("instruction"), str):
        task = problem_statement(wrapper["instruction"])
    elif b.first_user is not None:
        task = problem_statement(b.first_user)
    llm = as_dict(md.get("llm_config"))
    model = llm.get("model") if isinstance(llm.get("model"), str) else (md.get("model") or b.model)
    outcome, raw, score = _outcome(wrapper.get("test_result"), wrapper.get("error"), b.final_state, b.last_error)
    resolver_success = truthy(wrapper.get("success")) if "success" in wrapper else None
    if resolver_success is not None and wrapper.get("test_result") is None:  # resolver output.jsonl
        outcome = Outcome.SUCCESS if resolver_success else Outcome.FAILURE
        raw, score = f"success={wrapper['success']}", 1.0 if resolver_success else 0.0
    meta: dict[str, Any] = {}
    for key in ("issue", "pr_review", "issue_type", "base_commit", "success_explanation", "result_explanation",
                "comment_success", "commit_id", "commit_hash"):
        if wrapper.get(key) not in (None, "", [], {}):
            meta[key] = wrapper[key]
    for key in ("agent_class", "dataset", "data_split", "max_iterations", "eval_output_dir", "start_time",
                "git_commit", "details"):
        if key in md:
            meta[key] = md[key]
    metrics = as_dict(wrapper.get("metrics"))
    if metrics:
        meta["metrics"] = {k: v for k, v in metrics.items() if k in ("accumulated_cost", "accumulated_token_usage")}
    if wrapper.get("error"):
        meta["error"] = as_text(wrapper["error"])
    if b.final_state:
        meta["final_agent_state"] = b.final_state
    if b.skipped:
        meta["skipped_events"] = b.skipped
    tr = as_dict(wrapper.get("test_result"))
    patch = tr.get("git_patch") or wrapper.get("git_patch")
    if isinstance(patch, str) and patch:
        meta["git_patch"] = patch
    planted = planted_of(md, wrapper)
    if planted is not None:
        meta["planted"] = planted
    native = wrapper.get("instance_id")
    native_id = str(native) if native is not None else _resolver_native_id(wrapper)
    if not task:
        issue = as_dict(wrapper.get("issue"))
        task = as_text(issue.get("body") or issue.get("title")).strip()
    return Trajectory(
        native_id=native_id, record=record, task=task,
        model=str(model) if model else None, framework="openhands", outcome=outcome, outcome_raw=raw, score=score,
        final_answer=b.final_answer, task_family=str(md["dataset"]) if isinstance(md.get("dataset"), str) else None,
        metadata=meta, steps=b.steps,
    )


_EVAL_RULE = KeyRule("OpenHands evaluation output", all_of=("instance_id", "history"),
                     distinctive=("instance_id", "test_result", "git_patch"))
_RESOLVER_RULE = KeyRule("OpenHands resolver output", all_of=("history", "instruction"),
                         any_of=("issue", "pr_review", "git_patch", "base_commit"),
                         distinctive=("issue", "git_patch", "base_commit", "issue_type"))
_EVENT_KEYS = frozenset({"action", "observation"})
_EVENT_LINKS = frozenset({"cause", "args", "tool_call_metadata"})


def _event_keys(keys: tuple[str, ...]) -> bool:
    have = set(keys)
    return "source" in have and bool(have & _EVENT_KEYS) and bool(have & _EVENT_LINKS)


class OpenHandsImporter:
    """Reads OpenHands event streams, evaluation and resolver ``output.jsonl`` files."""

    def sniff_structure(self, shape: JsonShape, path: Path) -> bool:
        """Claims by structure: evaluation/resolver records, ``history`` objects or event lists.

        V1 SDK events are told by the value of their ``kind``, so a shape that is not one of the
        above falls back to :meth:`sniff` on the head.
        """
        keys = shape.record_keys
        if (shape.value("schema_version") or "").startswith("ATIF-v"):
            return False
        if "instance_id" in keys and ("history" in keys or "test_result" in keys):
            return True
        if _RESOLVER_RULE.matches(keys) and shape.kind("history") in ("list", None):
            return True
        if shape.container == "list" and _event_keys(keys):
            return True
        for key in ("history", "trajectory", "events"):
            if shape.container == "object" and shape.kind(key) == "list" and _event_keys(shape.child(key)):
                return True
        return self.sniff(head_bytes(path), path)

    def near_miss(self, shape: JsonShape, path: Path) -> tuple[float, str] | None:
        """Names what an evaluation or resolver record that looks like OpenHands lacks."""
        misses = [m for m in (_EVAL_RULE.near_miss(shape.record_keys), _RESOLVER_RULE.near_miss(shape.record_keys))
                  if m is not None]
        return max(misses) if misses else None

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims heads with OpenHands event keys or ``instance_id`` + ``history``/``test_result``."""
        if first_json_char(head) not in ("{", "[") or b"ATIF-v" in head:
            return False
        if b'"instance_id"' in head and (b'"history"' in head or b'"test_result"' in head):
            return True
        if b'"source"' in head and (b'"action"' in head or b'"observation"' in head) and (
                b'"cause"' in head or b'"args"' in head or b'"tool_call_metadata"' in head):
            return True
        return _V1_KIND_RE.search(head) is not None

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per event stream / evaluation line."""
        if path.suffix.lower() in (".jsonl", ".ndjson"):
            for lineno, obj in iter_jsonl(path, ctx):
                record = f"line {lineno}"
                if not isinstance(obj, dict):
                    ctx.error(record, imsg("oh_not_object", type=type(obj).__name__))
                elif not isinstance(obj.get("history"), list):
                    ctx.error(record, imsg("oh_no_history"))
                elif (t := ctx.guarded(record, _read_run, obj["history"], obj, record, ctx)) is not None:
                    yield t
            return
        doc = read_json_document(path)
        if isinstance(doc, list):
            if (t := ctx.guarded("$", _read_run, doc, {}, "$", ctx, "")) is not None:
                yield t
            return
        if not isinstance(doc, dict):
            raise ImportFailure(imsg("oh_shape"))
        for key in ("history", "trajectory", "events"):
            if isinstance(doc.get(key), list):
                if (t := ctx.guarded("$", _read_run, doc[key], doc, "$", ctx, key)) is not None:
                    yield t
                return
        raise ImportFailure(imsg("oh_no_events"))
