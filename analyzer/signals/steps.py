"""One table of step signals per run: every step-level signal, computed once.

:func:`step_signals` classifies each step of a run once (kind, agent, what it does, what
answers it, what it claims) into a polars frame with one row per step and one column per
signal (:data:`STEP_SIGNAL_COLUMNS`, listed in ``docs/step_signals.md``). The detectors, the
ranker's features, the agent rule, the category chooser, the rationale and the value curve's
term matrix read their per-step facts from it instead of rescanning the steps with the helpers
of :mod:`analyzer.detection.text`; the values are those helpers' (a golden test keeps every
result bit-identical).

The table is computed by :func:`analyzer.pipeline.prepare_run` and carried on the
:class:`~analyzer.plugin_host.protocols.DetectionContext` (``step_table``); :func:`table_for`
returns it, or computes it when a consumer runs on its own (a third-party caller, a test).

The table knows nothing of how a signal is weighed (no import of :mod:`analyzer.attribution`).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from analyzer.detection.helpers import lexical_alignment
from analyzer.detection.text import (
    ASSUMPTION_RE,
    BRIEFING_CONTAINMENT,
    DONE_RE,
    RETRIEVAL_CLAIM_RE,
    REVISION_RE,
    VERIFY_RE,
    WORKAROUND_RE,
    action_signature,
    acts,
    agent_identity,
    code_blocks,
    content_words,
    echoes_prompt,
    entities,
    is_acting,
    is_decision,
    is_empty_output,
    is_handoff,
    is_input,
    is_observation,
    is_termination_only,
    list_items,
    runs_code,
    significant_numbers,
    strip_code,
    task_containment,
)
from analyzer.frames.columns import ColumnSpec
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.models import Step, Trajectory

ALIGN_WORDS_CHARS = 4000
"""Characters of a step whose content words ``content_words`` counts (the value curve's alignment
term reads the same head)."""

STEP_SIGNAL_COLUMNS: tuple[ColumnSpec, ...] = (
    ColumnSpec("step", pl.Int64, "Step index (0-based; the row's position)."),
    ColumnSpec("decision", pl.Boolean, "An agent decision: thought, action, tool call or message "
               "(`is_decision`)."),
    ColumnSpec("observation", pl.Boolean, "Tool or environment output (`is_observation`)."),
    ColumnSpec("input", pl.Boolean, "Task input: a user or system step (`is_input`)."),
    ColumnSpec("is_error", pl.Boolean, "The step is flagged as an error (the importer's `is_error`)."),
    ColumnSpec("agent", pl.Utf8, "The agent behind the step without a channel suffix (`agent_identity`)."),
    ColumnSpec("acts", pl.Boolean, "A decision that acts: a tool call, a code block or a ReAct/XML action "
               "section (`acts`)."),
    ColumnSpec("acting", pl.Boolean, "A decision that acts on the world: a tool call, an action or any code "
               "block (`is_acting`)."),
    ColumnSpec("runs_code", pl.Boolean, "A tool call, an action or runnable code; not a logged prompt or a "
               "JSON block (`runs_code`)."),
    ColumnSpec("handoff", pl.Boolean, "A tool call that only hands the conversation to another agent "
               "(`is_handoff`)."),
    ColumnSpec("echoes_prompt", pl.Boolean, "The text carries an output-format template: the step logs the "
               "prompt the model was given (`echoes_prompt`)."),
    ColumnSpec("briefing", pl.Boolean, "A leading step that only states the task: an input step, or one that "
               "restates most of it and runs nothing (`briefing_steps`)."),
    ColumnSpec("action_signature", pl.Utf8, "Normalised description of what a decision does (tool and "
               "arguments, or its code blocks); null when it does not act (`action_signature`)."),
    ColumnSpec("next_observation", pl.Int64, "Decisions: the tool output answering it (`next_observation`); "
               "null elsewhere or when none does."),
    ColumnSpec("source_decision", pl.Int64, "Observations: the decision whose action produced it "
               "(`source_decision`); null elsewhere."),
    ColumnSpec("unresolved_error", pl.Int64, "The first error output before this step that the run has not "
               "resolved by then (`unresolved_error`), else null."),
    ColumnSpec("empty_output", pl.Boolean, "Observations: the output carries (almost) no content "
               "(`is_empty_output`); false elsewhere."),
    ColumnSpec("task_containment", pl.Float64, "Share of the task's content words found in the step's text "
               "(`task_containment`; 0 without a task)."),
    ColumnSpec("lexical_alignment", pl.Float64, "Set-cosine 0-1 of the content words of the task and the step "
               "(`lexical_alignment`)."),
    ColumnSpec("content_words", pl.Int64, "Content words in the step's first 4000 characters."),
    ColumnSpec("text_len", pl.Int64, "Characters of the step's text."),
    ColumnSpec("prose_len", pl.Int64, "Decisions: characters of the text (first 50,000) without fenced code "
               "(the *prose* the claim columns read); 0 elsewhere."),
    ColumnSpec("assume", pl.Boolean, "Decisions: the text cues assumed, invented or placeholder data "
               "(`ASSUMPTION_RE`)."),
    ColumnSpec("verify", pl.Boolean, "Decisions: the prose claims something was checked (`VERIFY_RE`)."),
    ColumnSpec("done", pl.Boolean, "Decisions: the prose claims the task is done, or terminates or submits "
               "(`DONE_RE`)."),
    ColumnSpec("termination_only", pl.Boolean, "Decisions: the prose is a bare termination or acknowledgement "
               "(`is_termination_only`)."),
    ColumnSpec("retrieval_claim", pl.Boolean, "Decisions: the prose claims facts came from a source "
               "(`RETRIEVAL_CLAIM_RE`)."),
    ColumnSpec("revision", pl.Boolean, "Decisions: the prose changes or corrects the approach "
               "(`REVISION_RE`)."),
    ColumnSpec("workaround", pl.Boolean, "Decisions: the prose works around missing data or tools "
               "(`WORKAROUND_RE`)."),
    ColumnSpec("list_items", pl.Int64, "Decisions: enumerated or bulleted lines of the prose (`list_items`)."),
    ColumnSpec("new_numbers", pl.Int64, "Decisions: significant numbers of the text that neither the task nor "
               "an earlier step carries."),
    ColumnSpec("new_numbers_prose", pl.Int64, "Decisions: the same, counted in the prose only."),
    ColumnSpec("code_new_numbers", pl.Boolean, "Decisions: a code block holds a significant number neither the "
               "task nor an earlier step carries."),
    ColumnSpec("new_entities", pl.Int64, "Decisions: salient names, quoted strings and numbers of the prose "
               "that neither the task nor an earlier step carries (`entities`)."),
)
"""The columns of the step-signal table, in order: the one place that names and documents them
(``docs/step_signals.md`` is generated from it). Backquoted names are the helpers of
:mod:`analyzer.detection.text` (and :func:`~analyzer.detection.helpers.lexical_alignment`) whose
values the columns hold."""

STEP_SIGNAL_NAMES: tuple[str, ...] = tuple(c.name for c in STEP_SIGNAL_COLUMNS)
SCHEMA: dict[str, Any] = {c.name: c.dtype for c in STEP_SIGNAL_COLUMNS}


def _source_decisions(steps: Sequence[Step], dec: list[bool], obs: list[bool], act: list[bool]) -> list[int | None]:
    """:func:`~analyzer.detection.text.source_decision` of every observation, from the kind columns."""
    out: list[int | None] = [None] * len(steps)
    for j in range(len(steps)):
        if not obs[j]:
            continue
        latest: int | None = None
        found: int | None = None
        k = j - 1
        while k >= 0 and not obs[k]:
            if dec[k]:
                if act[k]:
                    found = steps[k].index
                    break
                if latest is None:
                    latest = steps[k].index
            k -= 1
        if found is None and latest is None:
            while k >= 0 and not dec[k]:
                k -= 1
            found = steps[k].index if k >= 0 else None
        out[j] = found if found is not None else latest
    return out


def _next_observations(steps: Sequence[Step], dec: list[bool], obs: list[bool], act: list[bool],
                       src: list[int | None]) -> list[int | None]:
    """:func:`~analyzer.detection.text.next_observation` of every decision, from the kind columns."""
    n = len(steps)
    out: list[int | None] = [None] * n
    for i in range(n):
        if not dec[i]:
            continue
        acting = act[i]
        for k in range(i + 1, n):
            if obs[k]:
                out[i] = steps[k].index if acting or src[k] == i else None
                break
            if dec[k] and (not acting or act[k]):
                break
    return out


def _unresolved_errors(steps: Sequence[Step], dec: list[bool], obs: list[bool], act: list[bool],
                       sigs: list[str | None]) -> list[int | None]:
    """:func:`~analyzer.detection.text.unresolved_error` at every step, in one pass.

    The outputs and their sources are :func:`~analyzer.detection.text.output_sources`'.
    """
    out: list[int | None] = [None] * len(steps)
    open_errors: dict[str, int] = {}
    unknown: int | None = None
    latest: int | None = None
    since: int | None = None
    since_acting: int | None = None
    for k, s in enumerate(steps):
        found = [*open_errors.values(), *([unknown] if unknown is not None else [])]
        out[k] = min(found) if found else None
        if dec[k]:
            latest = since = k
            since_acting = k if act[k] else since_acting
        elif obs[k]:
            src = since_acting if since_acting is not None else since if since is not None else latest
            since = since_acting = None
            sig = sigs[src] if src is not None else None
            if s.is_error:
                if sig is None:
                    unknown = s.index if unknown is None else unknown
                else:
                    open_errors.setdefault(sig, s.index)
            elif sig is not None:
                open_errors.pop(sig, None)
    return out


def step_signals(trajectory: Trajectory) -> pl.DataFrame:
    """The step-signal table of one run (:data:`STEP_SIGNAL_COLUMNS`), one row per step.

    Each classification helper of :mod:`analyzer.detection.text` is evaluated at most once per
    step; what depends on other steps (briefing, the output answering a decision, its source,
    unresolved errors, numbers and names no earlier step gave) is derived from those columns.
    """
    steps = trajectory.steps
    task = trajectory.task
    cols: dict[str, list[Any]] = {name: [] for name in STEP_SIGNAL_NAMES}
    dec = [is_decision(s) for s in steps]
    obs = [is_observation(s) for s in steps]
    act = [acts(s) if d else False for s, d in zip(steps, dec, strict=True)]
    sigs = [action_signature(s) if d else None for s, d in zip(steps, dec, strict=True)]
    src = _source_decisions(steps, dec, obs, act)
    seen_numbers = significant_numbers(task)
    seen_entities = entities(task)
    briefed = 0  # leading briefing steps so far (all steps before this one while it is open)
    briefing_open = True
    for k, s in enumerate(steps):
        d = dec[k]
        runs = runs_code(s) if d else False
        contained = task_containment(task, s.text) if task else 0.0
        inp = is_input(s)
        brief = briefing_open and (inp or (briefed == s.index and not runs and contained >= BRIEFING_CONTAINMENT))
        briefing_open = brief
        briefed += int(brief)
        text = s.text[:50000]
        prose = strip_code(text) if d else ""
        nums = significant_numbers(text)
        row: dict[str, Any] = {
            "step": s.index, "decision": d, "observation": obs[k], "input": inp, "is_error": bool(s.is_error),
            "agent": agent_identity(s), "acts": act[k], "acting": is_acting(s) if d else False, "runs_code": runs,
            "handoff": is_handoff(s), "echoes_prompt": echoes_prompt(s), "briefing": brief,
            "action_signature": sigs[k], "source_decision": src[k],
            "empty_output": is_empty_output(s.text) if obs[k] else False,
            "task_containment": contained, "lexical_alignment": lexical_alignment(task, s.text),
            "content_words": len(content_words(s.text[:ALIGN_WORDS_CHARS])), "text_len": len(s.text),
            "prose_len": len(prose),
        }
        if d:
            code_nums: set[str] = set()
            for c in code_blocks(text):
                code_nums |= significant_numbers(c)
            row.update({
                "assume": bool(ASSUMPTION_RE.search(text)), "verify": bool(VERIFY_RE.search(prose)),
                "done": bool(DONE_RE.search(prose)), "termination_only": is_termination_only(prose),
                "retrieval_claim": bool(RETRIEVAL_CLAIM_RE.search(prose)),
                "revision": bool(REVISION_RE.search(prose)), "workaround": bool(WORKAROUND_RE.search(prose)),
                "list_items": list_items(prose), "new_numbers": len(nums - seen_numbers),
                "new_numbers_prose": len(significant_numbers(prose) - seen_numbers),
                "code_new_numbers": bool(code_nums - seen_numbers),
                "new_entities": len(entities(prose) - seen_entities),
            })
        else:
            row.update(dict.fromkeys(("assume", "verify", "done", "termination_only", "retrieval_claim", "revision",
                                      "workaround", "code_new_numbers"), False))
            row.update(dict.fromkeys(("list_items", "new_numbers", "new_numbers_prose", "new_entities"), 0))
        for name, v in row.items():
            cols[name].append(v)
        seen_numbers |= nums
        seen_entities |= entities(text)
    cols["next_observation"] = _next_observations(steps, dec, obs, act, src)
    cols["unresolved_error"] = _unresolved_errors(steps, dec, obs, act, sigs)
    table = pl.DataFrame([pl.Series(name, cols[name], dtype=SCHEMA[name]) for name in STEP_SIGNAL_NAMES])
    _remember(table, cols)  # the consumers' per-step loops read these lists (columns_of)
    return table


def table_for(trajectory: Trajectory, ctx: DetectionContext | None = None,
              table: pl.DataFrame | None = None) -> pl.DataFrame:
    """The step-signal table of ``trajectory``: the one given or carried by ``ctx``, else a new one.

    A given table is used only when it is consistent with the run (one row per step, the
    documented columns); otherwise (or without one) the table is computed here, so every consumer
    also works on its own.
    """
    for have in (table, ctx.step_table if ctx is not None else None):
        if _consistent(have, len(trajectory.steps)):
            assert have is not None
            return have
    return step_signals(trajectory)


def with_table(trajectory: Trajectory, ctx: DetectionContext) -> DetectionContext:
    """``ctx`` carrying the run's step-signal table: itself when it carries a consistent one, else a copy with one.

    The detector runners call it once per run, so that detectors given a context without a table
    (a caller that did not compute one) do not each compute their own. When the table cannot be
    computed the context is returned as it is: each detector then fails on its own, as an error
    row, and the others still run.
    """
    if _consistent(ctx.step_table, len(trajectory.steps)):
        return ctx
    try:
        table = step_signals(trajectory)
    except Exception:  # a run the table cannot read: each detector meets the problem itself (an error row each)
        return ctx
    return replace(ctx, step_table=table)


_COLUMNS: dict[int, tuple[weakref.ref[pl.DataFrame], dict[str, list[Any]]]] = {}
"""The lists of :func:`columns_of`, by table (``id``; an entry goes when its table is freed)."""


def columns_of(table: pl.DataFrame) -> dict[str, list[Any]]:
    """The table's columns as Python lists (what a per-step loop reads), by name.

    The lists of one table are made once and shared by every consumer of the run (read them, never
    change them): a run's detectors, features, agent rule and rationale all read the same table.
    """
    hit = _COLUMNS.get(id(table))
    if hit is not None and hit[0]() is table:
        return hit[1]
    cols = {name: table.get_column(name).to_list() for name in table.columns}
    _remember(table, cols)
    return cols


def _remember(table: pl.DataFrame, cols: dict[str, list[Any]]) -> None:
    """Keep ``cols`` as :func:`columns_of`'s answer for ``table`` while the table lives."""
    key = id(table)

    def forget(_ref: weakref.ref[pl.DataFrame], key: int = key) -> None:
        entry = _COLUMNS.get(key)
        if entry is not None and entry[0] is _ref:
            del _COLUMNS[key]

    _COLUMNS[key] = (weakref.ref(table, forget), cols)


def _consistent(table: pl.DataFrame | None, n: int) -> bool:
    """Whether ``table`` is a step-signal table of a run of ``n`` steps (one row per step, the documented columns)."""
    return isinstance(table, pl.DataFrame) and table.height == n and tuple(table.columns) == STEP_SIGNAL_NAMES


def table_of_steps(steps: Sequence[Step], table: pl.DataFrame | None = None) -> pl.DataFrame:
    """:func:`table_for` for callers that hold only the steps.

    Their task is unknown: the task-dependent columns then read an empty task (the kind, agent and
    action columns do not depend on it).
    """
    if _consistent(table, len(steps)):
        assert table is not None
        return table
    return step_signals(Trajectory.model_construct(id="", task="", steps=list(steps)))


def steps_markdown() -> str:
    """``docs/step_signals.md``: the documented column list, generated from :data:`STEP_SIGNAL_COLUMNS`."""
    lines = [
        "# Step signals",
        "",
        "<!-- Generated from analyzer/signals/steps.py (STEP_SIGNAL_COLUMNS): run",
        "`PYTHONPATH=$PWD python -m analyzer.signals.steps > docs/step_signals.md`; a test keeps them equal. -->",
        "",
        "One table per run, one row per step, computed once by `analyzer.signals.steps.step_signals` "
        "(`prepare_run` carries it on the detection context as `step_table`). The detectors, the ranker's "
        "feature columns (`analyzer.attribution.features`), the agent rule, the category chooser, the rationale "
        "and the value curve's term matrix read these columns instead of re-classifying the steps. Names in "
        "backquotes in the descriptions are the helpers of `analyzer/detection/text.py` whose values the "
        "columns hold.",
        "",
        "| column | type | what it holds |",
        "|---|---|---|",
    ]
    for c in STEP_SIGNAL_COLUMNS:
        dtype = c.dtype if isinstance(c.dtype, type) else type(c.dtype)
        doc = c.doc.replace("|", r"\|")
        lines.append(f"| `{c.name}` | {dtype.__name__} | {doc} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(steps_markdown(), end="")
