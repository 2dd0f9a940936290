"""``trajscope eval who-and-when DIR [--judge ...] [--no-judge] [--json OUT] [--predictions OUT.jsonl]``.

Runs exactly the ``trajscope analyze`` pipeline and defaults on Who&When files, then prints
step@1, step@3, step within +-1/+-2/+-3, agent@1 and coverage with Wilson 95% intervals,
next to trivial baselines computed on the same files. ``--cv K`` gives held-out figures on
the development set by refitting the ranker weights on the other folds.

Exit codes: 0 done, 1 some files failed to load (they still count as wrong), 2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from analyzer.cli.analyze_cmd import add_model_options, load_models, progress_bar


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``eval`` subcommand."""
    p = sub.add_parser("eval", help="score decisive-step attribution on labelled datasets")
    bench = p.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    w = bench.add_parser("who-and-when", help="Who&When failure-attribution files")
    w.add_argument("paths", nargs="+", type=Path, help="Who&When files or folders")
    add_model_options(w)
    w.add_argument("--json", type=Path, metavar="OUT", help="write the figures as JSON")
    w.add_argument("--predictions", type=Path, metavar="OUT.jsonl",
                   help='write {"file","agent","step","top_steps"} per trace')
    w.add_argument("--cv", type=int, metavar="K", help="held-out figures: refit the ranker on the other folds")
    w.add_argument("--quiet", action="store_true", help="no progress bar")
    w.set_defaults(func=run)
    p.set_defaults(func=lambda args: _usage(p))


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Execute ``eval who-and-when``."""
    from analyzer.evaluation.harness import evaluate, format_report

    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        print(f"trajscope eval: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    if args.cv is not None and args.cv < 2:
        print("trajscope eval: --cv needs at least 2 folds", file=sys.stderr)
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
    if report.load_errors:
        print(f"{len(report.load_errors)} load problems (those files count as wrong):", file=sys.stderr)
        for e in report.load_errors:
            print(f"  {e}", file=sys.stderr)
        return 1
    return 0
