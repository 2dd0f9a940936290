"""Fixtures for the desktop UI tests (pytest-qt, offscreen).

QSettings and every TrajScope data/cache folder point into ``tmp_path``; the language is
English unless a test switches it.
"""

from __future__ import annotations

import gc
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(autouse=True)
def gui_thread_gc(qapp: QApplication) -> Iterator[None]:
    """Collect garbage cycles on the GUI thread only, as the app does (``ui/gui_gc.py``).

    A cycle collected by a job's worker thread would run Qt destructors there and can deadlock
    with the GUI thread. After each test the windows it left are collected here, on the GUI thread.
    """
    from ui.gui_gc import install_gui_thread_gc

    install_gui_thread_gc(qapp)
    yield
    QApplication.processEvents()
    gc.collect()


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point QSettings and the analyzer's folders into tmp_path; English UI."""
    qs = tmp_path / "qsettings"
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(qs))
    monkeypatch.setenv("TRAJSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TRAJSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    from ui import settings as ui_settings

    ui_settings.set_str("ui/language", "en")
    ui_settings.set_str("ui/theme", "light")
    # the app's default is the bundled judge when installed; UI tests run the cheap analysis
    # unless they choose a judge (tests/ui/test_judge_default.py checks the default itself)
    ui_settings.set_str("analysis/use_judge", "0")
    yield qs
    _release_modifiers()


def _release_modifiers() -> None:
    """Forget modifier keys a test left "held".

    Qt keeps the modifiers of the last key event: after a test clicks Shift+Enter, every later
    ``selectRow`` in an extended-selection view extends the selection instead of replacing it.
    """
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QWidget

    if QGuiApplication.instance() is None or QGuiApplication.keyboardModifiers() == Qt.KeyboardModifier.NoModifier:
        return
    w = QWidget()
    w.show()
    QTest.keyClick(w, Qt.Key.Key_Escape)
    w.close()
    w.deleteLater()


@pytest.fixture
def app(qapp: QApplication) -> QApplication:
    """The QApplication with TrajScope's theme and (English) translations."""
    from ui.app import create_application
    from ui.i18n import install_language

    a = create_application()
    install_language("en")
    return a


@pytest.fixture
def window(qtbot, app):  # type: ignore[no-untyped-def]
    """An empty main window (layout not persisted)."""
    from analyzer.session import Session
    from ui.main_window import MainWindow

    w = MainWindow(Session(), persist=False)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    yield w
    w.jobs.cancel_all()
    w.jobs.wait(30000)


@pytest.fixture(scope="session")
def sample_load():  # type: ignore[no-untyped-def]
    """The sample traces, loaded once."""
    from analyzer.loading import load

    return load([SAMPLES])


@pytest.fixture(scope="session")
def sample_analysis(sample_load):  # type: ignore[no-untyped-def]
    """The real cheap analysis (no judge, no embedder) of the sample traces, computed once."""
    from analyzer.pipeline import analyze

    return analyze(sample_load.traces, sample_load.steps)


@pytest.fixture
def loaded(window, sample_load, qtbot):  # type: ignore[no-untyped-def]
    """The window with the sample traces loaded (no analysis)."""
    window.session.add_load_result(sample_load)
    window.bridge.flush()
    return window


@pytest.fixture
def analysed(loaded, sample_analysis):  # type: ignore[no-untyped-def]
    """The window with the sample traces loaded and analysed."""
    loaded.session.merge_analysis(sample_analysis)
    loaded.bridge.flush()
    return loaded


@pytest.fixture
def failed_id(analysed) -> str:  # type: ignore[no-untyped-def]
    """Id of an analysed failed run with a decisive step and findings when possible."""
    import polars as pl

    session = analysed.session
    view = session.runs_view().filter((pl.col("outcome") == "failure") & pl.col("decisive_step").is_not_null()
                                      & (pl.col("n_steps") > 5))
    with_findings = view.filter(pl.col("n_findings") > 0)
    pick = with_findings if with_findings.height else view
    assert pick.height, "the sample traces need at least one analysed failed run"
    return str(pick["trace_id"][0])
