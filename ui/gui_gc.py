"""Python's cyclic garbage collection, run on the GUI thread only.

Python runs its cyclic collector in whichever thread happens to allocate when a generation
is full. When that is a worker thread (an export, a load, an analysis job) and the garbage
holds Qt objects (a closed window's menus), their C++ destructors run in that worker thread:
they take Qt's object mutexes and then need the GIL to look up Python overrides, while the
GUI thread, holding the GIL, waits on the same mutexes to delete its own objects. Both
threads wait forever (seen as a hung export in the UI test suite: py-spy showed
``gc_collect_main`` under ``Job.run`` in ``~QMenu`` waiting for the GIL, and the GUI thread in
``runDeletionInMainThread`` waiting on a ``QBasicMutex``).

So the app turns automatic collection off and collects from a timer on the GUI thread,
generation by generation, with Python's own thresholds (the same scheme as pyqtgraph's
``GarbageCollector``). Reference counting still frees everything that is not in a cycle at
once; cycles wait at most one timer interval.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 500
"""How often the GUI thread checks whether a generation is due (a latency bound, not a tunable of any figure)."""


class GuiThreadGC(QObject):
    """Collects garbage cycles on the thread it lives on (the GUI thread)."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.check)
        gc.disable()
        self.timer.start()

    def check(self) -> int:
        """Collect each generation that is over its threshold (young first); objects collected."""
        found = 0
        l0, l1, l2 = gc.get_count()
        if l0 > self.threshold[0]:
            found += gc.collect(0)
            if l1 > self.threshold[1]:
                found += gc.collect(1)
                if l2 > self.threshold[2]:
                    found += gc.collect(2)
        return found


def install_gui_thread_gc(app: QCoreApplication) -> GuiThreadGC:
    """Turn automatic collection off and collect on ``app``'s thread from now on (idempotent).

    Call it from the GUI thread. Returns the collector (a child of ``app``).
    """
    existing = app.findChild(GuiThreadGC)
    if isinstance(existing, GuiThreadGC):
        gc.disable()  # someone may have turned it back on (tests that need automatic collection)
        return existing
    return GuiThreadGC(app)
