"""Keeps analysis results in the open workspace and shows them again when it is reopened.

:class:`AnalysisPersistence` connects a main window to :mod:`analyzer.workspace.results`:

- each run's result is written as it arrives (one transaction per run), under the version of
  the analysis that made it (:attr:`ui.workers.AnalyzeJob.analysis_version`);
- when a workspace opens, and whenever runs are loaded, the stored results of those runs are
  read back at once; rows made by another analysis version than the current settings would
  give are shown marked "stale" (``Session.stale``) until Analysis ▸ Refresh stale analysis.

A storage fault (read-only workspace, full disk) is shown once in the message bar; the
analysis itself goes on.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from analyzer.analysis.result import RunAnalysis
from analyzer.workspace import Workspace, WorkspaceError
from analyzer.workspace.aliases import model_aliases
from analyzer.workspace.results import load_results, save_run, step_counts
from ui.workers import expected_analysis_version


def window_workspace(window: Any) -> Workspace | None:
    """The open workspace of a main window (None when there is none)."""
    ws = getattr(getattr(window, "tagging", None), "workspace", None)
    return ws if isinstance(ws, Workspace) else None


def window_aliases(window: Any) -> dict[str, str]:
    """The model alias table of a main window's workspace ({} without one or on a read error)."""
    ws = window_workspace(window)
    if ws is None:
        return {}
    try:
        return model_aliases(ws)
    except WorkspaceError:
        return {}


class AnalysisPersistence(QObject):
    """Stores and restores a window's analysis results in its workspace.

    Signals:
        restored(int): Results of that many runs were read from the workspace.
    """

    restored = Signal(int)

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.session = window.session
        self._looked_up: set[str] = set()
        self._version_key: tuple[bool, str | None] | None = None
        self._version: str | None = None
        self._warned = False
        window.bridge.tracesChanged.connect(self.restore)
        tagging = getattr(window, "tagging", None)
        if tagging is not None:
            tagging.workspaceChanged.connect(self._on_workspace)

    def workspace(self) -> Workspace | None:
        """The window's open workspace (None until one is open)."""
        return window_workspace(self.window)

    def current_version(self) -> str:
        """The analysis version the current judge settings give (cached per setting)."""
        from ui.dialogs.judge_dialog import current_choice

        key = current_choice()
        if key != self._version_key or self._version is None:
            self._version_key, self._version = key, expected_analysis_version(*key)
        return self._version

    def _on_workspace(self, *_a: Any) -> None:
        self._looked_up = set()
        self.restore()

    def restore(self) -> int:
        """Show the stored results of loaded runs not looked up yet (and not analysed in this session).

        Returns:
            Runs whose results were read.
        """
        ws = self.workspace()
        if ws is None or self.session.traces.height == 0:
            return 0
        have = set(self.session.analysis.runs["trace_id"].to_list())
        ids = [t for t in self.session.traces["trace_id"].to_list() if t not in self._looked_up and t not in have]
        if not ids:
            return 0
        self._looked_up.update(ids)
        try:
            stored = load_results(ws, self.current_version(), ids, step_counts(self.session.traces))
        except WorkspaceError as exc:
            self._warn(exc)
            return 0
        if stored.versions:
            self.session.merge_analysis(stored.result, stale=stored.stale)
            self.restored.emit(len(stored.versions))
        return len(stored.versions)

    def save(self, ra: RunAnalysis, version: str | None) -> bool:
        """Store one run's result (one transaction); False when there is no writable workspace."""
        ws = self.workspace()
        if ws is None or ws.read_only or not version:
            return False
        try:
            save_run(ws, ra, version)
        except WorkspaceError as exc:
            self._warn(exc)
            return False
        self._looked_up.add(str(ra.run["trace_id"]))
        return True

    def _warn(self, exc: WorkspaceError) -> None:
        if self._warned:
            return
        self._warned = True
        self.window.show_error(self.tr("Analysis results cannot be kept in the workspace: {err}").format(
            err=exc.reason if hasattr(exc, "reason") else exc), repr(exc))
