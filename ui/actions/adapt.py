""""Adapt to my labels": fit the decisive-step ranker to the analyst's decisive marks.

``install_adapt(main_window, tagging)`` (called by :func:`ui.actions.tagging.install_tagging`)
adds to the Analysis menu and the tagging desk:

- **Adapt to my labels…** (``Ctrl+Shift+A``): enabled once at least
  :data:`analyzer.evaluation.adapt.MIN_LABELS` loaded failed runs have exactly one decisive
  step marked (``D``); below that its tooltip says how many more are needed. It computes the
  features of the labelled runs in a worker (progress and Cancel in the status bar; Cancel
  stops after the current run or cross-validation fold), fits, stores a new ranker version in
  the workspace, and shows the cross-validated step@1 of the shipped vs the adapted weights
  on those labels, with the offer to re-analyse;
- **Ranker versions…**: pick an older version (or the shipped weights);
- **Revert to shipped weights**: analyses use the shipped weights again (the versions stay).

The main window asks :meth:`AdaptController.current_ranker` (``window.ranker_provider``)
which ranker an analysis uses; the status bar names it.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field
from typing import Any

import polars as pl
from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QLayout, QToolButton, QWidget

from analyzer.evaluation.adapt import MIN_LABELS
from analyzer.workspace import RankerVersion, Workspace, WorkspaceError
from ui.workers import Job, resolve_embedder

EMBEDDER_KEY = "analysis/use_embedder"


@dataclass
class AdaptOutcome:
    """What the adapt job produced (None params: cancelled).

    Attributes:
        params: The adapted ``RankerParams`` (None when cancelled).
        n_labels: Labelled runs fitted on.
        skipped: (run id, reason) of labels that could not be used.
    """

    params: Any
    n_labels: int
    skipped: list[tuple[str, str]] = field(default_factory=list)


class AdaptJob(Job):
    """Computes the features of the labelled runs and fits the adapted ranker (in the pool thread).

    Args:
        traces: Traces frame of the loaded runs.
        steps: Their steps.
        labels: Run id -> the analyst's decisive step.
        use_embedder: Compute features with the sentence embedder (as the analysis does).
    """

    kind = "adapt"

    def __init__(self, traces: pl.DataFrame, steps: pl.DataFrame, labels: dict[str, int], use_embedder: bool) -> None:
        super().__init__()
        self.traces = traces
        self.steps = steps
        self.labels = dict(labels)
        self.use_embedder = use_embedder

    def work(self) -> AdaptOutcome:
        from analyzer.attribution.ranker import Ranker
        from analyzer.evaluation.adapt import fit_adapted, labelled_runs
        from analyzer.jobs import Cancelled

        skipped: list[tuple[str, str]] = []
        embedder = None
        if self.use_embedder:
            self._progress(0, len(self.labels), QCoreApplication.translate("AdaptController", "loading the embedder"))
            embedder = resolve_embedder()

        def features_progress(done: int, total: int, message: str = "") -> None:
            self._progress(done, total, QCoreApplication.translate("AdaptController", "features: {run}").format(run=message))

        def fit_progress(done: int, total: int, message: str = "") -> None:
            self._progress(done, total, QCoreApplication.translate("AdaptController", "cross-validating {done}/{total}").format(
                done=done, total=total))

        try:
            runs = labelled_runs(self.traces, self.steps, self.labels, embedder=embedder, progress=features_progress,
                                 cancel=self.cancel_flag, on_skip=lambda t, why: skipped.append((t, why)))
            params = fit_adapted(Ranker.load(), runs, embeddings=embedder is not None, progress=fit_progress,
                                 cancel=self.cancel_flag)
        except Cancelled:
            return AdaptOutcome(None, 0, skipped)
        return AdaptOutcome(params, len(runs), skipped)


def _layout_holding(layout: QLayout | None, widget: QWidget) -> QLayout | None:
    """The (nested) layout that directly holds ``widget``."""
    if layout is None:
        return None
    for i in range(layout.count()):
        item = layout.itemAt(i)
        if item is None:
            continue
        if item.widget() is widget:
            return layout
        found = _layout_holding(item.layout(), widget)
        if found is not None:
            return found
    return None


class AdaptController(QObject):
    """The adapt/revert actions of a main window and the ranker its analyses use.

    Signals:
        rankerChanged(str): The active ranker changed (its description).
    """

    rankerChanged = Signal(str)

    def __init__(self, window: Any, tagging: Any) -> None:
        super().__init__(window)
        self.window = window
        self.tagging = tagging
        self.session = window.session
        self.job: AdaptJob | None = None
        self.result_dialog: Any = None
        self.versions_dialog: Any = None
        self.act_adapt = self._action(self.tr("Adapt to my &labels…"), self.adapt, "Ctrl+Shift+A", "actAdaptRanker")
        self.act_versions = self._action(self.tr("Ranker &versions…"), self.versions_dialog_open, None, "actRankerVersions")
        self.act_versions.setToolTip(self.tr("Pick an adapted ranker of this workspace, or the shipped weights"))
        self.act_revert = self._action(self.tr("Revert to &shipped weights"), self.revert, None, "actRevertRanker")
        self.act_revert.setToolTip(self.tr("Analyses use the shipped ranker weights again (adapted versions are kept)"))
        menu = window.analysis_menu
        menu.setToolTipsVisible(True)
        menu.addSeparator()
        for a in (self.act_adapt, self.act_versions, self.act_revert):
            menu.addAction(a)
        self.ranker_label = QLabel(window)
        self.ranker_label.setObjectName("rankerLabel")
        window.statusBar().addPermanentWidget(self.ranker_label)
        self.desk_button: QToolButton | None = None
        self._install_in_desk()
        tagging.saved.connect(lambda *_a: self.update_state())
        tagging.workspaceChanged.connect(lambda *_a: self.update_state())
        window.bridge.tracesChanged.connect(self.update_state)
        window.jobs.busyChanged.connect(lambda *_a: self.update_state())
        window.ranker_provider = self.current_ranker
        self.update_state()

    def _action(self, text: str, slot: Any, shortcut: str | None, name: str) -> QAction:
        a = QAction(text, self.window)
        a.setObjectName(name)
        if shortcut:
            a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        a.triggered.connect(lambda *_a: slot())
        self.window.addAction(a)
        return a

    def _install_in_desk(self) -> None:
        desk = getattr(self.tagging, "desk", None)
        anchor = getattr(desk, "hide_reviewed", None)
        if desk is None or anchor is None:
            return
        row = _layout_holding(anchor.parentWidget().layout() if anchor.parentWidget() else None, anchor)
        if row is None:
            return
        b = QToolButton(desk)
        b.setObjectName("deskAdaptButton")
        b.setDefaultAction(self.act_adapt)
        b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        row.addWidget(b)
        self.desk_button = b

    # -- state -------------------------------------------------------------------------------------
    @property
    def workspace(self) -> Workspace | None:
        """The tagging controller's open workspace."""
        ws: Workspace | None = self.tagging.workspace
        return ws

    def labels(self) -> dict[str, int]:
        """The analyst's decisive steps of loaded failed runs (one label per run)."""
        ws = self.workspace
        traces = self.session.traces
        if ws is None or traces.height == 0:
            return {}
        try:
            marks = ws.decisive_labels()
        except (WorkspaceError, sqlite3.Error):
            return {}
        if not marks:
            return {}
        failed = traces.filter((pl.col("outcome") == "failure") & pl.col("trace_id").is_in(list(marks)))
        n_steps = dict(zip(failed["trace_id"].to_list(), failed["n_steps"].to_list(), strict=True))
        return {t: s for t, s in marks.items() if t in n_steps and (n_steps[t] is None or s < int(n_steps[t]))}

    def active_version(self) -> RankerVersion | None:
        """The workspace's active adapted ranker (None: shipped weights)."""
        ws = self.workspace
        if ws is None:
            return None
        try:
            return ws.active_ranker()
        except (WorkspaceError, sqlite3.Error):
            return None

    def update_state(self) -> None:
        """Enable the actions, their tooltips and the status-bar ranker name."""
        try:
            n = len(self.labels())
            busy = bool(self.window.jobs.running("adapt"))
        except RuntimeError:  # window deleted
            return
        missing = max(0, MIN_LABELS - n)
        self.act_adapt.setEnabled(missing == 0 and not busy and self.workspace is not None)
        if missing:
            tip = (self.tr("Mark the decisive step (D) of 1 more failed run to adapt the ranker ({have} of {need} labelled)")
                   if missing == 1 else
                   self.tr("Mark the decisive step (D) of {more} more failed runs to adapt the ranker "
                           "({have} of {need} labelled)")).format(more=missing, have=n, need=MIN_LABELS)
        else:
            tip = self.tr("Fit the decisive-step ranker to your {n} labelled failed runs, shrunk towards the shipped "
                          "weights").format(n=n)
        self.act_adapt.setToolTip(tip)
        self.act_adapt.setStatusTip(tip)
        self.act_adapt.setIconText(self.tr("Adapt to my labels ({have}/{need})").format(have=n, need=MIN_LABELS)
                                   if missing else self.tr("Adapt to my labels"))
        version = self.active_version()
        self.act_revert.setEnabled(version is not None)
        self.act_versions.setEnabled(self.workspace is not None)
        if version is None:
            self.ranker_label.setText(self.tr("Ranker: shipped"))
        else:
            self.ranker_label.setText(self.tr("Ranker: adapted #{id}").format(id=version.id))
        self.ranker_label.setToolTip(self.describe_active())

    def describe_active(self) -> str:
        """What the status bar and the analysis messages call the active ranker."""
        version = self.active_version()
        if version is None:
            return self.tr("shipped weights")
        return self.tr("adapted #{id} ({n} labels)").format(id=version.id, n=version.n_labels)

    def current_ranker(self) -> tuple[Any, str]:
        """The ranker analyses use (None: shipped weights) and its name (``window.ranker_provider``)."""
        version = self.active_version()
        if version is None:
            return None, self.describe_active()
        from analyzer.attribution.ranker import Ranker, RankerParams

        try:
            params = RankerParams.from_json(version.params)
        except ValueError as exc:
            self.window.show_error(self.tr("Adapted ranker #{id} is damaged; the shipped weights are used: {err}").format(
                id=version.id, err=exc), repr(exc))
            return None, self.tr("shipped weights")
        return Ranker(params), self.describe_active()

    # -- actions -------------------------------------------------------------------------------------
    def adapt(self) -> AdaptJob | None:
        """Analysis ▸ Adapt to my labels: fit in the background, then store and show the result."""
        ws = self.tagging.ensure_workspace()
        labels = self.labels()
        if ws is None:
            self.window.show_error(self.tr("Open a workspace first (File ▸ Open workspace)."))
            return None
        if len(labels) < MIN_LABELS:
            self.window.message_bar.show_message("info", self.act_adapt.toolTip())
            return None
        if self.window.jobs.running("adapt"):
            self.window.message_bar.show_message("info", self.tr("The ranker is already being adapted."))
            return None
        from ui import settings as ui_settings

        ids = pl.Series(list(labels)).implode()
        traces = self.session.traces.filter(pl.col("trace_id").is_in(ids))
        steps = self.session.steps_for(labels)
        job = AdaptJob(traces, steps, labels, use_embedder=ui_settings.get_str(EMBEDDER_KEY, "1") == "1")
        job.signals.finished.connect(self._adapted)
        job.signals.failed.connect(lambda msg, details: self.window.show_error(
            self.tr("Adapting the ranker failed: {msg}").format(msg=msg), details))
        self.window.job_label.setText(self.tr("Adapting the ranker to {n} labels…").format(n=len(labels)))
        self.job = job
        self.window.jobs.start(job)
        self.update_state()
        return job

    def _adapted(self, outcome: AdaptOutcome) -> None:
        self.job = None
        if outcome.params is None:
            self.window.message_bar.show_message("warning", self.tr("Adapting was cancelled; nothing was stored."))
            self.update_state()
            return
        ws = self.workspace
        if ws is None:
            self.window.show_error(self.tr("Not saved: no workspace is open (File ▸ Open workspace)."))
            return
        cv = outcome.params.meta.get("cv") or {}
        try:
            version = ws.save_ranker(outcome.params.to_json(), outcome.n_labels, cv.get("shipped_step_at_1"),
                                     cv.get("adapted_step_at_1"), cv.get("n"))
        except (WorkspaceError, sqlite3.Error, OSError) as exc:
            self.window.show_error(self.tr("Not saved: {err}").format(err=exc), repr(exc))
            return
        self.update_state()
        self.rankerChanged.emit(self.describe_active())
        if outcome.skipped:
            self.window.message_bar.show_message(
                "warning", self.tr("{n} labels could not be used.").format(n=len(outcome.skipped)),
                details="\n".join(f"{t}: {why}" for t, why in outcome.skipped))
        self.window.message_bar.show_message("success", self.tr("Saved ranker version #{id} ({name}).").format(
            id=version.id, name=self.describe_active()))
        self.show_result(version)

    def show_result(self, version: RankerVersion) -> Any:
        """The result dialog of a stored version (window-modal, not blocking)."""
        from ui.dialogs.adapt_dialog import AdaptResultDialog

        if self.result_dialog is not None:
            with contextlib.suppress(RuntimeError):
                self.result_dialog.close()
        dlg = AdaptResultDialog(version, self.reanalyse, self.revert, self.window)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.result_dialog = dlg
        dlg.open()
        return dlg

    def reanalyse(self) -> Any:
        """Analyse again the runs that have results (else every run the table shows)."""
        done = self.session.analysis.runs
        ids = [str(t) for t in done["trace_id"].to_list()] if done.height else []
        if not ids:
            ids = [str(t) for t in self.session.filtered_runs()["trace_id"].to_list()]
        if not ids:
            return None
        return self.window.analyze_runs(ids)

    def revert(self) -> bool:
        """Analyses use the shipped weights again (every version is kept)."""
        ws = self.workspace
        if ws is None:
            return False
        try:
            ws.revert_to_shipped()
        except (WorkspaceError, sqlite3.Error) as exc:
            self.window.show_error(self.tr("Not saved: {err}").format(err=exc), repr(exc))
            return False
        self.update_state()
        self.rankerChanged.emit(self.describe_active())
        self.window.message_bar.show_message(
            "success", self.tr("Analyses use the shipped weights again; the adapted versions are kept."),
            actions=[(self.tr("Re-analyse"), self.reanalyse)])
        return True

    def activate(self, version_id: int) -> bool:
        """Use a stored version for analyses."""
        ws = self.workspace
        if ws is None:
            return False
        try:
            version = ws.activate(version_id)
        except (WorkspaceError, sqlite3.Error) as exc:
            self.window.show_error(self.tr("Not saved: {err}").format(err=exc), repr(exc))
            return False
        self.update_state()
        self.rankerChanged.emit(self.describe_active())
        self.window.message_bar.show_message(
            "success", self.tr("Analyses use adapted ranker #{id}.").format(id=version.id),
            actions=[(self.tr("Re-analyse"), self.reanalyse)])
        return True

    def versions_dialog_open(self) -> Any:
        """Analysis ▸ Ranker versions (window-modal, not blocking)."""
        from ui.dialogs.adapt_dialog import RankerVersionsDialog

        ws = self.tagging.ensure_workspace()
        if ws is None:
            return None
        try:
            versions = ws.list_rankers()
        except (WorkspaceError, sqlite3.Error) as exc:
            self.window.show_error(str(exc), repr(exc))
            return None
        dlg = RankerVersionsDialog(versions, self.activate, self.revert, self.window)
        self.versions_dialog = dlg
        dlg.open()
        return dlg


def install_adapt(main_window: Any, tagging: Any) -> AdaptController:
    """Add the adapt/revert actions to a main window (called by ``install_tagging``)."""
    ctrl = AdaptController(main_window, tagging)
    main_window.adapt = ctrl
    return ctrl
