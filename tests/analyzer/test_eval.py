"""Evaluation harness: scoring rules, Wilson intervals, baselines, the eval and analyze CLIs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from analyzer.cli import main
from analyzer.evaluation import (
    Gold,
    Prediction,
    baseline_predictions,
    evaluate,
    format_report,
    normalise_agent,
    score,
    wilson,
)
from analyzer.evaluation.scoring import calibration
from analyzer.schema.models import Role, Step, StepKind, Trajectory

ROOT = Path(__file__).resolve().parents[2]
WHO_AND_WHEN = ROOT / "sample_traces" / "who_and_when"


def test_agent_names_are_casefolded_and_suffix_stripped() -> None:
    assert normalise_agent("Orchestrator (thought)") == "orchestrator"
    assert normalise_agent("  WebSurfer ") == "websurfer"
    assert normalise_agent("Excel_Expert (-> Computer_terminal)") == "excel_expert"
    assert normalise_agent("A (x) (y)") == "a"
    assert normalise_agent("Name(with)inside") == "name(with)inside"
    assert normalise_agent(None) == "" and normalise_agent("") == ""


def test_wilson_interval_known_values() -> None:
    p, lo, hi = wilson(5, 10)
    assert p == 0.5 and lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    p, lo, hi = wilson(0, 20)
    assert p == 0.0 and lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)
    p, lo, hi = wilson(20, 20)
    assert hi == 1.0 and lo == pytest.approx(0.8389, abs=1e-4)
    assert wilson(0, 0) == (0.0, 0.0, 0.0)


def test_position_bucket_covers_every_index_once() -> None:
    from analyzer.evaluation.transfer import POSITION_BUCKETS, position_bucket

    assert [position_bucket(i) for i in (0, 3, 4, 7, 8, 500)] == [0, 0, 1, 1, 2, 2]
    assert len(POSITION_BUCKETS) == 3
    assert position_bucket(5, ((0, 1),)) is None
    assert position_bucket(5, ((0, None),)) == 0


def test_scoring_rules() -> None:
    golds = [Gold("a.json", 3, "WebSurfer"), Gold("b.json", 0, "Coder"), Gold("c.json", 5, "Planner"),
             Gold("d.json", None, "X"), Gold("missing.json", 1, "Y")]
    preds = {
        "a.json": Prediction("a.json", 3, "websurfer (thought)", (3, 1, 2)),   # exact, agent ok
        "b.json": Prediction("b.json", 2, "Planner", (2, 1, 0)),               # top-3 hit, +-2
        "c.json": Prediction("c.json", 9, "Planner", (9, 8, 7, 5)),            # gold 4th: no step@3
        "d.json": Prediction("d.json", 1, "x", (1,)),                          # no gold step: step wrong
    }
    s = score(golds, preds).metrics
    assert {k: m.n for k, m in s.items()} == dict.fromkeys(s, 5)  # every file counts
    assert s["step@1"].k == 1
    assert s["step@3"].k == 2
    assert (s["step±1"].k, s["step±2"].k, s["step±3"].k) == (1, 2, 2)
    assert s["agent@1"].k == 3  # a (suffix stripped), c, d (casefolded)
    assert s["coverage"].k == 4
    assert s["step@1"].p == pytest.approx(0.2)


def test_calibration_of_the_decisive_steps_confidence() -> None:
    golds = [Gold("a", 1, None), Gold("b", 2, None), Gold("c", 0, None), Gold("d", None, None), Gold("e", 4, None)]
    preds = {"a": Prediction("a", 1, None, (1,), 0.9),   # hit, bin 4
             "b": Prediction("b", 0, None, (0,), 0.85),  # miss, bin 4
             "c": Prediction("c", 0, None, (0,), 0.1),   # hit, bin 0
             "d": Prediction("d", 3, None, (3,), 0.5),   # no gold step: not counted
             "e": Prediction("e", 4, None, (4,))}        # no confidence: not counted
    c = calibration(golds, preds)
    assert c is not None and c.n == 3
    assert c.mean_confidence == pytest.approx(1.85 / 3)
    assert c.step_at_1 == pytest.approx(2 / 3)
    assert c.ece == pytest.approx((abs(1.75 - 1) + abs(0.1 - 1)) / 3)
    assert c.brier == pytest.approx((0.1 ** 2 + 0.85 ** 2 + 0.9 ** 2) / 3)
    assert calibration(golds, {"e": preds["e"]}) is None
    assert Prediction("a", 1, None, (1,), 0.12345).to_json()["confidence"] == 0.1235
    assert "confidence" not in Prediction("a", 1, None).to_json()


def _who_and_when_like() -> Trajectory:
    steps = [Step(index=0, agent="Planner", kind=StepKind.MESSAGE, text="task"),
             Step(index=1, agent="Computer_terminal", role=Role.TOOL, kind=StepKind.OBSERVATION, text="exitcode: 0"),
             Step(index=2, agent="Coder", kind=StepKind.MESSAGE, text="code"),
             Step(index=3, agent="Checker", kind=StepKind.MESSAGE, text="ok")]
    return Trajectory(id="x", source_file="/d/7.json", steps=steps)


def test_baselines_use_step_kinds_only() -> None:
    b = baseline_predictions([_who_and_when_like()])
    assert b["always step 0"]["7.json"].step == 0 and b["always step 0"]["7.json"].agent == "Planner"
    assert b["always step 1"]["7.json"].agent == "Computer_terminal"
    first = b["first agent step after 0"]["7.json"]
    assert (first.step, first.agent) == (2, "Coder")


def test_evaluate_on_who_and_when_samples() -> None:
    rep = evaluate([WHO_AND_WHEN])
    assert rep.files == 4 and rep.load_errors == []
    assert rep.scores.metrics["coverage"].k == 4
    assert len(rep.predictions) == 4
    assert all(p.top_steps and p.top_steps[0] == p.step for p in rep.predictions)
    assert set(rep.baselines) == {"always step 0", "always step 1", "first agent step after 0",
                                  "second agent step after 0", "most active agent (its first step)",
                                  "first agent to run something", "agent with most actions (its first action)"}
    text = format_report(rep)
    for name in ("step@1", "step@3", "step±1", "step±2", "step±3", "agent@1", "coverage"):
        assert name in text
    assert "judge: none" in text


def test_a_file_that_fails_to_load_counts_as_wrong(tmp_path: Path) -> None:
    for f in WHO_AND_WHEN.glob("*.json"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "broken.json").write_text('{"history": [', encoding="utf-8")
    rep = evaluate([tmp_path])
    assert rep.files == 5 and rep.load_errors
    assert rep.scores.metrics["coverage"].k == 4 and rep.scores.metrics["coverage"].n == 5


def test_eval_cli_writes_json_and_predictions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json, out_pred = tmp_path / "eval.json", tmp_path / "pred.jsonl"
    code = main(["eval", "who-and-when", str(WHO_AND_WHEN), "--no-embed", "--quiet",
                 "--json", str(out_json), "--predictions", str(out_pred)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "step@1" in printed and "first agent step after 0" in printed and "%" in printed
    doc = json.loads(out_json.read_text())
    assert doc["records"] == 4 and doc["results"][0]["mode"] == "shipped"
    m = doc["results"][0]["metrics"]
    assert set(m) >= {"step@1", "step@3", "agent@1", "coverage"}
    assert m["step@1"]["ci95"][0] <= m["step@1"]["p"] <= m["step@1"]["ci95"][1]
    assert set(doc["rules"]) >= {"always step 0", "second agent step after 0", "most active agent (its first step)"}
    lines = [json.loads(x) for x in out_pred.read_text().splitlines()]
    assert len(lines) == 4
    assert all(set(r) == {"mode", "file", "agent", "step", "top_steps", "confidence"} for r in lines)
    assert all(0.0 < r["confidence"] <= 1.0 for r in lines)
    cal = doc["results"][0]["calibration"]
    assert cal["n"] == 4 and 0.0 <= cal["ece"] <= 1.0 and 0.0 <= cal["brier"] <= 1.0
    assert all(isinstance(r["step"], int) and r["top_steps"][0] == r["step"] for r in lines)


def test_eval_cli_cross_validated_and_adapt_modes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_pred = tmp_path / "pred.jsonl"
    assert main(["eval", "who-and-when", str(WHO_AND_WHEN), "--no-embed", "--quiet", "--cv", "2",
                 "--adapt", "2", "--draws", "3", "--seed", "1", "--predictions", str(out_pred)]) == 0
    out = capsys.readouterr().out
    assert "cv: 2-fold CV" in out and "adapt: adapted to 2 labelled" in out
    lines = [json.loads(x) for x in out_pred.read_text().splitlines()]
    adapt = [r for r in lines if r["mode"] == "adapt"]
    assert {r["draw"] for r in adapt} == {0, 1, 2}
    assert len(adapt) == 3 * 2  # each draw scores the 2 runs it was not fitted on
    assert all("draw" not in r for r in lines if r["mode"] == "cv")


def test_eval_cli_bad_usage(tmp_path: Path) -> None:
    assert main(["eval", "who-and-when", str(tmp_path / "nope")]) == 2
    assert main(["eval"]) == 2


def test_analyze_cli_writes_all_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code = main(["analyze", str(ROOT / "sample_traces"), "--no-judge", "--no-embed", "--out", str(out)])
    assert code in (0, 1)  # 1 only when some sample file failed to load
    for name in ("traces", "steps", "findings", "models"):
        assert (out / f"{name}.csv").exists() and (out / f"{name}.parquet").exists()
    traces = pl.read_csv(out / "traces.csv")
    assert {"decisive_step", "decisive_agent", "category", "confidence", "top_steps"} <= set(traces.columns)
    failed = traces.filter(pl.col("outcome") == "failure")
    assert failed.height > 0 and failed["decisive_step"].null_count() == 0
    steps = pl.read_parquet(out / "steps.parquet")
    assert {"value", "drop", "alignment", "value_estimator"} <= set(steps.columns)
    err = capsys.readouterr().err
    assert "runs analysed" in err and "attributed" in err


def test_analyze_cli_bad_usage(tmp_path: Path) -> None:
    assert main(["analyze", str(tmp_path / "missing")]) == 2
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["analyze", str(WHO_AND_WHEN), "--out", str(f)]) == 2
