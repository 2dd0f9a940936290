"""The judge cue of the outcome estimate: fake judge for the fit and the combination, the REAL judge once."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from approx_json import same

from analyzer.frames.build import steps_frame, traces_frame
from analyzer.judge import JudgeError, load_judge
from analyzer.judge.cache import ScoreCache
from analyzer.judge.prompts import ACHIEVED_PROMPT_ID
from analyzer.outcome import judge_cue
from analyzer.outcome.cues import CUE_NAMES
from analyzer.outcome.estimate import OutcomeModels, estimate_p_failed, shipped_models
from analyzer.outcome.fit import fit_outcome_models, ship_judge
from analyzer.outcome.judge_cue import JUDGE_CUE, cache_key, judge_cue_values
from analyzer.schema.models import Role, Step, StepKind, Trajectory


class FakeJudge:
    """Says "achieved" unless the run's last step mentions the word ``wrong`` (counts its calls)."""

    model_id = "fake@1"

    def __init__(self) -> None:
        self.calls = 0

    def p_achieved(self, trajectory: Trajectory) -> float:
        self.calls += 1
        if not trajectory.steps:
            raise JudgeError("nothing to judge")
        return 0.2 if "wrong" in trajectory.steps[-1].text else 0.8


def _run(i: int, source: str, failed: bool, noisy_error: bool) -> Trajectory:
    last = "The answer is wrong, sorry." if failed else "The answer is 42."
    steps = [Step(index=0, role=Role.ASSISTANT, kind=StepKind.TOOL_CALL, text=f"compute {i}"),
             Step(index=1, role=Role.TOOL, kind=StepKind.OBSERVATION, text="oops" if noisy_error else "ok",
                  is_error=noisy_error),
             Step(index=2, role=Role.ASSISTANT, kind=StepKind.MESSAGE, text=f"{last} (run {i})")]
    return Trajectory(task=f"task {i}", native_id=f"r{i}", outcome="failure" if failed else "success",
                      source_format=source, steps=steps).with_id()


def _corpus() -> list[Trajectory]:
    """Four sources; the cheap cues see only an error that is noise, the judge sees the verdict."""
    rng = np.random.default_rng(7)
    runs = []
    for i in range(40):
        runs.append(_run(i, f"src{i % 4}", failed=bool(i % 2), noisy_error=bool(rng.random() < 0.5)))
    return runs


def test_judge_cue_values_are_cached_and_problems_reported() -> None:
    runs = _corpus()[:4]
    empty = Trajectory(task="x", native_id="empty", steps=[]).with_id()
    judge = FakeJudge()
    cache: dict[str, float] = {}
    values, problems = judge_cue_values(judge, [*runs, empty], cache=cache)
    assert judge.calls == 5 and set(values) == {r.id for r in runs} and set(problems) == {empty.id}
    assert cache[cache_key(runs[1].id, "fake@1")] == 0.2 and cache_key(runs[1].id, "fake@1").endswith(ACHIEVED_PROMPT_ID)
    again, _ = judge_cue_values(judge, runs, cache=cache)
    assert again == values and judge.calls == 5  # a rerun asks nothing


def test_json_cache_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    assert judge_cue.read_cache(path) == {}
    judge_cue.write_cache(path, {"a|m|p": 0.25})
    assert judge_cue.read_cache(path) == {"a|m|p": 0.25}
    path.write_text("not json")
    assert judge_cue.read_cache(path) == {}


def test_ship_rule() -> None:
    assert ship_judge(0.75, 0.75) and ship_judge(0.75, 0.9)
    assert not ship_judge(0.75, 0.7) and not ship_judge(None, 0.9) and not ship_judge(0.75, None)


def test_fit_both_models_and_use_the_judge_one_only_where_a_judge_answered() -> None:
    runs = _corpus()
    traces, steps = traces_frame(runs), steps_frame(runs)
    values, _ = judge_cue_values(FakeJudge(), runs)
    report = fit_outcome_models(traces, steps, values)
    assert report.judge is not None and report.cheap_same_runs is report.cheap
    assert report.judge.params.cues == (*CUE_NAMES, JUDGE_CUE)
    assert report.cheap.auc is not None and report.judge.auc is not None
    assert report.judge.auc > report.cheap.auc and report.judge.auc > 0.95  # the fake judge knows the verdict
    assert report.models.use_judge and report.models.meta["use_judge"]
    assert report.judge.params.weights[-1] < 0  # achieved -> less likely failed
    assert {s["source"] for s in report.judge.per_source} == {"src0", "src1", "src2", "src3"}
    assert report.judge.params.meta["per_source"] == report.judge.per_source
    models = OutcomeModels.from_json(report.models.to_json())
    assert models == report.models
    unknown = traces.with_columns(pl.lit("unknown").alias("outcome"))
    cheap = dict(estimate_p_failed(unknown, steps, models).iter_rows())
    judged = dict(estimate_p_failed(unknown, steps, models, judge_values=values).iter_rows())
    one = {runs[0].id: values[runs[0].id]}
    partly = dict(estimate_p_failed(unknown, steps, models, judge_values=one).iter_rows())
    assert partly[runs[0].id] == judged[runs[0].id] and partly[runs[1].id] == cheap[runs[1].id]
    failed = [r.id for r in runs if r.outcome == "failure"]
    ok = [r.id for r in runs if r.outcome == "success"]
    assert min(judged[t] for t in failed) > max(judged[t] for t in ok)
    # the ship rule says no: the cheap model everywhere, judge values or not
    refused = OutcomeModels(models.cheap, models.judge, False, models.meta)
    assert dict(estimate_p_failed(unknown, steps, refused, judge_values=values).iter_rows()) == cheap
    with pytest.raises(ValueError):
        OutcomeModels.from_json({"version": 3})


def test_judge_model_measured_on_the_runs_the_judge_answered() -> None:
    runs = _corpus()
    traces, steps = traces_frame(runs), steps_frame(runs)
    values, _ = judge_cue_values(FakeJudge(), runs)
    some = {t: v for k, (t, v) in enumerate(values.items()) if k % 5}
    report = fit_outcome_models(traces, steps, some)
    assert report.judge is not None and report.cheap_same_runs is not None
    assert report.judge.n_runs == len(some) == report.cheap_same_runs.n_runs < report.cheap.n_runs
    assert report.models.meta["cheap_loso_auc"] == report.cheap_same_runs.auc
    assert fit_outcome_models(traces, steps, None).judge is None


def test_shipped_models_are_reproduced_from_the_committed_judge_cache() -> None:
    from analyzer.cli.outcome_cmd import DEFAULT_JUDGE_CACHE, DEFAULT_PATHS
    from analyzer.loading import load

    shipped = shipped_models()
    assert shipped is not None and shipped.judge is not None
    model_id = shipped.judge.meta["judge_model"]
    assert shipped.judge.meta["judge_prompt"] == ACHIEVED_PROMPT_ID
    cache = judge_cue.read_cache(DEFAULT_JUDGE_CACHE)
    res = load([p for p in DEFAULT_PATHS if p.exists()], cache=None)
    ids = res.traces.filter(pl.col("outcome").is_in(["success", "failure"]))["trace_id"].to_list()
    values = {t: cache[cache_key(t, model_id)] for t in ids if cache_key(t, model_id) in cache}
    assert len(values) == shipped.meta["runs_compared"]
    report = fit_outcome_models(res.traces, res.steps, values)
    assert report.judge is not None and report.judge.auc == pytest.approx(shipped.meta["judge_loso_auc"])
    assert report.judge.params.weights == pytest.approx(shipped.judge.weights, abs=1e-5)
    assert report.models.use_judge == shipped.use_judge == ship_judge(shipped.meta["cheap_loso_auc"],
                                                                      shipped.meta["judge_loso_auc"])


@pytest.fixture(scope="module")
def real_judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The REAL bundled judge (packaged GGUF), loaded the way the app loads it."""
    root = tmp_path_factory.mktemp("judge_env")
    with pytest.MonkeyPatch.context() as mp:
        if not os.environ.get("TRAJSCOPE_JUDGE_THREADS"):
            mp.setenv("TRAJSCOPE_JUDGE_THREADS", "1")
        mp.setenv("TRAJSCOPE_CACHE_DIR", str(root / "cache"))
        mp.setenv("TRAJSCOPE_DATA_DIR", str(root / "data"))
        j = load_judge(None, cache=ScoreCache(root / "judge.sqlite"))
        yield j
        j.close()


@pytest.mark.slow
def test_real_judge_answers_the_final_state_question_on_a_short_context(real_judge: object) -> None:
    from analyzer.judge.llama import ACHIEVED_TOKEN_BUDGET, LlamaJudge

    assert isinstance(real_judge, LlamaJudge)
    run = _run(1, "generic", failed=True, noisy_error=True)
    long = run.model_copy(update={"steps": [*run.steps, *[Step(index=3 + k, role=Role.TOOL, kind=StepKind.OBSERVATION,
                                                               text="log line " * 300) for k in range(6)]]})
    p = real_judge.p_achieved(run)
    assert 0.0 <= p <= 1.0 and math.isfinite(p)
    assert real_judge.p_achieved(run) == p  # cached
    store, real_judge.cache = real_judge.cache, None
    try:
        real_judge.reset()
        assert real_judge.p_achieved(run) == p  # asked again from scratch: the same number (no sampling)
    finally:
        real_judge.cache = store
    assert real_judge.achieved_prompt_size(long) <= ACHIEVED_TOKEN_BUDGET  # a long run stays short
    real_judge.reset()
    assert 0.0 <= real_judge.p_achieved(long) <= 1.0
    values, problems = judge_cue_values(real_judge, [run])
    assert not problems and values[run.id] == p


def _judge_models(monkeypatch: pytest.MonkeyPatch) -> tuple[list[Trajectory], OutcomeModels]:
    """Fake-judge models whose ship rule says yes, installed as the shipped ones."""
    from analyzer.outcome import estimate

    runs = _corpus()
    values, _ = judge_cue_values(FakeJudge(), runs)
    models = fit_outcome_models(traces_frame(runs), steps_frame(runs), values).models
    assert models.use_judge
    monkeypatch.setattr(estimate, "shipped_models", lambda: models)
    return runs, models


def test_session_estimates_read_the_judge_cues_an_analysis_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from analyzer.loading.loader import LoadResult
    from analyzer.outcome.estimate import judge_cue_wanted
    from analyzer.session import Session

    runs, _ = _judge_models(monkeypatch)
    assert judge_cue_wanted()
    unknown = [r.model_copy(update={"outcome": "unknown"}) for r in runs]
    s = Session()
    s.add_load_result(LoadResult(traces=traces_frame(unknown), steps=steps_frame(unknown), formats={"generic": 40}))
    before = dict(s.outcome_estimates().iter_rows())
    changed: list[bool] = []
    s.annotations_changed.connect(lambda: changed.append(True))
    values, _ = judge_cue_values(FakeJudge(), unknown)
    s.set_judge_cues(values)
    after = dict(s.outcome_estimates().iter_rows())
    assert changed == [True] and after != before
    failed = {r.id for r in runs if r.outcome == "failure"}
    view = {r["trace_id"]: r["outcome"] for r in s.runs_view().iter_rows(named=True)}
    assert {t for t, o in view.items() if o == "failure"} == failed  # the judged estimate decides
    s.set_judge_cues(values)  # nothing new: no signal
    assert changed == [True]


def test_worker_helpers_ask_only_estimated_runs_and_reestimate(monkeypatch: pytest.MonkeyPatch) -> None:
    from analyzer.outcome.effective import effective_outcomes
    from analyzer.outcome.estimate import with_judged_estimates
    from analyzer.outcome.judge_cue import estimated_run_cues

    runs, _ = _judge_models(monkeypatch)
    recorded = runs[0]
    unknown = [recorded, *[r.model_copy(update={"outcome": "unknown"}) for r in runs[1:]]]
    traces, steps = traces_frame(unknown), steps_frame(unknown)
    eff = effective_outcomes(traces, None, estimate_p_failed(traces, steps))
    judge = FakeJudge()
    values = estimated_run_cues(judge, eff, steps, known={unknown[1].id: 0.5})
    assert recorded.id not in values and unknown[1].id not in values and len(values) == len(runs) - 2
    assert judge.calls == len(values)
    stopped = estimated_run_cues(FakeJudge(), eff, steps, cancelled=lambda: True)
    assert stopped == {}
    judged = with_judged_estimates(eff, steps, values)
    assert judged.columns == eff.columns and judged.height == eff.height
    truth = {r.id: r.outcome for r in runs}
    out = dict(judged.select("trace_id", "outcome").iter_rows())
    assert out[recorded.id] == recorded.outcome  # a recorded outcome never moves
    assert all(out[t] == truth[t] for t in values)
    assert with_judged_estimates(eff, steps, {}) is eff


def test_outcome_fit_cli_refits_both_models_from_the_cache_without_asking(tmp_path: Path) -> None:
    import orjson

    from analyzer.cli.outcome_cmd import DEFAULT_JUDGE_CACHE
    from ui.cli import main

    cache = tmp_path / "cache.json"
    cache.write_bytes(DEFAULT_JUDGE_CACHE.read_bytes())
    params, doc = tmp_path / "params.json", tmp_path / "doc.md"
    assert main(["outcome-fit", "--judge", "--judge-cache", str(cache), "--params", str(params),
                 "--doc", str(doc)]) == 0
    assert cache.read_bytes() == DEFAULT_JUDGE_CACHE.read_bytes()  # nothing asked, nothing added
    written = OutcomeModels.from_json(orjson.loads(params.read_bytes()))
    shipped = shipped_models()
    assert shipped is not None and written.judge is not None
    # equal up to the last bits of a float: summation order may differ between BLAS builds and threads
    assert same(written.to_json(), shipped.to_json())
    text = doc.read_text(encoding="utf-8")
    assert "## With the local judge" in text and ACHIEVED_PROMPT_ID in text
    assert ("**used**" if written.use_judge else "**not used**") in text
    # without --judge and without a complete cache: the cheap model only, no judge loaded
    assert main(["outcome-fit", "--judge-cache", str(tmp_path / "none.json"), "--params", str(params)]) == 0
    assert OutcomeModels.from_json(orjson.loads(params.read_bytes())).judge is None
