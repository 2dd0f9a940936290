"""Guards against known defects of the Qt binding in use.

PySide6 6.12.0's abi3 wheels, on CPython older than 3.12, return ``None`` from void methods
(and ``True``/``False`` from some bool-returning ones, e.g. ``Signal.emit``) without taking a
reference. Every such call lowers the reference count of the singleton by one, and after a few
tens of thousands of calls (clicking through ~30 runs) the interpreter aborts with
"Fatal Python error: none_dealloc". CPython 3.12+ makes these singletons immortal, which is
why the wheel works there.

:func:`ensure_qt_runtime` detects the defect with a cheap probe and, only when it is present,
gives the three singletons an effectively infinite reference count, as CPython 3.12 does.
The proper fix is a PySide6 without the defect (6.11.x is fine); the probe then finds nothing
and this module does nothing.
"""

from __future__ import annotations

import ctypes
import sys

_IMMORTAL_BOOST = 1 << 40
_state: dict[str, bool] = {}


def singleton_drain() -> int:
    """How many references to ``None`` 64 void PySide6 calls lose (0 on a healthy binding)."""
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(64):
        probe.setObjectName("probe")
    return max(0, before - sys.getrefcount(None))


def ensure_qt_runtime() -> bool:
    """Apply the guard once if the binding has the defect; returns True when it was needed."""
    if "checked" in _state:
        return _state["needed"]
    needed = False
    if sys.implementation.name == "cpython" and sys.version_info < (3, 12) and singleton_drain() >= 32:
        for obj in (None, True, False):
            ref = ctypes.c_ssize_t.from_address(id(obj))
            ref.value += _IMMORTAL_BOOST
        needed = True
    _state["checked"] = True
    _state["needed"] = needed
    return needed
