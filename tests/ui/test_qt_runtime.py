"""The Qt binding guard: thousands of void Qt calls never exhaust the None/True/False singletons."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    fired = Signal()


def test_void_calls_do_not_exhaust_singletons(app):
    from ui.qt_compat import ensure_qt_runtime

    ensure_qt_runtime()
    obj = _Emitter()
    obj.fired.connect(lambda: None)
    before = [sys.getrefcount(x) for x in (None, True, False)]
    for _ in range(20_000):
        obj.setObjectName("x")
        obj.fired.emit()
    after = [sys.getrefcount(x) for x in (None, True, False)]
    # either the binding is healthy (no change) or the guard made the singletons immortal
    for b, a in zip(before, after, strict=True):
        assert a > 10_000 or a >= b - 100
