"""Garbage cycles are collected on the GUI thread only (ui/gui_gc.py): a worker never runs Qt destructors."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_the_app_collects_on_the_gui_thread_and_never_in_a_worker(app, qtbot) -> None:  # type: ignore[no-untyped-def]
    from ui.gui_gc import GuiThreadGC

    assert not gc.isenabled()
    assert len(app.findChildren(GuiThreadGC)) == 1
    threads: list[str] = []

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            threads.append(threading.current_thread().name)

    gc.callbacks.append(record)
    try:
        node = _Node()
        ref = weakref.ref(node)
        del node

        def churn() -> None:  # far more container allocations than every generation's threshold
            keep = [[i] for i in range(200_000)]
            del keep

        worker = threading.Thread(target=churn, name="worker")
        worker.start()
        worker.join()
        assert "worker" not in threads and ref() is not None  # nothing was collected in the worker
        alive: list[list[list[int]]] = []

        def collected() -> bool:  # keep allocating (net of what other code frees) until generation 0 is due
            alive.append([[i] for i in range(gc.get_threshold()[0])])
            return ref() is None

        qtbot.waitUntil(collected, timeout=20_000)  # the GUI thread's timer collected it
        alive.clear()
        assert threads and set(threads) == {threading.main_thread().name}
    finally:
        gc.callbacks.remove(record)


def test_installing_twice_keeps_one_collector(app) -> None:  # type: ignore[no-untyped-def]
    from ui.gui_gc import GuiThreadGC, install_gui_thread_gc

    gc.enable()
    assert install_gui_thread_gc(app) is install_gui_thread_gc(app)
    assert len(app.findChildren(GuiThreadGC)) == 1 and not gc.isenabled()
