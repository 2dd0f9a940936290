"""Screenshots of the Contrast tab: ``contrast.png`` (English) and ``contrast_zh_CN.png``.

``python -m ui.screenshot_contrast [out_dir]`` (also run by :mod:`ui.screenshots`): loads
``sample_reruns/retail_trials.json`` (the planted set), runs the cheap analysis (so both value curves show), picks the failed run of
a task with two successes whose divergence lies furthest into the run, and grabs the window with
the Contrast tab on its divergence, in English and in Simplified Chinese.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1600, 1000)


def pick_failed_run(traces: pl.DataFrame, contrast: pl.DataFrame) -> str:
    """A failed run of a task with two successes or more, its divergence as late as possible."""
    won = traces.group_by("task_key").agg((pl.col("outcome") == "success").sum().alias("won"))
    rows = (contrast.join(traces.select("trace_id", "task_key"), on="trace_id")
            .join(won, on="task_key").filter(pl.col("divergence_step").is_not_null())
            .sort(["won", "divergence_step", "trace_id"], descending=[True, True, False]))
    return str(rows["trace_id"][0])


def render_contrast(out_dir: Path) -> list[Path]:
    """Write both screenshots; returns the files written."""
    from PySide6.QtCore import QEventLoop, QTimer

    from analyzer.loading import load
    from analyzer.session import Session
    from ui.app import create_application
    from ui.i18n import install_language
    from ui.main_window import MainWindow
    from ui.workers import resolve_analyze

    app = create_application()  # noqa: F841  (keeps the QApplication alive)
    out_dir.mkdir(parents=True, exist_ok=True)
    session = Session()
    session.add_load_result(load([ROOT / "sample_reruns" / "retail_trials.json"], cache=None))
    session.merge_analysis(resolve_analyze()(session.traces, session.steps))  # cheap analysis, no judge
    tid = pick_failed_run(session.traces, session.analysis.contrast)
    written: list[Path] = []
    for lang, name in (("en", "contrast.png"), ("zh_CN", "contrast_zh_CN.png")):
        if not install_language(lang):
            raise SystemExit(f"the {lang} translation does not load: run `python -m ui.i18n.update`")
        window = MainWindow(session, persist=False)
        window.resize(*SIZE)
        window.show()
        session.select(trace_id=tid, trace_ids=(tid,))
        window.bridge.flush()
        window.show_tab("contrast")
        loop = QEventLoop()
        QTimer.singleShot(400, loop.quit)
        loop.exec()
        window.contrast.go_to_divergence()
        window.message_bar.clear()
        target = out_dir / name
        if not window.grab().save(str(target)):
            raise SystemExit(f"could not write {target}")
        written.append(target)
        window.close()
    install_language("en")
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line entry."""
    ap = argparse.ArgumentParser(description="Render the Contrast tab screenshots.")
    ap.add_argument("out_dir", type=Path, nargs="?", default=ROOT / "docs" / "screenshots")
    args = ap.parse_args(argv)
    for path in render_contrast(args.out_dir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
