"""The analysis pipeline end to end (fake embedder, fake judges) and its guarantees."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import polars as pl
import pytest

from analyzer.analysis.result import RUN_COLUMNS, STEP_VALUE_COLUMNS, RunAnalysis
from analyzer.attribution import Ranker
from analyzer.embedding import HashingEmbedder
from analyzer.errors import ModelUnavailable
from analyzer.frames import steps_frame, traces_frame
from analyzer.jobs import CancelFlag
from analyzer.loading import LoadResult, load
from analyzer.pipeline import AnalyzeOptions, analyze, blind
from analyzer.plugin_host import PluginHost, default_host
from analyzer.schema.models import AGENT_DECISION_KINDS, Outcome, Role, Step, StepKind, Trajectory
from analyzer.taxonomy import CATEGORY_IDS

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
WHO_AND_WHEN = SAMPLES / "who_and_when"


@pytest.fixture(scope="module")
def samples() -> LoadResult:
    return load([SAMPLES])


def test_pipeline_end_to_end_on_sample_traces(samples: LoadResult) -> None:
    seen: list[RunAnalysis] = []
    res = analyze(samples.traces, samples.steps, embedder=HashingEmbedder(), on_run=seen.append)
    assert not res.cancelled
    assert len(seen) == samples.traces.height == res.runs.height
    assert res.runs.columns == [c.name for c in RUN_COLUMNS]
    assert res.step_values.columns == [c.name for c in STEP_VALUE_COLUMNS]
    assert res.step_values.height == samples.steps.height
    runs = samples.traces.select("trace_id", "outcome", "n_steps").join(res.runs, on="trace_id")
    failed = runs.filter(pl.col("outcome") == "failure")
    assert failed.height > 0
    assert failed["decisive_step"].null_count() == 0
    assert failed["category"].is_in(list(CATEGORY_IDS)).all()
    assert (failed["decisive_step"] < failed["n_steps"]).all()
    assert runs.filter(pl.col("outcome") == "success")["decisive_step"].null_count() == \
        runs.filter(pl.col("outcome") == "success").height
    assert set(res.step_values["value_estimator"].unique().to_list()) == {"evidence-v1"}
    assert res.step_values["alignment"].null_count() == 0  # the embedder was used
    assert res.findings.height > 0 and res.findings["category"].is_in(list(CATEGORY_IDS)).all()
    # every run's curve: values in [0, 1], drops >= 0; a failed run ends low; where the largest
    # drop and the decisive step disagree (by more than one step) the run says why
    for (tid,), grp in res.step_values.group_by(["trace_id"]):
        v = grp.sort("step")
        assert v["value"].min() >= 0.0 and v["value"].max() <= 1.0 and v["drop"].min() >= 0.0
        row = runs.filter(pl.col("trace_id") == tid).row(0, named=True)
        if row["outcome"] == "failure":
            assert v["value"][-1] < 0.1 and row["largest_drop_step"] is not None
            agree = abs(row["largest_drop_step"] - row["decisive_step"]) <= 1
            assert (row["drop_note"] is None) == agree, row["drop_note"]
            if not agree:
                assert f"step {row['decisive_step']}" in row["drop_note"]
        else:
            assert row["drop_note"] is None or row["decisive_step"] is not None


def test_analysis_never_sees_gold_labels() -> None:
    res = load([WHO_AND_WHEN])
    assert res.traces["gold_decisive_step"].null_count() == 0
    changed = res.traces.with_columns(pl.lit(0).alias("gold_decisive_step"), pl.lit("X").alias("gold_decisive_agent"),
                                      pl.lit("nothing").alias("ground_truth"), pl.lit("why").alias("gold_reason"))
    a = analyze(res.traces, res.steps)
    b = analyze(changed, res.steps)
    assert a.runs.equals(b.runs) and a.step_values.equals(b.step_values) and a.findings.equals(b.findings)
    t = Trajectory(id="x", gold_decisive_step=3, gold_decisive_agent="a", gold_reason="r", ground_truth="g")
    assert blind(t).gold_decisive_step is None and blind(t).ground_truth is None and t.gold_decisive_step == 3


def test_cancel_stops_between_runs(samples: LoadResult) -> None:
    flag = CancelFlag()
    seen: list[RunAnalysis] = []

    def on_run(ra: RunAnalysis) -> None:
        seen.append(ra)
        if len(seen) == 2:
            flag.cancel()

    res = analyze(samples.traces, samples.steps, cancel=flag, on_run=on_run)
    assert res.cancelled and res.runs.height == 2


def _boom(trajectory: Trajectory, ctx: object) -> list[object]:
    raise RuntimeError("kaboom")


def test_a_raising_detector_is_an_error_and_the_others_finish(monkeypatch: pytest.MonkeyPatch) -> None:
    res = load([WHO_AND_WHEN])
    host = PluginHost().discover()
    mod = type(sys)("ts_pipeline_boom")
    mod.detect = _boom  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ts_pipeline_boom", mod)
    host.register_manifest({"plugin": {"name": "boom"}, "detectors": [{"id": "boom", "callable": "ts_pipeline_boom:detect"}]})
    out = analyze(res.traces, res.steps, host=host)
    assert out.runs["error"].str.contains("boom: RuntimeError: kaboom").all()
    assert out.runs["decisive_step"].null_count() == 0
    assert out.findings.height > 0 and "boom" not in out.findings["source"].to_list()
    assert any("kaboom" in e for e in out.errors)


class FakeJudge:
    """Prefers the latest candidate; classifies everything as goal drift."""

    model_id = "fake-judge@1"

    def __init__(self) -> None:
        self.candidate_calls: list[tuple[str, list[int]]] = []
        self.classify_calls = 0

    def candidate_scores(self, trajectory: Trajectory, steps: Sequence[int]) -> dict[int, float]:
        assert trajectory.gold_decisive_step is None and trajectory.ground_truth is None
        self.candidate_calls.append((trajectory.id, list(steps)))
        top = max(steps)
        return {s: 0.95 if s == top else 0.05 for s in steps}

    def classify(self, trajectory: Trajectory, step: int) -> dict[str, float]:
        self.classify_calls += 1
        return {"goal_drift": 1.0, "other": 0.0}

    def value_curve(self, trajectory: Trajectory, progress: object = None, cancel: object = None) -> object:
        from analyzer.judge.base import ValueCurve

        return ValueCurve(values=[0.5] * len(trajectory.steps), prior=0.6, model_id=self.model_id)


def _ranker_with_judge(weight: float, top_k: int) -> Ranker:
    p = Ranker.load().params
    p.judge_weight, p.judge_top_k = weight, top_k
    return Ranker(p)


def test_judge_reranks_top_candidates_of_failed_runs_only(samples: LoadResult) -> None:
    judge = FakeJudge()
    plain = analyze(samples.traces, samples.steps)
    res = analyze(samples.traces, samples.steps, judge=judge, ranker=_ranker_with_judge(5.0, 2),
                  options=AnalyzeOptions(judge_classify="always", judge_curve=True))
    # runs that did not succeed and where the agent decided something (a Harbor trial that errored
    # before the agent acted has only its exception: nothing for the judge to rank)
    acted = samples.steps.filter(pl.col("kind").is_in([str(k) for k in AGENT_DECISION_KINDS]))["trace_id"].unique()
    failed = samples.traces.filter((pl.col("outcome") != "success") & pl.col("trace_id").is_in(acted.implode()))[
        "trace_id"].to_list()
    assert samples.traces.filter(pl.col("outcome") == "error").height == 1
    assert sorted(c[0] for c in judge.candidate_calls) == sorted(failed)
    assert all(len(steps) == 2 for _, steps in judge.candidate_calls)
    by_id = dict(judge.candidate_calls)
    rows = res.runs.filter(pl.col("trace_id").is_in(failed))
    for row in rows.iter_rows(named=True):
        assert row["decisive_step"] == max(by_id[row["trace_id"]])  # the judge's choice won
        assert row["category"] == "goal_drift" and row["judge_model"] == "fake-judge@1"
        # the rationale is rewritten for the judge's category and says so
        assert row["rationale"].startswith("Goal drift: ") and "category from the judge" in row["rationale"]
        assert "judge re-ranked the top 2" in row["rationale"]
    assert judge.classify_calls == len(failed)
    assert res.findings.filter(pl.col("source") == "judge_category").height == len(failed)
    jv = res.step_values.filter(pl.col("judge_value").is_not_null())
    assert jv.height > 0 and set(jv["value_estimator"].to_list()) == {"evidence-v1"}
    assert plain.runs.height == res.runs.height


def test_a_judge_weight_chosen_for_another_judge_model_re_ranks_nothing(samples: LoadResult) -> None:
    ranker = _ranker_with_judge(5.0, 2)
    ranker.params.meta = {**ranker.params.meta, "judge": {"model": "another-judge@2"}}
    judge = FakeJudge()
    res = analyze(samples.traces, samples.steps, judge=judge, ranker=ranker,
                  options=AnalyzeOptions(judge_classify="never"))
    assert judge.candidate_calls == []
    assert not any("judge re-ranked" in (r or "") for r in res.runs["rationale"].to_list())
    ranker.params.meta["judge"] = {"model": FakeJudge.model_id}  # the model it was chosen for: used
    analyze(samples.traces, samples.steps, judge=judge, ranker=ranker, options=AnalyzeOptions(judge_classify="never"))
    assert judge.candidate_calls


def test_weak_policy_asks_the_judge_only_without_strong_findings(samples: LoadResult) -> None:
    judge = FakeJudge()
    res = analyze(samples.traces, samples.steps, judge=judge)
    failed = res.runs.filter(pl.col("decisive_step").is_not_null()).height
    assert judge.candidate_calls == []  # shipped weight decides whether re-ranking is worth it
    assert 0 < judge.classify_calls <= failed or Ranker.load().params.judge_weight != 0.0


class BrokenJudge(FakeJudge):
    def classify(self, trajectory: Trajectory, step: int) -> dict[str, float]:
        raise ModelUnavailable("model file vanished")


def test_unavailable_judge_is_reported_once_and_the_analysis_goes_on(samples: LoadResult) -> None:
    judge = BrokenJudge()
    res = analyze(samples.traces, samples.steps, judge=judge, options=AnalyzeOptions(judge_classify="always"))
    assert res.runs["decisive_step"].null_count() < res.runs.height
    assert res.errors[0].startswith("judge unavailable: model file vanished")
    assert sum("model file vanished" in (e or "") for e in res.runs["error"].to_list()) == 1


def test_unknown_outcome_gets_candidates_and_an_empty_run_does_not_crash() -> None:
    t = Trajectory(id="u1", task="Fix the bug", outcome=Outcome.UNKNOWN, steps=[
        Step(index=0, role=Role.USER, kind=StepKind.USER, text="Fix the bug"),
        Step(index=1, kind=StepKind.TOOL_CALL, tool_name="bash", tool_args='{"cmd": "pytest"}'),
        Step(index=2, role=Role.TOOL, kind=StepKind.OBSERVATION, text="TimeoutError: timed out", is_error=True),
    ])
    empty = Trajectory(id="e1", task="nothing", outcome=Outcome.FAILURE, steps=[])
    res = analyze(traces_frame([t, empty]), steps_frame([t, empty]))
    row = res.runs.filter(pl.col("trace_id") == "u1").row(0, named=True)
    assert row["decisive_step"] is not None and 0 < row["confidence"] < 1
    vals = res.step_values.filter(pl.col("trace_id") == "u1")["value"].to_list()
    assert vals[-1] > 0.0  # unknown outcome: the curve does not fall to zero
    erow = res.runs.filter(pl.col("trace_id") == "e1").row(0, named=True)
    assert erow["decisive_step"] is None and erow["rationale"] == "run has no steps"


def test_an_unknown_outcome_is_said_and_a_run_without_agent_steps_blames_no_step() -> None:
    evidence = Trajectory(id="u1", task="Fix the bug", outcome=Outcome.UNKNOWN, steps=[
        Step(index=0, role=Role.USER, kind=StepKind.USER, text="Fix the bug"),
        Step(index=1, kind=StepKind.TOOL_CALL, tool_name="bash", tool_args='{"cmd": "pytest"}'),
        Step(index=2, role=Role.TOOL, kind=StepKind.OBSERVATION, text="TimeoutError: timed out", is_error=True),
    ])
    quiet = Trajectory(id="u2", task="Say hello", outcome=Outcome.UNKNOWN, steps=[
        Step(index=0, role=Role.USER, kind=StepKind.USER, text="Say hello"),
        Step(index=1, kind=StepKind.MESSAGE, text="Hello! How can I help you today?"),
    ])
    failed = Trajectory(id="f1", task="Fix the bug", outcome=Outcome.FAILURE, steps=evidence.steps)
    context_only = Trajectory(id="c1", task="Refactor", outcome=Outcome.FAILURE, steps=[
        Step(index=0, role=Role.SYSTEM, kind=StepKind.SYSTEM, text="# AGENTS.md instructions"),
        Step(index=1, role=Role.USER, kind=StepKind.USER, text="Refactor the parser"),
    ])
    runs = [evidence, quiet, failed, context_only]
    res = analyze(traces_frame(runs), steps_frame(runs))
    row = {r["trace_id"]: r for r in res.runs.iter_rows(named=True)}
    assert row["u1"]["decisive_step"] is not None
    assert "(" in row["u1"]["rationale"] and "outcome not recorded: the likeliest decisive step if the run failed" \
        in row["u1"]["rationale"]
    assert "nothing in the run shows a failure" in row["u2"]["rationale"]
    assert "outcome not recorded" not in row["f1"]["rationale"]  # a recorded failure needs no hedge
    c1 = row["c1"]
    assert c1["decisive_step"] is None and c1["category"] is None
    assert c1["rationale"] == "run has no agent step (only the task, context or tool output)"
    # the note is a message like the others: the Chinese rationale has it too
    from analyzer.attribution.rationale import rationale_text

    assert "结果未记录" in rationale_text(row["u2"]["rationale_json"], row["u2"]["rationale"], "zh_CN")


def test_default_host_declares_every_detector_module() -> None:
    for spec in default_host().detectors():
        assert spec.callable.startswith("plugins.detectors.")


def test_load_analyze_export_never_imports_qt(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from analyzer.loading import load\n"
        "from analyzer.pipeline import analyze\n"
        "from analyzer.embedding import HashingEmbedder\n"
        "from analyzer.export import write_analysis\n"
        f"r = load([{str(SAMPLES)!r}])\n"
        "res = analyze(r.traces, r.steps, embedder=HashingEmbedder())\n"
        f"write_analysis({str(tmp_path)!r}, r.traces, r.steps, res)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'ui', 'plugins.importers.x')]\n"
        "assert 'PySide6' not in sys.modules, bad\n"
        "assert not [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))], bad\n"
        "print('ok', res.runs.height)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")
    assert (tmp_path / "traces.csv").exists()


def _planted(res: Any, traces: pl.DataFrame) -> list[dict[str, Any]]:
    """Per failed sample with a planted step: the planted step, the top 3, the uncertain steps, the finding steps."""
    rows = traces.select("trace_id", "source_file", "record", "outcome", "metadata_json").join(res.runs, on="trace_id")
    out = []
    for row in rows.iter_rows(named=True):
        meta = orjson.loads(row["metadata_json"]) if row["metadata_json"] else {}
        planted = meta.get("planted")
        if not isinstance(planted, dict) or row["outcome"] != "failure" or "step" not in planted:
            continue
        steps = res.step_values.filter(pl.col("trace_id") == row["trace_id"])
        out.append({"run": f"{Path(row['source_file']).name} {row['record']}", "planted": int(planted["step"]),
                    "top": [int(s) for s in (row["top_steps"] or "").split(",") if s],
                    "uncertain": [int(s) for s in (row["decisive_uncertain"] or "").split(";") if s],
                    "found": [int(r["step"]) for r in steps.iter_rows(named=True) if r.get("findings")]})
    return out


@pytest.mark.slow
def test_planted_failures_are_flagged_and_never_named_with_confidence(samples: LoadResult) -> None:
    """The planted failures of ``sample_traces/`` (late errors made for the detectors to find).

    Until issue 28 a hand-set 8x detector-evidence boost put the planted step in the ranker's top
    3 for 16 of 19 runs. The shipped weights now come from nested selection on five labelled
    agent systems, which gives detector evidence no weight in the ranking; the ranker's top 3
    hold the planted step in 2 of 19 runs (``docs/attribution.md``). What the analyst must still
    get on every one: where the ranker's top step is not the planted one, the answer says it is
    uncertain (no single DECISIVE step), and the detectors flag the planted step (a finding on it
    or next to it) in at least three runs of four, so it shows in the transcript and the value curve.
    """
    from analyzer.embedding import load_embedder

    res = analyze(samples.traces, samples.steps, embedder=load_embedder())
    runs = _planted(res, samples.traces)
    assert len(runs) >= 10
    confident_misses = [r["run"] for r in runs if r["top"][:1] != [r["planted"]] and not r["uncertain"]]
    assert not confident_misses, f"a wrong step named without 'uncertain': {confident_misses}"
    flagged = [r for r in runs if any(abs(f - r["planted"]) <= 1 for f in r["found"])]
    assert len(flagged) / len(runs) >= 0.75, f"{len(flagged)}/{len(runs)} planted steps flagged by a detector"


def test_candidate_scores_sum_to_one_per_failed_run(samples: LoadResult) -> None:
    res = analyze(samples.traces, samples.steps)
    sv = res.step_values.filter(pl.col("candidate_score").is_not_null())
    sums = sv.group_by("trace_id").agg(pl.col("candidate_score").sum())["candidate_score"].to_numpy()
    assert np.allclose(sums, 1.0, atol=1e-3)


def test_cancel_during_judge_work_stops_after_the_current_run(samples: LoadResult) -> None:
    flag = CancelFlag()

    class CancellingJudge(FakeJudge):
        def classify(self, trajectory: Trajectory, step: int) -> dict[str, float]:
            flag.cancel()
            return super().classify(trajectory, step)

    judge = CancellingJudge()
    res = analyze(samples.traces, samples.steps, judge=judge, cancel=flag, ranker=_ranker_with_judge(1.0, 2),
                  options=AnalyzeOptions(judge_classify="always", judge_curve=True))
    assert res.cancelled
    assert judge.classify_calls == 1
    first_failed = samples.traces["outcome"].to_list().index("failure")
    assert res.runs.height == first_failed + 1
    assert res.step_values["judge_value"].null_count() == res.step_values.height  # the curve was skipped
