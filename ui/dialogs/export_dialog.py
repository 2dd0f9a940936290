"""File ▸ Export ▸ Report and tables: CSV/Parquet tables and the annotated HTML/PDF/Markdown report.

The tables are the ones ``trajscope analyze`` writes (traces, steps, findings, models,
annotations), with the analyst's reviewed labels (the workspace annotations are passed to
the exporter, so ``models.csv`` counts accepted categories and ``traces.csv`` carries the
analyst's decisive step with ``decisive_source = analyst``). Exporting runs in a background
worker; a missing exporter or PDF engine is reported in the dialog, never as a crash.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
from PySide6.QtCore import QThreadPool, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from analyzer.analysis.result import AnalysisResult
from analyzer.jobs import CancelToken, NeverCancel, Progress, no_progress
from analyzer.locales import load_error_text
from analyzer.session import Session
from ui.dialogs.file_dialogs import FileDialog
from ui.i18n import current_language
from ui.workers import Job

TABLE_FORMATS = ("csv", "parquet")
REPORT_FORMATS = ("html", "pdf", "md")
REPORT_FILES = {"html": "report.html", "pdf": "report.pdf", "md": "report.md"}
EXPORT_DIR_KEY = "export_dir"


@dataclass(frozen=True)
class ExportRequest:
    """What to export.

    Attributes:
        out_dir: Folder the files go to.
        tables: Table formats (``csv``, ``parquet``).
        reports: Report formats (``html``, ``pdf``, ``md``).
        title: Report title.
        trace_ids: Export only these runs (None: every loaded run).
    """

    out_dir: Path
    tables: tuple[str, ...] = ("csv",)
    reports: tuple[str, ...] = ("html",)
    title: str = "TrajScope failure report"
    trace_ids: tuple[str, ...] | None = None


@dataclass
class ExportOutcome:
    """Files written and problems met (one format failing does not stop the others)."""

    written: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    cancelled: bool = False


def _subset(ids: Sequence[str] | None, traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame,
            result: AnalysisResult | None, annotations: pl.DataFrame | None) -> tuple[Any, Any, Any, Any]:
    if ids is None:
        return traces, steps, result, annotations
    keep = pl.Series(list(ids), dtype=pl.Utf8).implode()

    def f(df: pl.DataFrame) -> pl.DataFrame:
        return df.filter(pl.col("trace_id").is_in(keep))

    res = None
    if result is not None:
        res = AnalysisResult(runs=f(result.runs), step_values=f(result.step_values), findings=f(result.findings),
                             errors=list(result.errors))
    return f(traces), steps.filter(pl.col("trace_id").is_in(keep)), res, (f(annotations) if annotations is not None else None)


def run_export(req: ExportRequest, traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame, result: AnalysisResult | None,
               annotations: pl.DataFrame | None, problems: Sequence[str] = (), progress: Progress = no_progress,
               cancel: CancelToken | None = None, aliases: dict[str, str] | None = None,
               insights: Any = None) -> ExportOutcome:
    """Write the requested tables and reports (no Qt; runs in a worker thread).

    Args:
        req: What to export and where.
        traces: Traces frame.
        steps: Steps frame, or a lazy one (a corpus's steps: each table reads only what it uses).
        result: Analysis result (None when nothing was analysed).
        annotations: The workspace's annotations (ANNOTATION_COLUMNS).
        problems: Load problems to list in the report.
        progress: Progress sink.
        cancel: Cancel token (checked between files).
        aliases: The workspace's model alias table (``models`` and the reports group by it).
        insights: The Insights view's insight set (``insights.csv``, the ``insight`` column, the
            report's insights section), or None.

    Returns:
        What was written and what failed.
    """
    cancel = cancel or NeverCancel()
    out = ExportOutcome()
    try:
        from analyzer import export as ex
    except ImportError as exc:
        out.errors.append(f"The exporter (analyzer.export) is not available in this installation: {exc}")
        return out
    traces, steps, result, annotations = _subset(req.trace_ids, traces, steps, result, annotations)
    total = (1 if req.tables else 0) + len(req.reports)
    done = 0
    tables: dict[str, Any] | None = None  # built once: the report reuses the run table and model metrics
    if req.tables:
        progress(done, total, "tables")
        try:
            tables = ex.export_tables(traces, steps, result, annotations, aliases=aliases, insights=insights)
            out.written.extend(ex.write_tables(req.out_dir, tables, list(req.tables)))
        except (ex.ExportError, OSError, ValueError) as exc:
            out.errors.append(f"Tables: {exc}")
        done += 1
    if not req.reports:
        progress(done, total, "done")
        return out
    if cancel.cancelled:
        out.cancelled = True
        return out
    try:
        from analyzer.metrics.models import min_group_runs

        report = ex.build_report(traces, steps, result, annotations, ex.ReportOptions(title=req.title, lang=current_language()), list(problems),
                                 aliases=aliases, min_group_runs=min_group_runs(), insights=insights,
                                 run_rows=tables["traces"] if tables else None,
                                 model_rows=tables["models"] if tables else None)
    except Exception as exc:  # a report bug must not lose the tables already written
        out.errors.append(f"Report: {type(exc).__name__}: {exc}")
        return out
    writers = {
        "html": lambda p: ex.write_html(p, ex.render_report_html(report)),
        "md": lambda p: ex.write_markdown(p, ex.render_report_markdown(report)),
        "pdf": lambda p: ex.write_pdf(p, ex.render_report_pdf(report)),
    }
    for fmt in req.reports:
        if cancel.cancelled:
            out.cancelled = True
            break
        progress(done, total, REPORT_FILES[fmt])
        try:
            out.written.append(Path(writers[fmt](req.out_dir / REPORT_FILES[fmt])))
        except ex.PdfUnavailable as exc:
            out.errors.append(f"PDF: {exc}")
        except (ex.ExportError, OSError) as exc:
            out.errors.append(f"{fmt.upper()}: {exc}")
        done += 1
    progress(done, total, "done")
    return out


class ExportJob(Job):
    """Runs :func:`run_export` in the thread pool."""

    kind = "export"

    def __init__(self, req: ExportRequest, traces: pl.DataFrame, steps: pl.DataFrame | pl.LazyFrame,
                 result: AnalysisResult | Callable[[], AnalysisResult] | None,
                 annotations: pl.DataFrame | None, problems: Sequence[str] = (),
                 aliases: dict[str, str] | None = None, insights: Any = None) -> None:
        """Args as :func:`run_export`; ``result`` may be a function that reads it (in the worker)."""
        super().__init__()
        self.req = req
        self.args = (traces, steps, result, annotations, list(problems))
        self.aliases = dict(aliases or {})
        self.insights = insights

    def work(self) -> Any:
        traces, steps, result, annotations, problems = self.args
        try:
            self.req.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return ExportOutcome(errors=[f"{self.req.out_dir}: cannot create the folder ({exc.strerror or exc})"])
        if callable(result):
            self._progress(0, 1, "reading the analysis")
            try:
                result = result()
            except (OSError, pl.exceptions.PolarsError) as exc:
                return ExportOutcome(errors=[f"Cannot read the analysis from the corpus: {exc}"])
        return run_export(self.req, traces, steps, result, annotations, problems, progress=self._progress,
                          cancel=self.cancel_flag, aliases=self.aliases, insights=self.insights)


def _default_dir() -> Path:
    from analyzer.settings import load_settings

    raw = load_settings().extra.get(EXPORT_DIR_KEY)
    return Path(raw) if isinstance(raw, str) and raw else Path.home() / "trajscope-export"


def _remember_dir(path: Path) -> None:
    from analyzer.settings import load_settings, save_settings

    s = load_settings()
    s.extra[EXPORT_DIR_KEY] = str(path)
    save_settings(s)


class ExportDialog(QDialog):
    """Choose folder, formats and runs; export in the background; list what was written."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Export report and tables"))
        self.setObjectName("exportDialog")
        self.setMinimumWidth(560)
        self.session = session
        self.job: ExportJob | None = None
        self.outcome: ExportOutcome | None = None

        self.folder = QLineEdit(str(_default_dir()), self)
        self.folder.setObjectName("exportFolder")
        browse = QPushButton(self.tr("Browse…"), self)
        browse.clicked.connect(self._browse)
        frow = QHBoxLayout()
        frow.addWidget(self.folder, 1)
        frow.addWidget(browse)
        self.checks: dict[str, QCheckBox] = {}
        tables = QHBoxLayout()
        for fmt, label in (("csv", self.tr("CSV")), ("parquet", self.tr("Parquet"))):
            self.checks[fmt] = QCheckBox(label, self)
            tables.addWidget(self.checks[fmt])
        tables.addStretch(1)
        reports = QHBoxLayout()
        for fmt, label in (("html", self.tr("HTML")), ("pdf", self.tr("PDF")), ("md", self.tr("Markdown"))):
            self.checks[fmt] = QCheckBox(label, self)
            reports.addWidget(self.checks[fmt])
        reports.addStretch(1)
        for fmt in ("csv", "html"):
            self.checks[fmt].setChecked(True)
        for fmt, box in self.checks.items():
            box.setObjectName(f"export_{fmt}")
        shown = session.filtered_runs().height
        self.all_runs = QRadioButton(self.tr("All {n} loaded runs").format(n=session.traces.height), self)
        self.shown_runs = QRadioButton(self.tr("The {n} runs the table shows").format(n=shown), self)
        self.all_runs.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.all_runs)
        group.addButton(self.shown_runs)
        scope = QHBoxLayout()
        scope.addWidget(self.all_runs)
        scope.addWidget(self.shown_runs)
        scope.addStretch(1)
        self.title = QLineEdit(self.tr("TrajScope failure report"), self)
        self.title.setObjectName("exportTitle")
        note = QLabel(self.tr("Tables: traces, steps, findings, models and annotations (same columns as "
                              "“trajscope analyze”). Your reviewed labels count wherever they exist."), self)
        note.setWordWrap(True)
        note.setEnabled(False)
        form = QFormLayout()
        form.addRow(self.tr("Folder"), frow)
        form.addRow(self.tr("Tables"), tables)
        form.addRow(self.tr("Report"), reports)
        form.addRow(self.tr("Runs"), scope)
        form.addRow(self.tr("Title"), self.title)
        self.progress = QProgressBar(self)
        self.progress.hide()
        self.result_box = QPlainTextEdit(self)
        self.result_box.setObjectName("exportResult")
        self.result_box.setReadOnly(True)
        self.result_box.hide()
        self.buttons = QDialogButtonBox(self)
        self.export_btn = self.buttons.addButton(self.tr("Export"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.export_btn.setObjectName("exportButton")
        self.open_btn = self.buttons.addButton(self.tr("Open folder"), QDialogButtonBox.ButtonRole.ActionRole)
        self.open_btn.hide()
        self.open_btn.clicked.connect(self._open_folder)
        self.close_btn = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.export_btn.clicked.connect(self.start)
        self.close_btn.clicked.connect(self._close)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(note)
        lay.addWidget(self.progress)
        lay.addWidget(self.result_box, 1)
        lay.addWidget(self.buttons)

    def _browse(self) -> None:
        path = FileDialog.getExistingDirectory(self, self.tr("Export into folder"), self.folder.text())
        if path:
            self.folder.setText(path)

    def request(self) -> ExportRequest:
        """The export the dialog describes."""
        ids = None
        if self.shown_runs.isChecked():
            ids = tuple(str(t) for t in self.session.filtered_runs()["trace_id"].to_list())
        return ExportRequest(
            out_dir=Path(self.folder.text().strip()).expanduser(),
            tables=tuple(f for f in TABLE_FORMATS if self.checks[f].isChecked()),
            reports=tuple(f for f in REPORT_FORMATS if self.checks[f].isChecked()),
            title=self.title.text().strip() or "TrajScope failure report",
            trace_ids=ids,
        )

    def start(self) -> ExportJob | None:
        """Start exporting in the background (returns the job; None if there is nothing to do)."""
        req = self.request()
        if not req.tables and not req.reports:
            self._show_text(self.tr("Choose at least one format."))
            return None
        if not self.folder.text().strip():
            self._show_text(self.tr("Choose a folder."))
            return None
        s = self.session
        problems = [load_error_text(e, current_language()) for e in s.load_errors]
        from ui.analysis_store import window_aliases

        panel = getattr(getattr(self.parent(), "tagging", None), "insights", None)
        # Corpus runs are read by the worker, table by table, and never into the session.
        steps, result = s.export_sources()
        job = ExportJob(req, s.traces, steps, result if s.analysis.runs.height else None, s.annotations, problems,
                        window_aliases(self.parent()), getattr(panel, "iset", None))
        job.signals.progress.connect(self._on_progress)
        job.signals.finished.connect(self._on_done)
        job.signals.failed.connect(self._on_failed)
        self.export_btn.setEnabled(False)
        self.progress.setRange(0, 0)
        self.progress.show()
        self.job = job
        job.title = self.tr("Exporting to {folder}").format(folder=req.out_dir.name or str(req.out_dir))
        runner = getattr(self.parent(), "jobs", None)
        if runner is not None:  # listed (and cancellable) in the window's jobs indicator
            runner.start(job)
        else:
            QThreadPool.globalInstance().start(job)
        return job

    def _on_failed(self, msg: str, details: str) -> None:
        self.progress.hide()
        self.export_btn.setEnabled(True)
        self._show_text(self.tr("Export failed: {msg}").format(msg=msg) + "\n\n" + details)

    def _on_progress(self, done: int, total: int, message: str) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)
        self.progress.setFormat(f"{message} ({done}/{total})")

    def _on_done(self, outcome: ExportOutcome) -> None:
        self.outcome = outcome
        self.progress.hide()
        self.export_btn.setEnabled(True)
        lines = [self.tr("Wrote {n} files:").format(n=len(outcome.written))] + [f"  {p}" for p in outcome.written]
        if outcome.errors:
            lines += ["", self.tr("Problems:")] + [f"  {e}" for e in outcome.errors]
        if outcome.cancelled:
            lines += ["", self.tr("Cancelled.")]
        self._show_text("\n".join(lines))
        if outcome.written:
            self.open_btn.show()
            _remember_dir(self.request().out_dir)

    def _show_text(self, text: str) -> None:
        self.result_box.setPlainText(text)
        self.result_box.show()

    def _open_folder(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.request().out_dir)))

    def _close(self) -> None:
        if self.job is not None:
            self.job.cancel()
        self.reject()
