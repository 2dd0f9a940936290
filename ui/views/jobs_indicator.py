"""The status bar's jobs indicator: every background job, what it is doing now, and Cancel.

One indicator shows all jobs the :class:`ui.workers.JobRunner` runs: loading, analysis,
the judge's value curve, adapting the ranker, grouping insights. The status bar shows the
job the analyst started last (label, progress bar, Cancel); the "Jobs" button opens a list
of every running job, each with its own progress and Cancel button, and "Cancel all".

An analysis reports each run and each judge call (:class:`analyzer.jobs.ProgressEvent`), so
the label names the run, the step the judge reads and the time left, e.g.
``Analysing: run 3/60 · swe-123 · judge: category of step 14 · about 4 min left``.
Cancellation granularity: one file when loading, one run or one judge call when analysing.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QPoint, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from analyzer.jobs import ProgressEvent
from ui.workers import Job, JobRunner

LABEL_CHARS = 90
"""The status-bar label is elided to this many characters (the tooltip has the whole text)."""

BAR_SCALE = 100
"""Progress bar units per run (the judge's value curve moves the bar within a run)."""


def kind_title(kind: str) -> str:
    """What a job of this kind is called."""
    titles = {
        "load": QCoreApplication.translate("JobsIndicator", "Loading"),
        "analyze": QCoreApplication.translate("JobsIndicator", "Analysing"),
        "judge_curve": QCoreApplication.translate("JobsIndicator", "Judge value curve"),
        "adapt": QCoreApplication.translate("JobsIndicator", "Adapting the ranker"),
        "insights": QCoreApplication.translate("JobsIndicator", "Grouping failures"),
        "export": QCoreApplication.translate("JobsIndicator", "Exporting"),
    }
    return titles.get(kind, QCoreApplication.translate("JobsIndicator", "Working"))


def cancel_unit(kind: str) -> str:
    """When a cancel request takes effect for a job of this kind."""
    if kind == "load":
        return QCoreApplication.translate("JobsIndicator", "Cancel stops after the current file")
    if kind in ("analyze", "judge_curve"):
        return QCoreApplication.translate("JobsIndicator", "Cancel stops after the current run (with the judge: after the current judge call)")
    return QCoreApplication.translate("JobsIndicator", "Cancel stops at the next step of the work")


def format_eta(seconds: float | None) -> str:
    """A short "time left" text (empty while it cannot be estimated)."""
    if seconds is None:
        return ""
    s = round(seconds)
    if s < 60:
        return QCoreApplication.translate("JobsIndicator", "about {n} s left").format(n=max(1, s))
    if s < 3600:
        return QCoreApplication.translate("JobsIndicator", "about {n} min left").format(n=round(s / 60))
    return QCoreApplication.translate("JobsIndicator", "about {h} h {m} min left").format(h=s // 3600, m=(s % 3600) // 60)


def describe_event(ev: ProgressEvent) -> str:
    """One line for a structured analysis report: the run, what the judge reads, the time left."""
    if ev.phase == "done":
        return QCoreApplication.translate("JobsIndicator", "finishing")
    parts: list[str] = []
    if ev.runs > 1 or ev.phase == "run":  # a one-run job's title names the run already
        parts.append(QCoreApplication.translate("JobsIndicator", "run {i}/{n}").format(i=ev.run + 1, n=ev.runs))
        if ev.run_label:
            parts.append(ev.run_label if len(ev.run_label) <= 32 else ev.run_label[:31] + "…")
    if ev.phase == "judge_category" and ev.step is not None:
        parts.append(QCoreApplication.translate("JobsIndicator", "judge: category of step {step}").format(step=ev.step))
    elif ev.phase == "judge_candidates":
        parts.append(QCoreApplication.translate("JobsIndicator", "judge: comparing steps {steps}").format(steps=", ".join(str(s) for s in ev.candidates)))
    elif ev.phase == "judge_value_curve":
        parts.append(QCoreApplication.translate("JobsIndicator", "judge value curve: step {step}/{steps}").format(step=ev.step or 0, steps=ev.steps or 0))
    elif ev.phase == "run" and ev.steps is not None:
        parts.append(QCoreApplication.translate("JobsIndicator", "{n} steps").format(n=ev.steps))
    eta = format_eta(ev.eta_seconds)
    if eta:
        parts.append(eta)
    return " · ".join(parts)


def describe(job: Job) -> str:
    """What a job is doing now (its latest report)."""
    if job.cancelling:
        return QCoreApplication.translate("JobsIndicator", "cancelling after the current item…")
    ev, prog = job.last_event, job.last_progress
    if ev is not None and job.event_is_latest:
        return describe_event(ev)
    if prog is not None:
        done, total, message = prog
        if message and total > 0:
            return f"{message} ({done}/{total})"
        return message or (f"{done}/{total}" if total > 0 else "")
    return QCoreApplication.translate("JobsIndicator", "starting…")


def job_title(job: Job) -> str:
    """The job's own title, else its kind's."""
    return job.title or kind_title(job.kind)


def bar_state(job: Job) -> tuple[int, int, str]:
    """(value, maximum, format) of a job's progress bar; maximum 0 means "busy, no figure"."""
    ev, prog = job.last_event, job.last_progress
    if ev is not None and ev.runs > 0 and job.event_is_latest:
        frac = 0.0
        if ev.phase == "judge_value_curve" and ev.steps:
            frac = min(1.0, (ev.step or 0) / ev.steps)
        if ev.phase == "done":
            return ev.runs * BAR_SCALE, ev.runs * BAR_SCALE, f"{ev.runs}/{ev.runs}"
        if ev.runs == 1 and ev.phase == "judge_value_curve" and ev.steps:  # one run: count its judged steps
            return min(ev.step or 0, ev.steps), ev.steps, QCoreApplication.translate("JobsIndicator", "step {step}/{steps}").format(step=ev.step or 0, steps=ev.steps)
        return int((ev.run + frac) * BAR_SCALE), ev.runs * BAR_SCALE, f"{ev.run}/{ev.runs}"
    if prog is not None and prog[1] > 0:
        done, total, _m = prog
        return min(done, total), total, f"{done}/{total}"
    return 0, 0, ""


def _set_bar(bar: QProgressBar, job: Job) -> None:
    value, maximum, fmt = bar_state(job)
    bar.setRange(0, maximum)
    if maximum:
        bar.setValue(value)
        bar.setFormat(fmt)


class JobRow(QWidget):
    """One job in the jobs list: title, what it does now, progress, Cancel."""

    def __init__(self, job: Job, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = job
        self.setObjectName("jobRow")
        self.title = QLabel(self)
        self.title.setObjectName("jobRowTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.detail = QLabel(self)
        self.detail.setObjectName("jobRowDetail")
        self.detail.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.bar.setObjectName("jobRowProgress")
        self.bar.setTextVisible(True)
        self.bar.setMaximumHeight(16)
        self.cancel = QPushButton(QCoreApplication.translate("JobsIndicator", "Cancel"), self)
        self.cancel.setObjectName("jobRowCancel")
        self.cancel.setToolTip(cancel_unit(job.kind))
        self.cancel.clicked.connect(lambda: runner.cancel(job))
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.title, 1)
        top.addWidget(self.cancel)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.setSpacing(3)
        lay.addLayout(top)
        lay.addWidget(self.detail)
        lay.addWidget(self.bar)
        self.refresh()

    def refresh(self) -> None:
        """Show the job's latest report."""
        bg = QCoreApplication.translate("JobsIndicator", "started on its own") if self.job.background else ""
        self.title.setText(job_title(self.job) + (f"  ({bg})" if bg else ""))
        self.detail.setText(describe(self.job))
        _set_bar(self.bar, self.job)
        self.cancel.setEnabled(not self.job.cancelling)


class JobsList(QFrame):
    """Every running job, one :class:`JobRow` each, and "Cancel all" (shown as a popup)."""

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("jobsList")
        self.runner = runner
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMinimumWidth(460)
        self.rows: dict[int, JobRow] = {}
        self.header = QLabel(self)
        self.header.setObjectName("jobsListHeader")
        self.cancel_all = QPushButton(QCoreApplication.translate("JobsIndicator", "Cancel all"), self)
        self.cancel_all.setObjectName("jobsCancelAll")
        self.cancel_all.clicked.connect(runner.cancel_all)
        self.empty = QLabel(QCoreApplication.translate("JobsIndicator", "No background jobs are running."), self)
        self.empty.setEnabled(False)
        head = QHBoxLayout()
        head.setContentsMargins(8, 6, 8, 0)
        head.addWidget(self.header, 1)
        head.addWidget(self.cancel_all)
        self.body = QVBoxLayout()
        self.body.setContentsMargins(0, 0, 0, 0)
        self.body.setSpacing(0)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(2)
        lay.addLayout(head)
        lay.addWidget(self.empty)
        lay.addLayout(self.body)
        self.rebuild()

    def rebuild(self) -> None:
        """One row per running job (rows of finished jobs go)."""
        jobs = list(self.runner.jobs)
        alive = {id(j) for j in jobs}
        for key in [k for k in self.rows if k not in alive]:
            row = self.rows.pop(key)
            self.body.removeWidget(row)
            row.deleteLater()
        for job in jobs:
            row = self.rows.get(id(job))
            if row is None:
                row = JobRow(job, self.runner, self)
                self.rows[id(job)] = row
                self.body.addWidget(row)
            row.refresh()
        self.header.setText(QCoreApplication.translate("JobsIndicator", "{n} running jobs").format(n=len(jobs)))
        self.empty.setVisible(not jobs)
        self.cancel_all.setEnabled(any(not j.cancelling for j in jobs))
        self.adjustSize()

    def update_job(self, job: Job) -> None:
        """Refresh one job's row."""
        row = self.rows.get(id(job))
        if row is not None:
            row.refresh()

    def row_for(self, job: Job) -> JobRow | None:
        """The row of a running job."""
        return self.rows.get(id(job))


class JobsIndicator(QWidget):
    """Status-bar widget: the latest job's label, progress and Cancel, and the jobs list.

    Args:
        runner: The window's job runner.
        parent: Parent widget.

    Attributes:
        label: What the shown job is doing now (``jobLabel``).
        bar: Its progress (``jobProgress``).
        cancel_button: Cancels the shown job (``cancelButton``).
        jobs_button: Opens :attr:`jobs_list` (``jobsButton``), "Jobs (n)".
    """

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jobsIndicator")
        self.runner = runner
        self.label = QLabel(self)
        self.label.setObjectName("jobLabel")
        self.bar = QProgressBar(self)
        self.bar.setObjectName("jobProgress")
        self.bar.setMaximumWidth(220)
        self.bar.setTextVisible(True)
        self.cancel_button = QPushButton(QCoreApplication.translate("JobsIndicator", "Cancel"), self)
        self.cancel_button.setObjectName("cancelButton")
        self.cancel_button.clicked.connect(self.cancel_shown)
        self.jobs_button = QToolButton(self)
        self.jobs_button.setObjectName("jobsButton")
        self.jobs_button.setToolTip(QCoreApplication.translate("JobsIndicator", "Every running job, with its progress and Cancel"))
        self.jobs_button.clicked.connect(self.toggle_list)
        self.jobs_list = JobsList(runner, self)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        lay.addWidget(self.label)
        lay.addWidget(self.bar)
        lay.addWidget(self.cancel_button)
        lay.addWidget(self.jobs_button)
        runner.jobsChanged.connect(self.refresh)
        runner.jobUpdated.connect(self._job_updated)
        self.refresh()

    def shown_job(self) -> Job | None:
        """The job the status bar shows: the latest one the analyst started, else the latest."""
        jobs = self.runner.jobs
        if not jobs:
            return None
        mine = [j for j in jobs if not j.background]
        return (mine or jobs)[-1]

    def refresh(self) -> None:
        """Show the current jobs (hidden when none runs)."""
        jobs = self.runner.jobs
        busy = bool(jobs)
        for w in (self.label, self.bar, self.cancel_button, self.jobs_button):
            w.setVisible(busy)
        self.jobs_button.setText(QCoreApplication.translate("JobsIndicator", "Jobs ({n}) ▾").format(n=len(jobs)))
        self.jobs_list.rebuild()
        if not busy:
            self.jobs_list.hide()
            return
        self._show(self.shown_job())

    def _job_updated(self, job: Job) -> None:
        self.jobs_list.update_job(job)
        if job is self.shown_job():
            self._show(job)

    def _show(self, job: Job | None) -> None:
        if job is None:
            return
        text = f"{job_title(job)}: {describe(job)}"
        fm = QFontMetrics(self.label.font())
        self.label.setText(fm.elidedText(text, Qt.TextElideMode.ElideRight, fm.averageCharWidth() * LABEL_CHARS))
        unit = cancel_unit(job.kind)
        self.label.setToolTip(f"{text}\n{unit}")
        self.bar.setToolTip(unit)
        self.cancel_button.setToolTip(QCoreApplication.translate("JobsIndicator", "Cancel “{title}”. {unit}").format(title=job_title(job), unit=unit))
        self.cancel_button.setEnabled(not job.cancelling)
        _set_bar(self.bar, job)

    def cancel_shown(self) -> None:
        """Cancel the job the status bar shows (the jobs list cancels the others)."""
        job = self.shown_job()
        if job is not None:
            self.runner.cancel(job)

    def toggle_list(self) -> None:
        """Open (or close) the list of every running job above the Jobs button."""
        if self.jobs_list.isVisible():
            self.jobs_list.hide()
            return
        self.jobs_list.rebuild()
        self.jobs_list.adjustSize()
        anchor = self.jobs_button.mapToGlobal(QPoint(self.jobs_button.width(), 0))
        size = self.jobs_list.sizeHint()
        self.jobs_list.move(anchor.x() - size.width(), anchor.y() - size.height() - 4)
        self.jobs_list.show()

    def texts(self) -> dict[str, Any]:
        """What the indicator shows (for tests and the screenshot script)."""
        return {"label": self.label.text(), "jobs": self.jobs_button.text(),
                "rows": [(r.title.text(), r.detail.text()) for r in self.jobs_list.rows.values()]}
