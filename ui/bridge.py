"""Adapts the Qt-free :class:`analyzer.session.Session` signals to Qt signals.

Session (psygnal) signals may fire in bursts (a folder of files loading, per-run analysis
results arriving); the bridge coalesces each kind with a single-shot QTimer and re-emits it
on the GUI thread, so views redraw once per burst. Emissions from other threads are queued
to the GUI thread first.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from analyzer.session import Selection, Session
from ui.qt_compat import ensure_qt_runtime

ensure_qt_runtime()

DATA_DELAY_MS = 60
"""Coalescing window for data changes (tables fill while files load)."""

SELECTION_DELAY_MS = 0
"""Selection changes go out at the next event-loop turn (bursts collapse to the last)."""


class SessionBridge(QObject):
    """Qt face of a Session.

    Signals:
        tracesChanged: Runs were added or removed.
        loadErrorsChanged: The list of load problems changed.
        analysisChanged: Analysis results changed.
        annotationsChanged: Analyst annotations changed.
        runsChanged: Anything that changes the runs table (traces, analysis, annotations, filter).
        selectionChanged(Selection): The shared selection changed (the latest one).
        filterChanged: The run filter changed.
    """

    tracesChanged = Signal()
    loadErrorsChanged = Signal()
    analysisChanged = Signal()
    annotationsChanged = Signal()
    runsChanged = Signal()
    selectionChanged = Signal(object)
    filterChanged = Signal()

    _poke = Signal(str)

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._pending: set[str] = set()
        self._data_timer = QTimer(self)
        self._data_timer.setSingleShot(True)
        self._data_timer.setInterval(DATA_DELAY_MS)
        self._data_timer.timeout.connect(self._flush_data)
        self._sel_timer = QTimer(self)
        self._sel_timer.setSingleShot(True)
        self._sel_timer.setInterval(SELECTION_DELAY_MS)
        self._sel_timer.timeout.connect(self._flush_selection)
        self._poke.connect(self._on_poke)  # auto connection: queued when emitted off-thread
        session.traces_changed.connect(self._traces)
        session.load_errors_changed.connect(self._load_errors)
        session.analysis_changed.connect(self._analysis)
        session.annotations_changed.connect(self._annotations)
        session.filter_changed.connect(self._filter)
        session.selection_changed.connect(self._selection)

    def disconnect_session(self) -> None:
        """Stop listening to the session (before the bridge is deleted)."""
        s = self.session
        for sig, slot in ((s.traces_changed, self._traces), (s.load_errors_changed, self._load_errors),
                          (s.analysis_changed, self._analysis), (s.annotations_changed, self._annotations),
                          (s.filter_changed, self._filter), (s.selection_changed, self._selection)):
            sig.disconnect(slot)

    # psygnal callbacks (any thread) -------------------------------------------
    def _traces(self) -> None:
        self._poke.emit("traces")

    def _load_errors(self) -> None:
        self._poke.emit("load_errors")

    def _analysis(self) -> None:
        self._poke.emit("analysis")

    def _annotations(self) -> None:
        self._poke.emit("annotations")

    def _filter(self) -> None:
        self._poke.emit("filter")

    def _selection(self, _sel: Selection) -> None:
        self._poke.emit("selection")

    # GUI thread ---------------------------------------------------------------
    @Slot(str)
    def _on_poke(self, kind: str) -> None:
        if kind == "selection":
            if not self._sel_timer.isActive():
                self._sel_timer.start()
            return
        self._pending.add(kind)
        if not self._data_timer.isActive():
            self._data_timer.start()

    def flush(self) -> None:
        """Deliver pending notifications now (used before screenshots and in tests)."""
        if self._data_timer.isActive():
            self._data_timer.stop()
            self._flush_data()
        if self._sel_timer.isActive():
            self._sel_timer.stop()
            self._flush_selection()

    @Slot()
    def _flush_data(self) -> None:
        pending, self._pending = self._pending, set()
        if "traces" in pending:
            self.tracesChanged.emit()
        if "load_errors" in pending:
            self.loadErrorsChanged.emit()
        if "analysis" in pending:
            self.analysisChanged.emit()
        if "annotations" in pending:
            self.annotationsChanged.emit()
        if "filter" in pending:
            self.filterChanged.emit()
        if pending & {"traces", "analysis", "annotations", "filter"}:
            self.runsChanged.emit()

    @Slot()
    def _flush_selection(self) -> None:
        self.selectionChanged.emit(self.session.selection)
