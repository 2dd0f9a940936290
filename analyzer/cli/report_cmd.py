"""``trajscope report PATH... [--workspace FILE] [--html OUT] [--pdf OUT] [--md OUT]``.

Loads the traces, analyses them (the same pipeline as ``trajscope analyze``), reads the
analyst's annotations, model aliases and stored analysis results from a workspace when given
(runs whose stored result is of the current analysis version are not analysed again), and
writes the annotated report.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.cli.lang import add_lang_option, chosen_language, load_error_text


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``report`` subcommand."""
    p = sub.add_parser("report", help="write an annotated failure report (HTML, PDF, Markdown)",
                       description="Load, analyse and write an annotated report of the failed runs.")
    p.add_argument("paths", nargs="+", type=Path, help="trace files or folders")
    p.add_argument("--workspace", type=Path, metavar="FILE", help="workspace with the analyst's tags and notes")
    p.add_argument("--html", type=Path, metavar="OUT.html", help="write a self-contained HTML report")
    p.add_argument("--pdf", type=Path, metavar="OUT.pdf", help="write a PDF report")
    p.add_argument("--md", type=Path, metavar="OUT.md", help="write a Markdown report")
    judge = p.add_mutually_exclusive_group()
    judge.add_argument("--judge", metavar="FILE.gguf", help="judge model (packaged name or .gguf path)")
    judge.add_argument("--no-judge", action="store_true", help="cheap analysis only, no judge model")
    p.add_argument("--title", default="TrajScope failure report", help="report title")
    p.add_argument("--max-runs", type=int, default=200, metavar="N", help="failed runs shown in full (default 200)")
    p.add_argument("--no-cache", action="store_true", help="do not use the parsed-data cache")
    add_lang_option(p)
    p.set_defaults(func=run)


def _err(msg: str) -> None:
    print(f"trajscope report: {msg}", file=sys.stderr)


def _progress(done: int, total: int, message: str = "") -> None:
    if total and (done == total or done % max(1, total // 10) == 0):
        print(f"  analysed {done}/{total} runs", file=sys.stderr)


def _embedder(notes: list[str]) -> Any:
    try:
        from analyzer.embedding import load_embedder  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        notes.append("embedder not available: lexical signals only")
        return None
    try:
        return load_embedder()
    except Exception as exc:  # a missing model must not stop the report
        notes.append(f"embedder unavailable ({exc}): lexical signals only")
        return None


def analyze_for_report(traces: pl.DataFrame, steps: pl.DataFrame, judge: str | None, no_judge: bool,
                       notes: list[str], workspace: Any = None) -> Any:
    """Run the analysis pipeline with the CLI's judge choice.

    Problems are appended to ``notes``: no judge or no embedder (the analysis still runs
    with cheap signals), or no pipeline / a failed analysis (returns None; the report then
    shows what the loader knows). With a ``workspace``, its stored results of the current
    analysis version are used and only the other runs are analysed.
    """
    try:
        from analyzer import pipeline
    except ModuleNotFoundError as exc:
        if exc.name != "analyzer.pipeline":
            raise
        notes.append("analysis pipeline not installed: the report shows what the loader knows")
        return None
    from analyzer.errors import ModelUnavailable

    judge_obj = None
    if not no_judge:
        try:
            from analyzer.judge.llama import load_judge

            judge_obj = load_judge(judge)
        except ModelUnavailable as exc:
            notes.append(f"judge unavailable ({exc}): cheap analysis only")
        except ImportError as exc:
            notes.append(f"judge backend not installed ({exc}): cheap analysis only")
    embedder = _embedder(notes)
    try:
        if workspace is not None:
            from analyzer.analysis.version import current_analysis_version
            from analyzer.workspace.results import analyze_with_workspace

            version = current_analysis_version(getattr(judge_obj, "model_id", None) if judge_obj else None)
            result, fresh = analyze_with_workspace(traces, steps, workspace, version, pipeline.analyze,
                                                   judge=judge_obj, embedder=embedder, progress=_progress)
            print(f"{traces.height - fresh} runs from the workspace, {fresh} analysed now", file=sys.stderr)
            return result
        print(f"analysing {traces.height} runs…", file=sys.stderr)
        return pipeline.analyze(traces, steps, judge=judge_obj, embedder=embedder, progress=_progress)
    except Exception as exc:  # the report still shows what was loaded, and says why analysis is missing
        notes.append(f"analysis failed ({type(exc).__name__}: {exc}): the report shows what the loader knows")
        return None


def _open_workspace(path: Path) -> Any:
    from analyzer.workspace import Workspace

    return Workspace(path, read_only=True)  # a report only reads: a read-only workspace file is fine


def run(args: argparse.Namespace) -> int:
    """Execute ``report``."""
    if not (args.html or args.pdf or args.md):
        _err("say what to write: --html OUT.html, --pdf OUT.pdf and/or --md OUT.md")
        return 2
    if args.max_runs < 0:
        _err("--max-runs must be >= 0")
        return 2
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        _err(f"no such file or folder: {', '.join(missing)}")
        return 2
    annotations = None
    aliases: dict[str, str] = {}
    workspace = None
    if args.workspace is not None:
        if not args.workspace.is_file():
            _err(f"no such workspace: {args.workspace}")
            return 2
        try:
            from analyzer.workspace.aliases import model_aliases

            workspace = _open_workspace(args.workspace)
            annotations = workspace.annotations_frame()
            aliases = model_aliases(workspace)
        except Exception as exc:  # WorkspaceError and sqlite errors: a clear message, no traceback
            _err(f"cannot read workspace {args.workspace}: {exc}")
            return 2
    try:
        return _report(args, annotations, aliases, workspace)
    finally:
        if workspace is not None:
            workspace.close()


def _report(args: argparse.Namespace, annotations: pl.DataFrame | None, aliases: dict[str, str],
            workspace: Any) -> int:
    from analyzer.errors import PluginError
    from analyzer.export import (
        ExportError,
        ReportOptions,
        build_report,
        render_report_html,
        render_report_markdown,
        render_report_pdf,
        write_html,
        write_markdown,
        write_pdf,
    )
    from analyzer.loading import ParsedCache, load
    from analyzer.metrics.models import min_group_runs

    try:
        loaded = load(args.paths, cache=None if args.no_cache else ParsedCache())
    except PluginError as exc:
        _err(str(exc))
        return 2
    lang = chosen_language(args)
    problems = [load_error_text(e, lang) for e in loaded.errors]
    notes: list[str] = []
    from analyzer.outcome.effective import effective_outcomes
    from analyzer.outcome.estimate import estimate_p_failed

    # the analysis sees the effective outcome (the analyst's, else recorded, else estimated), as in the app
    given = effective_outcomes(loaded.traces, annotations, estimate_p_failed(loaded.traces, loaded.steps)).select(
        loaded.traces.columns)
    result = analyze_for_report(given, loaded.steps, args.judge, args.no_judge, notes, workspace) \
        if loaded.traces.height else None
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    report = build_report(loaded.traces, loaded.steps, result, annotations,
                          ReportOptions(title=args.title, max_runs=args.max_runs, lang=lang), problems + notes,
                          aliases=aliases, min_group_runs=min_group_runs())
    code = 1 if loaded.errors or (loaded.traces.height and result is None) else 0
    outputs: list[tuple[Path | None, Any]] = [
        (args.html, lambda p: write_html(p, render_report_html(report))),
        (args.md, lambda p: write_markdown(p, render_report_markdown(report))),
        (args.pdf, lambda p: write_pdf(p, render_report_pdf(report))),
    ]
    for path, write in outputs:
        if path is None:
            continue
        try:
            write(path)
        except ExportError as exc:
            _err(str(exc))
            code = 1
            continue
        print(f"wrote {path}", file=sys.stderr)
    s = report.summary
    print(f"{s['runs']} runs, {s['failures']} failed, {len(report.runs)} in the report"
          + (f", {len(loaded.errors)} load problems" if loaded.errors else ""), file=sys.stderr)
    return code
