"""Desktop UI benchmark (offscreen): the three figures of issue "Desktop app I".

Prints
* time to show a 5,000-step run (select it: transcript cards, plots, inspector, first paint),
  target < 0.5 s;
* time to sort and to filter a 100,000-run table (polars sort/filter + model reset),
  target < 0.2 s each;
* startup time of the app (new process to the first painted main window), target < 2 s.

Usage: ``QT_QPA_PLATFORM=offscreen python bench/ui_bench.py [--repeat 3]``
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analyzer.analysis.result import STEP_VALUE_COLUMNS, AnalysisResult  # noqa: E402
from analyzer.frames.build import frame_from_rows  # noqa: E402
from analyzer.frames.columns import STEP_COLUMNS, TRACE_COLUMNS  # noqa: E402
from analyzer.loading.loader import LoadResult  # noqa: E402

_WORDS = ("the", "file", "config", "error", "retry", "value", "column", "table", "request", "latency",
          "agent", "tool", "result", "check", "output", "parse", "python", "bash", "grep", "sort", "count",
          "failed", "passed", "import", "module", "test", "schema", "index", "line", "step", "answer")
_MODELS = ("gpt-4.1", "claude-sonnet-4", "gemini-2.5-pro", "qwen2.5-72b", "llama-3.1-70b", "o4-mini", "mistral-large",
           "deepseek-v3")


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def long_run(n_steps: int = 5000, seed: int = 1) -> tuple[LoadResult, AnalysisResult]:
    """One run with ``n_steps`` steps of mixed kinds and lengths, plus a value curve."""
    rng = random.Random(seed)
    tid = "long-run-5000"
    steps, values = [], []
    value = 0.9
    for i in range(n_steps):
        kind = ("thought", "tool_call", "observation")[i % 3]
        role = "tool" if kind == "observation" else "assistant"
        text = _text(rng, rng.choice((8, 30, 120, 600)))
        if kind == "observation" and rng.random() < 0.2:
            text = "\n".join(_text(rng, 12) for _ in range(rng.randint(10, 80)))
        err = kind == "observation" and rng.random() < 0.05
        steps.append({"trace_id": tid, "step": i, "agent": "agent", "role": role, "kind": kind, "text": text,
                      "tool_name": "bash" if kind == "tool_call" else None,
                      "tool_args": '{"cmd": "grep -n error app.log"}' if kind == "tool_call" else None,
                      "is_error": err, "error_text": "exit status 1" if err else None,
                      "tokens_in": rng.randint(200, 4000), "tokens_out": rng.randint(10, 400)})
        drop = 0.2 if rng.random() < 0.002 else rng.random() * 0.002
        value = max(0.0, value - drop)
        values.append({"trace_id": tid, "step": i, "agent": "agent", "kind": kind, "value": value, "drop": drop,
                       "value_estimator": "cheap"})
    trace = {"trace_id": tid, "task": "Fix the failing build", "model": "gpt-4.1", "outcome": "failure",
             "n_steps": n_steps, "n_errors": sum(1 for s in steps if s["is_error"]), "source_file": "bench.json"}
    res = LoadResult(traces=frame_from_rows([trace], TRACE_COLUMNS), steps=frame_from_rows(steps, STEP_COLUMNS))
    run = {"trace_id": tid, "decisive_step": 1234, "category": "failed_recovery", "confidence": 0.7,
           "top_steps": "1234,2000,40", "value_estimator": "cheap"}
    from analyzer.analysis.result import RUN_COLUMNS

    analysis = AnalysisResult(runs=frame_from_rows([run], RUN_COLUMNS),
                              step_values=frame_from_rows(values, STEP_VALUE_COLUMNS))
    return res, analysis


def many_runs(n: int = 100_000, steps_per_run: int = 3, seed: int = 2) -> LoadResult:
    """``n`` short runs (traces and steps frames built column-wise)."""
    rng = random.Random(seed)
    ids = [f"run-{i:06d}" for i in range(n)]
    traces = pl.DataFrame({
        "trace_id": ids,
        "task": [_text(rng, 12) for _ in range(n)],
        "model": [rng.choice(_MODELS) for _ in range(n)],
        "outcome": [rng.choice(("success", "failure", "failure", "unknown")) for _ in range(n)],
        "n_steps": [rng.randint(3, 400) for _ in range(n)],
        "source_file": ["bench.jsonl"] * n,
    })
    traces = traces.with_columns(pl.lit(None, dtype=c.dtype).alias(c.name) for c in TRACE_COLUMNS if c.name not in traces.columns)
    traces = traces.select([c.name for c in TRACE_COLUMNS])
    steps = pl.DataFrame({
        "trace_id": [t for t in ids for _ in range(steps_per_run)],
        "step": [i for _ in ids for i in range(steps_per_run)],
        "text": [_text(rng, 15) for _ in range(n * steps_per_run)],
    })
    steps = steps.with_columns(pl.lit(None, dtype=c.dtype).alias(c.name) for c in STEP_COLUMNS if c.name not in steps.columns)
    steps = steps.select([c.name for c in STEP_COLUMNS])
    return LoadResult(traces=traces, steps=steps)


SCROLL: dict[str, float] = {}


def _timed(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_long_run(repeat: int) -> float:
    from analyzer.session import Session
    from ui.app import create_application
    from ui.main_window import MainWindow

    create_application()
    session = Session()
    res, analysis = long_run()
    session.add_load_result(res)
    other = LoadResult(traces=res.traces.with_columns(pl.lit("short-run").alias("trace_id"), pl.lit(3).alias("n_steps")),
                       steps=res.steps.head(3).with_columns(pl.lit("short-run").alias("trace_id")))
    session.add_load_result(other)
    session.merge_analysis(analysis)
    w = MainWindow(session, persist=False)
    w.resize(1600, 1000)
    w.show()
    w.bridge.flush()

    def show(tid: str) -> None:
        session.select(trace_ids=(tid,), trace_id=tid)
        w.bridge.flush()
        w.transcript.list.doItemsLayout()
        w.grab()

    def once() -> None:
        show("short-run")
        t = time.perf_counter()
        show("long-run-5000")
        times.append(time.perf_counter() - t)

    times: list[float] = []
    for _ in range(repeat):
        once()
    # scrolling: median and 90th percentile of one wheel-sized scroll step with its repaint
    from PySide6.QtWidgets import QApplication

    lv = w.transcript.list
    bar = lv.verticalScrollBar()
    steps: list[float] = []
    for _ in range(200):
        t = time.perf_counter()
        bar.setValue(bar.value() + 120)
        lv.viewport().repaint()
        QApplication.processEvents()  # one scroll step = one event-loop turn (benchmark only)
        steps.append(time.perf_counter() - t)
    steps.sort()
    SCROLL.update(median=steps[len(steps) // 2], p90=steps[int(len(steps) * 0.9)])
    w.close()
    return statistics.median(times)


def bench_big_table(repeat: int) -> tuple[float, float, float]:
    from analyzer.session import RunFilter, Session
    from ui.app import create_application
    from ui.main_window import MainWindow

    create_application()
    session = Session()
    session.add_load_result(many_runs())
    w = MainWindow(session, persist=False)
    w.resize(1600, 1000)
    w.show()
    w.bridge.flush()
    panel = w.runs_panel
    state = {"desc": False}

    def sort() -> None:
        state["desc"] = not state["desc"]
        panel.sort_by("n_steps", descending=state["desc"])
        w.bridge.flush()
        panel.table.viewport().repaint()

    def flt(text: str, outcome: tuple[str, ...]) -> Callable[[], None]:
        def go() -> None:
            session.set_filter(RunFilter())
            w.bridge.flush()
            session.set_filter(RunFilter(text=text, outcomes=outcome))
            w.bridge.flush()
            panel.table.viewport().repaint()
        return go

    sort_t = _timed(sort, repeat)
    # measure only the filtering half: subtract a clear-filter pass
    def clear() -> None:
        session.set_filter(RunFilter(outcomes=("success",)))
        w.bridge.flush()
        session.set_filter(RunFilter())
        w.bridge.flush()
        panel.table.viewport().repaint()
    clear_t = _timed(clear, repeat) / 2
    outcome_t = max(0.0, _timed(flt("", ("failure",)), repeat) - clear_t)
    text_t = max(0.0, _timed(flt("latency retry", ()), repeat) - clear_t)
    w.close()
    return sort_t, outcome_t, text_t


_STARTUP = r"""
import time, sys
t0 = float(sys.argv[1])
from PySide6.QtCore import QTimer
from ui.app import create_application
from ui.main_window import MainWindow
app = create_application()
w = MainWindow(persist=False)
w.show()
def done():
    w.grab()
    print(f"SHOWN {time.time() - t0:.4f}", flush=True)
    app.quit()
QTimer.singleShot(0, done)
app.exec()
"""


def bench_startup(repeat: int) -> float:
    times = []
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    for _ in range(repeat):
        t0 = time.time()
        out = subprocess.run([sys.executable, "-c", _STARTUP, str(t0)], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=120)
        line = next((x for x in out.stdout.splitlines() if x.startswith("SHOWN")), None)
        if line is None:
            raise RuntimeError(f"startup probe failed: {out.stderr[-2000:]}")
        times.append(float(line.split()[1]))
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = []
    long_t = bench_long_run(args.repeat)
    rows.append(("show a 5,000-step run", long_t, 0.5))
    rows.append(("scroll that run: one step, median", SCROLL["median"], 1 / 60))
    rows.append(("scroll that run: one step, 90th percentile", SCROLL["p90"], 1 / 30))
    sort_t, outcome_t, text_t = bench_big_table(args.repeat)
    rows.append(("sort a 100,000-run table", sort_t, 0.2))
    rows.append(("filter 100,000 runs by outcome", outcome_t, 0.2))
    rows.append(("filter 100,000 runs by text (task + 300,000 steps)", text_t, 0.2))
    start_t = bench_startup(args.repeat)
    rows.append(("startup to first painted window", start_t, 2.0))
    print(f"{'measure':52s} {'seconds':>8s} {'target':>7s} {'ratio':>6s}")
    for name, t, target in rows:
        print(f"{name:52s} {t:8.3f} {target:7.3f} {t / target:6.2f}{'  OK' if t <= target else '  SLOW'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
