"""tau-bench result files (``results/*.json`` written by ``run.py``).

A JSON list of ``{task_id, reward, info: {task: {user_id, instruction, actions, outputs},
reward_info, ...}, traj: [messages], trial}`` (or one such object, or JSONL with one per
line). ``traj`` holds OpenAI-style messages (system policy, user turns from the simulated
user, assistant tool calls, tool results), mapped to steps like the chat importer does.
``reward == 1`` is a success, anything else a failure; the expected actions are kept in
``metadata["expected_actions"]``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from analyzer.import_messages import imsg, wrap
from analyzer.loading.jsonio import (
    as_text,
    first_json_char,
    iter_records,
)
from analyzer.loading.structure import JsonShape, KeyRule
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Trajectory
from plugins.importers.chat import BadMessages, first_user_text, last_answer, messages_to_steps

_CONSUMED = frozenset({"task_id", "reward", "info", "traj", "metadata"})
_RULE = KeyRule("tau-bench results", all_of=("traj",), any_of=("task_id", "reward"),
                distinctive=("traj",))


def _reward(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
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
    return Trajectory(
        native_id=None if task_id is None else str(task_id),
        record=record,
        task=first_user_text(steps) or as_text(task.get("instruction")),
        model=next((str(m["model"]) for m in traj if isinstance(m, Mapping) and isinstance(m.get("model"), str)),
                   None),
        framework="tau-bench",
        outcome=outcome,
        outcome_raw=None if raw_reward is None else str(raw_reward),
        score=reward,
        final_answer=last_answer(steps),
        ground_truth=as_text(outputs) if outputs else None,
        task_family=f"tau-bench/{env}" if isinstance(env, str) and env else "tau-bench",
        metadata=meta,
        steps=steps,
    )


class TauBenchImporter:
    """Reads tau-bench result files."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims JSON/JSONL whose head has ``traj`` plus ``task_id`` or ``reward``."""
        if first_json_char(head) not in ("{", "["):
            return False
        return b'"traj"' in head and (b'"task_id"' in head or b'"reward"' in head)

    def sniff_structure(self, shape: JsonShape, path: Path) -> bool:
        """Claims files whose first record has a ``traj`` list plus ``task_id`` or ``reward``."""
        return _RULE.matches(shape.record_keys) and shape.kind("traj") in ("list", None)

    def near_miss(self, shape: JsonShape, path: Path) -> tuple[float, str] | None:
        """Names what a record with ``traj`` lacks."""
        return _RULE.near_miss(shape.record_keys)

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per result."""
        for record, obj in iter_records(path, ctx, imsg("tau_shape")):
            t = ctx.guarded(record, to_trajectory, obj, record, ctx)
            if t is not None:
                yield t
