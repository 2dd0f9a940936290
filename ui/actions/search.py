"""Searches of the main window: the runs search highlights in the transcript; Navigate ▸ Search all runs.

``install_search(main_window)`` (called at the end of the window's construction):

- makes the transcript follow the runs table's search field (every match of the open run is
  highlighted; Enter / Shift+Enter in that field step through the matches);
- adds Navigate ▸ Search all runs… (``Ctrl+Shift+F``), a list of every hit (run, step, snippet);
  clicking a hit opens that run at that step.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

from ui.views.search_all import SearchAllDialog


class SearchController(QObject):
    """Owns the search-all action and dialog of one main window."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.dialog: SearchAllDialog | None = None
        window.transcript.follow_runs_search(window.runs_panel.filter_bar.search)
        self.action = QAction(self.tr("Search &all runs…"), window)
        self.action.setObjectName("actSearchAll")
        self.action.setShortcut(QKeySequence("Ctrl+Shift+F"))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        tip = self.tr("List every place a text occurs in any run (run, step, snippet)")
        self.action.setToolTip(tip)
        self.action.setStatusTip(tip)
        self.action.triggered.connect(lambda *_a: self.show_dialog())
        window.addAction(self.action)
        menu = window.navigate_menu
        after = getattr(window, "act_filter", None)
        acts = menu.actions()
        i = acts.index(after) + 1 if after in acts else len(acts)
        menu.insertAction(acts[i] if i < len(acts) else None, self.action)

    def show_dialog(self, text: str | None = None) -> SearchAllDialog:
        """Open (or raise) the search dialog, starting from ``text`` or the runs search field."""
        if self.dialog is None:
            self.dialog = SearchAllDialog(self.window.session, self.open_hit, self.window)
        start = text if text is not None else self.window.runs_panel.filter_bar.search.text()
        if start.strip() or not self.dialog.query.text():
            self.dialog.search(start)
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        self.dialog.query.setFocus()
        return self.dialog

    def open_hit(self, trace_id: str, step: int | None, needle: str) -> None:
        """Show a run at a step in the run view, with ``needle`` highlighted."""
        w = self.window
        w.show_tab("run")
        w.transcript.search.setText(needle)
        w.session.select(trace_ids=(trace_id,), trace_id=trace_id, step=step,
                         steps=(step,) if step is not None else (), finding=None)
        w.bridge.flush()
        w.transcript._run_search()  # highlight now, not after the debounce


def install_search(window: Any) -> SearchController:
    """Add the searches to a main window (kept as ``window.search_controller``)."""
    window.search_controller = SearchController(window)
    return window.search_controller
