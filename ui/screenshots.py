"""Render the README screenshots: ``python -m ui.screenshots docs/screenshots`` (``make screenshots``).

Loads ``sample_traces/``, runs the analysis (no judge; sentence embeddings when installed, so
the task-alignment curve shows), selects the failed run whose value curve tells the clearest
story at its decisive step, and writes one PNG per tab:

* ``main_window.png``: the run view;
* ``model_comparison.png``: the model-comparison tab;
* ``tagging_desk.png``: the tagging desk after a short review (see :mod:`ui.screenshot_tags_jobs`);
* ``paired_comparison.png``: the Compare tab with two models selected (paired view) and
  ``side_by_side.png``: two runs of a task where they differ (a small generated demo set:
  the sample traces share no tasks across models).
* ``signals.png``: the run view of the riskiest run, with the signal-detector overlays
  (cumulative risk, the missed check, re-sent context and wasted steps on the token track).
* ``insights.png``: the Insights view (failures grouped across runs), its largest insight selected.
* ``tag_chips.png`` and ``jobs_indicator.png``: see :mod:`ui.screenshot_tags_jobs`.
* ``contrast.png`` and ``contrast_zh_CN.png``: the Contrast tab on ``sample_reruns/`` (see
  :mod:`ui.screenshot_contrast`).
* ``main_window_zh_CN.png``: the run view in Simplified Chinese (same run, the transcript search
  highlighting a word of the decisive step).

Works offscreen (``QT_QPA_PLATFORM=offscreen``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import polars as pl

from ui.screenshot_contrast import render_contrast
from ui.screenshot_runs import pick_risky_run, pick_run
from ui.screenshot_tags_jobs import render_tags_and_jobs, screenshot_tagging_desk

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1600, 1000)
SHOTS = (("main_window.png", "run"), ("model_comparison.png", "compare"), ("tagging_desk.png", "tagging"),
         ("insights.png", "insights"))


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
    risky = pick_risky_run(session.runs_view())
    if risky is not None and window.show_tab("run"):
        window.runs_dock.setVisible(True)
        session.select(trace_ids=(risky,), trace_id=risky, step=None, steps=())
        settle()
        target = out_dir / "signals.png"
        if not window.grab().save(str(target)):
            raise SystemExit(f"could not write {target}")
        written.append(target)
    # the desk after a short review, so the agreement panel has content
    written.append(screenshot_tagging_desk(out_dir / "tagging_desk.png", paths))
    window.close()
    written.append(chinese_main_window(out_dir / "main_window_zh_CN.png", session, tid))
    written.append(report_first_page(out_dir / "report_pdf_page1.png", session))
    written.extend(paired_screenshots(out_dir))
    written.extend(render_tags_and_jobs(out_dir, paths))
    written.extend(render_contrast(out_dir))
    return written


PAIRED_DEMO = (("o4-mini", 0.72), ("openai/o4-mini", 0.72), ("claude-3-7-sonnet-20250219", 0.5), ("gpt-4.1", 0.9))
"""Demo models (the second spelling of o4-mini shows the provider prefix merge; the Claude date stamp
folds) and pass chances."""


def paired_demo_frames(tasks: int = 36, seed: int = 7) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A generated demo set: two models on the same ``tasks`` tasks (deterministic)."""
    import random

    from analyzer.frames.build import frame_from_rows
    from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS

    rng = random.Random(seed)
    traces: list[dict[str, object]] = []
    steps: list[dict[str, object]] = []
    for t in range(tasks):
        task = f"swe-demo-{t:03d}"
        for k, (model, p) in enumerate(PAIRED_DEMO):
            if k == 1 and t % 3:  # a third of o4-mini's runs carry the provider prefix
                continue
            if (k == 0 and t % 3 == 0) or (k == 3 and t >= 4):  # gpt-4.1 tried only 4 tasks: "too few runs"
                continue
            ok = rng.random() < p
            tid = f"{model.split('/')[-1][:6]}-{t:03d}"
            n = rng.randint(6, 14) if t != 5 else 900  # one very long run: the horizon axis marks it
            traces.append({"trace_id": tid, "native_id": task, "model": model, "outcome": "success" if ok else "failure",
                           "n_steps": n, "task": f"Fix the failing test in module {t} of the demo repository.",
                           "source_file": f"demo/{tid}.json", "record": "$", "framework": "demo"})
            for i in range(min(n, 14)):
                last = i == min(n, 14) - 1
                steps.append({"trace_id": tid, "step": i, "agent": "agent", "role": "assistant",
                              "kind": "tool_call" if i % 2 else "message",
                              "text": ("All tests pass." if ok else "Giving up: the test still fails.") if last
                              else f"Step {i}: inspect and edit module {t}.", "is_error": (not ok) and i == 3})
    return frame_from_rows(traces, TRACE_COLUMNS), frame_from_rows(steps, STEP_COLUMNS)


def paired_screenshots(out_dir: Path) -> list[Path]:
    """``paired_comparison.png`` and ``side_by_side.png`` from the generated demo set."""
    import tempfile

    from PySide6.QtCore import QEventLoop, QTimer

    from analyzer.loading.loader import LoadResult
    from analyzer.session import Session
    from ui.main_window import MainWindow
    from ui.workers import resolve_analyze

    out_dir.mkdir(parents=True, exist_ok=True)
    traces, steps = paired_demo_frames()
    session = Session()
    session.add_load_result(LoadResult(traces=traces, steps=steps))
    session.merge_analysis(resolve_analyze()(session.traces, session.steps))  # cheap analysis, no judge
    window = MainWindow(session, persist=False)
    window.resize(*SIZE)
    window.show()

    def settle() -> None:
        window.bridge.flush()
        loop = QEventLoop()
        QTimer.singleShot(300, loop.quit)
        loop.exec()

    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        window.tagging.open_workspace(Path(tmp) / "paired.trajscope")
        window.show_tab("compare")
        window.runs_dock.setVisible(False)
        settle()
        window.message_bar.clear()
        window.compare.select_rows(["o4-mini", "claude-3-7-sonnet"])  # the date stamp folds away
        settle()
        target = out_dir / "paired_comparison.png"
        if not window.grab().save(str(target)):
            raise SystemExit(f"could not write {target}")
        written.append(target)
        if window.compare.paired.table.rowCount():
            dlg = window.compare.paired.open_row(0)
            if dlg is not None:
                settle()
                side = out_dir / "side_by_side.png"
                if not dlg.grab().save(str(side)):
                    raise SystemExit(f"could not write {side}")
                written.append(side)
                dlg.close()
        window.close()
    return written


def chinese_main_window(target: Path, session: object, tid: str | None) -> Path:
    """The run view in Simplified Chinese (a fresh window on the same session), saved as PNG."""
    from PySide6.QtCore import QEventLoop, QTimer

    from ui.i18n import install_language
    from ui.main_window import MainWindow

    if not install_language("zh_CN"):
        raise SystemExit("the zh_CN translation does not load: run `python -m ui.i18n.update`")
    try:
        window = MainWindow(session, persist=False)  # type: ignore[arg-type]
        window.resize(*SIZE)
        window.show()
        window.show_tab("run")
        if tid is not None:
            row = session.run_row(tid) or {}  # type: ignore[attr-defined]
            step = int(row["decisive_step"]) if row.get("decisive_step") is not None else None
            session.select(trace_ids=(tid,), trace_id=tid, step=step,  # type: ignore[attr-defined]
                           steps=(step,) if step is not None else ())
            words = re.findall(r"[A-Za-z]{5,}", str(_step_text(session, tid, step)))  # also inside tool calls
            if words:
                window.transcript.search.setText(words[0])
        window.bridge.flush()
        loop = QEventLoop()
        QTimer.singleShot(400, loop.quit)
        loop.exec()
        window.transcript._run_search()
        window.message_bar.clear()
        window.bridge.flush()
        if not window.grab().save(str(target)):
            raise SystemExit(f"could not write {target}")
        window.close()
    finally:
        install_language("en")
    return target


def _step_text(session: object, tid: str, step: int | None) -> str:
    if step is None:
        return ""
    steps = session.run_steps(tid)  # type: ignore[attr-defined]
    row = steps.filter(pl.col("step") == step)
    if not row.height:
        return ""
    cols = [c for c in ("text", "tool_args") if c in row.columns]  # a tool call's text is its arguments
    return " ".join(str(row[c][0] or "") for c in cols)


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
