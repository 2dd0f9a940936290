"""``trajscope eval SET PATH [--cv K] [--lodo ROOT] [--adapt K --draws N --seed S] ...``.

Scores decisive-step attribution on a labelled development set, read by its own adapter
(:mod:`analyzer.evaluation.datasets`): ``who-and-when``, ``tracertraj-code``,
``agenterrorbench-gaia``, ``trail-gaia`` or ``trail-swe``. Prints step@1, step@3, step within
±1/±3, loc@1/loc@3 (TRAIL), agent@1 (multi-agent sets) and category accuracy (sets with
categories), each with a Wilson 95% interval, next to the fixed rules and a uniform random step
computed on the same files.

Modes (several may be given; each is one row):

- default (no mode flag) or ``--shipped``: the shipped ranker weights;
- ``--cv K``: k-fold cross-validation within the set;
- ``--lodo ROOT``: nested leave-one-system-out: every tunable chosen and the weights fitted on
  the other sets found under ROOT (the ``shared/datasets`` folder), then this one scored;
- ``--adapt K --draws N --seed S``: per draw, adapt the weights to K random labelled runs of
  the set and score the others (what an analyst gets after labelling K runs). The weights
  adapted are the shipped ones, or with ``--lodo`` the nested ones (that never saw this system).

``trajscope eval fit ROOT`` chooses every tunable by leave-one-system-out over the sets under
ROOT (:mod:`analyzer.evaluation.selection`) and writes the shipped params file.
``trajscope eval fit-curve ROOT`` chooses the value curve's weights by nested leave-one-system-out
(:mod:`analyzer.evaluation.curve_fit`), prints the nested table and writes the value-curve params.
``trajscope eval suite ROOT`` scores nested leave-one-system-out on every set (the headline),
the shipped weights, in-set CV, the adaptation curve (K = 0, 5, 10, 20) from the nested weights
and labels chosen most-uncertain-first against random ones, and can write the tables as JSON
and the curve as an SVG plot.

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

CRITERIA = ("pooled", "position-balanced")
"""The selection's criteria (:data:`analyzer.evaluation.selection.CRITERIA`, not imported here to keep
the command line fast to start; a test keeps the two equal)."""

SETS = ("who-and-when", "tracertraj-code", "agenterrorbench-gaia", "trail-gaia", "trail-swe")
SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"
"""The planted-failure samples: with ``--with-samples``, training data of the selection and the fit
(never a held-out system). Not used for the shipped params: ``docs/eval/trials.md``."""
LEARNING_CURVE_K: tuple[int, ...] = (0, 5, 10, 20)


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
        w.add_argument("--with-samples", action="store_true",
                       help="with --lodo: add the planted-failure samples (sample_traces/) as training data")
        w.add_argument("--adapt", type=int, metavar="K", help="adapt to K random labelled runs per draw")
        w.add_argument("--draws", type=int, default=20, metavar="N", help="draws of --adapt (default 20)")
        w.add_argument("--seed", type=int, default=0, metavar="S", help="seed of --cv folds and --adapt draws")
        w.add_argument("--full-pipeline", action="store_true",
                       help="who-and-when, shipped weights: run the whole analyze pipeline (judge included)")
        w.add_argument("--quiet", action="store_true", help="no progress bar")
        w.set_defaults(func=run, set_name=name)
    f = bench.add_parser("fit", help="choose every tunable by leave-one-system-out and write the params file")
    f.add_argument("root", type=Path, help="the datasets folder (shared/datasets)")
    f.add_argument("--out", type=Path, metavar="FILE.json",
                   help="where to write the params (default: the shipped params file in the package)")
    f.add_argument("--no-embed", action="store_true", help="no sentence embeddings")
    f.add_argument("--cache", type=Path, metavar="DIR", help="keep the prepared sets here (delete it when features change)")
    f.add_argument("--with-samples", action="store_true",
                   help="add the planted-failure samples (sample_traces/) as training data (a trial: not shipped)")
    f.add_argument("--criterion", choices=CRITERIA, default="pooled",
                   help="what the selection maximises: held-out step@1 + step@3 over every labelled run (pooled), "
                        "or the mean over label-position buckets (position-balanced)")
    f.add_argument("--judge", dest="fit_judge", metavar="MODEL",
                   help="also choose the judge's re-ranking weight for this judge (packaged name or .gguf path) by "
                        "leave-one-system-out; without it the weight is 0 (the judge re-ranks nothing)")
    f.add_argument("--judge-top-k", type=int, default=3, metavar="K", help="top steps the judge is asked about (default 3)")
    f.add_argument("--quiet", action="store_true")
    f.set_defaults(func=run_fit, no_judge=True, judge=None)
    c = bench.add_parser("fit-curve", help="choose the value curve's params (weights, filter constants, episode and "
                                           "alignment rules) by nested leave-one-system-out")
    c.add_argument("root", type=Path, help="the datasets folder (shared/datasets)")
    c.add_argument("--out", type=Path, metavar="FILE.json",
                   help="write the params chosen on every system here (the shipped value-curve params file)")
    c.add_argument("--json", type=Path, metavar="OUT", help="write the nested table and the selections as JSON")
    c.add_argument("--cache", type=Path, metavar="DIR",
                   help="keep the term matrices of each set here, with the runs they are read from")
    c.add_argument("--prepared", type=Path, metavar="DIR",
                   help="read the ranker evaluation's prepared sets from here (`eval suite --cache`), when present")
    c.add_argument("--no-embed", action="store_true",
                   help="no sentence embeddings (lexical alignment, detectors without embeddings)")
    c.add_argument("--ablation", action="store_true",
                   help="also each column's contribution at the nested weights (its weight set to 0)")
    c.add_argument("--quiet", action="store_true")
    c.set_defaults(func=run_fit_curve, no_judge=True, judge=None)
    s = bench.add_parser("suite", help="every set under ROOT: nested leave-one-system-out, CV, adaptation")
    s.add_argument("root", type=Path, help="the datasets folder (shared/datasets)")
    s.add_argument("--no-embed", action="store_true", help="no sentence embeddings")
    s.add_argument("--draws", type=int, default=20, metavar="N")
    s.add_argument("--seed", type=int, default=0, metavar="S")
    s.add_argument("--json", type=Path, metavar="OUT", help="write every table as JSON")
    s.add_argument("--plot", type=Path, metavar="OUT.svg", help="write the learning curve plot (SVG)")
    s.add_argument("--ablation", action="store_true", help="also each transfer signal's LODO contribution")
    s.add_argument("--write-params", type=Path, metavar="FILE.json",
                   help="also run `eval fit` and write its params here (the shipped params file)")
    s.add_argument("--cache", type=Path, metavar="DIR", help="keep the prepared sets here (delete it when features change)")
    s.add_argument("--with-samples", action="store_true",
                   help="add the planted-failure samples (sample_traces/) as training data (a trial: not shipped)")
    s.add_argument("--criterion", choices=CRITERIA, default="pooled",
                   help="what the selection maximises (see eval fit --criterion); the reported figures are pooled")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=run_suite, no_judge=True, judge=None)
    p.set_defaults(func=lambda args: _usage(p))


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


PREPARED_FORMAT = 3
"""Version of a cached prepared set (``--cache``): a cache of another version is prepared again
(2: TRAIL's first-error categories are gold labels; 3: each run keeps its step-signal table)."""


def _prepare(name: str, path: Path, embedder: Any, quiet: bool, cache: Path | None = None) -> Any:
    import pickle

    from analyzer.evaluation.datasets import DATASETS
    from analyzer.evaluation.transfer import prepare_set

    stored = cache / f"{name}{'' if embedder is not None else '-noembed'}.pickle" if cache else None
    if stored is not None and stored.is_file():
        kept = pickle.loads(stored.read_bytes())
        if len(kept) == 3 and kept[2] == PREPARED_FORMAT:
            return kept[0], kept[1]
    from analyzer.evaluation.datasets import PLANTED, load_planted_samples

    ls = load_planted_samples(path) if name == PLANTED else DATASETS[name].load(path)
    with progress_bar(not quiet, f"preparing {name}") as prog:
        out = prepare_set(ls, embedder=embedder, progress=prog), ls.load_errors
    if stored is not None:
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_bytes(pickle.dumps((*out, PREPARED_FORMAT)))
    return out


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
    from analyzer.evaluation.selection import Selector, params_of, select
    from analyzer.evaluation.transfer import (
        adapt,
        cross_validate,
        fixed_rules,
        format_mode,
        score_with,
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
        if args.with_samples and SAMPLES.is_dir():
            from analyzer.evaluation.datasets import PLANTED

            others.append(_prepare(PLANTED, SAMPLES, embedder, args.quiet)[0])
        names = [o.name for o in others]
        selector = Selector([ps, *others])
        choice = select(selector, names)
        base = Ranker(params_of(selector, names, choice, {"held_out": ps.name}))
        ps = selector.set(ps.name, choice.step)
        results.append(score_with(ps, lambda r: base, "nested",
                                  f"fitted on {' + '.join(names)}, every tunable chosen on them"))
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


def _prepared_sets(args: argparse.Namespace, embedder: Any) -> dict[str, Any]:
    """Every development set under the root, plus the planted samples (training only) with ``--with-samples``."""
    out = {n: _prepare(n, _set_path(args.root, n), embedder, args.quiet, args.cache)[0]
           for n in SETS if _set_path(args.root, n).exists()}
    if out and args.with_samples and SAMPLES.is_dir():
        from analyzer.evaluation.datasets import PLANTED

        out[PLANTED] = _prepare(PLANTED, SAMPLES, embedder, args.quiet, args.cache)[0]
    return out


def _models(args: argparse.Namespace) -> Any:
    notes: list[str] = []
    _, embedder = load_models(args, notes)
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    return embedder


def _write_params(path: Path, params: Any) -> None:
    import json as _json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_json.dumps(params.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def _fit(prepared: dict[str, Any], embedder: Any, out: Path, quiet: bool, selector: Any = None,
         judge: Any = None, judge_top_k: int = 3, answers: Path | None = None) -> Any:
    import dataclasses
    import datetime as _dt

    from analyzer.evaluation.selection import Selector, fit_all

    selector = selector or Selector(list(prepared.values()))
    with progress_bar(not quiet, "selecting on every system") as prog:
        params, choice = fit_all(list(prepared.values()), prog, selector,
                                 meta={"fitted": _dt.date.today().isoformat(), "embeddings": embedder is not None,
                                       "command": "trajscope eval fit ROOT"})
    print(f"chosen on {', '.join(choice.trained_on)}: {choice.step}, {choice.agent}, "
          f"calibration temperature {choice.temperature:g}")
    print(f"category chooser: {params.category}")
    if judge is not None:
        from analyzer.evaluation.judge_select import choose_judge_weight

        with progress_bar(not quiet, "asking the judge about each run's top steps") as prog:
            jc = choose_judge_weight(selector, choice.trained_on, choice.step, judge, judge_top_k, answers, prog)
        params = dataclasses.replace(params, judge_weight=jc.weight, judge_top_k=judge_top_k,
                                     meta={**params.meta, "judge": jc.to_json()})
        print(f"judge {jc.model} (top {judge_top_k}): weight {jc.weight:g}; mean step@1 + step@3 by weight: "
              + ", ".join(f"{w:g}: {v:.4f}" for w, v in jc.criterion.items()))
    _write_params(out, params)
    return params


def _rate(r: dict[str, Any]) -> str:
    """``12.3% [8-18] (k/n)`` from a JSON rate with a Wilson interval."""
    return f"{r['p']:.1%} [{r['lo']:.0%}-{r['hi']:.0%}] ({r['k']}/{r['n']})"


def _shipped_params_path() -> Path:
    from importlib import resources

    from analyzer.attribution.ranker import DEFAULT_PARAMS_FILE

    return Path(str(resources.files("analyzer.attribution").joinpath("params", DEFAULT_PARAMS_FILE)))


def _development_sets(args: argparse.Namespace, command: str) -> tuple[Any, dict[str, Any]] | None:
    """The embedder and the prepared sets under ``args.root``; None (after saying why) when too few."""
    if not args.root.is_dir():
        print(f"trajscope eval {command}: no such folder: {args.root}", file=sys.stderr)
        return None
    embedder = _models(args)
    prepared = _prepared_sets(args, embedder)
    if sum(not p.training_only for p in prepared.values()) < 3:
        print(f"trajscope eval {command}: need at least three development sets under {args.root}", file=sys.stderr)
        return None
    return embedder, prepared


def run_fit(args: argparse.Namespace) -> int:
    """Execute ``eval fit ROOT``: the selection on every system, then write the params file.

    With ``--judge MODEL`` the judge's re-ranking weight is chosen too (its answers are kept in
    the ``--cache`` folder, one file per judge model); the judge is loaded first, so a missing
    model stops the command before any set is prepared.
    """
    judge = None
    if args.fit_judge:
        from analyzer.errors import ModelUnavailable
        from analyzer.judge import load_judge

        try:
            judge = load_judge(args.fit_judge, cache=False)
        except ModelUnavailable as exc:
            print(f"trajscope eval fit: cannot load the judge {args.fit_judge!r}: {exc}", file=sys.stderr)
            return 2
    found = _development_sets(args, "fit")
    if found is None:
        return 2
    embedder, prepared = found
    from analyzer.evaluation.selection import Selector

    answers = None
    if judge is not None and args.cache is not None:
        safe = "".join(c if c.isalnum() or c in "-_.@" else "_" for c in judge.model_id)
        answers = args.cache / f"judge-answers-{safe}.json"
    _fit(prepared, embedder, args.out or _shipped_params_path(), args.quiet,
         Selector(list(prepared.values()), args.criterion), judge, args.judge_top_k, answers)
    return 0


def run_suite(args: argparse.Namespace) -> int:
    """Execute ``eval suite ROOT``: nested leave-one-system-out on every set, CV, adaptation curve."""
    from analyzer.attribution.ranker import Ranker
    from analyzer.evaluation.category_select import nested_category_selection
    from analyzer.evaluation.selection import Selector, column_ablation, nested_leave_one_system_out
    from analyzer.evaluation.transfer import (
        active_vs_random,
        adapt,
        by_label_position,
        constant,
        cross_validate,
        fixed_rules,
        format_mode,
        reweighted,
        score_with,
    )

    found = _development_sets(args, "suite")
    if found is None:
        return 2
    embedder, prepared = found
    selector = Selector(list(prepared.values()), args.criterion)
    if args.write_params:
        _fit(prepared, embedder, args.write_params, args.quiet, selector)
    shipped = Ranker.load(args.write_params) if args.write_params else Ranker.load()
    with progress_bar(not args.quiet, "nested leave-one-system-out") as prog:
        nested = nested_leave_one_system_out(list(prepared.values()), prog, selector)
    doc: dict[str, Any] = {"sets": {}, "learning_curve": {}, "active_learning": {},
                           "selections": {n: s.to_json() for n, s in nested.selections.items()}}
    for name, ps in prepared.items():
        if ps.training_only:
            continue
        base = Ranker(nested.params[name])  # a new system: nothing about it was seen
        choice = nested.selections[name]
        nps = selector.set(name, choice.step)  # its evidence column weighed as the nested choice says
        results = [score_with(nps, constant(base), "nested",
                              f"nested leave-one-system-out ({choice.step.features}, chosen on the other systems)"),
                   score_with(reweighted(ps, shipped.params.evidence_classes, rule=shipped.params.symptom_rule),
                              constant(shipped), "shipped",
                              _shipped_note(shipped, ps)),
                   cross_validate(ps, 5, args.seed)]
        curve = []
        for k in LEARNING_CURVE_K:
            if k > len(ps.trainable) - 5:
                continue
            res = adapt(nps, base, k, args.draws if k else 1, args.seed)
            curve.append((k, res))
        al = active_vs_random(nps, base, 10, args.draws, args.seed) if len(ps.trainable) >= 30 else None
        rules = fixed_rules(ps)
        print(format_mode(ps, results, rules))
        print("  adaptation from the nested weights (step@1, mean over draws; unadapted on the same runs): "
              + ", ".join(f"K={k}: {r.scores.metrics['step@1'].p:.1%}"
                          + (f" ({r.unadapted.metrics['step@1'].p:.1%})" if r.unadapted is not None and k else "")
                          for k, r in curve))
        if al is not None:
            print(f"  K=10 labels chosen most-uncertain-first: {al['active']:.1%}; at random: {al['random']:.1%} "
                  f"(same test runs, {args.draws} draws)")
            doc["active_learning"][name] = al
        positions = by_label_position(ps, results[0].predictions[0])
        print("  nested step@1 by where the label lies: " + ", ".join(
            f"steps {b['bucket']}: {b['step@1']['p']:.1%} of {b['n']} (random {b['random@1']:.1%})" for b in positions))
        print()
        doc["sets"][name] = {"records": len(ps.golds), "results": [_result_json(r) for r in results],
                             "rules": {k: v.to_json() for k, v in rules.items()}, "by_position": positions}
        doc["learning_curve"][name] = [{"k": k, **_result_json(r)} for k, r in curve]
    categories = nested_category_selection(list(prepared.values()))
    if categories:
        print("category of the labelled step, nested leave-one-system-out (chosen on the other systems "
              "that label a category):")
        for name, nc in categories.items():
            row = nc.to_json()
            print(f"  {name:<22} nested {_rate(row['nested'])}; before the selection {_rate(row['pre_selection'])}; "
                  f"training systems' most frequent ({row['training_constant']['category']}) "
                  f"{_rate(row['training_constant'])}; random {row['random']:.1%}")
        doc["category"] = {name: nc.to_json() for name, nc in categories.items()}
    if args.ablation:
        with progress_bar(not args.quiet, "column ablation") as prog:
            doc["ablation"] = column_ablation(selector, nested, prog)
        print("ablation: nested leave-one-system-out step@1 without each column (points against all)")
        for col, row in doc["ablation"].items():
            print(f"  {col:<24}" + "  ".join(f"{n}: {v:+.1f}" for n, v in row.items()))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    if args.plot:
        from analyzer.export.curve_plot import write_learning_curve

        print(f"wrote {write_learning_curve(doc['learning_curve'], args.plot)}")
    return 0


def run_fit_curve(args: argparse.Namespace) -> int:
    """Execute ``eval fit-curve ROOT``: nested leave-one-system-out of the value curve, then the fit on all."""
    import datetime as _dt

    from analyzer.attribution.curve_params import HANDSET_PARAMS_FILE, CurveParams
    from analyzer.attribution.ranker import Ranker
    from analyzer.evaluation.curve_fit import (
        Evaluator,
        column_ablation,
        format_nested,
        nested_leave_one_system_out,
        prepare_curve_set,
        select_and_fit,
    )

    if not args.root.is_dir():
        print(f"trajscope eval fit-curve: no such folder: {args.root}", file=sys.stderr)
        return 2
    start = CurveParams.packaged(HANDSET_PARAMS_FILE)
    prior = Ranker.shipped().params.value_prior
    embedder = _models(args)
    sets = []
    for name in SETS:
        path = _set_path(args.root, name)
        if not path.exists():
            continue
        with progress_bar(not args.quiet, f"term matrices of {name}") as prog:
            sets.append(prepare_curve_set(name, path, start, cache=args.cache, prepared=args.prepared,
                                          embedder=embedder, progress=prog))
    if len(sets) < 3:
        print(f"trajscope eval fit-curve: need at least three development sets under {args.root}", file=sys.stderr)
        return 2
    ev = Evaluator(sets, prior)  # shared: the folds and the final selection reuse each other's fits
    with progress_bar(not args.quiet, "nested leave-one-system-out") as prog:
        nested = nested_leave_one_system_out(sets, start, prior, prog, ev)
    print(format_nested(nested), flush=True)
    ablation = None
    if args.ablation:
        with progress_bar(not args.quiet, "column ablation") as prog:
            ablation = column_ablation(sets, nested, prior, prog)
        print("ablation: held-out step@1 of the largest drop with one column's nested weight set to 0 (points)")
        for col, row in ablation.items():
            print(f"  {col:<30}" + "  ".join(f"{n}: {v:+.1f}" for n, v in row.items()))
    with progress_bar(not args.quiet, "selection on every system") as prog:
        final = select_and_fit(ev, [s.name for s in sets], start, prog)
    print(f"chosen on {', '.join(final.trained_on)}: {final.candidate} "
          f"(inner step@1 {', '.join(f'{k} {v:.1%}' for k, v in final.inner.items())})")
    doc: dict[str, Any] = {
        "sets": {n: {mode: s.to_json() for mode, s in rows.items()} for n, rows in nested.scores.items()},
        "selections": {n: s.to_json() for n, s in nested.selections.items()},
        "final": final.to_json(), "ablation": ablation}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    if args.out:
        from analyzer.evaluation.curve_fit import REPORTED_METRICS, shipped_params

        meta = {
            "fitted": _dt.date.today().isoformat(), "command": "trajscope eval fit-curve ROOT",
            "candidate": final.candidate, "trained_on": final.trained_on,
            "inner_step@1": {k: round(v, 4) for k, v in final.inner.items()},
            "nested": {n: {m: round(rows["nested"].metrics[m].p, 4) for m in REPORTED_METRICS}
                       for n, rows in nested.scores.items()},
            "handset": {n: {m: round(rows["hand-set"].metrics[m].p, 4) for m in REPORTED_METRICS}
                        for n, rows in nested.scores.items()},
            "not_fitted": "judge_fall, judge_rise, judge_clip (no development run has judge values); "
                          "succeeded_end = 1 - failed_end (no development run succeeded); "
                          "step_clip, llr_clip (numerical bounds)",
            "embeddings": embedder is not None,
            "evaluations": ev.evaluations}
        params = shipped_params(final).with_weights({}, meta=meta)
        import json as _json

        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(_json.dumps(params.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"the selection's choice written: {final.candidate}")
        print(f"wrote {args.out}")
    return 0
