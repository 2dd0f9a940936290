"""The development-set adapters, the transfer fit, nested selection and the eval modes (adaptation, suite).

The real sets live in ``shared/datasets`` (read in place, never copied); these tests build
tiny sets of the same layouts from the committed Who&When samples, a written
AgentErrorBench-shaped transcript and the committed TRAIL-shaped span tree, so every path runs
in ``make test``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from analyzer.attribution.features import FEATURE_NAMES, TRANSFER_FEATURES
from analyzer.attribution.ranker import Ranker, RankerParams
from analyzer.attribution.symptom_rule import SymptomRule
from analyzer.evaluation.datasets import (
    DATASETS,
    gaia_category,
    load_agenterrorbench_gaia,
    load_tracertraj_code,
    load_trail_gaia,
)
from analyzer.evaluation.fit import TrainingRun, fit_transfer
from analyzer.evaluation.selection import (
    GRID,
    SYMPTOM_RULES,
    Selector,
    StepConfig,
    column_ablation,
    fit_all,
    nested_leave_one_system_out,
)
from analyzer.evaluation.transfer import fixed_rules, prepare_set, score_with
from ui.cli import main

ROOT = Path(__file__).resolve().parents[2]
WHO_AND_WHEN = ROOT / "sample_traces" / "who_and_when"
TRAIL_SAMPLE = ROOT / "sample_traces" / "otel" / "gaia_ratelimit_trail.json"
TRAIL_LLM_SPANS = ("c4f301ada5c4d69b", "a73a98a7a3388464", "106df10f753a345e", "d279b88d0b943ed3")
"""The sample's first four model calls (LLM spans, one per smolagents step)."""


def _trail(root: Path) -> None:
    """TRAIL's layout: ``traces/{gaia,swe_bench}/<id>.json`` span trees plus ``labels_*.jsonl``."""
    trace = json.loads(TRAIL_SAMPLE.read_text(encoding="utf-8"))["trace"]
    for split in ("gaia", "swe_bench"):
        folder = root / "trail" / "traces" / split
        folder.mkdir(parents=True)
        lines = []
        for i in range(4):
            tid = f"{split}{i}"
            (folder / f"{tid}.json").write_text(json.dumps({**trace, "trace_id": tid}), encoding="utf-8")
            first = TRAIL_LLM_SPANS[1 + i % 3]
            errors = [{"category": "Tool-related", "location": first, "impact": "HIGH"},
                      {"category": "Goal Deviation", "location": "bb226e4f7921d912", "impact": "LOW"}]  # a CHAIN span
            lines.append({"trace_id": tid, "file": f"traces/{split}/{tid}.json", "errors": errors,
                          "first_error_location": first, "first_error_category": "Tool-related"})
        lines.append({"trace_id": "too-big", "file": None, "errors": [], "first_error_location": None,
                      "first_error_category": None})
        (root / "trail" / f"labels_{split}.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n",
                                                              encoding="utf-8")


def _gaia_run(n_steps: int, tag: str) -> dict[str, object]:
    msgs: list[dict[str, str]] = []
    for k in range(n_steps):
        obs = "Task: find the 2022 rate of Freedonia." if k == 0 else f"Observation {k}: 'Tool 'search' executed. Result: rate was {3 + k}.9%'"
        msgs.append({"role": "user", "content": f"You are an expert research assistant.\n{obs}"})
        msgs.append({"role": "assistant", "content": f"<plan>step {k} of {tag}</plan>\n<action>\ntool: search\nparameters: {{\"q\": \"rate {k}\"}}\n</action>"})
    return {"messages": msgs, "metadata": {"model": "m", "steps": n_steps, "won": False, "environment": "gaia"}}


def _make_root(tmp_path: Path) -> Path:
    root = tmp_path / "datasets"
    ww = root / "who_and_when" / "Algorithm-Generated"
    tt = root / "tracertraj_code" / "runs"
    gaia = root / "agenterrorbench_gaia" / "GAIA"
    for d in (ww, tt, gaia):
        d.mkdir(parents=True)
    for i, f in enumerate(sorted(WHO_AND_WHEN.glob("*.json"))):
        shutil.copy(f, ww / f"{i + 1}.json")
        doc = json.loads(f.read_text(encoding="utf-8"))
        doc.pop("is_correct", None)
        doc["question"] = doc["question"] + " (team run)"  # a different run, same shape
        (tt / f"{i + 1}.json").write_text(json.dumps(doc), encoding="utf-8")
    labels = []
    for i in range(4):
        tid = f"run-{i}"
        (gaia / f"{tid}.json").write_text(json.dumps(_gaia_run(5, tid)), encoding="utf-8")
        labels.append({"trajectory_id": tid, "critical_failure_step": 2 + (i % 2),
                       "critical_failure_module": "action" if i % 2 else "planning",
                       "step_annotations": [{"step": 2 + (i % 2), ("action" if i % 2 else "planning"):
                                             {"failure_type": " Parameter_error" if i % 2 else "inefficient_plan"}}]})
    labels.append({"trajectory_id": "missing-file", "critical_failure_step": 1, "critical_failure_module": "system",
                   "step_annotations": []})
    (root / "agenterrorbench_gaia" / "gaia_labels.json").write_text(json.dumps(labels), encoding="utf-8")
    _trail(root)
    return root


def test_gaia_adapter_maps_the_kth_assistant_message_and_counts_a_missing_file(tmp_path: Path) -> None:
    root = _make_root(tmp_path)
    ls = load_agenterrorbench_gaia(root / "agenterrorbench_gaia")
    assert ls.traces.height == 4 and len(ls.golds) == 5
    gold = {g.file: g.step for g in ls.golds}
    assert gold["missing-file.json"] is None  # scored as a miss
    # user, assistant, user, assistant ...: the k-th assistant message is step 2k - 1
    assert gold["run-0.json"] == 3 and gold["run-1.json"] == 5
    assert all(g.agent is None for g in ls.golds) and not ls.multi_agent
    assert ls.categories["run-0.json"] == "planning_error"
    assert ls.categories["run-1.json"] == "hallucination"  # "Parameter_error " normalised
    assert set(ls.traces["outcome"].to_list()) == {"failure"}


def test_category_mapping_covers_every_module() -> None:
    assert gaia_category("system", "tool_execution_error") == "environment_failure"
    assert gaia_category("reflection", "outcome_misinterpretation") == "false_success"
    assert gaia_category("memory", "over_simplification") == "goal_drift"
    assert gaia_category("Reflection ", None) == "failed_recovery"
    assert gaia_category("nonsense", None) == "other"


def test_tracertraj_adapter_reads_who_and_when_shaped_runs_without_is_correct(tmp_path: Path) -> None:
    root = _make_root(tmp_path)
    ls = load_tracertraj_code(root / "tracertraj_code")
    assert ls.traces.height == 4 and all(g.step is not None and g.agent for g in ls.golds)
    assert set(ls.traces["outcome"].to_list()) == {"failure"}


FIT = {"l2": 30.0, "tau": 0.05, "features": TRANSFER_FEATURES, "evidence_weight": 1.0, "evidence_grounded": 0.0}
"""A configuration of the transfer fit (the selection's choices are tested elsewhere)."""


def _runs(rng: np.random.Generator, key_feature: str, n: int = 30) -> list[TrainingRun]:
    col = FEATURE_NAMES.index(key_feature)
    out = []
    for i in range(n):
        k = int(rng.integers(4, 9))
        x = rng.normal(0, 0.2, size=(k, len(FEATURE_NAMES)))
        x[:, FEATURE_NAMES.index("evidence")] = 0.0
        g = int(rng.integers(0, k))
        x[:, col] = 0.0
        x[g, col] = 1.0
        out.append(TrainingRun(f"t{i}", f"{i}.json", x, ["a"] * k, g, "a"))
    return out


def test_transfer_fit_weights_only_transfer_signals_and_serves_the_worst_system() -> None:
    rng = np.random.default_rng(0)
    a = _runs(rng, "top_actor_first_turn")
    b = _runs(rng, "top_actor_first_turn")
    fitted = fit_transfer([a, b], **FIT, prior={"top_actor_first_turn": 2.0})
    used = {f for f, w in zip(FEATURE_NAMES, fitted.weights, strict=True) if abs(w) > 1e-9}
    assert used <= set(TRANSFER_FEATURES)
    assert max(used, key=lambda f: fitted.weights[FEATURE_NAMES.index(f)]) == "top_actor_first_turn"
    hits = np.mean([int(np.argmax(fitted.logits(r.features))) == r.gold_step for r in a + b])
    assert hits > 0.9


def test_structural_prior_is_fixed_and_folded_into_the_weights() -> None:
    rng = np.random.default_rng(1)
    a, b = _runs(rng, "decision"), _runs(rng, "decision")
    col = FEATURE_NAMES.index("top_actor_first_turn")
    for r in a + b:  # the prior's column marks a wrong step: a fitted weight would go negative
        r.features[:, col] = 0.0
        r.features[(r.gold_step + 1) % r.features.shape[0], col] = 1.0
    without = fit_transfer([a, b], **FIT, prior={"top_actor_first_turn": 0.0})
    with_prior = fit_transfer([a, b], **FIT, prior={"top_actor_first_turn": 2.0})
    assert without.weights[col] == 0.0  # not fitted: the prior's columns only get the fixed weight
    assert with_prior.weights[col] == pytest.approx(2.0 * with_prior.scale[col])
    x = a[0].features
    gap = with_prior.logits(x) - without.logits(x)  # the fitted columns re-balance, the prior stays
    assert gap[x[:, col] == 1.0].mean() > gap[x[:, col] == 0.0].mean()


def test_trail_adapter_scores_spans_and_counts_a_missing_trace(tmp_path: Path) -> None:
    root = _make_root(tmp_path)
    ls = load_trail_gaia(root / "trail")
    assert ls.traces.height == 4 and len(ls.golds) == 5 and not ls.multi_agent
    gold = {g.file: g.step for g in ls.golds}
    assert gold["too-big.json"] is None  # no raw trace: a miss for every method and rule
    steps = ls.steps.filter(ls.steps["trace_id"] == ls.traces["trace_id"][0]).sort("step")
    native = steps["native_step_id"].to_list()
    for key, step in gold.items():
        if step is None:
            continue
        canon = ls.canonical[key]
        assert native[step] in TRAIL_LLM_SPANS[1:]  # the first error's span, at its first step
        assert canon[step] == step and all(native[k] == native[canon[k]] for k in range(len(canon)))
        # a label on a container span (a smolagents "Step 4" CHAIN) points at the first step inside it
        assert native.index(TRAIL_LLM_SPANS[3]) in ls.alternatives[key]


def test_span_scoring_counts_a_span_once(tmp_path: Path) -> None:
    root = _make_root(tmp_path)
    ps = prepare_set(DATASETS["trail-gaia"].load(root / "trail"))
    rules = fixed_rules(ps)
    assert {"first LLM span", "last span with an error", "uniform random step (expected)"} <= set(rules)
    assert rules["uniform random step (expected)"].metrics["step@1"].n == 5
    res = score_with(ps, lambda r: Ranker.load(), "shipped")
    assert {"loc@1", "loc@3"} <= set(res.scores.metrics)
    for preds in res.predictions:
        for p in preds:
            canon = ps.canonical[p.file]
            assert len(set(p.top_steps)) == len(p.top_steps) and all(canon[k] == k for k in p.top_steps)


def test_nested_selection_never_sees_the_held_out_system(tmp_path: Path) -> None:
    root = _make_root(tmp_path)
    sets = [prepare_set(spec.load(root / spec.folder)) for spec in DATASETS.values()]
    nested = nested_leave_one_system_out(sets)
    names = [s.name for s in sets]
    for target in names:
        assert target not in nested.selections[target].trained_on
        assert nested.params[target].meta["trained_sets"] == sorted(n for n in names if n != target)
    # the held-out system's labels cannot change what is chosen and fitted for it
    target = sets[0]
    shuffled = [*sets]
    shuffled[0] = type(target)(**{**target.__dict__, "runs": [
        type(r)(**{**r.__dict__, "gold_step": (r.gold_step + 1) % len(r.trajectory.steps)}) for r in target.runs]})
    again = nested_leave_one_system_out(shuffled)
    assert again.selections[target.name].to_json() == nested.selections[target.name].to_json()
    assert again.params[target.name].weights == nested.params[target.name].weights
    table = column_ablation(Selector(sets), nested)
    assert "evidence (prior)" in table and all(set(row) <= set(names) for row in table.values())


def test_label_position_strata_split_each_training_system_at_the_pooled_median(tmp_path: Path) -> None:
    root = _make_root(tmp_path)
    sets = [prepare_set(spec.load(root / spec.folder)) for spec in DATASETS.values()]
    selector = Selector(sets)
    names = [s.name for s in sets[1:]]
    plain = selector.groups(names, StepConfig())
    assert [len(g) for g in plain] == [len(selector.set(n).trainable) for n in sorted(names)]
    split = float(np.median([r.gold_step for g in plain for r in g]))
    strata = selector.groups(names, StepConfig(strata=2))
    assert sorted(r.file for g in strata for r in g) == sorted(r.file for g in plain for r in g)
    for g in strata:  # every group lies on one side of the split and within one system
        assert len({r.gold_step <= split for r in g}) == 1
        assert len({next(n for n in names if r.file in {x.key for x in selector.set(n).trainable}) for r in g}) == 1
    assert len(strata) > len(plain)  # the toy systems label steps on both sides
    with pytest.raises(ValueError, match="strata"):
        selector.groups(names, StepConfig(strata=3))


def test_the_selector_weighs_the_evidence_column_by_the_candidate_symptom_rule(tmp_path: Path) -> None:
    from analyzer.attribution.features import FEATURE_NAMES, evidence_column, evidence_parts

    root = _make_root(tmp_path)
    sets = [prepare_set(spec.load(root / spec.folder)) for spec in DATASETS.values()]
    selector = Selector(sets)
    assert GRID["symptom_rule"] == tuple(SYMPTOM_RULES) and StepConfig().symptom_rule == GRID["symptom_rule"][0]
    col = FEATURE_NAMES.index("evidence")
    for name in SYMPTOM_RULES:
        cfg = StepConfig(symptom=0.25, symptom_rule=name)
        for ps in sets:
            for r in selector.set(ps.name, cfg).runs:
                parts = evidence_parts(r.trajectory, r.findings, r.table, SYMPTOM_RULES[name])
                assert np.array_equal(r.features[:, col], evidence_column(parts, r.features.shape[0],
                                                                          cfg.evidence_classes))


def test_position_balanced_criterion_averages_the_label_position_buckets(tmp_path: Path) -> None:
    from analyzer.cli.eval_cmd import CRITERIA as CLI_CRITERIA
    from analyzer.evaluation.selection import CRITERIA

    assert CLI_CRITERIA == CRITERIA
    root = _make_root(tmp_path)
    ps = prepare_set(DATASETS["agenterrorbench-gaia"].load(root / DATASETS["agenterrorbench-gaia"].folder))
    selector = Selector([ps], "position-balanced")
    # logits that name step 3 everywhere: right on the runs labelled 3 (bucket 0-3), wrong on those labelled 5 (4-7)
    logits = {r.key: np.eye(r.features.shape[0])[3] for r in ps.runs}
    labelled = [g for g in ps.golds if g.step is not None]
    assert {g.step for g in labelled} == {3, 5}
    pooled1, _ = selector.hits(ps.name, logits, "pooled")
    assert pooled1 == pytest.approx(sum(g.step == 3 for g in labelled) / len(ps.golds))  # the unlabelled record misses
    balanced1, balanced3 = selector.hits(ps.name, logits)
    assert balanced1 == pytest.approx(0.5)  # the mean of 1.0 (steps 0-3) and 0.0 (steps 4-7)
    assert balanced3 == pytest.approx(0.5)  # the ties after step 3 rank in step order (0, 1): step 5 is not in the top 3
    with pytest.raises(ValueError, match="criterion"):
        Selector([ps], "best-on-test")


def test_fit_all_writes_every_tunable_it_chose(tmp_path: Path) -> None:
    root = _make_root(tmp_path)
    sets = [prepare_set(spec.load(root / spec.folder)) for spec in DATASETS.values()]
    params, choice = fit_all(sets)
    again = RankerParams.from_json(json.loads(json.dumps(params.to_json())))
    assert again == params and again.meta["selection"] == choice.to_json()
    assert again.calibration_temperature == choice.temperature and again.uncertain_below == 0.5
    assert again.evidence_classes == choice.step.evidence_classes
    # the symptom rule chosen, or none when the symptom weight makes no distinction
    assert again.symptom_rule == (SYMPTOM_RULES[choice.step.symptom_rule] if choice.step.symptom != 1.0
                                  else SymptomRule())
    assert (again.actor_weight, again.first_runner_weight) == (choice.agent.actor_weight,
                                                               choice.agent.first_runner_weight)
    assert sorted(again.meta["trained_sets"]) == sorted(s.name for s in sets)
    # the category chooser's tunables, chosen on the systems that label a category (GAIA, TRAIL)
    chosen = again.meta["category_selection"]
    assert again.category.to_json() == chosen["params"]
    assert set(chosen["trained_on"]) == {"agenterrorbench-gaia", "trail-gaia", "trail-swe"}


def test_eval_fit_cli_writes_the_params_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _make_root(tmp_path)
    out = tmp_path / "params.json"
    assert main(["eval", "fit", str(root), "--no-embed", "--quiet", "--out", str(out)]) == 0
    params = RankerParams.from_json(json.loads(out.read_text(encoding="utf-8")))
    assert params.meta["command"] == "trajscope eval fit ROOT" and "selection" in params.meta
    assert "chosen on" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["tracertraj-code", "agenterrorbench-gaia"])
def test_eval_cli_lodo_mode(tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    root = _make_root(tmp_path)
    folder = root / DATASETS[name].folder
    assert main(["eval", name, str(folder), "--no-embed", "--quiet", "--lodo", str(root)]) == 0
    out = capsys.readouterr().out
    assert "nested: fitted on" in out and "every tunable chosen on them" in out
    assert "rule: always step 0" in out and "rule: uniform random step (expected)" in out
    assert ("agent@1" in out) == (name != "agenterrorbench-gaia")


def test_eval_suite_writes_tables_plot_and_params(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _make_root(tmp_path)
    out_json, plot, params = tmp_path / "suite.json", tmp_path / "curve.svg", tmp_path / "ranker.json"
    assert main(["eval", "suite", str(root), "--no-embed", "--quiet", "--draws", "2", "--json", str(out_json),
                 "--plot", str(plot), "--write-params", str(params)]) == 0
    doc = json.loads(out_json.read_text())
    assert set(doc["sets"]) == set(DATASETS)
    modes = [r["mode"] for r in doc["sets"]["who-and-when"]["results"]]
    assert modes[:3] == ["nested", "shipped", "cv"]
    assert set(doc["selections"]) == set(DATASETS)
    assert plot.read_text().startswith("<svg") and "step@1" in plot.read_text()
    # each adaptation point carries the unadapted weights scored on the same held-out runs
    for curve in doc["learning_curve"].values():
        for point in curve:
            base = point["unadapted_metrics"]["step@1"]
            assert base["n"] == point["metrics"]["step@1"]["n"]
            if point["k"] == 0:
                assert base == point["metrics"]["step@1"]
    shipped = json.loads(params.read_text())
    assert sorted(shipped["meta"]["trained_sets"]) == sorted(DATASETS)
    out = capsys.readouterr().out
    assert "shipped weights (in-sample)" in out and "category of the labelled step" in out
    # nested category figures for each system that labels a category, chosen without it
    assert set(doc["category"]) == {"agenterrorbench-gaia", "trail-gaia", "trail-swe"}
    for name, row in doc["category"].items():
        assert name not in row["chosen_without"]["trained_on"]
        assert 0 <= row["nested"]["k"] <= row["nested"]["n"] and row["random"] == 0.1
