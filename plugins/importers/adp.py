"""Agent Data Protocol (ADP) standardized trajectories (neulab/agent-data-protocol).

A ``.json`` file holds one trajectory or a list of them (the repository's ``sample_std.json``);
a ``.jsonl`` file one per line. A trajectory is ``{"schema_version", "id", "content": [...],
"details": {...}}`` (plus optional ``available_apis`` / ``available_custom_tools`` /
``available_code_languages``). Each ``content`` item has a ``class_``:

* ``text_observation`` (``content``, ``source`` user/agent/environment, ``name``): a ``user``
  step from the user, an agent ``message`` from the agent, an ``observation`` from the
  environment (a tool result when it carries the action's ``tool_call_id``), flagged as an
  error by the output heuristics the other agent importers share (tracebacks, exit codes ...);
* ``image_observation`` / ``web_observation``: an ``observation`` (image path; URL plus
  accessibility tree or HTML);
* ``api_action`` (``function``, ``kwargs``): a ``tool_call``; ``code_action`` (``language``,
  ``content``): a ``tool_call`` whose tool is the language and whose argument is the code;
  ``message_action`` (``content``): an agent ``message``.

An action's ``reasoning_content`` becomes a ``thought`` step before it; its ``description``
is the call's text (a ``thought`` for a message action). Per-step ``reward`` values are kept
in step metadata. Early ADP files used ``TextObservation``/``MessageAction`` class names with
``text``/``message``/``thoughts`` fields; both spellings are read. ``native_step_id`` is
``content[i]``. Outcome: ``details`` ``success``/``resolved``/``reward``/``score`` when present,
else unknown. A content item of unknown class is reported and skipped; the run is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from analyzer.import_messages import imsg
from analyzer.loading.jsonio import args_text, as_text, first_json_char, iter_records
from analyzer.loading.structure import JsonShape, KeyRule
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory
from plugins.importers.swe_agent import as_dict, opt_float, output_error, truthy

_CLASSES = {
    "textobservation": "text_observation", "imageobservation": "image_observation",
    "webobservation": "web_observation", "apiaction": "api_action", "codeaction": "code_action",
    "messageaction": "message_action",
}
_SNIFF_RE = re.compile(rb'"class_"\s*:\s*"(?:text_observation|api_action|code_action|message_action|'
                       rb'image_observation|web_observation|TextObservation|MessageAction)"')
_RULE = KeyRule("an ADP trajectory", all_of=("id", "content"), distinctive=("content", "details"))
_CONSUMED = frozenset({"id", "content", "details", "schema_version"})
_WEB_TEXT_CHARS = 20000


def class_of(item: dict[str, Any]) -> str | None:
    """Canonical ``class_`` of a content item (``TextObservation`` -> ``text_observation``), or None."""
    raw = item.get("class_")
    if not isinstance(raw, str):
        return None
    return _CLASSES.get(raw.replace("_", "").lower())


def _text(item: dict[str, Any], *keys: str) -> str:
    for key in keys:
        if item.get(key) is not None:
            return as_text(item[key])
    return ""


class _Builder:
    def __init__(self, record: str, ctx: ImportContext) -> None:
        self.record = record
        self.ctx = ctx
        self.steps: list[Step] = []
        self.tool_of_call: dict[str, str] = {}
        self.first_user: str | None = None
        self.final_answer: str | None = None

    def add(self, i: int, **kw: Any) -> None:
        self.steps.append(Step(index=len(self.steps), native_index=i, native_step_id=f"content[{i}]", **kw))

    def item(self, i: int, item: Any) -> None:
        where = f"{self.record} content[{i}]"
        if not isinstance(item, dict):
            self.ctx.error(where, imsg("adp_content_not_object", type=type(item).__name__))
            return
        cls = class_of(item)
        if cls is None:
            self.ctx.error(where, imsg("adp_unknown_class", cls=repr(item.get('class_'))))
            return
        meta: dict[str, Any] = {"class": cls}
        reward = opt_float(item.get("reward"))
        if reward is not None:
            meta["reward"] = reward
        call_id = str(item["tool_call_id"]) if item.get("tool_call_id") not in (None, "") else None
        if cls.endswith("_observation"):
            self._observation(i, cls, item, call_id, meta)
            return
        agent = str(item.get("name") or "agent")
        reasoning = _text(item, "reasoning_content")
        if reasoning.strip():
            self.add(i, agent=agent, role=Role.ASSISTANT, kind=StepKind.THOUGHT, text=reasoning, metadata=dict(meta))
        description = _text(item, "description", "thoughts", "thought")
        if cls == "message_action":
            if description.strip():
                self.add(i, agent=agent, role=Role.ASSISTANT, kind=StepKind.THOUGHT, text=description,
                         metadata=dict(meta))
            text = _text(item, "content", "message")
            self.final_answer = text or self.final_answer
            self.add(i, agent=agent, role=Role.ASSISTANT, kind=StepKind.MESSAGE, text=text, metadata=meta)
            return
        if cls == "api_action":
            name = str(item.get("function") or "api")
            args = args_text(item.get("kwargs") if item.get("kwargs") is not None else {})
        else:
            language = str(item.get("language") or "code")
            name, args = language, args_text({"code": _text(item, "content", "code")})
        if call_id:
            self.tool_of_call[call_id] = name
        self.add(i, agent=agent, role=Role.ASSISTANT, kind=StepKind.TOOL_CALL, text=description, tool_name=name,
                 tool_args=args, tool_call_id=call_id, metadata=meta)

    def _observation(self, i: int, cls: str, item: dict[str, Any], call_id: str | None,
                     meta: dict[str, Any]) -> None:
        source = str(item.get("source") or "environment")
        name = item.get("name") if isinstance(item.get("name"), str) and item.get("name") else None
        if cls == "image_observation":
            text = f"[image: {_text(item, 'content') or 'inline'}]"
        elif cls == "web_observation":
            parts = [f"URL: {item['url']}"] if item.get("url") else []
            body = _text(item, "axtree") or _text(item, "html")
            parts.append(body[:_WEB_TEXT_CHARS])
            text = "\n".join(p for p in parts if p)
        else:
            text = _text(item, "content", "text")
        meta["source"] = source
        if source == "user" and not call_id:
            if self.first_user is None and text.strip():
                self.first_user = text
            self.add(i, agent=name or "user", role=Role.USER, kind=StepKind.USER, text=text, metadata=meta)
        elif source == "agent" and not call_id:
            self.add(i, agent=name or "agent", role=Role.ASSISTANT, kind=StepKind.MESSAGE, text=text, metadata=meta)
        else:
            err = output_error(text) if cls == "text_observation" else None
            self.add(i, agent=name or ("tool" if call_id else "environment"),
                     role=Role.TOOL if call_id else Role.ENVIRONMENT, kind=StepKind.OBSERVATION, text=text,
                     tool_call_id=call_id, tool_name=self.tool_of_call.get(call_id or ""),
                     is_error=err is not None, error_text=err, metadata=meta)


def _outcome(details: dict[str, Any]) -> tuple[Outcome, str | None, float | None]:
    for key in ("success", "resolved", "is_resolved", "correct"):
        flag = truthy(details.get(key)) if key in details else None
        if flag is not None:
            return (Outcome.SUCCESS if flag else Outcome.FAILURE), f"{key}={details[key]}", 1.0 if flag else 0.0
    for key in ("reward", "score"):
        value = opt_float(details.get(key))
        if value is not None:
            return (Outcome.SUCCESS if value >= 1.0 else Outcome.FAILURE), f"{key}={details[key]}", value
    return Outcome.UNKNOWN, None, None


def to_trajectory(obj: Any, record: str, ctx: ImportContext) -> Trajectory | None:
    """Convert one ADP trajectory; report problems through ``ctx`` and return None."""
    if not isinstance(obj, dict):
        ctx.error(record, imsg("adp_not_object", type=type(obj).__name__))
        return None
    content = obj.get("content")
    if not isinstance(content, list):
        ctx.error(record, imsg("adp_no_content" if content is None else "adp_content_not_list"))
        return None
    b = _Builder(record, ctx)
    for i, item in enumerate(content):
        if ctx.cancel.cancelled:
            return None
        b.item(i, item)
    if not b.steps:
        ctx.error(record, imsg("adp_content_empty"))
        return None
    details = as_dict(obj.get("details"))
    meta: dict[str, Any] = {k: v for k, v in obj.items() if k not in _CONSUMED}
    if details:
        meta["details"] = details
    if isinstance(obj.get("schema_version"), str):
        meta["adp_schema_version"] = obj["schema_version"]
    planted = details.get("planted")
    if planted is not None:
        meta["planted"] = planted
    outcome, raw, score = _outcome(details)
    native = obj.get("id")
    family = details.get("dataset") or details.get("task_type")
    model = details.get("model")
    return Trajectory(
        native_id=str(native) if native is not None else None, record=record, task=(b.first_user or "").strip(),
        model=str(model) if isinstance(model, str) else None, framework="adp", outcome=outcome, outcome_raw=raw,
        score=score, final_answer=b.final_answer, task_family=str(family) if isinstance(family, str) else None,
        metadata=meta, steps=b.steps,
    )


class AdpImporter:
    """Reads ADP standardized trajectories (JSON object, list, or JSONL)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims heads with ``"id"``, ``"content"`` and an ADP ``class_`` value."""
        return (first_json_char(head) in ("{", "[") and b'"content"' in head and b'"id"' in head
                and _SNIFF_RE.search(head) is not None)

    def sniff_structure(self, shape: JsonShape, path: Path) -> bool:
        """Claims records with ``id`` and a ``content`` list whose first item has ``class_``."""
        return _RULE.matches(shape.record_keys) and shape.kind("content") == "list" \
            and "class_" in shape.child("content")

    def near_miss(self, shape: JsonShape, path: Path) -> tuple[float, str] | None:
        """Names what a record with an ADP ``content`` list lacks."""
        if "class_" not in shape.child("content"):
            return None
        return _RULE.near_miss(shape.record_keys)

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield one trajectory per ADP record."""
        for record, obj in iter_records(path, ctx, imsg("adp_shape")):
            try:
                t = to_trajectory(obj, record, ctx)
            except (TypeError, ValueError, AttributeError, KeyError) as exc:  # a bad record costs only itself
                ctx.error(record, imsg("adp_unreadable", error=f"{type(exc).__name__}: {exc}"))
                continue
            if t is not None:
                yield t
