"""Adapters of the labelled development sets: each reads one set as it lies on disk.

Every adapter returns a :class:`LabelledSet`: the runs as the normal loader imports them
(so the analysis sees exactly what an analyst would open), their gold labels re-expressed
on the imported steps, and one :class:`~analyzer.evaluation.scoring.Gold` per labelled
record (a label whose file is missing or unreadable still counts, as a miss).

The sets and their scoring rules (each set's README in ``shared/datasets/`` has the source):

``who-and-when``
    Who&When Algorithm-Generated: one JSON per failed AG2 group chat; ``mistake_step`` is a
    0-based index into ``history`` (= the imported step index), ``mistake_agent`` an agent name.
``tracertraj-code``
    TracerTraj-Code (MetaGPT software team): Who&When-shaped files without ``is_correct``;
    every run failed. Same scoring.
``agenterrorbench-gaia``
    AgentErrorBench GAIA slice: ``GAIA/<trajectory_id>.json`` chat transcripts plus
    ``gaia_labels.json``. ``critical_failure_step`` k is the k-th assistant message (1-based);
    it is mapped to the imported step of that message. The failure module (and its failure
    type) maps onto the taxonomy with :data:`GAIA_CATEGORY_MAP`. Single agent: no agent metric.
``trail-gaia`` / ``trail-swe``
    TRAIL (Patronus AI): OpenInference span trees (``traces/{gaia,swe_bench}/<trace_id>.json``)
    read by the OpenTelemetry importer, plus ``labels_{gaia,swe_bench}.jsonl``. A step is scored
    by its span (``native_step_id``): every step of a span stands for the span
    (:attr:`LabelledSet.canonical`), so ``step@1`` is TRAIL's ``first@1`` (the decisive step's
    span is ``first_error_location``) and ``loc@1`` counts any annotated error span
    (:attr:`LabelledSet.alternatives`). A label whose trace file is missing, or whose first
    error span holds no step, counts as a miss. No agent labels: no agent metric. The first
    error's category maps onto the taxonomy with :data:`TRAIL_CATEGORY_MAP`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from analyzer.evaluation.scoring import Gold
from analyzer.taxonomy import Category

GAIA_CATEGORY_MAP: dict[tuple[str, str], Category] = {
    ("planning", "*"): Category.PLANNING_ERROR,
    ("memory", "hallucination"): Category.ERROR_ACCUMULATION,
    ("memory", "over_simplification"): Category.GOAL_DRIFT,
    ("memory", "*"): Category.ERROR_ACCUMULATION,
    ("reflection", "outcome_misinterpretation"): Category.FALSE_SUCCESS,
    ("reflection", "progress_misjudge"): Category.FAILED_RECOVERY,
    ("reflection", "*"): Category.FAILED_RECOVERY,
    ("action", "misalignment"): Category.EVIDENCE_ACTION_GAP,
    ("action", "parameter_error"): Category.HALLUCINATION,
    ("action", "*"): Category.EVIDENCE_ACTION_GAP,
    ("system", "*"): Category.ENVIRONMENT_FAILURE,
}
"""AgentErrorBench (module, failure type) -> taxonomy category; ``*`` is the module's default.

Failure types are normalised by strip + casefold first (the labels have spelling variants).
``memory``: a hallucinated memory is an error carried forward (error accumulation); an
over-simplified memory drops what the task asked for (goal drift). ``reflection``: a
misread outcome taken as done is a false success; a misjudged progress is a failed recovery.
``action``: an action that ignores what was found is an evidence-to-action gap; wrong tool
parameters are hallucinated tool use. ``system``: environment failure."""


def gaia_category(module: str, failure_type: str | None) -> str:
    """Taxonomy id of an AgentErrorBench failure module and type (see :data:`GAIA_CATEGORY_MAP`)."""
    m = module.strip().casefold()
    t = (failure_type or "").strip().casefold()
    cat = GAIA_CATEGORY_MAP.get((m, t)) or GAIA_CATEGORY_MAP.get((m, "*")) or Category.OTHER
    return cat.value


TRAIL_CATEGORY_MAP: dict[str, Category] = {
    "language-only": Category.HALLUCINATION,
    "tool-related": Category.HALLUCINATION,
    "poor information retrieval": Category.EVIDENCE_ACTION_GAP,
    "tool output misinterpretation": Category.EVIDENCE_ACTION_GAP,
    "incorrect problem identification": Category.PLANNING_ERROR,
    "tool selection errors": Category.PLANNING_ERROR,
    "instruction non-compliance": Category.PLANNING_ERROR,
    "task orchestration": Category.PLANNING_ERROR,
    "goal deviation": Category.GOAL_DRIFT,
    "context handling failures": Category.ERROR_ACCUMULATION,
    "resource abuse": Category.REPEATED_ACTION,
    "tool definition issues": Category.ENVIRONMENT_FAILURE,
    "environment setup errors": Category.ENVIRONMENT_FAILURE,
    "rate limiting": Category.ENVIRONMENT_FAILURE,
    "authentication errors": Category.ENVIRONMENT_FAILURE,
    "service errors": Category.ENVIRONMENT_FAILURE,
    "resource not found": Category.ENVIRONMENT_FAILURE,
    "resource exhaustion": Category.ENVIRONMENT_FAILURE,
    "timeout issues": Category.ENVIRONMENT_FAILURE,
    "formatting errors": Category.OTHER,
}
"""TRAIL's 20 leaf categories (case and spaces normalised) -> taxonomy category.

Read from the "maps to" column of the shared taxonomy (``design/TAXONOMY.md``), not from any
result: TRAIL's two hallucination leaves are hallucinations; poor retrieval and tool-output
misinterpretation are the evidence-to-action gap; decision-making leaves (a wrong problem, a
wrong tool, an ignored instruction: "a needed constraint was ignored") and task orchestration
are planning errors; goal deviation is goal drift; context handling is error accumulation;
resource abuse is repeated action; every system-execution leaf is an environment failure.
Formatting errors (an output that breaks the required format) have no taxonomy category:
``other``. A leaf not in the table is ``other`` too."""


def trail_category(name: str | None) -> str | None:
    """Taxonomy id of a TRAIL leaf category (see :data:`TRAIL_CATEGORY_MAP`); None stays None."""
    if name is None:
        return None
    key = " ".join(str(name).split()).casefold()
    return TRAIL_CATEGORY_MAP.get(key, Category.OTHER).value


@dataclass
class LabelledSet:
    """One development set, imported and labelled.

    Attributes:
        name: Dataset id (``who-and-when`` ...).
        traces: Traces frame with ``gold_decisive_step``/``gold_decisive_agent`` set on the imported steps.
        steps: Steps frame.
        golds: One gold label per labelled record, keyed like the predictions (file name).
        categories: Gold taxonomy category per record key, where the set has categories.
        multi_agent: Whether the agent metric applies.
        load_errors: Files or records that failed to load (their labels count as misses).
        canonical: Per record key, the step that stands for each step (its span's first step),
            where a set scores spans rather than steps (TRAIL); absent: every step is its own.
        alternatives: Per record key, every labelled error step (canonical), where the set
            annotates more than the first error (TRAIL's ``loc@k``).
        keys: Record key per trace id, where a file holds several runs (default: the file name).
        training_only: Runs with planted failures: used to choose and fit, never scored as a
            held-out system.
    """

    name: str
    traces: pl.DataFrame
    steps: pl.DataFrame
    golds: list[Gold]
    categories: dict[str, str] = field(default_factory=dict)
    multi_agent: bool = True
    load_errors: list[str] = field(default_factory=list)
    canonical: dict[str, list[int]] = field(default_factory=dict)
    alternatives: dict[str, set[int]] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    training_only: bool = False


def _load(paths: Sequence[Path]) -> Any:
    from analyzer.loading import load

    return load(list(paths))


def _who_and_when_shaped(name: str, path: Path, multi_agent: bool = True) -> LabelledSet:
    from analyzer.evaluation.harness import golds_from_traces

    res = _load([path])
    traces = res.traces.with_columns(pl.lit("failure").alias("outcome"))
    failed = [e.file for e in res.errors if e.record is None]
    golds = golds_from_traces(traces, failed)
    return LabelledSet(name, traces, res.steps, golds, {}, multi_agent, [str(e) for e in res.errors])


def load_who_and_when(path: Path) -> LabelledSet:
    """Who&When (a folder of its JSON files, or the files)."""
    return _who_and_when_shaped("who-and-when", path)


def load_tracertraj_code(path: Path) -> LabelledSet:
    """TracerTraj-Code (the set's folder or its ``runs/`` folder); every run failed."""
    runs = path / "runs" if (path / "runs").is_dir() else path
    return _who_and_when_shaped("tracertraj-code", runs)


def load_agenterrorbench_gaia(path: Path) -> LabelledSet:
    """AgentErrorBench GAIA: ``GAIA/*.json`` transcripts + ``gaia_labels.json`` in ``path``."""
    labels_file = path / "gaia_labels.json"
    if not labels_file.is_file():
        raise FileNotFoundError(f"{labels_file}: the AgentErrorBench labels file is missing")
    labels = orjson.loads(labels_file.read_bytes())
    runs_dir = path / "GAIA" if (path / "GAIA").is_dir() else path
    res = _load([runs_dir])
    traces, steps = res.traces, res.steps
    by_stem = {Path(f).stem: i for i, f in enumerate(traces["source_file"].to_list())}
    gold_step: list[int | None] = [None] * traces.height
    golds: list[Gold] = []
    categories: dict[str, str] = {}
    tids = traces["trace_id"].to_list()
    for lab in labels:
        tid = str(lab["trajectory_id"])
        key = f"{tid}.json"
        module = str(lab.get("critical_failure_module") or "")
        k = int(lab["critical_failure_step"])
        ftype = next((a[module].get("failure_type") for a in lab.get("step_annotations", [])
                      if a.get("step") == k and isinstance(a.get(module), dict)), None)
        categories[key] = gaia_category(module, ftype)
        row = by_stem.get(tid)
        if row is None:
            golds.append(Gold(key, None, None))
            continue
        st = steps.filter(pl.col("trace_id") == tids[row]).sort("step")
        assistant = _assistant_message_steps(st)
        step = assistant[k - 1] if 1 <= k <= len(assistant) else None
        gold_step[row] = step
        golds.append(Gold(key, step, None))
    traces = traces.with_columns(pl.Series("gold_decisive_step", gold_step, dtype=pl.Int64),
                                 pl.lit("failure").alias("outcome"))
    return LabelledSet("agenterrorbench-gaia", traces, steps, golds, categories, False,
                       [str(e) for e in res.errors])


def _assistant_message_steps(steps: pl.DataFrame) -> list[int]:
    """Imported step index of each assistant message, in message order (first step of the message)."""
    out: list[int] = []
    seen: set[int] = set()
    for row in steps.iter_rows(named=True):
        if row["role"] != "assistant":
            continue
        native = row["native_index"] if row["native_index"] is not None else row["step"]
        if native in seen:
            continue
        seen.add(native)
        out.append(int(row["step"]))
    return out


def _trail_parents(path: Path) -> dict[str, str | None]:
    """Span id -> parent span id of one TRAIL trace file (nested ``child_spans``)."""
    doc = orjson.loads(path.read_bytes())
    out: dict[str, str | None] = {}
    stack: list[tuple[Any, str | None]] = [(s, None) for s in doc.get("spans", [])]
    while stack:
        span, parent = stack.pop()
        if not isinstance(span, dict):
            continue
        sid = str(span.get("span_id"))
        out[sid] = parent if parent is not None else span.get("parent_span_id")
        stack.extend((c, sid) for c in span.get("child_spans") or [])
    return out


def _span_steps(span_ids: Sequence[str | None], parents: dict[str, str | None]) -> tuple[list[int], dict[str, int]]:
    """Canonical step of each step (first step of its span) and the first step inside each span.

    The second map covers every span that holds a step, directly or through a descendant, so a
    label on a container span finds the first step within it.
    """
    canonical: list[int] = []
    first_of_span: dict[str, int] = {}
    inside: dict[str, int] = {}
    for i, sid in enumerate(span_ids):
        key = sid or f"#{i}"
        first_of_span.setdefault(key, i)
        canonical.append(first_of_span[key])
        cur: str | None = sid
        seen: set[str] = set()
        while cur and cur not in seen:
            seen.add(cur)
            inside.setdefault(cur, first_of_span[key])
            cur = parents.get(cur)
    return canonical, inside


def load_trail(path: Path, split: str) -> LabelledSet:
    """TRAIL's ``gaia`` or ``swe_bench`` split: span-tree traces and their annotated errors."""
    labels_file = path / f"labels_{split}.jsonl"
    if not labels_file.is_file():
        raise FileNotFoundError(f"{labels_file}: the TRAIL labels file is missing")
    labels = [orjson.loads(line) for line in labels_file.read_bytes().splitlines() if line.strip()]
    folder = path / "traces" / split
    res = _load([folder])
    traces, steps = res.traces, res.steps
    rows = {Path(f).stem: i for i, f in enumerate(traces["source_file"].to_list())}
    tids = traces["trace_id"].to_list()
    by_trace = {tid: st for (tid,), st in steps.sort("step").group_by("trace_id", maintain_order=True)}
    gold_step: list[int | None] = [None] * traces.height
    golds: list[Gold] = []
    canonical: dict[str, list[int]] = {}
    alternatives: dict[str, set[int]] = {}
    categories: dict[str, str] = {}
    for lab in labels:
        tid = str(lab["trace_id"])
        key = f"{tid}.json"
        row = rows.get(tid)
        if row is None or lab.get("file") is None:
            golds.append(Gold(key, None, None))
            continue
        st = by_trace.get(tids[row])
        span_ids = st["native_step_id"].to_list() if st is not None else []
        canon, inside = _span_steps(span_ids, _trail_parents(folder / f"{tid}.json"))
        canonical[key] = canon
        loc = lab.get("first_error_location")
        step = inside.get(str(loc)) if loc is not None else None
        alternatives[key] = {inside[str(e["location"])] for e in lab.get("errors") or []
                             if str(e.get("location")) in inside}
        gold_step[row] = step
        golds.append(Gold(key, step, None))
        category = trail_category(lab.get("first_error_category"))
        if step is not None and category is not None:
            categories[key] = category
    traces = traces.with_columns(pl.Series("gold_decisive_step", gold_step, dtype=pl.Int64),
                                 pl.lit("failure").alias("outcome"))
    name = "trail-gaia" if split == "gaia" else "trail-swe"
    return LabelledSet(name, traces, steps, golds, categories, False, [str(e) for e in res.errors], canonical, alternatives)


def load_trail_gaia(path: Path) -> LabelledSet:
    """TRAIL's GAIA split (smolagents manager + search agent, o3-mini)."""
    return load_trail(path, "gaia")


def load_trail_swe(path: Path) -> LabelledSet:
    """TRAIL's SWE-bench split (a CodeAct agent, claude-3-7-sonnet)."""
    return load_trail(path, "swe_bench")


PLANTED = "planted-samples"
"""Name of the training-only set of runs with planted failures (``sample_traces/``)."""


def load_planted_samples(path: Path) -> LabelledSet:
    """The failed runs of ``sample_traces/`` whose metadata names the planted decisive step.

    Injected failures, not natural ones: a training-only set (more training signal for the
    selection and the fit, in every fold), never a held-out system.
    """
    res = _load([path])
    rows = []
    golds: list[Gold] = []
    keys: dict[str, str] = {}
    for i, row in enumerate(res.traces.select("trace_id", "source_file", "record", "outcome",
                                              "metadata_json").iter_rows(named=True)):
        meta = orjson.loads(row["metadata_json"]) if row["metadata_json"] else {}
        planted = meta.get("planted") if isinstance(meta, dict) else None
        if row["outcome"] != "failure" or not isinstance(planted, dict) or not isinstance(planted.get("step"), int):
            continue
        key = f"{Path(row['source_file']).name}#{row['record']}"
        keys[row["trace_id"]] = key
        golds.append(Gold(key, int(planted["step"]), None))
        rows.append(i)
    traces = res.traces[rows].with_columns(pl.Series("gold_decisive_step", [g.step for g in golds], dtype=pl.Int64))
    steps = res.steps.filter(pl.col("trace_id").is_in(traces["trace_id"].implode()))
    return LabelledSet(PLANTED, traces, steps, golds, {}, False, [str(e) for e in res.errors], keys=keys,
                       training_only=True)


@dataclass(frozen=True)
class DatasetSpec:
    """A development set the harness knows.

    Attributes:
        name: Id used on the command line.
        folder: Folder name under the datasets root.
        load: Adapter.
        multi_agent: Whether agent@1 applies.
    """

    name: str
    folder: str
    load: Callable[[Path], LabelledSet]
    multi_agent: bool


DATASETS: dict[str, DatasetSpec] = {
    "who-and-when": DatasetSpec("who-and-when", "who_and_when/Algorithm-Generated", load_who_and_when, True),
    "tracertraj-code": DatasetSpec("tracertraj-code", "tracertraj_code", load_tracertraj_code, True),
    "agenterrorbench-gaia": DatasetSpec("agenterrorbench-gaia", "agenterrorbench_gaia", load_agenterrorbench_gaia,
                                        False),
    "trail-gaia": DatasetSpec("trail-gaia", "trail", load_trail_gaia, False),
    "trail-swe": DatasetSpec("trail-swe", "trail", load_trail_swe, False),
}
"""The development sets, by command-line id."""


def dataset_path(root: Path, name: str) -> Path:
    """Where set ``name`` lies under a datasets root (``shared/datasets``)."""
    return root / DATASETS[name].folder
