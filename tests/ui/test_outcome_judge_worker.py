"""The analysis worker asks the judge the final-state question only when the params use its answer."""

from __future__ import annotations

import pytest

from analyzer.frames.build import steps_frame, traces_frame
from analyzer.outcome import estimate
from analyzer.outcome.effective import effective_outcomes
from analyzer.outcome.estimate import estimate_p_failed
from analyzer.outcome.fit import fit_outcome_models
from analyzer.outcome.judge_cue import judge_cue_values
from analyzer.session import Session
from tests.analyzer.test_outcome_judge import FakeJudge, _corpus
from ui.workers import AnalyzeJob


def _job() -> tuple[AnalyzeJob, list[str]]:
    runs = [r.model_copy(update={"outcome": "unknown"}) for r in _corpus()]
    traces, steps = traces_frame(runs), steps_frame(runs)
    eff = effective_outcomes(traces, None, estimate_p_failed(traces, steps))
    return AnalyzeJob(eff, steps, use_judge=True, use_embedder=False), [r.id for r in runs]


def test_worker_asks_and_the_session_follows(qtbot: object, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _corpus()
    values, _ = judge_cue_values(FakeJudge(), runs)
    models = fit_outcome_models(traces_frame(runs), steps_frame(runs), values).models
    monkeypatch.setattr(estimate, "shipped_models", lambda: models)
    job, ids = _job()
    job.known_judge_cues = {ids[0]: 0.5}
    got: list[dict[str, float]] = []
    session = Session()
    job.signals.judge_cues.connect(got.append)
    job.signals.judge_cues.connect(session.set_judge_cues)
    judge = FakeJudge()
    job._ask_judge_cues(judge)
    assert len(got) == 1 and set(got[0]) == set(ids[1:]) and judge.calls == len(ids) - 1
    truth = {r.id: r.outcome for r in runs}
    out = dict(job.traces.select("trace_id", "outcome").iter_rows())
    assert all(out[t] == truth[t] for t in ids[1:])  # the analysis gets the judged estimate
    assert session.judge_cues == got[0]


def test_worker_does_not_ask_when_the_params_do_not_use_the_judge(qtbot: object) -> None:
    shipped = estimate.shipped_models()
    assert shipped is not None
    job, _ = _job()
    judge = FakeJudge()
    got: list[object] = []
    job.signals.judge_cues.connect(got.append)
    job._ask_judge_cues(judge)
    assert judge.calls == (len(job.traces) if shipped.use_judge else 0)
    assert bool(got) == shipped.use_judge
