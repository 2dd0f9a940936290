"""The main window: runs table (left), transcript (centre), inspector (right), plots (bottom).

Everything observes one :class:`analyzer.session.Session` through a :class:`SessionBridge`.
Long work (loading, analysis) runs in :mod:`ui.workers` with progress and Cancel in the
status bar. Errors appear in the inline message bar, load problems in their own dock.

Extension points for the tagging desk (issue "Desktop app II"):
- ``ui.actions.tagging.install_tagging(main_window)`` is called at the end of ``__init__``
  when that module exists; it may add menus, shortcuts (keys 1-9, 0, D, A, R and Ctrl+Z are
  left free) and tabs with :meth:`MainWindow.add_tab`.
- ``ui.views.annotation_editor`` fills :attr:`InspectorPane.annotation_slot`.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStyle,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from analyzer import __version__
from analyzer.analysis.result import AnalysisResult, RunAnalysis
from analyzer.loading.loader import LoadResult
from analyzer.session import Session, skipped_runs
from ui import settings as ui_settings
from ui.actions.search import install_search
from ui.actions.tagging import install_tagging
from ui.bridge import SessionBridge
from ui.dialogs.file_dialogs import FileDialog
from ui.dialogs.judge_dialog import current_choice
from ui.views.compare import ComparePanel
from ui.views.contrast import ContrastView
from ui.views.inspector import InspectorPane
from ui.views.jobs_indicator import JobsIndicator
from ui.views.load_problems import LoadProblemsPanel
from ui.views.message_bar import MessageBar
from ui.views.plots import RunPlots
from ui.views.runs_panel import RunsPanel
from ui.views.transcript import TranscriptView
from ui.workers import AnalyzeJob, Job, JobRunner, LoadJob, resolve_analyze

ANALYSIS_FLUSH_MS = 200
STATE_VERSION = 3
EMBEDDER_KEY = "analysis/use_embedder"
AUTO_JOBS_KEY = "jobs/auto_start"
"""UI setting: background jobs (the judge's value curve of an opened failed run) start on their own.

Off by default: the judge's curve of a long run takes minutes of CPU and holds the judge, so it
runs when the analyst asks for it (Analysis ▸ Judge value curve of this run) unless this is on."""


class MainWindow(QMainWindow):
    """TrajScope's main window.

    Args:
        session: The session to show (a new empty one if None).
        persist: Restore and save geometry/layout in QSettings (off for screenshots).

    Signals:
        settingsChanged: Language or theme changed; the app rebuilds the window.
    """

    settingsChanged = Signal()

    def __init__(self, session: Session | None = None, persist: bool = True) -> None:
        super().__init__()
        self.session = session or Session()
        self.persist = persist
        self.bridge = SessionBridge(self.session, self)
        self.jobs = JobRunner(self)
        self.workspace_path: Path | None = None
        self._analysis_buffer: list[RunAnalysis] = []
        self._analysis_total = 0
        self._analysis_seen = 0
        self._analysis_ranker = ""
        self._tabs: dict[str, QWidget] = {}
        self._judge_curve_wanted: str | None = None
        self.auto_judge_curves = True
        """Allows the automatic judge value curve (see AUTO_JOBS_KEY; off for screenshots)."""
        self._judge_curve_done: set[str] = set()
        self.setWindowTitle("TrajScope")
        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)

        # --- central: message bar + tabs ------------------------------------------------
        self.message_bar = MessageBar(self)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("mainTabs")
        self.tabs.setDocumentMode(True)
        self.run_area = QMainWindow(self)
        self.run_area.setObjectName("runArea")
        self.run_area.setWindowFlags(Qt.WindowType.Widget)
        self.run_area.setDockNestingEnabled(True)
        self.transcript = TranscriptView(self.session, self.bridge, self.run_area)
        self.run_area.setCentralWidget(self.transcript)
        self.inspector = InspectorPane(self.session, self.bridge, self.run_area)
        self.inspector_dock = self._dock(self.run_area, "inspectorDock", self.tr("Inspector"), self.inspector,
                                         Qt.DockWidgetArea.RightDockWidgetArea)
        self.plots = RunPlots(self.session, self.bridge, self.run_area)
        self.plots_dock = self._dock(self.run_area, "plotsDock", self.tr("Value curve"), self.plots,
                                     Qt.DockWidgetArea.BottomDockWidgetArea)
        self.compare = ComparePanel(self.session, self.bridge, self)
        self.add_tab(self.run_area, self.tr("Run"), "run")
        self.add_tab(self.compare, self.tr("Compare models"), "compare")
        self.contrast = ContrastView(self.session, self.bridge, self)
        self.add_tab(self.contrast, self.tr("Contrast"), "contrast")
        self.compare.open_contrast = self.open_contrast
        central = QWidget(self)
        cl = QVBoxLayout(central)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(0)
        cl.addWidget(self.message_bar)
        cl.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        # --- outer docks ------------------------------------------------------------------
        self.runs_panel = RunsPanel(self.session, self.bridge, self, persist=persist)
        self.runs_dock = self._dock(self, "runsDock", self.tr("Runs"), self.runs_panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.load_problems = LoadProblemsPanel(self.session, self.bridge, self)
        self.problems_dock = self._dock(self, "loadProblemsDock", self.tr("Load problems"), self.load_problems,
                                        Qt.DockWidgetArea.LeftDockWidgetArea)
        self.splitDockWidget(self.runs_dock, self.problems_dock, Qt.Orientation.Vertical)
        self.problems_dock.hide()
        self.load_problems.enlargeRequested.connect(self.enlarge_load_problems)

        self._build_status_bar()
        self._build_actions()
        self._build_menus()
        self._build_toolbar()

        self._analysis_timer = QTimer(self)
        self._analysis_timer.setSingleShot(True)
        self._analysis_timer.setInterval(ANALYSIS_FLUSH_MS)
        self._analysis_timer.timeout.connect(self._flush_analysis)
        self.bridge.runsChanged.connect(self._update_counts)
        self.bridge.loadErrorsChanged.connect(self._on_load_errors)
        self.bridge.selectionChanged.connect(self._update_actions)
        self.bridge.selectionChanged.connect(self._maybe_judge_curve)
        self.jobs.busyChanged.connect(self._on_busy)

        self.resize(1560, 960)
        self._default_layout()
        if persist:
            self.restore_layout()
        self._update_counts()
        self._update_actions()
        self._install_tagging()
        self._install_persistence()
        install_search(self)
        if self.session.selection.trace_id is not None:  # a rebuilt window shows what the old one showed
            self.bridge.selectionChanged.emit(self.session.selection)
        if self.session.load_errors:
            self.problems_dock.show()

    # construction helpers ---------------------------------------------------------------------
    def _dock(self, host: QMainWindow, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, host)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        host.addDockWidget(area, dock)
        return dock

    def add_tab(self, widget: QWidget, title: str, name: str) -> int:
        """Add a central tab (``name`` is what ``--tab`` and :meth:`show_tab` use)."""
        self._tabs[name] = widget
        return self.tabs.addTab(widget, title)

    def show_tab(self, name: str) -> bool:
        """Bring a tab to the front; False if there is no such tab."""
        w = self._tabs.get(name)
        if w is None:
            return False
        self.tabs.setCurrentWidget(w)
        return True

    def tab_names(self) -> list[str]:
        """Names of the central tabs."""
        return list(self._tabs)

    def _action(self, text: str, slot: Callable[..., Any], shortcut: str | QKeySequence.StandardKey | None = None,
                tip: str | None = None, icon: QStyle.StandardPixmap | None = None, name: str | None = None) -> QAction:
        a = QAction(text, self)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            a.setToolTip(tip)
            a.setStatusTip(tip)
        if icon is not None:
            a.setIcon(self.style().standardIcon(icon))
        if name:
            a.setObjectName(name)
        a.triggered.connect(lambda *_a: slot())
        self.addAction(a)
        return a

    def _build_actions(self) -> None:
        sp = QStyle.StandardPixmap
        self.act_open = self._action(self.tr("&Open files…"), self.open_files_dialog, QKeySequence.StandardKey.Open,
                                     self.tr("Open trace files (any supported format)"), sp.SP_DialogOpenButton, "actOpen")
        self.act_open_folder = self._action(self.tr("Open &folder…"), self.open_folder_dialog, "Ctrl+Shift+O",
                                            self.tr("Open every trace file in a folder (recursively)"), sp.SP_DirOpenIcon, "actOpenFolder")
        self.act_export_csv = self._action(self.tr("Runs table as &CSV…"), lambda: self.export_runs("csv"), None,
                                           self.tr("Write the runs the table shows as a spreadsheet-safe CSV"))
        self.act_export_parquet = self._action(self.tr("Runs table as &Parquet…"), lambda: self.export_runs("parquet"), None,
                                               self.tr("Write the runs the table shows as Parquet"))
        self.act_settings = self._action(self.tr("&Settings…"), self.open_settings, QKeySequence.StandardKey.Preferences,
                                         self.tr("Language, theme and judge model"), None, "actSettings")
        if self.act_settings.shortcut().isEmpty():
            self.act_settings.setShortcut(QKeySequence("Ctrl+,"))
        self.act_quit = self._action(self.tr("&Quit"), self.close, QKeySequence.StandardKey.Quit, self.tr("Quit TrajScope"))
        if self.act_quit.shortcut().isEmpty():
            self.act_quit.setShortcut(QKeySequence("Ctrl+Q"))
        self.act_analyze_sel = self._action(self.tr("Analyze &selected runs"), self.analyze_selected, "Ctrl+R",
                                            self.tr("Find the decisive step, failure category and value curve of the selected runs"),
                                            sp.SP_MediaPlay, "actAnalyzeSelected")
        self.act_analyze_all = self._action(self.tr("Analyze &all runs"), self.analyze_all, "Ctrl+Shift+R",
                                            self.tr("Analyse every run the table shows"), sp.SP_MediaSeekForward, "actAnalyzeAll")
        self.act_refresh_stale = self._action(
            self.tr("Refresh s&tale analysis"), self.refresh_stale, None,
            self.tr("Re-analyse only the runs whose stored results come from an older analysis version"),
            sp.SP_BrowserReload, "actRefreshStale")
        self.act_cancel = self._action(self.tr("&Cancel"), self.cancel_jobs, "Esc",
                                       self.tr("Stop background work after the current file or run"), sp.SP_BrowserStop, "actCancel")
        self.act_judge_curve = self._action(
            self.tr("Judge &value curve of this run"), self.judge_curve_current, None,
            self.tr("Ask the judge for its per-step value curve of the selected run (runs in the background)"),
            None, "actJudgeCurve")
        self.act_judge = self._action(self.tr("&Judge model…"), self.choose_judge, None,
                                      self.tr("Choose the local judge model (bundled or any .gguf file)"), sp.SP_ComputerIcon, "actJudge")
        self.act_next_step = self._action(self.tr("Next step"), lambda: self.transcript.step_by(1), "J",
                                          self.tr("Select the next step"), None, "actNextStep")
        self.act_prev_step = self._action(self.tr("Previous step"), lambda: self.transcript.step_by(-1), "K",
                                          self.tr("Select the previous step"), None, "actPrevStep")
        self.act_next_finding = self._action(self.tr("Next finding"), lambda: self.transcript.finding_by(1), "N",
                                             self.tr("Jump to the next finding of this run"), None, "actNextFinding")
        self.act_prev_finding = self._action(self.tr("Previous finding"), lambda: self.transcript.finding_by(-1), "P",
                                             self.tr("Jump to the previous finding of this run"), None, "actPrevFinding")
        self.act_decisive = self._action(self.tr("Go to decisive step"), self.go_to_decisive, "G",
                                         self.tr("Select the decisive step of this run"), None, "actDecisive")
        self.act_find = self._action(self.tr("Find in run…"), self.transcript.focus_search, QKeySequence.StandardKey.Find,
                                     self.tr("Search the steps of the current run"))
        self.act_filter = self._action(self.tr("Filter runs…"), self._focus_filter, "Ctrl+L",
                                       self.tr("Search and filter the runs table"))
        self.act_tab_run = self._action(self.tr("Run view"), lambda: self.show_tab("run"), "Ctrl+1", self.tr("Show the run view"))
        self.act_tab_compare = self._action(self.tr("Compare models"), lambda: self.show_tab("compare"), "Ctrl+2",
                                            self.tr("Compare models side by side"))
        self.act_tab_contrast = self._action(self.tr("Contrast with a success"), lambda: self.show_tab("contrast"), "Ctrl+4",
                                             self.tr("The failed run side by side with a success of the same task"))
        self.act_reset_layout = self._action(self.tr("Reset layout"), self.reset_layout, None, self.tr("Put every pane back in its place"))
        self.act_shortcuts = self._action(self.tr("&Keyboard shortcuts"), self.show_shortcuts, QKeySequence.StandardKey.HelpContents,
                                          self.tr("List every keyboard shortcut"))
        self.act_about = self._action(self.tr("&About TrajScope"), self.show_about, None, self.tr("Version and licence"))
        self.act_cancel.setEnabled(False)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        self.file_menu = mb.addMenu(self.tr("&File"))
        self.file_menu.addAction(self.act_open)
        self.file_menu.addAction(self.act_open_folder)
        self.recent_menu = self.file_menu.addMenu(self.tr("Open &recent"))
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.file_menu.addSeparator()
        self.export_menu = self.file_menu.addMenu(self.tr("&Export"))
        self.export_menu.addAction(self.act_export_csv)
        self.export_menu.addAction(self.act_export_parquet)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.act_settings)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.act_quit)
        self.analysis_menu = mb.addMenu(self.tr("&Analysis"))
        self.analysis_menu.addAction(self.act_analyze_sel)
        self.analysis_menu.addAction(self.act_analyze_all)
        self.analysis_menu.addAction(self.act_refresh_stale)
        self.analysis_menu.addAction(self.act_cancel)
        self.analysis_menu.addSeparator()
        self.analysis_menu.addAction(self.act_judge_curve)
        self.analysis_menu.addAction(self.act_judge)
        self.navigate_menu = mb.addMenu(self.tr("&Navigate"))
        for a in (self.act_next_step, self.act_prev_step, self.act_next_finding, self.act_prev_finding,
                  self.act_decisive, None, self.act_find, self.act_filter):
            if a is None:
                self.navigate_menu.addSeparator()
            else:
                self.navigate_menu.addAction(a)
        self.view_menu = mb.addMenu(self.tr("&View"))
        self.view_menu.addAction(self.act_tab_run)
        self.view_menu.addAction(self.act_tab_compare)
        self.view_menu.addAction(self.act_tab_contrast)
        self.view_menu.addSeparator()
        for dock in (self.runs_dock, self.inspector_dock, self.plots_dock, self.problems_dock):
            self.view_menu.addAction(dock.toggleViewAction())
        self.view_menu.addMenu(self.runs_panel.columns_menu)  # the column chooser (also the header's context menu)
        self.view_menu.addSeparator()
        self.view_menu.addAction(self.act_reset_layout)
        self.help_menu = mb.addMenu(self.tr("&Help"))
        self.help_menu.addAction(self.act_shortcuts)
        self.help_menu.addAction(self.act_about)

    def _build_toolbar(self) -> None:
        tb = QToolBar(self.tr("Main toolbar"), self)
        tb.setObjectName("mainToolbar")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for a in (self.act_open, self.act_open_folder, None, self.act_analyze_sel, self.act_analyze_all, self.act_cancel,
                  None, self.act_judge):
            if a is None:
                tb.addSeparator()
            else:
                tb.addAction(a)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)
        self.toolbar = tb

    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.count_runs = QLabel(self)
        self.count_runs.setObjectName("countRuns")
        self.count_failed = QLabel(self)
        self.count_failed.setObjectName("countFailed")
        self.count_tagged = QLabel(self)
        self.count_tagged.setObjectName("countTagged")
        self.count_problems = QPushButton(self)
        self.count_problems.setObjectName("countProblems")
        self.count_problems.setFlat(True)
        self.count_problems.setToolTip(self.tr("Show the files that could not be read, with the reason"))
        self.count_problems.clicked.connect(self.show_load_problems)
        self.jobs_indicator = JobsIndicator(self.jobs, self)  # every job, with progress and Cancel
        self.job_label: QLabel = self.jobs_indicator.label
        self.progress: QProgressBar = self.jobs_indicator.bar
        self.cancel_button: QPushButton = self.jobs_indicator.cancel_button
        for w in (self.count_runs, self.count_failed, self.count_tagged):
            sb.addWidget(w)
        sb.addWidget(self.count_problems)
        sb.addPermanentWidget(self.jobs_indicator)

    def _install_tagging(self) -> None:
        try:
            install_tagging(self)
        except Exception as exc:  # a broken feature module must not stop the app
            self.show_error(self.tr("The tagging desk could not be loaded: {err}").format(err=exc), traceback.format_exc())

    def _install_persistence(self) -> None:
        """Analysis results are kept in the workspace and shown again when it reopens (``ui.analysis_store``)."""
        from ui.analysis_store import AnalysisPersistence, window_workspace

        self.compare.workspace_provider = lambda: window_workspace(self)  # the model alias table
        tagging = getattr(self, "tagging", None)
        if tagging is not None:
            tagging.workspaceChanged.connect(lambda *_a: self.compare._mark_dirty())
        self.persistence = AnalysisPersistence(self)
        self.persistence.restored.connect(self._on_restored)
        self.persistence.restore()

    def _on_restored(self, n: int) -> None:
        stale = len(self.session.stale_runs())
        text = self.tr("Showing the stored analysis of {n} runs from the workspace.").format(n=n)
        if stale:
            text += " " + self.tr("{n} are stale (made by an older analysis version).").format(n=stale)
        self.message_bar.show_message("info", text, actions=[(self.tr("Refresh stale analysis"), self.refresh_stale)]
                                      if stale else None)

    # layout ---------------------------------------------------------------------------------------
    def _default_layout(self) -> None:
        self.resizeDocks([self.runs_dock], [540], Qt.Orientation.Horizontal)
        self.resizeDocks([self.runs_dock, self.problems_dock], [700, 160], Qt.Orientation.Vertical)
        self.run_area.resizeDocks([self.inspector_dock], [400], Qt.Orientation.Horizontal)
        self.run_area.resizeDocks([self.plots_dock], [300], Qt.Orientation.Vertical)

    def reset_layout(self) -> None:
        """Every pane back to its default place and size."""
        for host, dock, area in ((self, self.runs_dock, Qt.DockWidgetArea.LeftDockWidgetArea),
                                 (self, self.problems_dock, Qt.DockWidgetArea.LeftDockWidgetArea),
                                 (self.run_area, self.inspector_dock, Qt.DockWidgetArea.RightDockWidgetArea),
                                 (self.run_area, self.plots_dock, Qt.DockWidgetArea.BottomDockWidgetArea)):
            dock.setFloating(False)
            host.addDockWidget(area, dock)
            dock.show()
        self.splitDockWidget(self.runs_dock, self.problems_dock, Qt.Orientation.Vertical)
        if not self.session.load_errors:
            self.problems_dock.hide()
        self._default_layout()

    def save_layout(self) -> None:
        """Remember geometry and dock layout."""
        s = ui_settings.ui_settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState(STATE_VERSION))
        s.setValue("window/run_area_state", self.run_area.saveState(STATE_VERSION))
        s.sync()

    def restore_layout(self) -> bool:
        """Restore geometry and dock layout; False when nothing was saved."""
        s = ui_settings.ui_settings()
        geom, state, inner = s.value("window/geometry"), s.value("window/state"), s.value("window/run_area_state")
        ok = False
        if isinstance(geom, QByteArray | bytes):
            ok = self.restoreGeometry(QByteArray(geom))
        if isinstance(state, QByteArray | bytes):
            ok = self.restoreState(QByteArray(state), STATE_VERSION) and ok
        if isinstance(inner, QByteArray | bytes):
            self.run_area.restoreState(QByteArray(inner), STATE_VERSION)
        return ok

    # opening ------------------------------------------------------------------------------------------
    def open_files_dialog(self) -> None:
        """File ▸ Open files."""
        paths, _ = FileDialog.getOpenFileNames(
            self, self.tr("Open trace files"), "",
            self.tr("Traces (*.json *.jsonl *.ndjson *.traj *.eval *.gz *.zst);;All files (*)"))
        if paths:
            self.open_paths(paths)

    def open_folder_dialog(self) -> None:
        """File ▸ Open folder."""
        path = FileDialog.getExistingDirectory(self, self.tr("Open a folder of traces"))
        if path:
            self.open_paths([path])

    def _fill_recent(self) -> None:
        m = self.recent_menu
        m.clear()
        recent = ui_settings.recent_paths()
        if not recent:
            a = m.addAction(self.tr("(nothing yet)"))
            a.setEnabled(False)
            return
        for p in recent:
            m.addAction(p, lambda *_a, path=p: self.open_paths([path]))
        m.addSeparator()
        m.addAction(self.tr("Clear recent"), ui_settings.clear_recent)

    def open_paths(self, paths: list[str] | list[Path], synchronous: bool = False) -> Job | None:
        """Load files/folders in the background (the table fills as files load).

        A folder holding a corpus (``corpus.json``, see ``trajscope corpus build``) is opened
        as a corpus instead (:meth:`open_corpus`): its runs table appears at once and each run's
        steps are read when the run is opened.

        Args:
            paths: Files and folders.
            synchronous: Load in this thread (screenshots, scripts); returns None.
        """
        items = [str(Path(p).expanduser()) for p in paths]
        missing = [p for p in items if not Path(p).exists()]
        if missing:
            self.message_bar.show_message("warning", self.tr("Not found: {paths}").format(paths=", ".join(missing)))
        items = [p for p in items if Path(p).exists()]
        if not items:
            return None
        if self.persist:
            ui_settings.add_recent([str(Path(p).resolve()) for p in items])
        from analyzer.corpus.store import MANIFEST

        corpora = [p for p in items if (Path(p) / MANIFEST).is_file()]
        for p in corpora:
            self.open_corpus(p)
        items = [p for p in items if p not in corpora]
        if not items:
            return None
        # the banner names this load's duplicates and problems, and the total the status bar and panel show
        self._skipped_before = skipped_runs(self.session.load_notices)
        if synchronous:
            from analyzer.loading import load

            res = load(items)
            self.session.add_load_result(res)
            self._loaded(res, 0.0)
            return None
        job = LoadJob(items)
        started = time.perf_counter()
        job.signals.partial.connect(self._on_partial_load)
        job.signals.finished.connect(lambda res: self._loaded(res, time.perf_counter() - started))
        job.signals.failed.connect(lambda msg, details: self.show_error(self.tr("Loading failed: {msg}").format(msg=msg), details))
        job.title = self.tr("Loading {n} files and folders").format(n=len(items)) if len(items) > 1 else self.tr("Loading")
        return self.jobs.start(job)

    def open_corpus(self, path: str | Path) -> int | None:
        """Open a corpus folder: its runs and analysis rows now, each run's steps when it is opened.

        Returns:
            Runs added, or None when the folder could not be opened (the message bar says why).
        """
        from analyzer.corpus import Corpus, CorpusError

        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            n = self.session.open_corpus(Corpus(path))
        except (CorpusError, OSError, pl.exceptions.PolarsError) as exc:
            self.show_error(self.tr("Cannot open the corpus {path}: {msg}").format(path=path, msg=exc), repr(exc))
            return None
        finally:
            QApplication.restoreOverrideCursor()
        self.message_bar.show_message("success", self.tr(
            "Opened the corpus {path}: {runs} runs. A run’s steps are read from disk when you open it.").format(
            path=Path(path).name, runs=f"{n:,}"))
        if self.session.selection.trace_id is None and self.session.traces.height:
            self.select_default_run()
        return n

    def _on_partial_load(self, part: LoadResult) -> None:
        self.session.add_load_result(part)

    def _loaded(self, res: LoadResult, seconds: float) -> None:
        # the count is the session's, as in the status bar and the panel; duplicates are a note
        runs, files, total = res.traces.height, len(res.files), self.session.counts().load_problems
        problems = len(dict.fromkeys(res.errors))  # this load's (a file read again is listed once, see Session)
        dup = skipped_runs(self.session.load_notices) - getattr(self, "_skipped_before", 0)
        runs = max(0, runs - dup)  # the runs this load added
        if res.cancelled:
            text = self.tr("Loading cancelled: {runs} runs from {files} files were loaded.").format(runs=runs, files=files)
            self.message_bar.show_message("warning", text)
        else:
            text = self.tr("Loaded {runs} runs from {files} files.").format(runs=runs, files=files)
            if dup:
                text += " " + self.tr("{n} runs were already loaded and were skipped.").format(n=dup)
            if problems:
                text += " " + self.tr("{n} files or records could not be read (see Load problems).").format(n=problems)
            if total != problems:
                text += " " + self.tr("{n} load problems in all.").format(n=total)
            self.message_bar.show_message("warning" if problems else "success", text,
                                          actions=[(self.tr("Show problems"), self.show_load_problems)] if total else None)
        if self.session.selection.trace_id is None and self.session.traces.height:
            self.select_default_run()

    def select_default_run(self) -> None:
        """Select the first failed run the table shows (or the first run)."""
        frame = self.runs_panel.model.frame
        if frame.height == 0:
            frame = self.session.filtered_runs()
        if frame.height == 0:
            return
        failed = frame.filter(pl.col("outcome") == "failure")
        row = (failed if failed.height else frame).row(0, named=True)
        tid = str(row["trace_id"])
        self.session.select(trace_ids=(tid,), trace_id=tid)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        md = event.mimeData()
        if md.hasUrls() and any(u.isLocalFile() for u in md.urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: Any) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.open_paths(paths)

    # analysis ------------------------------------------------------------------------------------------
    def analyze_selected(self) -> Job | None:
        """Analyse the selected runs."""
        sel = self.session.selection
        ids = list(sel.trace_ids) or ([sel.trace_id] if sel.trace_id else [])
        if not ids:
            self.message_bar.show_message("info", self.tr("Select one or more runs in the table first."))
            return None
        return self.analyze_runs(ids)

    def analyze_all(self) -> Job | None:
        """Analyse every run the table shows."""
        ids = self.session.filtered_runs()["trace_id"].to_list()
        if not ids:
            self.message_bar.show_message("info", self.tr("Open traces first (File ▸ Open)."))
            return None
        return self.analyze_runs(ids)

    def analyze_runs(self, trace_ids: list[str]) -> Job | None:
        """Analyse runs in the background; per-run results appear as they finish."""
        if self.jobs.running("analyze"):
            self.message_bar.show_message("info", self.tr("An analysis is already running; cancel it first."))
            return None
        try:
            resolve_analyze()
        except ImportError as exc:
            self.show_error(self.tr("The analysis engine is not available in this installation."), repr(exc))
            return None
        traces = self.session.effective_traces(trace_ids)  # the analyst's or estimated outcome counts
        steps = self.session.steps_for(trace_ids)
        use_judge, model = current_choice()
        use_embedder = ui_settings.get_str(EMBEDDER_KEY, "1") == "1"
        ranker, self._analysis_ranker = self.analysis_ranker()
        job = AnalyzeJob(traces, steps, use_judge=use_judge, judge_choice=model, use_embedder=use_embedder,
                         ranker=ranker)
        job.known_judge_cues = dict(self.session.judge_cues)
        job.signals.judge_cues.connect(self.session.set_judge_cues)  # the estimate uses the judge's answers
        self._analysis_total = traces.height
        self._analysis_seen = 0
        job.signals.partial.connect(self._on_run_analysed)
        job.signals.partial.connect(lambda ra, j=job: self.persistence.save(ra, j.analysis_version))
        job.signals.notice.connect(self._judge_notice)
        job.signals.finished.connect(self._analysed)
        job.signals.failed.connect(lambda msg, details: self.show_error(self.tr("Analysis failed: {msg}").format(msg=msg), details))
        job.title = self.tr("Analysing {n} runs").format(n=traces.height)
        return self.jobs.start(job)

    def analysis_ranker(self) -> tuple[Any, str]:
        """The ranker analyses use (the workspace's adapted one, else None: shipped) and its name."""
        provider = getattr(self, "ranker_provider", None)
        if provider is None:
            return None, ""
        ranker, name = provider()
        return ranker, str(name)

    def auto_jobs_enabled(self) -> bool:
        """Whether background jobs start on their own (the setting AUTO_JOBS_KEY, default off)."""
        return self.auto_judge_curves and ui_settings.get_str(AUTO_JOBS_KEY, "0") == "1"

    def judge_curve_current(self) -> Job | None:
        """Analysis ▸ Judge value curve of this run: start it now (whatever the auto-start setting says)."""
        tid = self.session.selection.trace_id
        if not tid:
            self.message_bar.show_message("info", self.tr("Select a run in the table first."))
            return None
        use_judge, _model = current_choice()
        if not use_judge:
            self.message_bar.show_message("info", self.tr("No judge is chosen: pick one in Analysis ▸ Judge model."),
                                          actions=[(self.tr("Choose judge…"), self.choose_judge)])
            return None
        why = self._judge_curve_blocker(tid)
        if why is not None:
            self.message_bar.show_message("info", why)
            return None
        self._judge_curve_wanted = tid
        if self.jobs.running("judge_curve"):
            self.message_bar.show_message("info", self.tr("The judge value curve of this run starts when the current one ends."))
            return None
        return self._start_judge_curve(background=False)

    def _judge_curve_blocker(self, tid: str) -> str | None:
        """Why the judge value curve cannot run on this run (None: it can).

        The curve is the judge's reading of a failed run: a run that failed (recorded, the
        analyst's word, or likely failed by the estimate) has one; any other run says why not.
        """
        row = self.session.run_row(tid)
        if row is None:
            return self.tr("The selected run is no longer loaded.")
        if not row.get("n_steps"):
            return self.tr("This run has no steps, so there is no value curve to compute.")
        outcome, source = row.get("outcome"), row.get("outcome_source")
        if outcome == "failure":
            return None
        if outcome == "success" and source == "estimate":
            return self.tr("The judge value curve reads failed runs. This run records no outcome and likely "
                           "passed ({p}); if it failed, mark it with Shift+F and start the curve again.").format(
                p=f"{1.0 - float(row.get('outcome_p_failed') or 0.0):.2f}")
        if outcome == "success":
            return self.tr("The judge value curve reads failed runs, and this run succeeded. If it failed, mark it "
                           "with Shift+F and start the curve again.")
        return self.tr("The judge value curve reads failed runs, and this run's outcome is unknown (nothing recorded, "
                       "no estimate). Mark it as failed with Shift+F to compute its curve.")

    def _maybe_judge_curve(self, *_a: Any) -> None:
        """Opening a failed run computes the judge's value curve in the background (when the setting allows it)."""
        tid = self.session.selection.trace_id
        use_judge, _model = current_choice()
        if not self.auto_jobs_enabled() or not tid or not use_judge or tid in self._judge_curve_done:
            return
        row = self.session.run_row(tid)
        if row is None or row.get("outcome") != "failure":
            return
        values = self.session.run_step_values(tid)
        if values.height and values["judge_value"].drop_nulls().len():
            return
        self._judge_curve_wanted = tid
        if not self.jobs.running("judge_curve"):
            self._start_judge_curve()

    def _start_judge_curve(self, background: bool = True) -> Job | None:
        tid, self._judge_curve_wanted = self._judge_curve_wanted, None
        if tid is None:
            return None
        try:
            resolve_analyze()
        except ImportError:
            return None
        self._judge_curve_done.add(tid)
        _use, model = current_choice()
        traces = self.session.effective_traces((tid,))  # the analyst's or estimated outcome counts
        steps = self.session.steps_for((tid,))
        job = AnalyzeJob(traces, steps, use_judge=True, judge_choice=model,
                         use_embedder=ui_settings.get_str(EMBEDDER_KEY, "1") == "1", judge_curve=True,
                         ranker=self.analysis_ranker()[0])
        job.kind = "judge_curve"
        job.background = background
        row = self.session.run_row(tid) or {}
        job.title = self.tr("Judge value curve of {run}").format(run=str(row.get("native_id") or tid)[:32])
        job.signals.partial.connect(lambda ra, j=job: self.persistence.save(ra, j.analysis_version))
        job.signals.notice.connect(self._judge_notice)
        job.signals.finished.connect(self._judge_curve_finished)
        job.signals.failed.connect(lambda msg, details: self.show_error(self.tr("The judge curve failed: {msg}").format(msg=msg), details))
        return self.jobs.start(job)

    def _judge_curve_finished(self, result: AnalysisResult) -> None:
        if result.runs.height and not result.cancelled:
            self.session.merge_analysis(result)
        if self._judge_curve_wanted is not None:
            QTimer.singleShot(0, self._start_judge_curve)

    def _judge_notice(self, text: str) -> None:
        self.message_bar.show_message(
            "warning", self.tr("The judge model could not be loaded, so the analysis runs without it: {reason}").format(reason=text),
            actions=[(self.tr("Choose judge…"), self.choose_judge)])

    def _on_run_analysed(self, ra: RunAnalysis) -> None:
        self._analysis_buffer.append(ra)
        self._analysis_seen += 1
        if not self._analysis_timer.isActive():
            self._analysis_timer.start()

    def _flush_analysis(self) -> None:
        if self._analysis_buffer:
            buf, self._analysis_buffer = self._analysis_buffer, []
            self.session.merge_analysis(AnalysisResult.from_runs(buf))

    def _analysed(self, result: AnalysisResult) -> None:
        self._analysis_timer.stop()
        self._analysis_buffer = []
        self.session.merge_analysis(result)
        n = result.runs.height
        if result.cancelled:
            self.message_bar.show_message("warning", self.tr("Analysis cancelled after {n} of {total} runs; their results are kept.").format(
                n=n, total=self._analysis_total))
        elif self._analysis_ranker:
            self.message_bar.show_message("success", self.tr("Analysed {n} runs (ranker: {ranker}).").format(
                n=n, ranker=self._analysis_ranker))
        else:
            self.message_bar.show_message("success", self.tr("Analysed {n} runs.").format(n=n))
        if result.errors:
            self.message_bar.show_message("warning", self.tr("{n} problems during the analysis (the other results are complete).").format(
                n=len(result.errors)), details="\n".join(result.errors))

    def refresh_stale(self) -> Job | None:
        """Analysis ▸ Refresh stale analysis: re-analyse only the runs with stale results."""
        ids = self.session.stale_runs()
        if not ids:
            self.message_bar.show_message("info", self.tr("No stale analysis results: every analysed run is current."))
            return None
        return self.analyze_runs(ids)

    def cancel_jobs(self) -> None:
        """Cancel every background job (they stop after the current file or run)."""
        self.jobs.cancel_all()  # the jobs indicator says "cancelling after the current item"

    def choose_judge(self) -> None:
        """Analysis ▸ Judge model."""
        from ui.dialogs.judge_dialog import JudgeDialog

        JudgeDialog(self).exec()

    # status -----------------------------------------------------------------------------------------------
    def _on_busy(self, busy: bool) -> None:
        self.act_cancel.setEnabled(busy)  # the jobs indicator shows and hides itself
        self._update_actions()

    def _update_counts(self) -> None:
        c = self.session.counts()
        self.count_runs.setText(self.tr("{n} runs").format(n=c.runs))
        if c.failed_estimated:
            self.count_failed.setText(self.tr("{n} failed ({k} likely)").format(n=c.failed, k=c.failed_estimated))
            self.count_failed.setToolTip(self.tr(
                "{k} of the failed runs record no outcome: their failure is estimated from the run (likely failed); "
                "Shift+F / Shift+S set an outcome").format(k=c.failed_estimated))
        else:
            self.count_failed.setText(self.tr("{n} failed").format(n=c.failed))
            self.count_failed.setToolTip(self.tr("{n} runs have no known outcome").format(n=c.unknown) if c.unknown else "")
        self.count_tagged.setText(self.tr("{n} tagged").format(n=c.tagged))
        self.count_problems.setText(self.tr("{n} load problems").format(n=c.load_problems))
        self.count_problems.setStyleSheet("color: #D64545; font-weight: bold;" if c.load_problems else "")
        self._update_actions()

    def _on_load_errors(self) -> None:
        self._update_counts()
        if self.session.load_errors and self.problems_dock.isHidden():
            self.show_load_problems()

    def show_load_problems(self) -> None:
        """Show the Load problems dock (with room for several rows)."""
        first = self.problems_dock.isHidden()
        self.problems_dock.show()
        self.problems_dock.raise_()
        if first and not self.problems_dock.isFloating():
            self.resizeDocks([self.problems_dock], [max(self.height() // 3, 240)], Qt.Orientation.Vertical)

    def enlarge_load_problems(self, big: bool = True) -> None:
        """Give the Load problems dock most of the window's height (``big``), or a third of it."""
        self.show_load_problems()
        if self.problems_dock.isFloating():
            return
        share = 0.7 if big else 1 / 3
        self.resizeDocks([self.problems_dock], [int(self.height() * share)], Qt.Orientation.Vertical)

    def _update_actions(self, *_a: Any) -> None:
        has_runs = self.session.traces.height > 0
        sel = self.session.selection
        analysing = bool(self.jobs.running("analyze"))
        self.act_analyze_sel.setEnabled(has_runs and bool(sel.trace_ids or sel.trace_id) and not analysing)
        self.act_analyze_all.setEnabled(has_runs and not analysing)
        self.act_refresh_stale.setEnabled(bool(self.session.stale) and not analysing)
        self.act_export_csv.setEnabled(has_runs)
        self.act_export_parquet.setEnabled(has_runs)
        self.act_judge_curve.setEnabled(bool(sel.trace_id))

    def show_error(self, text: str, details: str | None = None) -> None:
        """Show an error in the message bar (with "Copy details")."""
        self.message_bar.show_message("error", text, details=details)

    # misc actions ---------------------------------------------------------------------------------------------
    def open_contrast(self, trace_id: str) -> None:
        """Select a run and show it in the Contrast tab."""
        self.session.select(trace_id=trace_id, trace_ids=(trace_id,))
        self.show_tab("contrast")

    def go_to_decisive(self) -> None:
        """Select the decisive step of the current run."""
        tid = self.session.selection.trace_id
        row = self.session.run_row(tid) if tid else None
        if row and row.get("decisive_step") is not None:
            s = int(row["decisive_step"])
            self.session.select(step=s, steps=(s,), finding=None)

    def _focus_filter(self) -> None:
        self.runs_dock.show()
        self.runs_panel.filter_bar.search.setFocus()
        self.runs_panel.filter_bar.search.selectAll()

    def export_runs(self, fmt: str) -> None:
        """Export the runs the table shows (CSV or Parquet)."""
        ext = "csv" if fmt == "csv" else "parquet"
        path, _ = FileDialog.getSaveFileName(self, self.tr("Export runs"), f"runs.{ext}", f"*.{ext}")
        if path:
            self.export_runs_to(path, fmt)

    def export_runs_to(self, path: str, fmt: str) -> Path | None:
        """Write the shown runs to a file; errors go to the message bar."""
        frame = self.runs_panel.model.frame
        try:
            from analyzer.export.csv_export import write_csv, write_parquet

            out = write_csv(frame, path) if fmt == "csv" else write_parquet(frame, path)
        except Exception as exc:
            self.show_error(self.tr("Could not export: {err}").format(err=exc), repr(exc))
            return None
        self.message_bar.show_message("success", self.tr("Exported {n} runs to {path}.").format(n=frame.height, path=out))
        return Path(out)

    def open_settings(self) -> None:
        """File ▸ Settings."""
        from ui.dialogs.settings_dialog import LANGUAGE_KEY, THEME_KEY, SettingsDialog

        before = (ui_settings.get_str(LANGUAGE_KEY, "system"), ui_settings.get_str(THEME_KEY, "system"))
        if SettingsDialog(self).exec():
            after = (ui_settings.get_str(LANGUAGE_KEY, "system"), ui_settings.get_str(THEME_KEY, "system"))
            if after != before:
                self.settingsChanged.emit()

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """Rows of Help ▸ Keyboard shortcuts."""
        from ui.dialogs.shortcuts_dialog import shortcut_rows

        extra = [
            (self.tr("Enter / Shift+Enter"), self.tr("Next / previous match in the run search")),
            (self.tr("Click on a plot"), self.tr("Select the nearest step everywhere")),
            (self.tr("Shift/Ctrl+click"), self.tr("Select several runs or steps")),
            (self.tr("D / Shift+D (Contrast tab)"), self.tr("Next / previous difference from the success")),
        ]
        return shortcut_rows([a for a in self.actions() if isinstance(a, QAction)], extra)

    def show_shortcuts(self) -> None:
        """Help ▸ Keyboard shortcuts."""
        from ui.dialogs.shortcuts_dialog import ShortcutsDialog

        ShortcutsDialog(self.shortcut_rows(), self).exec()

    def show_about(self) -> None:
        """Help ▸ About."""
        QMessageBox.about(self, self.tr("About TrajScope"), self.tr(
            "<h3>TrajScope {version}</h3><p>Where and why did an LLM agent run fail?</p>"
            "<p>Works offline: traces, models and results never leave this computer.</p>"
            "<p>Apache-2.0 licence.</p>").format(version=__version__))

    # lifecycle ---------------------------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        self.jobs.cancel_all()
        # a cancelled job stops after its current step or judge call; loading a model cannot be
        # interrupted, so wait for it rather than tear Qt down under a running worker
        self.jobs.wait(120000)
        if self.persist:
            self.save_layout()
        self.bridge.disconnect_session()
        super().closeEvent(event)

