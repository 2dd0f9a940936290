"""``trajscope analyze PATH... [--judge FILE.gguf|NAME] [--no-judge] [--out DIR] [--workspace FILE]``.

Loads the runs, analyses them (detectors, attribution, value curves; the judge re-ranks the
top candidates of failed runs when a model is available), writes ``traces``, ``steps``,
``findings`` and ``models`` as CSV + Parquet, and prints a progress bar and a summary table
on stderr. With ``--workspace FILE``, the ranker adapted to the analyst's labels that the
workspace marks active is used (else the shipped weights; the command says which), and the
results are kept in the workspace (one transaction per run, as each finishes); runs already
analysed with the current analysis version are read from it instead of being analysed again,
and the tables carry the workspace's tags and model aliases.

Exit codes: 0 everything fine, 1 some input failed to load, 2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.cli.lang import add_lang_option, chosen_language, load_error_text
from analyzer.schema.outcome_source import FAILED_OUTCOMES

DEFAULT_OUT = Path("trajscope-analysis")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``analyze`` subcommand."""
    p = sub.add_parser("analyze", help="find where and why runs failed; write CSV/Parquet tables")
    p.add_argument("paths", nargs="+", type=Path, help="trace files or folders")
    add_model_options(p)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})")
    p.add_argument("--judge-curve", action="store_true",
                   help="also compute the judge's value curve for failed runs (slower)")
    p.add_argument("--no-cache", action="store_true", help="do not use the parsed-data cache")
    p.add_argument("--workspace", type=Path, metavar="FILE",
                   help="use this workspace's active adapted ranker, keep the results in it and reuse the ones "
                        "of the current analysis version")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary table")
    add_lang_option(p)
    p.add_argument("--corpus", type=Path, metavar="DIR",
                   help="also write the runs, steps and results as a corpus folder (see 'trajscope corpus')")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="where the analysis runs: this process (default) or Ray (pip install 'trajscope[ray]'); "
                        "Ray keeps finished runs in OUT/.trajscope-ray and a re-run skips them")
    p.add_argument("--address", metavar="ADDR", help="Ray cluster address (default: start a local Ray instance)")
    p.add_argument("--workers", type=int, metavar="N", help="Ray actors, each holding one loaded model "
                   "(default: every CPU)")
    p.add_argument("--batch", type=int, default=4, metavar="N",
                   help="runs per Ray batch: what a killed worker redoes and one resume-store file (default 4)")
    p.set_defaults(func=run)


def workspace_ranker(path: Path) -> tuple[Any, str]:
    """The active ranker of a workspace file and a line naming it.

    A workspace that does not exist yet has no adapted ranker (the shipped weights); the
    analysis then creates it to keep its results.

    Raises:
        ValueError: The path is not a file, not a workspace, or its active ranker is damaged.
    """
    from analyzer.attribution.adapted import workspace_ranker as active
    from analyzer.workspace import Workspace, WorkspaceError

    if not path.exists():
        return None, f"shipped weights; {path.name} is new (no adapted ranker yet)"
    if not path.is_file():
        raise ValueError(f"--workspace {path}: not a file")
    try:
        ws = Workspace(path)
    except WorkspaceError as exc:
        raise ValueError(str(exc)) from None
    try:
        return active(ws)
    except WorkspaceError as exc:
        raise ValueError(str(exc)) from None
    finally:
        ws.close()


def add_model_options(p: argparse.ArgumentParser) -> None:
    """Judge/embedder options shared by ``analyze`` and ``eval``."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--judge", metavar="FILE.gguf|NAME", help="judge model: a GGUF file or a packaged model name")
    g.add_argument("--no-judge", action="store_true", help="cheap analysis only, no judge model")
    p.add_argument("--no-embed", action="store_true", help="no sentence embeddings (word-overlap alignment only)")


def load_models(args: argparse.Namespace, notes: list[str]) -> tuple[Any, Any]:
    """The judge and embedder the options ask for; unavailable models become notes, not failures."""
    from analyzer.errors import ModelUnavailable

    judge = None
    if not args.no_judge:
        try:
            from analyzer.judge import load_judge

            judge = load_judge(args.judge)
        except ModelUnavailable as exc:
            notes.append(f"judge not used: {exc}")
        except ImportError as exc:
            notes.append(f"judge not used: {exc}")
    embedder = None
    if not args.no_embed:
        try:
            from analyzer.embedding import load_embedder

            embedder = load_embedder()
        except ModelUnavailable as exc:
            notes.append(f"embeddings not used: {exc}")
        except ImportError as exc:
            notes.append(f"embeddings not used: {exc}")
    return judge, embedder


@contextmanager
def progress_bar(enabled: bool, description: str, eta: bool = False) -> Iterator[Any]:
    """A rich progress bar on stderr (with an ETA if asked), yielding a ``Progress``-protocol callable."""
    if not enabled:
        yield lambda done, total, message="": None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    columns: list[Any] = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    if eta:
        columns += [TextColumn("ETA"), TimeRemainingColumn()]
    with Progress(*columns, TextColumn("{task.fields[item]}"), console=console, transient=False) as bar:
        task = bar.add_task(description, total=None, item="")

        def report(done: int, total: int, message: str = "") -> None:
            bar.update(task, completed=done, total=total, item=message[:40])

        yield report


def write_outputs(out: Path, traces: pl.DataFrame, steps: pl.DataFrame, result: Any,
                  annotations: pl.DataFrame | None = None, aliases: dict[str, str] | None = None,
                  embedder: Any = None) -> list[Path]:
    """Write the export tables (CSV + Parquet) with :func:`analyzer.export.write_analysis`.

    With an embedder, failure insights are computed too (``insights.csv``, the ``insight`` column).
    """
    from analyzer.export import write_analysis
    from analyzer.insights import compute_insights

    insights = None
    if embedder is not None and result is not None:
        insights = compute_insights(result.runs, traces, steps, embedder, result.findings)
    return write_analysis(out, traces, steps, result, annotations=annotations, aliases=aliases, insights=insights)


def ray_model_args(args: argparse.Namespace, notes: list[str]) -> argparse.Namespace:
    """The model options the Ray actors load, checked on the driver without loading the judge.

    A judge that cannot be used becomes the same note as on the local engine; the returned
    namespace then says ``no_judge``. ``judge_id`` is the judge's model id (for the store key).
    """
    import importlib.util

    from analyzer.errors import ModelUnavailable

    out = argparse.Namespace(judge=args.judge, no_judge=args.no_judge, no_embed=args.no_embed, judge_id=None)
    if args.no_judge:
        return out
    try:
        from analyzer.judge.llama import resolve_model

        _, out.judge_id = resolve_model(args.judge)
        if importlib.util.find_spec("llama_cpp") is None:
            raise ModelUnavailable("the judge needs llama-cpp-python, which is not installed "
                                   "(pip install 'trajscope[models]'; build it with CMAKE_ARGS=-DGGML_NATIVE=OFF)")
    except (ModelUnavailable, ImportError) as exc:
        notes.append(f"judge not used: {exc}")
        out.no_judge, out.judge_id = True, None
    return out


def analysis_key(judge_id: str | None, embedder_id: str, ranker: Any, options: Any) -> str:
    """Resume-store key of an analysis configuration (analysis version, embedder, options)."""
    from analyzer.analysis.version import current_analysis_version
    from analyzer.engines.resume import store_key

    version = current_analysis_version(judge_id, ranker=ranker)
    return store_key([version, embedder_id, options.judge_curve, options.judge_classify, options.judge_top_k,
                      options.judge_in_detectors, options.detectors])


def analyze_with_ray(args: argparse.Namespace, model_args: argparse.Namespace, traces: pl.DataFrame,
                     steps: pl.DataFrame, ranker: Any, options: Any, prog: Any,
                     embedder_id: str) -> tuple[Any, str] | str:
    """Run the analysis on Ray (:mod:`analyzer.engines.ray_engine`); a problem is returned as text.

    Finished runs are kept in ``OUT/.trajscope-ray/<configuration>`` and skipped by a re-run.
    """
    import functools

    from analyzer.engines.ray_engine import RayConfig, RayUnavailable, analyze_on_ray
    from analyzer.engines.resume import ResultStore

    store = ResultStore(args.out / ".trajscope-ray" / analysis_key(model_args.judge_id, embedder_id, ranker, options))
    loader = functools.partial(load_models, argparse.Namespace(judge=model_args.judge, no_judge=model_args.no_judge,
                                                               no_embed=model_args.no_embed), [])
    try:
        run = analyze_on_ray(traces, steps, load_models=loader, store=store,
                             config=RayConfig(address=args.address, workers=args.workers, runs_per_batch=args.batch),
                             ranker=ranker, options=options, progress=prog)
    except RayUnavailable as exc:
        return str(exc)
    where = f"on Ray ({run.workers} workers)" if run.workers else "on Ray"
    return run.result, f"{run.reused} runs read from {store.root}, {run.analysed} analysed now {where}"


def summary_table(traces: pl.DataFrame, result: Any, limit: int = 20) -> Any:
    """A rich table of the analysed runs (failed ones first)."""
    from rich.table import Table

    runs = traces.select("trace_id", "source_file", "model", "outcome", "n_steps").join(
        result.runs.select("trace_id", "decisive_step", "decisive_agent", "category", "confidence", "top_steps"),
        on="trace_id", how="left")
    runs = runs.sort(by=[pl.col("outcome") != "failure", pl.col("confidence").fill_null(0.0)],
                     descending=[False, True])
    t = Table(title=f"{traces.height} runs analysed", show_lines=False)
    for c in ("file", "model", "outcome", "steps", "decisive", "agent", "category", "conf.", "top-3"):
        t.add_column(c, overflow="fold")
    for row in runs.head(limit).iter_rows(named=True):
        t.add_row(Path(row["source_file"] or "").name, row["model"] or "", row["outcome"] or "",
                  str(row["n_steps"]), "" if row["decisive_step"] is None else str(row["decisive_step"]),
                  row["decisive_agent"] or "", row["category"] or "",
                  "" if row["confidence"] is None else f"{row['confidence']:.2f}", row["top_steps"] or "")
    if runs.height > limit:
        t.caption = f"… {runs.height - limit} more runs in traces.csv"
    return t


def run(args: argparse.Namespace) -> int:
    """Execute ``analyze``."""
    from rich.console import Console

    from analyzer.errors import PluginError
    from analyzer.loading import ParsedCache, load
    from analyzer.pipeline import analyze

    err = Console(stderr=True)
    if not err.is_terminal:
        err = Console(stderr=True, width=160)
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        print(f"trajscope analyze: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    if args.out.exists() and not args.out.is_dir():
        print(f"trajscope analyze: --out {args.out} exists and is not a folder", file=sys.stderr)
        return 2
    show = not args.quiet
    if args.engine != "ray" and (args.address is not None or args.workers is not None):
        print("trajscope analyze: --address and --workers need --engine ray", file=sys.stderr)
        return 2
    if args.engine == "ray" and args.workspace is not None:
        print("trajscope analyze: --workspace is not supported with --engine ray yet", file=sys.stderr)
        return 2
    if (args.workers is not None and args.workers < 1) or args.batch < 1:
        print("trajscope analyze: --workers and --batch must be at least 1", file=sys.stderr)
        return 2
    ranker = None
    ranker_line = ""
    if args.workspace is not None:
        try:
            ranker, ranker_line = workspace_ranker(args.workspace)
        except ValueError as exc:
            print(f"trajscope analyze: {exc}", file=sys.stderr)
            return 2
    try:
        with progress_bar(show, "loading") as prog:
            res = load(args.paths, cache=None if args.no_cache else ParsedCache(), progress=prog)
    except PluginError as exc:
        print(f"trajscope analyze: {exc}", file=sys.stderr)
        return 2
    notes: list[str] = []
    if args.engine == "ray":
        ray_args = ray_model_args(args, notes)
        # the actors load the judge; the driver's embedder (lazy) loads only for the insights
        judge, embedder = load_models(argparse.Namespace(judge=None, no_judge=True, no_embed=args.no_embed), notes)
        ray_args.no_embed = embedder is None
    else:
        judge, embedder = load_models(args, notes)
    if ranker is not None and bool(ranker.params.meta.get("embeddings", embedder is not None)) != (embedder is not None):
        notes.append("the adapted ranker was fitted " + ("with" if embedder is None else "without")
                     + " sentence embeddings, this analysis runs " + ("without" if embedder is None else "with")
                     + " them; its figures may not hold")
    for n in notes:
        err.print(f"[yellow]note:[/] {n}", highlight=False)
    if ranker_line:
        err.print(f"ranker: {ranker_line}", highlight=False, markup=False)
    from analyzer.pipeline import AnalyzeOptions

    ws = None
    annotations = None
    aliases: dict[str, str] | None = None
    if getattr(args, "workspace", None) is not None:
        from analyzer.workspace import Workspace, WorkspaceError
        from analyzer.workspace.aliases import model_aliases

        try:
            ws = Workspace(args.workspace)
            annotations = ws.annotations_frame()
            aliases = model_aliases(ws)
        except WorkspaceError as exc:
            print(f"trajscope analyze: cannot use workspace {args.workspace}: {exc}", file=sys.stderr)
            return 2
    from analyzer.outcome.effective import effective_outcomes
    from analyzer.outcome.estimate import estimate_p_failed

    # the analysis sees the effective outcome: the analyst's (workspace), else recorded, else estimated
    given = effective_outcomes(res.traces, annotations, estimate_p_failed(res.traces, res.steps)).select(
        res.traces.columns)
    try:
        with progress_bar(show, "analysing", eta=args.engine == "ray") as prog:
            options = AnalyzeOptions(judge_curve=args.judge_curve)
            if args.engine == "ray":
                ray_result = analyze_with_ray(args, ray_args, given, res.steps, ranker, options, prog,
                                              str(getattr(embedder, "model_id", "none")))
                if isinstance(ray_result, str):
                    print(f"trajscope analyze: {ray_result}", file=sys.stderr)
                    return 2
                result, line = ray_result
                err.print(line, highlight=False, markup=False)
            elif ws is None:
                result = analyze(given, res.steps, judge=judge, embedder=embedder, progress=prog, ranker=ranker,
                                 options=options)
            else:
                from analyzer.analysis.version import current_analysis_version
                from analyzer.workspace.results import analyze_with_workspace

                version = current_analysis_version(getattr(judge, "model_id", None) if judge is not None else None,
                                                   ranker=ranker)
                result, fresh = analyze_with_workspace(given, res.steps, ws, version, analyze, judge=judge,
                                                       embedder=embedder, progress=prog, options=options,
                                                       ranker=ranker)
                err.print(f"{res.traces.height - fresh} runs read from {args.workspace}, {fresh} analysed now",
                          highlight=False)
    finally:
        if ws is not None:
            ws.close()
    try:
        written = write_outputs(args.out, res.traces, res.steps, result, annotations, aliases, embedder)
    except Exception as exc:  # an unwritable folder is a clear message, not a traceback
        print(f"trajscope analyze: cannot write {args.out}: {exc}", file=sys.stderr)
        return 1
    if args.corpus is not None:
        from analyzer.corpus import CorpusError, write_corpus

        try:
            write_corpus(args.corpus, res.traces, res.steps, result.runs, findings=result.findings,
                         step_values=result.step_values)
        except CorpusError as exc:
            print(f"trajscope analyze: {exc}", file=sys.stderr)
            return 1
    if show:
        err.print(summary_table(res.traces, result))
    failed = given.filter(pl.col("outcome").is_in(list(FAILED_OUTCOMES))).height if given.height else 0
    likely = given.filter((pl.col("outcome") == "failure") & (pl.col("outcome_source") == "estimate")).height \
        if given.height else 0
    attributed = result.runs.filter(pl.col("decisive_step").is_not_null()).height if result.runs.height else 0
    said = f"{failed} failed ({likely} likely, estimated)" if likely else f"{failed} failed"
    err.print(f"{res.traces.height} runs ({said}, {attributed} attributed), "
              f"{result.findings.height} findings; wrote {len(written)} files to {args.out}", highlight=False)
    if result.errors:
        err.print(f"{len(result.errors)} analysis problems (see the 'error' column of traces.csv):", highlight=False)
        for e in result.errors[:10]:
            err.print(f"  {e}", highlight=False, markup=False)
    if res.errors:
        err.print(f"{len(res.errors)} load problems:", highlight=False)
        for le in res.errors:
            err.print(f"  {load_error_text(le, chosen_language(args))}", highlight=False, markup=False)
    return 1 if res.errors else 0
