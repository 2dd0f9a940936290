"""ATIF importer: Agent Trajectory Interchange Format v1.0-v1.7 (Harbor / Terminal-Bench).

A ``.json`` file holds one trajectory (or a list of them); a ``.jsonl`` file one per line.
Each ATIF step becomes one canonical step per part, in this order: ``system``/``user``
message, agent ``reasoning_content`` (``thought``), agent ``message`` (``message``), each
``tool_calls[]`` entry (``tool_call``) and each ``observation.results[]`` entry
(``observation``, linked by ``source_call_id``). The step's ``metrics`` go on its first
agent part (``prompt_tokens`` -> ``tokens_in``, ``completion_tokens`` -> ``tokens_out``; cached
tokens and ``cost``/``cost_usd`` in metadata). ``subagent_trajectory_ref`` values and
embedded ``subagent_trajectories`` are kept as references in metadata.

Outcome: a ``reward``/``success``/``resolved`` value in the trajectory's ``extra`` (or
``final_metrics.extra``), else the trial's ``result.json`` (Harbor: ``verifier_result.rewards``,
``exception_info``) or ``results.json`` (Terminal-Bench: ``is_resolved``) in the trial folder
(``<trial>/agent/trajectory.json`` -> ``<trial>/result.json``), else Harbor's verifier
``reward.txt`` beside the file or in ``../verifier/`` (source ``harbor-reward``), else the trial's
``verifier/ctrf.json`` test report (source ``ctrf``); unknown otherwise. The CTRF report's failed
tests are kept as evidence in ``metadata["failed_tests"]`` (see :mod:`plugins.importers.harbor`). The trial result's
task name, dataset (``source``), agent info, token counts and exception are kept in
``metadata["trial"]``; its model and task fill in what the trajectory lacks. ``result.json``
and ``config.json`` are sidecars (read here, never offered as runs). ``native_step_id`` is the
ATIF ``step_id``. The final answer is the message of the last agent step when that step calls no
tool (as the ADP importer takes the last message action).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg, itext
from analyzer.loading.jsonio import args_text, first_json_char, iter_jsonl, read_json_document
from analyzer.loading.structure import JsonShape
from analyzer.loading.task_key import source_task_key
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory
from analyzer.schema.outcome_source import OutcomeSource
from plugins.importers.harbor import Ctrf, read_ctrf
from plugins.importers.swe_agent import (
    as_dict,
    opt_float,
    opt_int,
    output_error,
    planted_of,
    truthy,
)

_SNIFF_RE = re.compile(rb'"schema_version"\s*:\s*"ATIF-v1\.')
_VERSION_RE = re.compile(r"\AATIF-v1\.(\d+)\Z")
_MAX_KNOWN_MINOR = 7


def content_text(value: Any) -> str:
    """Plain text of an ATIF message/observation content (string or content parts)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts: list[str] = []
        for p in value:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict) and p.get("type") == "image":
                src = as_dict(p.get("source"))
                parts.append(f"[image: {src.get('path') or src.get('media_type') or 'inline'}]")
            elif isinstance(p, dict) and isinstance(p.get("text"), str):
                parts.append(p["text"])
            else:
                parts.append(args_text(p) or "")
        return "\n".join(parts)
    if isinstance(value, dict):
        return content_text([value])
    return str(value)


def _reward_file(path: Path) -> tuple[float, str] | None:
    for cand in (path.parent / "reward.txt", path.parent.parent / "verifier" / "reward.txt"):
        try:
            if cand.is_file() and cand.stat().st_size < 1024:
                return float(cand.read_text(encoding="utf-8").strip()), f"{cand.parent.name}/{cand.name}"
        except (OSError, ValueError):
            continue
    return None


_TRIAL_KEYS = frozenset({"trial_name", "verifier_result", "agent_info", "is_resolved", "task_name", "trial_uri"})
_MAX_TRIAL_RESULT_BYTES = 16 * 1024 * 1024


def trial_result(path: Path) -> tuple[dict[str, Any], str] | None:
    """The Harbor ``result.json`` (or Terminal-Bench ``results.json``) of the trial a trajectory is in.

    A Harbor trial folder holds ``agent/trajectory.json``, ``verifier/reward.txt``,
    ``config.json`` and ``result.json``; the trajectory may also lie in the trial folder itself.

    Returns:
        ``(result object, "<trial folder>/<file name>")`` or None when there is none (or it is
        not a trial result: a SWE-bench ``results.json`` has none of the trial keys).
    """
    folders = [path.parent.parent] if path.parent.name == "agent" else [path.parent]
    for folder in folders:
        for name in ("result.json", "results.json"):
            cand = folder / name
            try:
                if not cand.is_file() or cand.stat().st_size > _MAX_TRIAL_RESULT_BYTES:
                    continue
                doc = read_json_document(cand)
            except (OSError, ImportFailure):
                continue
            if isinstance(doc, dict) and _TRIAL_KEYS & doc.keys():
                return doc, f"{folder.name}/{name}"
    return None


def _trial_reward(trial: dict[str, Any]) -> tuple[float | None, str | None]:
    rewards = as_dict(as_dict(trial.get("verifier_result")).get("rewards"))
    for key in ("reward", *sorted(rewards)):
        value = opt_float(rewards.get(key))
        if value is not None:
            return value, key
    return None, None


def _trial_outcome(trial: dict[str, Any], where: str) -> tuple[Outcome, str | None, float | None] | None:
    value, key = _trial_reward(trial)
    if value is not None:
        return (Outcome.SUCCESS if value >= 1.0 else Outcome.FAILURE), f"{key}={value:g} ({where})", value
    if "is_resolved" in trial and truthy(trial["is_resolved"]) is not None:
        flag = truthy(trial["is_resolved"])
        return (Outcome.SUCCESS if flag else Outcome.FAILURE), f"is_resolved={trial['is_resolved']} ({where})", \
            1.0 if flag else 0.0
    exc = as_dict(trial.get("exception_info"))
    if exc:
        return Outcome.FAILURE, f"exception: {exc.get('exception_type') or 'error'} ({where})", None
    return None


def _trial_meta(trial: dict[str, Any], where: str) -> dict[str, Any]:
    """What TrajScope keeps of a trial result (no configs, no rollout token lists)."""
    out: dict[str, Any] = {"file": where}
    for key in ("id", "trial_name", "task_name", "task_id", "source", "trial_uri", "started_at", "finished_at",
                "failure_mode", "parser_results", "instruction"):
        if trial.get(key) not in (None, "", {}, []):
            out[key] = trial[key]
    info = as_dict(trial.get("agent_info"))
    if info:
        out["agent_info"] = info
    result = as_dict(trial.get("agent_result"))
    usage = {k: result[k] for k in ("n_input_tokens", "n_cache_tokens", "n_output_tokens", "cost_usd")
             if result.get(k) is not None}
    if usage:
        out["agent_result"] = usage
    rewards = as_dict(as_dict(trial.get("verifier_result")).get("rewards"))
    if rewards:
        out["rewards"] = rewards
    exc = as_dict(trial.get("exception_info"))
    if exc:
        out["exception"] = {k: exc[k] for k in ("exception_type", "exception_message", "occurred_at") if k in exc}
    return out


def _outcome(doc: dict[str, Any], path: Path, trial: tuple[dict[str, Any], str] | None = None,
             ctrf: Ctrf | None = None) -> tuple[Outcome, str | None, float | None, str | None]:
    """Outcome, raw value, score and outcome source (None: the file's own field)."""
    for holder in (as_dict(doc.get("extra")), as_dict(as_dict(doc.get("final_metrics")).get("extra"))):
        for key in ("resolved", "success", "is_resolved", "passed"):
            if key in holder and truthy(holder[key]) is not None:
                flag = truthy(holder[key])
                return (Outcome.SUCCESS if flag else Outcome.FAILURE), f"{key}={holder[key]}", 1.0 if flag else 0.0, None
        for key in ("reward", "score"):
            value = opt_float(holder.get(key))
            if value is not None:
                return (Outcome.SUCCESS if value >= 1.0 else Outcome.FAILURE), f"{key}={holder[key]}", value, None
    harbor = str(OutcomeSource.HARBOR_REWARD)
    if trial is not None:
        got = _trial_outcome(*trial)
        if got is not None:
            return (*got, harbor)
    found = _reward_file(path)
    if found is not None:
        value, where = found
        return (Outcome.SUCCESS if value >= 1.0 else Outcome.FAILURE), f"reward={value:g} ({where})", value, harbor
    if ctrf is not None and ctrf.outcome() != Outcome.UNKNOWN:
        return ctrf.outcome(), ctrf.raw(), None, str(OutcomeSource.CTRF)
    return Outcome.UNKNOWN, None, None, None


class _Builder:
    def __init__(self, record: str, ctx: ImportContext) -> None:
        self.record = record
        self.ctx = ctx
        self.steps: list[Step] = []
        self.tool_of_call: dict[str, str] = {}
        self.first_user: str | None = None
        self.first_model: str | None = None
        self.subagent_refs: list[Any] = []

    def add(self, **kw: Any) -> Step:
        st = Step(index=len(self.steps), **kw)
        self.steps.append(st)
        return st

    def step(self, i: int, s: dict[str, Any]) -> None:
        source = str(s.get("source") or "agent")
        ts = s.get("timestamp") if isinstance(s.get("timestamp"), str) else None
        sid = s.get("step_id")
        native = str(sid) if isinstance(sid, int | str) and not isinstance(sid, bool) else f"steps[{i}]"
        base: dict[str, Any] = {"timestamp": ts, "native_index": i, "native_step_id": native}
        meta: dict[str, Any] = {"atif_step_id": s.get("step_id"), "source": source}
        for key in ("reasoning_effort", "llm_call_count", "is_copied_context"):
            if s.get(key) not in (None, False):
                meta[key] = s[key]
        if as_dict(s.get("extra")):
            meta["extra"] = s["extra"]
        text = content_text(s.get("message"))
        if source in ("system", "user"):
            role = Role.SYSTEM if source == "system" else Role.USER
            if source == "user" and self.first_user is None:
                self.first_user = text
            self.add(agent=source, role=role, kind=StepKind(source), text=text, metadata=meta, **base)
        else:
            self._agent_parts(s, text, meta, base)
        self._observations(s, meta, base)

    def _agent_parts(self, s: dict[str, Any], text: str, meta: dict[str, Any], base: dict[str, Any]) -> None:
        model = s.get("model_name") if isinstance(s.get("model_name"), str) else None
        if model and not self.first_model:
            self.first_model = model
        metrics = as_dict(s.get("metrics"))
        first: dict[str, Any] = dict(meta)
        if model:
            first["model_name"] = model
        for key in ("cached_tokens", "cost", "cost_usd"):
            if metrics.get(key) is not None:
                first[key] = metrics[key]
        usage: dict[str, Any] = {"tokens_in": opt_int(metrics.get("prompt_tokens")),
                                 "tokens_out": opt_int(metrics.get("completion_tokens"))}
        parts: list[dict[str, Any]] = []
        reasoning = content_text(s.get("reasoning_content")).strip()
        if reasoning:
            parts.append({"kind": StepKind.THOUGHT, "text": reasoning})
        if text.strip():
            parts.append({"kind": StepKind.MESSAGE, "text": text})
        calls_raw = s.get("tool_calls")
        calls: list[Any] = calls_raw if isinstance(calls_raw, list) else []
        for j, call in enumerate(calls):
            if not isinstance(call, dict):
                self.ctx.error(f"{self.record} steps[{base['native_index']}].tool_calls[{j}]",
                               imsg("atif_call_not_object"))
                continue
            name = str(call.get("function_name") or call.get("name") or "") or None
            call_id = str(call["tool_call_id"]) if call.get("tool_call_id") else None
            if call_id and name:
                self.tool_of_call[call_id] = name
            args = args_text(call.get("arguments"))
            parts.append({"kind": StepKind.TOOL_CALL, "text": args or name or "", "tool_name": name,
                          "tool_args": args, "tool_call_id": call_id})
        if not parts:  # an agent step with nothing but metrics/observation: keep it visible
            parts.append({"kind": StepKind.MESSAGE, "text": ""})
        for n, part in enumerate(parts):
            if n == 0:
                self.add(agent="agent", role=Role.ASSISTANT, metadata=first, **usage, **part, **base)
            else:
                self.add(agent="agent", role=Role.ASSISTANT, metadata=dict(meta), **part, **base)

    def _observations(self, s: dict[str, Any], meta: dict[str, Any], base: dict[str, Any]) -> None:
        obs = s.get("observation")
        if obs is None:
            return
        results = as_dict(obs).get("results")
        if not isinstance(results, list):
            self.ctx.error(f"{self.record} steps[{base['native_index']}].observation", imsg("atif_no_results"))
            return
        for j, res in enumerate(results):
            if not isinstance(res, dict):
                self.ctx.error(f"{self.record} steps[{base['native_index']}].observation.results[{j}]",
                               imsg("atif_result_not_object"))
                continue
            text = content_text(res.get("content"))
            call_id = str(res["source_call_id"]) if res.get("source_call_id") else None
            rmeta = {"atif_step_id": meta.get("atif_step_id")}
            ref = res.get("subagent_trajectory_ref")
            if ref:
                rmeta["subagent_trajectory_ref"] = ref
                self.subagent_refs.append(ref)
            err = output_error(text)
            self.add(agent="tool" if call_id else "environment", role=Role.TOOL if call_id else Role.ENVIRONMENT,
                     kind=StepKind.OBSERVATION, text=text, tool_name=self.tool_of_call.get(call_id or ""),
                     tool_call_id=call_id, is_error=err is not None, error_text=err, metadata=rmeta, **base)


def _final_message(steps: list[Any]) -> str | None:
    """The run's answer: the message of the last agent step, when that step calls no tool."""
    for s in reversed(steps):
        if not isinstance(s, dict) or str(s.get("source") or "agent") != "agent":
            continue
        calls = s.get("tool_calls")
        if isinstance(calls, list) and calls:
            return None
        text = content_text(s.get("message")).strip()
        return text or None
    return None


def to_trajectory(doc: Any, record: str, path: Path, ctx: ImportContext) -> Trajectory | None:
    """Convert one ATIF document; report and return None when its shape is wrong."""
    if not isinstance(doc, dict):
        ctx.error(record, imsg("atif_not_object", type=type(doc).__name__))
        return None
    version = doc.get("schema_version")
    if not isinstance(version, str) or not version.startswith("ATIF-v"):
        ctx.error(record, imsg("atif_version", version=repr(version)))
        return None
    steps_raw = doc.get("steps")
    if not isinstance(steps_raw, list):
        ctx.error(record, imsg("atif_no_steps"))
        return None
    b = _Builder(record, ctx)
    for i, s in enumerate(steps_raw):
        if not isinstance(s, dict):
            ctx.error(f"{record} steps[{i}]", imsg("atif_step_not_object", type=type(s).__name__))
            continue
        b.step(i, s)
    agent = as_dict(doc.get("agent"))
    meta: dict[str, Any] = {"schema_version": version}
    m = _VERSION_RE.match(version)
    if m is None or int(m.group(1)) > _MAX_KNOWN_MINOR:
        meta["version_note"] = f"{version} is newer than ATIF-v1.{_MAX_KNOWN_MINOR}; read as v1.{_MAX_KNOWN_MINOR}"
    for key in ("session_id", "trajectory_id", "notes", "continued_trajectory_ref"):
        if doc.get(key):
            meta[key] = doc[key]
    if agent:
        meta["agent"] = {k: v for k, v in agent.items() if k != "tool_definitions"}
    fm = as_dict(doc.get("final_metrics"))
    if fm:
        meta["final_metrics"] = fm
    subs = doc.get("subagent_trajectories")
    if isinstance(subs, list) and subs:
        meta["subagent_trajectories"] = [
            {"session_id": as_dict(t).get("session_id"), "agent": as_dict(as_dict(t).get("agent")).get("name"),
             "n_steps": len(steps) if isinstance(steps := as_dict(t).get("steps"), list) else 0} for t in subs]
    if b.subagent_refs:
        meta["subagent_refs"] = b.subagent_refs
    extra = as_dict(doc.get("extra"))
    planted = planted_of(extra, doc)
    if planted is not None:
        meta["planted"] = planted
    rest = {k: v for k, v in extra.items() if k != "planted"}
    if rest:
        meta["extra"] = rest
    trial = trial_result(path) if record == "$" else None
    trial_folder = path.parent.parent if path.parent.name == "agent" else path.parent
    ctrf = read_ctrf(trial_folder) if record == "$" else None
    if ctrf is not None:
        meta["failed_tests"] = ctrf.evidence()
    outcome, raw, score, source = _outcome(doc, path, trial, ctrf)
    model = agent.get("model_name") if isinstance(agent.get("model_name"), str) else b.first_model
    native = doc.get("session_id") or doc.get("trajectory_id")
    task_family = rest.get("task_family") or rest.get("dataset")
    task = (b.first_user or "").strip()
    if trial is not None:
        tdoc, where = trial
        meta["trial"] = _trial_meta(tdoc, where)
        model_info = as_dict(as_dict(tdoc.get("agent_info")).get("model_info"))
        if not model and isinstance(model_info.get("name"), str):
            model = model_info["name"]
        task_family = task_family or tdoc.get("source") or tdoc.get("task_name") or tdoc.get("task_id")
        if not task and isinstance(tdoc.get("instruction"), str):
            task = tdoc["instruction"].strip()
    return Trajectory(
        native_id=str(native) if native else None, record=record, task=task, model=model,
        framework=str(agent["name"]) if isinstance(agent.get("name"), str) else "atif",
        outcome=outcome, outcome_raw=raw, outcome_source=source, score=score, final_answer=_final_message(steps_raw),
        task_family=str(task_family) if isinstance(task_family, str) else None, metadata=meta, steps=b.steps,
        task_key=_trial_task_key(trial[0]) if trial is not None else None,
    )


def _trial_task_key(trial: dict[str, Any]) -> str | None:
    """The Harbor task a trial ran (``task_name``, qualified by its ``source`` dataset), or None."""
    name = trial.get("task_name") or trial.get("task_id")
    source = trial.get("source")
    return source_task_key(source if isinstance(source, str) and source else None, name)


class AtifImporter:
    """Reads ATIF trajectories (``schema_version`` ``ATIF-v1.x``)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims JSON/JSONL whose head declares an ``ATIF-v1.x`` schema version."""
        return first_json_char(head) in ("{", "[") and _SNIFF_RE.search(head) is not None

    def sniff_structure(self, shape: JsonShape, path: Path) -> bool:
        """Claims records whose ``schema_version`` is ``ATIF-v1.x``."""
        version = shape.value("schema_version")  # decisive: a file that says ATIF gets ATIF's errors
        return version is not None and version.startswith("ATIF-v1.")

    def near_miss(self, shape: JsonShape, path: Path) -> tuple[float, str] | None:
        """Names a record that has ATIF's ``steps`` and ``agent`` but no ``schema_version``."""
        if shape.has("steps", "agent", "session_id") and "schema_version" not in shape.record_keys:
            return 0.7, itext("near_atif_version")
        return None

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield the trajectories of an ATIF file."""
        if path.suffix.lower() in (".jsonl", ".ndjson"):
            for lineno, obj in iter_jsonl(path, ctx):
                t = ctx.guarded(f"line {lineno}", to_trajectory, obj, f"line {lineno}", path, ctx)
                if t is not None:
                    yield t
            return
        doc = read_json_document(path, records=("",))
        if isinstance(doc, list):
            for i, obj in enumerate(doc):
                t = ctx.guarded(f"[{i}]", to_trajectory, obj, f"[{i}]", path, ctx)
                if t is not None:
                    yield t
            return
        if not isinstance(doc, dict):
            raise ImportFailure(imsg("atif_shape"))
        t = ctx.guarded("$", to_trajectory, doc, "$", path, ctx)
        if t is not None:
            yield t
