"""``trajscope eval SET PATH [--cv K] [--lodo ROOT] [--adapt K --draws N --seed S] ...``.

Scores decisive-step attribution on a labelled development set, read by its own adapter
(:mod:`analyzer.evaluation.datasets`): ``who-and-when``, ``tracertraj-code`` or
``agenterrorbench-gaia``. Prints step@1, step@3, step within ±1/±3, agent@1 (multi-agent
sets) and category accuracy (sets with categories), each with a Wilson 95% interval, next to
the fixed rules computed on the same files.

Modes (several may be given; each is one row):

- default (no mode flag) or ``--shipped``: the shipped ranker weights;
- ``--cv K``: k-fold cross-validation within the set;
- ``--lodo ROOT``: leave-one-dataset-out: fit on the other sets found under ROOT (the
  ``shared/datasets`` folder), score this one. Two rows: ``lodo`` (the shipped structural-prior
  weight) and ``lodo-nested`` (that weight chosen leave-one-out among the other sets only);
- ``--adapt K --draws N --seed S``: per draw, adapt the weights to K random labelled runs of
  the set and score the others (what an analyst gets after labelling K runs). The weights
  adapted are the shipped ones, or with ``--lodo`` the ones fitted on the other sets (so the
  simulation starts from weights that never saw this system, as the analyst's would).

``trajscope eval suite ROOT`` runs every mode on every set found under ROOT, plus the learning
curve (K = 0, 5, 10, 20, 40), and can write the tables as JSON and the curve as an SVG plot.

``--full-pipeline`` (with ``who-and-when`` and the shipped weights only) runs exactly the
``trajscope analyze`` pipeline, the judge included, instead of the prepared fast path.

Exit codes: 0 done, 1 some files failed to load (they still count as wrong), 2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from analyzer.cli.analyze_cmd import add_model_options, load_models, progress_bar

SETS = ("who-and-when", "tracertraj-code", "agenterrorbench-gaia")
LEARNING_CURVE_K: tuple[int, ...] = (0, 5, 10, 20, 40)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``eval`` subcommand."""
    p = sub.add_parser("eval", help="score decisive-step attribution on labelled datasets")
    bench = p.add_subparsers(dest="benchmark", metavar="SET")
    for name in SETS:
        w = bench.add_parser(name, help=f"the {name} development set")
        w.add_argument("paths", nargs="+", type=Path, help="the set's folder (or, for who-and-when, files)")
        add_model_options(w)
        w.add_argument("--json", type=Path, metavar="OUT", help="write the figures as JSON")
        w.add_argument("--predictions", type=Path, metavar="OUT.jsonl",
                       help='write {"mode","draw","file","agent","step","top_steps"} per (mode, draw, run)')
        w.add_argument("--shipped", action="store_true", help="score the shipped weights (default without a mode)")
        w.add_argument("--cv", type=int, metavar="K", help="k-fold cross-validation within the set")
        w.add_argument("--lodo", type=Path, metavar="ROOT",
                       help="leave-one-dataset-out: fit on the other sets under ROOT, score this one")
        w.add_argument("--adapt", type=int, metavar="K", help="adapt to K random labelled runs per draw")
        w.add_argument("--draws", type=int, default=20, metavar="N", help="draws of --adapt (default 20)")
        w.add_argument("--seed", type=int, default=0, metavar="S", help="seed of --cv folds and --adapt draws")
        w.add_argument("--full-pipeline", action="store_true",
                       help="who-and-when, shipped weights: run the whole analyze pipeline (judge included)")
        w.add_argument("--quiet", action="store_true", help="no progress bar")
        w.set_defaults(func=run, set_name=name)
    s = bench.add_parser("suite", help="every set under ROOT: shipped, CV, LODO, adaptation, learning curve")
    s.add_argument("root", type=Path, help="the datasets folder (shared/datasets)")
    s.add_argument("--no-embed", action="store_true", help="no sentence embeddings")
    s.add_argument("--draws", type=int, default=20, metavar="N")
    s.add_argument("--seed", type=int, default=0, metavar="S")
    s.add_argument("--json", type=Path, metavar="OUT", help="write every table as JSON")
    s.add_argument("--plot", type=Path, metavar="OUT.svg", help="write the learning curve plot (SVG)")
    s.add_argument("--ablation", action="store_true", help="also each transfer signal's LODO contribution")
    s.add_argument("--write-params", type=Path, metavar="FILE.json",
                   help="write the transfer weights fitted on every set (the shipped params file)")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=run_suite, no_judge=True, judge=None)
    p.set_defaults(func=lambda args: _usage(p))


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _prepare(name: str, path: Path, embedder: Any, quiet: bool) -> Any:
    from analyzer.evaluation.datasets import DATASETS
    from analyzer.evaluation.transfer import prepare_set

    ls = DATASETS[name].load(path)
    with progress_bar(not quiet, f"preparing {name}") as prog:
        return prepare_set(ls, embedder=embedder, progress=prog), ls.load_errors


def _write_predictions(path: Path, results: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        for r in results:
            for d, preds in enumerate(r.predictions):
                for p in preds:
                    rec: dict[str, Any] = {"mode": r.mode}
                    if r.mode == "adapt":
                        rec["draw"] = d
                    rec.update(p.to_json())
                    fh.write(orjson.dumps(rec) + b"\n")


def _result_json(r: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"mode": r.mode, "note": r.note, "metrics": r.scores.to_json()}
    if r.unadapted is not None:
        out["unadapted_metrics"] = r.unadapted.to_json()
    if r.calibration is not None:
        out["calibration"] = r.calibration.to_json()
    if r.category:
        from analyzer.evaluation.scoring import wilson

        p, lo, hi = wilson(*r.category)
        out["category"] = {"k": r.category[0], "n": r.category[1], "p": round(p, 4),
                           "ci95": [round(lo, 4), round(hi, 4)]}
    return out


def run(args: argparse.Namespace) -> int:
    """Execute ``eval SET``."""
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        print(f"trajscope eval: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    if args.cv is not None and args.cv < 2:
        print("trajscope eval: --cv needs at least 2 folds", file=sys.stderr)
        return 2
    if args.adapt is not None and (args.adapt < 0 or args.draws < 1):
        print("trajscope eval: --adapt needs K >= 0 and --draws >= 1", file=sys.stderr)
        return 2
    if args.lodo is not None and not args.lodo.is_dir():
        print(f"trajscope eval: --lodo: no such folder: {args.lodo}", file=sys.stderr)
        return 2
    if args.full_pipeline or (args.set_name == "who-and-when" and len(args.paths) > 1):
        return _run_full_pipeline(args)
    if len(args.paths) != 1:
        print(f"trajscope eval {args.set_name}: give the set's folder", file=sys.stderr)
        return 2
    notes: list[str] = []
    if args.judge:
        notes.append("--judge is used with --full-pipeline only; these modes rank without the judge")
    args.no_judge = True
    _, embedder = load_models(args, notes)
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    from analyzer.attribution.ranker import Ranker
    from analyzer.evaluation.transfer import (
        adapt,
        cross_validate,
        fixed_rules,
        format_mode,
        leave_one_dataset_out,
        leave_one_dataset_out_nested,
        score_with,
        transfer_ranker,
    )

    try:
        ps, load_errors = _prepare(args.set_name, args.paths[0], embedder, args.quiet)
    except (FileNotFoundError, ValueError) as exc:
        print(f"trajscope eval: {exc}", file=sys.stderr)
        return 2
    shipped = Ranker.load()
    results = []
    any_mode = args.cv or args.lodo or args.adapt is not None
    if args.shipped or not any_mode:
        results.append(score_with(ps, lambda r: shipped, "shipped", _shipped_note(shipped, ps)))
    if args.cv:
        results.append(cross_validate(ps, args.cv, args.seed))
    base = shipped
    if args.lodo:
        others = [_prepare(n, _set_path(args.lodo, n), embedder, args.quiet)[0]
                  for n in SETS if n != args.set_name and _set_path(args.lodo, n).exists()]
        if not others:
            print(f"trajscope eval: --lodo: no other set under {args.lodo}", file=sys.stderr)
            return 2
        results.append(leave_one_dataset_out(ps, others))
        results.append(leave_one_dataset_out_nested(ps, others))
        base = transfer_ranker(others)
    if args.adapt is not None:
        results.append(adapt(ps, base, args.adapt, args.draws, args.seed))
    print(format_mode(ps, results, fixed_rules(ps)))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        doc = {"set": ps.name, "records": len(ps.golds), "results": [_result_json(r) for r in results],
               "rules": {k: v.to_json() for k, v in fixed_rules(ps).items()}, "load_errors": load_errors}
        args.json.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    if args.predictions:
        _write_predictions(args.predictions, results)
    if load_errors:
        print(f"{len(load_errors)} load problems (those files count as wrong):", file=sys.stderr)
        for e in load_errors:
            print(f"  {e}", file=sys.stderr)
        return 1
    return 0


def _set_path(root: Path, name: str) -> Path:
    from analyzer.evaluation.datasets import dataset_path

    return dataset_path(root, name)


def _shipped_note(ranker: Any, ps: Any) -> str:
    trained = set(ranker.params.meta.get("trained_sets", []))
    return "shipped weights (in-sample)" if ps.name in trained else "shipped weights"


def _run_full_pipeline(args: argparse.Namespace) -> int:
    """The whole analyze pipeline on Who&When files (the judge included)."""
    from analyzer.evaluation.harness import evaluate, format_report

    if args.set_name != "who-and-when":
        print("trajscope eval: --full-pipeline reads Who&When-shaped files only", file=sys.stderr)
        return 2
    notes: list[str] = []
    judge, embedder = load_models(args, notes)
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    with progress_bar(not args.quiet, "analysing") as prog:
        report = evaluate(args.paths, judge=judge, embedder=embedder, cv_folds=args.cv, progress=prog)
    print(format_report(report))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_bytes(orjson.dumps(report.to_json(), option=orjson.OPT_INDENT_2) + b"\n")
    if args.predictions:
        args.predictions.parent.mkdir(parents=True, exist_ok=True)
        with args.predictions.open("wb") as fh:
            for p in report.predictions:
                fh.write(orjson.dumps(p.to_json()) + b"\n")
    if report.files == 0:
        print("trajscope eval: no labelled runs found", file=sys.stderr)
        return 1
    return 1 if report.load_errors else 0


def run_suite(args: argparse.Namespace) -> int:
    """Execute ``eval suite ROOT``: every mode on every set, and the learning curve."""
    from analyzer.attribution.ranker import Ranker
    from analyzer.evaluation.transfer import (
        adapt,
        cross_validate,
        fixed_rules,
        format_mode,
        leave_one_dataset_out,
        leave_one_dataset_out_nested,
        score_with,
        transfer_ranker,
    )

    if not args.root.is_dir():
        print(f"trajscope eval suite: no such folder: {args.root}", file=sys.stderr)
        return 2
    notes: list[str] = []
    _, embedder = load_models(args, notes)
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    prepared = {n: _prepare(n, _set_path(args.root, n), embedder, args.quiet)[0]
                for n in SETS if _set_path(args.root, n).exists()}
    if not prepared:
        print(f"trajscope eval suite: no development set under {args.root}", file=sys.stderr)
        return 2
    if args.write_params:
        import datetime as _dt
        import json as _json

        from analyzer.evaluation.transfer import params_for_sets

        params = params_for_sets(list(prepared.values()),
                                 meta={"fitted": _dt.date.today().isoformat(), "embeddings": embedder is not None})
        args.write_params.parent.mkdir(parents=True, exist_ok=True)
        args.write_params.write_text(_json.dumps(params.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.write_params}")
    shipped = Ranker.load(args.write_params) if args.write_params else Ranker.load()
    doc: dict[str, Any] = {"sets": {}, "learning_curve": {}}
    for name, ps in prepared.items():
        others = [o for n, o in prepared.items() if n != name]
        results = [score_with(ps, lambda r: shipped, "shipped", _shipped_note(shipped, ps)),
                   cross_validate(ps, 5, args.seed)]
        base = shipped
        if others:
            results.append(leave_one_dataset_out(ps, others))
            results.append(leave_one_dataset_out_nested(ps, others))
            base = transfer_ranker(others)  # a new system: the weights never saw this set
        curve = []
        for k in LEARNING_CURVE_K:
            if k > len(ps.trainable) - 5:
                continue
            res = adapt(ps, base, k, args.draws if k else 1, args.seed)
            curve.append((k, res))
            if k == 10:
                results.append(res)
        rules = fixed_rules(ps)
        print(format_mode(ps, results, rules))
        print("  learning curve (step@1, mean over draws; the weights not adapted, on the same runs): "
              + ", ".join(f"K={k}: {r.scores.metrics['step@1'].p:.1%}"
                          + (f" ({r.unadapted.metrics['step@1'].p:.1%})" if r.unadapted is not None and k else "")
                          for k, r in curve))
        print()
        doc["sets"][name] = {"records": len(ps.golds), "results": [_result_json(r) for r in results],
                             "rules": {k: v.to_json() for k, v in rules.items()}}
        doc["learning_curve"][name] = [{"k": k, **_result_json(r)} for k, r in curve]
    if args.ablation:
        from analyzer.evaluation.transfer import ablation, format_ablation

        table = ablation(list(prepared.values()))
        print("ablation: leave-one-dataset-out step@1 without each transfer signal")
        print(format_ablation(table))
        doc["ablation"] = table
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    if args.plot:
        from analyzer.export.curve_plot import write_learning_curve

        print(f"wrote {write_learning_curve(doc['learning_curve'], args.plot)}")
    return 0
