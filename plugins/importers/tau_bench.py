"""tau-bench result files (``results/*.json`` written by ``run.py``).

A JSON list of ``{task_id, reward, info: {task: {user_id, instruction, actions, outputs},
reward_info, ...}, traj: [messages], trial}`` (or one such object, or JSONL with one per
line). ``traj`` holds OpenAI-style messages (system policy, user turns from the simulated
user, assistant tool calls, tool results), mapped to steps like the chat importer does.
``reward == 1`` is a success, anything else a failure; the expected actions are kept in
``metadata["expected_actions"]``.

tau2-bench results (``Results.save``: ``{"timestamp", "info", "tasks", "simulations"}``) give
one run per ``simulations[i]`` (``SimulationRun``: ``id``, ``task_id``, ``trial``, ``seed``,
``messages``, ``reward_info.reward``, ``termination_reason``, ``agent_cost``/``user_cost``,
``duration``). Its messages are ``system``/``user``/``assistant``/``tool``; tool calls are
``{id, name, arguments: {...}, requestor}`` (a ``user``-requested call, as in the telecom domain,
is a ``tool_call`` of agent ``user``) and a tool message answers the call of the same ``id``,
its ``error`` flag marking the error. ``reward_info.reward`` 1 is a success, anything else a
failure (no reward: unknown). The task is the ``reason_for_call`` of the task's
``user_scenario.instructions`` (the whole instructions when they are plain text; else the
first user message); the task's expected ``evaluation_criteria.actions`` go to
``metadata["expected_actions"]``; the model is ``info.agent_info.llm`` and the task family
``tau2-bench/<environment_info.domain_name>``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from analyzer.import_messages import imsg, wrap
from analyzer.loading.jsonio import (
    as_text,
    finite_float,
    first_json_char,
    iter_records,
)
from analyzer.loading.structure import JsonShape, KeyRule
from analyzer.loading.task_key import source_task_key
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Role, Trajectory
from analyzer.schema.outcome_source import OutcomeSource
from plugins.importers.chat import BadMessages, first_user_text, last_answer, messages_to_steps

_CONSUMED = frozenset({"task_id", "reward", "info", "traj", "metadata"})
_RULE = KeyRule("tau-bench results", all_of=("traj",), any_of=("task_id", "reward"),
                distinctive=("traj",))


def _reward(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return finite_float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def to_trajectory(obj: Any, record: str, ctx: ImportContext) -> Trajectory | None:
    """Convert one tau-bench result; report problems through ``ctx`` and return None."""
    if not isinstance(obj, Mapping):
        ctx.error(record, imsg("tau_not_object"))
        return None
    traj = obj.get("traj")
    if not isinstance(traj, list):
        ctx.error(record, imsg("tau_no_traj" if traj is None else "tau_traj_not_list"))
        return None
    try:
        steps = messages_to_steps(traj, "traj")
    except BadMessages as exc:
        ctx.error(record, wrap("tau_run_skipped", exc.message))
        return None
    if not steps:
        ctx.error(record, imsg("tau_traj_empty"))
        return None
    raw_info = obj.get("info")
    info: Mapping[str, Any] = raw_info if isinstance(raw_info, Mapping) else {}
    raw_task = info.get("task")
    task: Mapping[str, Any] = raw_task if isinstance(raw_task, Mapping) else {}
    meta: dict[str, Any] = {}
    extra = obj.get("metadata")
    if isinstance(extra, Mapping):
        meta.update(extra)
    meta.update({k: v for k, v in obj.items() if k not in _CONSUMED})
    if "actions" in task:
        meta["expected_actions"] = task["actions"]
    if "outputs" in task:
        meta["expected_outputs"] = task["outputs"]
    if "user_id" in task:
        meta["user_id"] = task["user_id"]
    if "instruction" in task:
        meta["user_instruction"] = task["instruction"]
    for key, value in info.items():
        if key != "task":
            meta[key] = value
    raw_reward = obj.get("reward")
    reward = _reward(raw_reward)
    if reward is None:
        outcome = Outcome.UNKNOWN
    else:
        outcome = Outcome.SUCCESS if reward >= 1.0 else Outcome.FAILURE
    task_id = obj.get("task_id")
    env = info.get("env") or obj.get("env")
    outputs = task.get("outputs")
    family = f"tau-bench/{env}" if isinstance(env, str) and env else "tau-bench"
    return Trajectory(
        native_id=None if task_id is None else str(task_id),
        record=record,
        task=first_user_text(steps) or as_text(task.get("instruction")),
        model=next((str(m["model"]) for m in traj if isinstance(m, Mapping) and isinstance(m.get("model"), str)),
                   None),
        framework="tau-bench",
        outcome=outcome,
        outcome_raw=None if raw_reward is None else str(raw_reward),
        outcome_source=None if reward is None else str(OutcomeSource.TAU_BENCH_REWARD),
        score=reward,
        final_answer=last_answer(steps),
        ground_truth=as_text(outputs) if outputs else None,
        task_family=family,
        task_key=source_task_key(family, task_id),
        metadata=meta,
        steps=steps,
    )


# ---- tau2-bench -----------------------------------------------------------------------------

_TAU2_CONSUMED = frozenset({"id", "task_id", "messages", "reward_info", "states", "ticks"})


def _tau2_messages(messages: list[Any]) -> tuple[list[Any], set[int]]:
    """tau2 messages in the chat importer's shape, and the indices of user-requested tool calls.

    A tool message answers the call with its ``id``; a user message with ``tool_calls`` is read as
    an assistant message (its steps are given back to the user afterwards).
    """
    out: list[Any] = []
    user_calls: set[int] = set()
    for i, m in enumerate(messages):
        if not isinstance(m, Mapping):
            out.append(m)
            continue
        role = m.get("role")
        if role == "tool" and m.get("tool_call_id") is None and m.get("id") is not None:
            m = {**m, "tool_call_id": m["id"]}
        elif role == "user" and isinstance(m.get("tool_calls"), list) and m["tool_calls"]:
            m = {**m, "role": "assistant", "name": "user"}
            user_calls.add(i)
        out.append(m)
    return out, user_calls


def _tau2_task_text(task: Mapping[str, Any]) -> tuple[str, Any]:
    """``(task text, instructions)`` from a tau2 task's ``user_scenario.instructions``."""
    scenario = task.get("user_scenario")
    instructions = scenario.get("instructions") if isinstance(scenario, Mapping) else None
    if isinstance(instructions, str):
        return instructions.strip(), instructions
    if isinstance(instructions, Mapping):
        reason = instructions.get("reason_for_call")
        return (reason.strip() if isinstance(reason, str) else ""), instructions
    return "", None


def tau2_trajectory(sim: Any, record: str, info: Mapping[str, Any], tasks: Mapping[str, Mapping[str, Any]],
                    ctx: ImportContext) -> Trajectory | None:
    """Convert one tau2-bench ``SimulationRun``; report problems through ``ctx`` and return None."""
    if not isinstance(sim, Mapping):
        ctx.error(record, imsg("generic_not_object", type=type(sim).__name__))
        return None
    raw = sim.get("messages")
    if not isinstance(raw, list):
        ctx.error(record, imsg("chat_no_messages" if raw is None else "chat_messages_not_list"))
        return None
    messages, user_calls = _tau2_messages(raw)
    try:
        steps = messages_to_steps(messages, "messages")
    except BadMessages as exc:
        ctx.error(record, wrap("chat_run_skipped", exc.message))
        return None
    if not steps:
        ctx.error(record, imsg("chat_messages_empty"))
        return None
    for st in steps:
        if st.native_index in user_calls:
            st.agent, st.role = "user", Role.USER
            st.metadata = {**st.metadata, "requestor": "user"}
    task_id = sim.get("task_id")
    task = tasks.get(str(task_id), {}) if task_id is not None else {}
    task_text, instructions = _tau2_task_text(task)
    reward_info = sim.get("reward_info")
    rinfo: Mapping[str, Any] = reward_info if isinstance(reward_info, Mapping) else {}
    reward = _reward(rinfo.get("reward"))
    outcome = Outcome.UNKNOWN if reward is None else (Outcome.SUCCESS if reward >= 1.0 else Outcome.FAILURE)
    meta: dict[str, Any] = {k: v for k, v in sim.items() if k not in _TAU2_CONSUMED}
    if task_id is not None:
        meta["task_id"] = task_id
    if rinfo:
        meta["reward_info"] = {k: v for k, v in rinfo.items() if k != "reward"}
    if instructions is not None:
        meta["user_instructions"] = instructions
    criteria = task.get("evaluation_criteria")
    expected = criteria.get("actions") if isinstance(criteria, Mapping) else None
    if expected:
        meta["expected_actions"] = expected
    communicate = criteria.get("communicate_info") if isinstance(criteria, Mapping) else None
    agent_info, user_info, env_info = (_mapping(info.get(k)) for k in ("agent_info", "user_info", "environment_info"))
    if isinstance(user_info.get("llm"), str):
        meta["user_llm"] = user_info["llm"]
    if isinstance(agent_info.get("implementation"), str):
        meta["agent_implementation"] = agent_info["implementation"]
    domain = env_info.get("domain_name")
    model = agent_info.get("llm")
    family = f"tau2-bench/{domain}" if isinstance(domain, str) and domain else "tau2-bench"
    return Trajectory(
        native_id=str(sim["id"]) if sim.get("id") is not None else None,
        record=record,
        task=task_text or first_user_text(steps),
        model=str(model) if isinstance(model, str) and model else None,
        framework="tau2-bench",
        outcome=outcome,
        outcome_raw=None if reward is None else str(rinfo.get("reward")),
        outcome_source=None if reward is None else str(OutcomeSource.TAU_BENCH_REWARD),
        score=reward,
        final_answer=last_answer(steps),
        ground_truth="\n".join(str(c) for c in communicate) if isinstance(communicate, list) and communicate else None,
        task_family=family,
        task_key=source_task_key(family, task_id),
        metadata=meta,
        steps=steps,
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _is_tau2(obj: Any) -> bool:
    return isinstance(obj, Mapping) and "simulations" in obj and ("tasks" in obj or "info" in obj)


def tau2_runs(doc: Mapping[str, Any], record: str, ctx: ImportContext) -> Iterator[Trajectory]:
    """The runs of one tau2-bench ``Results`` document (``record`` locates the document)."""
    sims = doc.get("simulations")
    if not isinstance(sims, list):
        ctx.error(record, imsg("tau_shape"))
        return
    info = _mapping(doc.get("info"))
    tasks: dict[str, Mapping[str, Any]] = {}
    raw_tasks = doc.get("tasks")
    for t in raw_tasks if isinstance(raw_tasks, list) else []:  # a damaged task list costs the task texts only
        if isinstance(t, Mapping) and t.get("id") is not None:
            tasks[str(t["id"])] = t
    prefix = "" if record == "$" else f"{record} "
    for i, sim in enumerate(sims):
        if ctx.cancel.cancelled:
            return
        where = f"{prefix}simulations[{i}]"
        t = ctx.guarded(where, tau2_trajectory, sim, where, info, tasks, ctx)
        if t is not None:
            yield t


class TauBenchImporter:
    """Reads tau-bench result files."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims heads with ``traj`` plus ``task_id`` or ``reward``, or ``simulations`` + ``tasks``."""
        if first_json_char(head) not in ("{", "["):
            return False
        if b'"simulations"' in head and b'"tasks"' in head:
            return True
        return b'"traj"' in head and (b'"task_id"' in head or b'"reward"' in head)

    def sniff_structure(self, shape: JsonShape, path: Path) -> bool:
        """Claims tau-bench records (``traj`` + ``task_id``/``reward``) and tau2-bench results.

        tau2: a ``simulations`` list (of runs with ``messages``) beside ``tasks`` or ``info``.
        """
        if shape.kind("simulations") == "list" and shape.has_any("tasks", "info"):
            return "messages" in shape.child("simulations") or not shape.child("simulations")
        return _RULE.matches(shape.record_keys) and shape.kind("traj") in ("list", None)

    def near_miss(self, shape: JsonShape, path: Path) -> tuple[float, str] | None:
        """Names what a record with ``traj`` lacks."""
        return _RULE.near_miss(shape.record_keys)

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per result."""
        for record, obj in iter_records(path, ctx, imsg("tau_shape"), records=("", "simulations")):
            if _is_tau2(obj):
                yield from tau2_runs(obj, record, ctx)
                continue
            t = ctx.guarded(record, to_trajectory, obj, record, ctx)
            if t is not None:
                yield t
