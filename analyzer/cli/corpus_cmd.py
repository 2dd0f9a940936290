"""``trajscope corpus build|runs|steps``: a corpus on disk, queried without loading every step.

- ``corpus build PATH... --to DIR`` loads trace files (through the parsed-data cache) and writes
  them as a Parquet dataset partitioned by source file (:mod:`analyzer.corpus`).
  ``trajscope analyze ... --corpus DIR`` writes the same dataset with the analysis results.
- ``corpus runs DIR [--where COL=VALUE]... [--sort COL] [--desc] [--limit N] [--columns A,B]``
  prints the runs table (lazy scan of the runs and results; no step is read), ``--csv`` as CSV.
- ``corpus steps DIR RUN_ID`` prints one run's steps (reads that run's partition only).

Exit codes: 0 fine, 1 some input failed to load, 2 bad usage or not a corpus.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

DEFAULT_COLUMNS = ("trace_id", "source_file", "model", "outcome", "n_steps")
RESULT_COLUMNS = ("decisive_step", "category", "confidence")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``corpus`` subcommand."""
    p = sub.add_parser("corpus", help="a corpus on disk (Parquet, opened lazily): build it, query runs and steps")
    cs = p.add_subparsers(dest="corpus_command", metavar="ACTION")
    b = cs.add_parser("build", help="load trace files and write them as a corpus folder")
    b.add_argument("paths", nargs="+", type=Path, help="trace files or folders")
    b.add_argument("--to", type=Path, required=True, metavar="DIR", help="corpus folder")
    b.add_argument("--no-cache", action="store_true", help="do not use the parsed-data cache")
    b.set_defaults(func=build)
    r = cs.add_parser("runs", help="print the runs table (filter, sort, page) without reading steps")
    r.add_argument("corpus", type=Path, help="corpus folder")
    r.add_argument("--where", action="append", default=[], metavar="COL=VALUE",
                   help="keep runs whose column equals the value (repeatable)")
    r.add_argument("--sort", metavar="COL", help="sort by this column")
    r.add_argument("--desc", action="store_true", help="sort descending")
    r.add_argument("--limit", type=int, default=50, help="rows to print (default 50; 0 for all)")
    r.add_argument("--columns", help="comma-separated columns (default: a summary)")
    r.add_argument("--csv", action="store_true", help="print CSV")
    r.set_defaults(func=runs)
    s = cs.add_parser("steps", help="print the steps of one run (reads its partition only)")
    s.add_argument("corpus", type=Path, help="corpus folder")
    s.add_argument("run_id", help="run id (trace_id)")
    s.add_argument("--csv", action="store_true", help="print CSV")
    s.set_defaults(func=steps)
    a = cs.add_parser("analyze", help="analyse the corpus in place (results and findings tables); resumable")
    a.add_argument("corpus", type=Path, help="corpus folder")
    from analyzer.cli.analyze_cmd import add_model_options

    add_model_options(a)
    a.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="this process, partition by partition (default), or Ray Data reading the partitions")
    a.add_argument("--address", metavar="ADDR", help="Ray cluster address (its nodes must see the corpus folder)")
    a.add_argument("--workers", type=int, metavar="N", help="Ray actors (default: every CPU)")
    a.add_argument("--batch", type=int, default=4, metavar="N",
                   help="runs per Ray batch: what a killed worker redoes and one resume-store file (default 4)")
    a.add_argument("--quiet", action="store_true", help="no progress bar")
    a.set_defaults(func=analyze_corpus)
    p.set_defaults(func=lambda args: (p.print_help(sys.stderr), 2)[1])


def build(args: argparse.Namespace) -> int:
    """Execute ``corpus build``."""
    from analyzer.corpus import CorpusError, write_corpus
    from analyzer.loading import ParsedCache, load

    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        print(f"trajscope corpus build: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    res = load(args.paths, cache=None if args.no_cache else ParsedCache())
    try:
        write_corpus(args.to, res.traces, res.steps)
    except CorpusError as exc:
        print(f"trajscope corpus build: {exc}", file=sys.stderr)
        return 2
    print(f"{res.traces.height} runs, {res.steps.height} steps from {len(res.files)} files written to {args.to}",
          file=sys.stderr)
    for e in res.errors:
        print(f"  {e}", file=sys.stderr)
    return 1 if res.errors else 0


def _open(path: Path, what: str) -> object:
    from analyzer.corpus import Corpus, CorpusError

    try:
        return Corpus(path)
    except CorpusError as exc:
        print(f"trajscope corpus {what}: {exc}", file=sys.stderr)
        return None


def _print(df: pl.DataFrame, csv: bool) -> None:
    if csv:
        sys.stdout.write(df.write_csv())
        return
    with pl.Config(tbl_rows=max(df.height, 1), tbl_cols=-1, fmt_str_lengths=60, tbl_width_chars=200):
        print(df)


def runs(args: argparse.Namespace) -> int:
    """Execute ``corpus runs``."""
    from analyzer.corpus import Corpus

    corpus = _open(args.corpus, "runs")
    if not isinstance(corpus, Corpus):
        return 2
    available = set(corpus.runs().collect_schema().names())
    res = corpus.results()
    if res is not None:
        available |= set(res.collect_schema().names())
    columns = [c.strip() for c in args.columns.split(",")] if args.columns else [
        *DEFAULT_COLUMNS, *(c for c in RESULT_COLUMNS if c in available)]
    where = None
    for cond in args.where:
        col, sep, value = cond.partition("=")
        if not sep:
            print(f"trajscope corpus runs: --where {cond!r}: expected COL=VALUE", file=sys.stderr)
            return 2
        expr = pl.col(col).cast(pl.Utf8) == value
        where = expr if where is None else where & expr
    unknown = [c for c in [*columns, *(w.partition("=")[0] for w in args.where), args.sort or ""]
               if c and c not in available]
    if unknown:
        print(f"trajscope corpus runs: no such column: {', '.join(unknown)} (columns: {', '.join(sorted(available))})",
              file=sys.stderr)
        return 2
    df = corpus.runs_table(columns, where=where, sort=args.sort, descending=args.desc,
                           limit=args.limit or None)
    _print(df, args.csv)
    return 0


def steps(args: argparse.Namespace) -> int:
    """Execute ``corpus steps``."""
    from analyzer.corpus import Corpus

    corpus = _open(args.corpus, "steps")
    if not isinstance(corpus, Corpus):
        return 2
    try:
        df = corpus.steps_of(args.run_id)
    except KeyError:
        print(f"trajscope corpus steps: no run {args.run_id} in {args.corpus}", file=sys.stderr)
        return 2
    _print(df if args.csv else df.select("step", "agent", "kind", "tool_name", "is_error", "text"), args.csv)
    return 0


def analyze_corpus(args: argparse.Namespace) -> int:
    """Execute ``corpus analyze``."""
    import functools

    from analyzer.cli.analyze_cmd import analysis_key, load_models, progress_bar, ray_model_args
    from analyzer.corpus import Corpus
    from analyzer.corpus.analysis import analyze_local, finalize, store_for
    from analyzer.pipeline import AnalyzeOptions

    corpus = _open(args.corpus, "analyze")
    if not isinstance(corpus, Corpus):
        return 2
    if args.engine != "ray" and (args.address is not None or args.workers is not None):
        print("trajscope corpus analyze: --address and --workers need --engine ray", file=sys.stderr)
        return 2
    if (args.workers is not None and args.workers < 1) or args.batch < 1:
        print("trajscope corpus analyze: --workers and --batch must be at least 1", file=sys.stderr)
        return 2
    notes: list[str] = []
    options = AnalyzeOptions()
    if args.engine == "ray":
        model_args = ray_model_args(args, notes)
        _, embedder = load_models(argparse.Namespace(judge=None, no_judge=True, no_embed=args.no_embed), notes)
        model_args.no_embed = embedder is None
        judge_id = model_args.judge_id
        judge = None
    else:
        judge, embedder = load_models(args, notes)
        judge_id = getattr(judge, "model_id", None) if judge is not None else None
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    store = store_for(corpus.root, analysis_key(judge_id, str(getattr(embedder, "model_id", "none")), None, options))
    with progress_bar(not args.quiet, "analysing", eta=True) as prog:
        if args.engine == "ray":
            from analyzer.engines.ray_engine import RayConfig, RayUnavailable, analyze_corpus_on_ray

            loader = functools.partial(load_models, argparse.Namespace(
                judge=model_args.judge, no_judge=model_args.no_judge, no_embed=model_args.no_embed), [])
            try:
                run = analyze_corpus_on_ray(corpus.root, store, load_models=loader,
                                            config=RayConfig(address=args.address, workers=args.workers, runs_per_batch=args.batch),
                                            options=options, progress=prog)
            except RayUnavailable as exc:
                print(f"trajscope corpus analyze: {exc}", file=sys.stderr)
                return 2
            reused, analysed = run.reused, run.analysed
        else:
            before = len(store.ids())
            analysed = analyze_local(corpus, store, {"judge": judge, "embedder": embedder, "options": options}, prog)
            reused = before
    problems: list[str] = []
    counts = finalize(corpus, store, on_error=problems.append)
    print(f"{counts['runs']} runs ({reused} read from {store.root}, {analysed} analysed now), "
          f"{counts['findings']} findings; results in {corpus.root / 'results'}", file=sys.stderr)
    if problems:
        print(f"{counts['errors']} runs with analysis problems (see the 'error' column of the results):",
              file=sys.stderr)
        for e in problems[:10]:
            print(f"  {e}", file=sys.stderr)
    return 0
