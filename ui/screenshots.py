"""Render the README screenshots: ``python -m ui.screenshots docs/screenshots`` (``make screenshots``).

Loads ``sample_traces/``, runs the analysis (no judge; sentence embeddings when installed, so
the task-alignment curve shows), selects the failed run whose value curve tells the clearest
story at its decisive step, and writes one PNG per tab:

* ``main_window.png``: the run view;
* ``model_comparison.png``: the model-comparison tab;
* ``tagging_desk.png``: the tagging desk, when that tab exists;
* ``insights.png``: the Insights view (failures grouped across runs), its largest insight selected.

Feature modules can add their own shots: if ``ui.actions.tagging`` defines
``extra_screenshots(window, out_dir) -> list[Path]`` it is called last.
Works offscreen (``QT_QPA_PLATFORM=offscreen``).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1600, 1000)
SHOTS = (("main_window.png", "run"), ("model_comparison.png", "compare"), ("tagging_desk.png", "tagging"),
         ("insights.png", "insights"))


def pick_run(view: pl.DataFrame) -> str | None:
    """The failed, analysed run that shows the value curve best (a clear drop, a readable length)."""
    failed = view.filter((pl.col("outcome") == "failure") & pl.col("decisive_step").is_not_null())
    if failed.height == 0:
        return None
    readable = failed.filter(pl.col("n_steps").is_between(12, 60))
    pool = readable if readable.height else failed
    best = pool.sort(["largest_drop", "n_findings", "n_steps"], descending=True, nulls_last=True)
    return str(best["trace_id"][0])


def render(out_dir: Path, paths: list[str], embeddings: bool = True) -> list[Path]:
    """Write the screenshots into ``out_dir``; returns the files written."""
    from PySide6.QtCore import QEventLoop, QTimer

    from analyzer.loading import load
    from analyzer.session import Session
    from ui.app import create_application
    from ui.main_window import MainWindow
    from ui.workers import resolve_analyze, resolve_embedder

    app = create_application()  # noqa: F841  (keeps the QApplication alive)
    from ui.i18n import install_language

    install_language("en")
    session = Session()
    session.add_load_result(load(paths))
    embedder = resolve_embedder() if embeddings else None
    session.merge_analysis(resolve_analyze()(session.traces, session.steps, embedder=embedder))
    window = MainWindow(session, persist=False)
    window.resize(*SIZE)
    window.show()
    window.bridge.flush()
    tid = pick_run(session.runs_view())
    if tid is not None:
        row = session.run_row(tid) or {}
        step = int(row["decisive_step"]) if row.get("decisive_step") is not None else None
        session.select(trace_ids=(tid,), trace_id=tid, step=step, steps=(step,) if step is not None else ())
    window.message_bar.clear()
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def settle() -> None:
        window.bridge.flush()
        loop = QEventLoop()
        QTimer.singleShot(300, loop.quit)
        loop.exec()

    for name, tab in SHOTS:
        if tab == "insights":
            prepare_insights(window, embedder)
        if not window.show_tab(tab):
            continue
        window.runs_dock.setVisible(tab not in ("compare", "insights"))  # these get the full width
        settle()
        target = out_dir / name
        if not window.grab().save(str(target)):
            raise SystemExit(f"could not write {target}")
        written.append(target)
    if importlib.util.find_spec("ui.actions.tagging") is not None:
        tagging = importlib.import_module("ui.actions.tagging")
        extra = getattr(tagging, "extra_screenshots", None)
        if callable(extra):
            written.extend(extra(window, out_dir))
        desk = getattr(tagging, "screenshot_tagging_desk", None)
        if callable(desk):  # the desk after a short review, so the agreement panel has content
            written.append(desk(out_dir / "tagging_desk.png", paths))
    window.close()
    written.append(report_first_page(out_dir / "report_pdf_page1.png", session))
    return written


def prepare_insights(window: object, embedder: object) -> None:
    """Compute the Insights tab's groups now (same embedder as the analysis) and select the largest."""
    panel = getattr(getattr(window, "tagging", None), "insights", None)
    if panel is None:
        return
    if embedder is None:
        from analyzer.embedding import HashingEmbedder

        embedder = HashingEmbedder()
    panel.embedder = embedder
    panel.compute(background=False)
    panel.table.selectRow(0)


def report_first_page(target: Path, session: object) -> Path:
    """Render the annotated PDF report of the session and save its first page as PNG (pdftoppm)."""
    import shutil
    import subprocess
    import tempfile

    from analyzer.export import render_pdf

    if shutil.which("pdftoppm") is None:
        raise SystemExit("pdftoppm not found: install Debian's poppler-utils")
    traces = session.traces  # type: ignore[attr-defined]
    steps = session.steps  # type: ignore[attr-defined]
    pdf = render_pdf(traces, steps, session.analysis)  # type: ignore[attr-defined]
    with tempfile.TemporaryDirectory() as tmp:
        pdf_path = Path(tmp) / "report.pdf"
        pdf_path.write_bytes(pdf)
        subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "-singlefile",
                        str(pdf_path), str(target.with_suffix(""))], check=True)
    return target


def main(argv: list[str] | None = None) -> int:
    """Command line entry."""
    ap = argparse.ArgumentParser(description="Render TrajScope's README screenshots.")
    ap.add_argument("out_dir", type=Path, nargs="?", default=ROOT / "docs" / "screenshots")
    ap.add_argument("--paths", nargs="*", default=[str(ROOT / "sample_traces")])
    ap.add_argument("--no-embeddings", action="store_true", help="skip the sentence embedder (faster, no alignment curve)")
    args = ap.parse_args(argv)
    for path in render(args.out_dir, args.paths, embeddings=not args.no_embeddings):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
