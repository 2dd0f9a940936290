"""Application start-up: QApplication, theme, translations, error hook, main window.

``run_app(args)`` is what ``trajscope open`` calls. With ``--screenshot FILE.png`` it loads
the paths synchronously, runs the cheap analysis (no judge) when the analysis engine is
installed, selects ``--select RUN`` (or the first failed run) at its decisive step, shows the
requested tab, writes the PNG and exits; this works with ``QT_QPA_PLATFORM=offscreen``.
Heavy models load lazily, on the first analysis that needs them.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from analyzer.session import Session
from ui import settings as ui_settings
from ui.gui_gc import install_gui_thread_gc
from ui.i18n import install_language, resolve_language
from ui.qt_compat import ensure_qt_runtime
from ui.theme import apply_theme

ensure_qt_runtime()

SCREENSHOT_SIZE = (1600, 1000)
SCREENSHOT_DELAY_MS = 350


def create_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication (created once), with style, palette and translations applied."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        QCoreApplication.setOrganizationName(ui_settings.ORGANIZATION)
        QCoreApplication.setApplicationName(ui_settings.APPLICATION)
        app = QApplication(argv or [sys.argv[0] if sys.argv else "trajscope"])
    app.setApplicationDisplayName("TrajScope")
    install_gui_thread_gc(app)  # a worker thread must never run Qt destructors (ui/gui_gc.py)
    apply_theme(app, ui_settings.get_str("ui/theme", "system"))
    install_language(resolve_language(ui_settings.get_str("ui/language", "system")))
    return app


class AppController(QObject):
    """Owns the session and the main window; rebuilds the window when language or theme change."""

    def __init__(self, session: Session | None = None, persist: bool = True) -> None:
        super().__init__()
        self.session = session or Session()
        self.persist = persist
        self.window: Any = None
        self.workspace_path: Path | None = None
        self._previous_hook = sys.excepthook
        hints = QGuiApplication.styleHints()
        changed = getattr(hints, "colorSchemeChanged", None)
        if changed is not None:
            changed.connect(self._color_scheme_changed)

    def _color_scheme_changed(self, *_a: Any) -> None:
        """The system switched light/dark: follow it unless the analyst fixed a theme."""
        if ui_settings.get_str("ui/theme", "system") == "system" and self.window is not None:
            self.apply_settings()

    def build_window(self) -> Any:
        """Create (or re-create) the main window for the session."""
        from ui.main_window import MainWindow

        old = self.window
        if old is not None:
            old.save_layout() if self.persist else None
        window = MainWindow(self.session, persist=self.persist)
        window.workspace_path = self.workspace_path
        window.settingsChanged.connect(self.apply_settings)
        self.window = window
        if old is not None:
            window.restore_layout() if self.persist else window.resize(old.size())
            window.show()
            old.persist = False
            old.close()
            old.deleteLater()
        return window

    def apply_settings(self) -> None:
        """Apply language and theme from the settings, then rebuild the window."""
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, ui_settings.get_str("ui/theme", "system"))
        install_language(resolve_language(ui_settings.get_str("ui/language", "system")))
        QTimer.singleShot(0, self.build_window)

    # errors ------------------------------------------------------------------------------------------
    def install_excepthook(self) -> None:
        """Show uncaught exceptions in the window (with "Copy details") instead of crashing."""
        sys.excepthook = self.excepthook

    def uninstall_excepthook(self) -> None:
        """Restore the previous hook."""
        sys.excepthook = self._previous_hook

    def excepthook(self, etype: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        details = "".join(traceback.format_exception(etype, value, tb))
        sys.stderr.write(details)
        if issubclass(etype, KeyboardInterrupt):
            QApplication.quit()
            return
        w = self.window
        if w is not None:
            with contextlib.suppress(RuntimeError):
                w.show_error(QCoreApplication.translate("App", "Something went wrong: {err}. Your data is safe; "
                                                               "you can copy the details for a bug report.").format(
                    err=f"{etype.__name__}: {value}"), details)


def _screenshot(controller: AppController, args: argparse.Namespace) -> int:
    window = controller.window
    window.auto_judge_curves = False  # a screenshot exits at once: no background judge work
    window.resize(*SCREENSHOT_SIZE)
    paths = [str(p) for p in (args.paths or [])]
    if paths:
        window.open_paths(paths, synchronous=True)
    session = controller.session
    if session.traces.height:
        try:
            from ui.workers import resolve_analyze

            analyze = resolve_analyze()
        except ImportError as exc:
            sys.stderr.write(f"trajscope: analysis engine not available, screenshot shows loaded data only ({exc})\n")
        else:
            try:
                session.merge_analysis(analyze(session.traces, session.steps))
            except Exception as exc:  # the screenshot still shows the loaded runs
                sys.stderr.write(f"trajscope: analysis failed, screenshot shows loaded data only ({exc})\n")
    tid = args.select
    if tid:
        match = [t for t in session.traces["trace_id"].to_list() if t == tid or t.startswith(tid)
                 or (session.run_row(t) and str((session.run_row(t) or {}).get("native_id") or "") == tid)]
        if not match:
            sys.stderr.write(f"trajscope: no run {tid!r}; showing the first failed run\n")
            tid = None
        else:
            tid = match[0]
    if tid is None and session.traces.height:
        window.select_default_run()
        tid = session.selection.trace_id
    if tid is not None:
        row = session.run_row(tid) or {}
        step = row.get("decisive_step")
        step = int(step) if step is not None else None
        session.select(trace_ids=(tid,), trace_id=tid, step=step, steps=(step,) if step is not None else ())
    tab = args.tab or "run"
    if not window.show_tab(tab):
        sys.stderr.write(f"trajscope: no tab {tab!r} (have: {', '.join(window.tab_names())})\n")
        return 2
    window.message_bar.clear()
    window.show()
    result = {"code": 1}

    def grab() -> None:
        window.bridge.flush()
        target = Path(args.screenshot)
        target.parent.mkdir(parents=True, exist_ok=True)
        ok = window.grab().save(str(target))
        result["code"] = 0 if ok else 1
        if not ok:
            sys.stderr.write(f"trajscope: could not write {target}\n")
        window.close()
        QApplication.quit()

    QTimer.singleShot(SCREENSHOT_DELAY_MS, grab)
    QApplication.exec()
    return result["code"]


def run_app(args: argparse.Namespace) -> int:
    """Start the desktop app (``trajscope open``); returns the exit code."""
    app = create_application()
    screenshot = getattr(args, "screenshot", None)
    controller = AppController(persist=not screenshot)
    controller.workspace_path = getattr(args, "workspace", None)
    controller.install_excepthook()
    window = controller.build_window()
    try:
        if screenshot:
            return _screenshot(controller, args)
        window.show()
        paths = [str(p) for p in (getattr(args, "paths", None) or [])]
        if paths:
            QTimer.singleShot(0, lambda: window.open_paths(paths))
        return int(app.exec())
    finally:
        controller.uninstall_excepthook()
        _destroy_window(window)


def _destroy_window(window: Any) -> None:
    """Delete the main window while Python is still fully alive.

    Left to interpreter shutdown, PySide deletes the widget tree from an ``atexit`` hook, when
    pyqtgraph's Python overrides can no longer run; a layout event then crashes shiboken while
    it reports the failed override (seen as an intermittent exit code -11 after a screenshot).
    """
    from shiboken6 import Shiboken

    if Shiboken.isValid(window):
        window.hide()
        Shiboken.delete(window)
