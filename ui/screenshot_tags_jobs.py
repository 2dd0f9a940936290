"""Screenshots of the tagging desk, the tag chips and the jobs indicator (called by :mod:`ui.screenshots`).

* ``tagging_desk.png``: the tagging desk after a short review session in a throw-away workspace
  (:func:`screenshot_tagging_desk`).

* ``tag_chips.png``: the transcript of a failed run after a short review in a temporary
  workspace: the analyst's categories and tags as chips on the step cards, the analyst's
  decisive mark next to the ranker's, a rejected suggestion.
* ``jobs_indicator.png``: the main window with two real jobs: the bundled judge's value curve
  of a long failed run (reporting each judged step and the time left) and an analysis the
  analyst started, waiting for the judge; the Jobs list is open. Both are cancelled afterwards.
  Needs the bundled judge; without it the shot is skipped with a note on stderr.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl

from ui.screenshot_runs import pick_run

SIZE = (1600, 1000)


@contextlib.contextmanager
def scratch_settings() -> Iterator[Path]:
    """Point the UI settings and the data folder (workspaces, settings.json) into a temporary folder.

    The shots open workspaces and use the default judge choice; the analyst's own settings and
    recent workspaces stay untouched. The cache folder (the reassembled judge model) is kept.
    """
    from PySide6.QtCore import QSettings

    from ui.settings import ui_settings

    before_ini = Path(ui_settings().fileName())
    before_data = os.environ.get("TRAJSCOPE_DATA_DIR")
    with tempfile.TemporaryDirectory() as tmp:
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(Path(tmp) / "qsettings"))
        os.environ["TRAJSCOPE_DATA_DIR"] = str(Path(tmp) / "data")
        try:
            yield Path(tmp)
        finally:
            QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(before_ini.parent.parent))
            if before_data is None:
                os.environ.pop("TRAJSCOPE_DATA_DIR", None)
            else:
                os.environ["TRAJSCOPE_DATA_DIR"] = before_data


def _settle(window: Any, ms: int = 300) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    window.bridge.flush()
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def _window(session: Any) -> Any:
    from ui.main_window import MainWindow

    window = MainWindow(session, persist=False)
    window.auto_judge_curves = False
    window.resize(*SIZE)
    window.show()
    window.bridge.flush()
    return window


def tag_chips_screenshot(target: Path, session: Any, trace_id: str) -> Path:
    """Review a few steps of ``trace_id`` in a temporary workspace and grab the transcript."""
    from ui.actions.tagging import set_analyst_name

    set_analyst_name("analyst")  # in the scratch settings: the shot does not show a login name
    window = _window(session)
    try:
        row = session.run_row(trace_id) or {}
        decisive = int(row["decisive_step"])
        n = int(row.get("n_steps") or 0)
        earlier = [s for s in range(max(0, decisive - 4), decisive) if s != decisive]
        with tempfile.TemporaryDirectory() as tmp:
            ctrl = window.tagging
            ctrl.open_workspace(Path(tmp) / "chips.trajscope")
            ctrl.set_category([(trace_id, decisive)], str(row.get("category") or "failed_recovery"))
            ctrl.add_tag([(trace_id, decisive)], "flaky-env")
            ctrl.add_tag([(trace_id, decisive)], "needs-second-look")
            ctrl.mark_decisive(trace_id, decisive)
            if earlier:
                ctrl.set_category([(trace_id, earlier[-1])], "evidence_action_gap")
                ctrl.add_tag([(trace_id, earlier[-1])], "root-cause?")
            if len(earlier) > 1:
                ctrl.reject([(trace_id, earlier[-2])])
            first = earlier[-2] if len(earlier) > 1 else max(0, decisive - 1)
            session.select(trace_ids=(trace_id,), trace_id=trace_id, step=decisive, steps=(decisive,))
            window.message_bar.clear()
            window.show_tab("run")
            _settle(window)
            t = window.transcript
            t.list.scrollTo(t.model.index(t.model.row_of(first)), t.list.ScrollHint.PositionAtTop)
            if n:
                _settle(window)
            window.message_bar.clear()
            _settle(window)
            if not window.run_area.grab().save(str(target)):
                raise SystemExit(f"could not write {target}")
    finally:
        window.close()
    return target


def jobs_indicator_screenshot(target: Path, session: Any, trace_id: str) -> Path | None:
    """Start two real jobs (the judge's curve of a long run, an analysis waiting for the judge) and grab them."""
    from PySide6.QtGui import QPainter

    from ui.dialogs.judge_dialog import bundled_judge_problem
    from ui.workers import resolve_judge

    problem = bundled_judge_problem()
    if problem:
        print(f"jobs_indicator.png skipped: {problem}", file=sys.stderr)
        return None
    resolve_judge(None)  # load the model first, so the shot shows the jobs at work, not the loading
    window = _window(session)
    try:
        session.select(trace_ids=(trace_id,), trace_id=trace_id)
        window.message_bar.clear()
        _settle(window)
        curve = window.judge_curve_current()  # the default choice: the bundled judge
        if curve is None:
            raise SystemExit("the judge value curve job did not start")
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:  # until a few steps are judged and the time left is known
            ev = curve.last_event
            if ev is not None and ev.phase == "judge_value_curve" and (ev.step or 0) >= 3 and ev.eta_seconds:
                break
            _settle(window, 200)
        others = session.filtered_runs().filter(pl.col("trace_id") != trace_id)["trace_id"].head(12).to_list()
        if not others:  # the shot shows other runs' analysis waiting behind the judge: it needs two runs
            print("jobs_indicator.png skipped: it needs at least two runs", file=sys.stderr)
            return None
        session.select(trace_ids=tuple(others), trace_id=others[0])
        window.analyze_selected()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "waiting" not in window.jobs_indicator.label.text():
            _settle(window, 200)
        session.select(trace_ids=(trace_id,), trace_id=trace_id)
        window.message_bar.clear()
        _settle(window)
        ind = window.jobs_indicator
        ind.toggle_list()
        _settle(window)
        shot = window.grab()
        popup = ind.jobs_list.grab()
        pos = window.mapFromGlobal(ind.jobs_list.pos())
        painter = QPainter(shot)
        painter.drawPixmap(pos, popup)
        painter.end()
        ind.jobs_list.hide()
        if not shot.save(str(target)):
            raise SystemExit(f"could not write {target}")
    finally:
        window.jobs.cancel_all()
        window.jobs.wait(120000)
        window.message_bar.clear()
        window.close()
    return target


def render_tags_and_jobs(out_dir: Path, paths: list[str]) -> list[Path]:
    """``tag_chips.png`` and ``jobs_indicator.png`` from the sample traces (cheap analysis)."""
    from analyzer.loading import load
    from analyzer.session import Session
    from ui.workers import resolve_analyze

    loaded = load(paths)
    analysis = resolve_analyze()(loaded.traces, loaded.steps)

    def fresh_session() -> Session:  # each shot its own session: a session keeps its workspace
        s = Session()
        s.add_load_result(loaded)
        s.merge_analysis(analysis)
        return s

    session = fresh_session()
    written: list[Path] = []
    tid = pick_run(session.runs_view())
    if tid is None:
        return written
    out_dir.mkdir(parents=True, exist_ok=True)
    with scratch_settings():
        written.append(tag_chips_screenshot(out_dir / "tag_chips.png", session, tid))
    failed = session.runs_view().filter((pl.col("outcome") == "failure") & (pl.col("n_steps").is_between(40, 400)))
    long_run = str(failed.sort("n_steps", descending=True)["trace_id"][0]) if failed.height else tid
    with scratch_settings():
        jobs = jobs_indicator_screenshot(out_dir / "jobs_indicator.png", fresh_session(), long_run)
    if jobs is not None:
        written.append(jobs)
    return written


DEMO_DECISIONS = "ARA2AADS1AARAAD3SA"
"""Review decisions the tagging-desk screenshot makes (A accept, R reject, D decisive, S skip, digits relabel)."""


def screenshot_tagging_desk(out: str | Path, paths: list[str], decisions: str = DEMO_DECISIONS,
                            size: tuple[int, int] = SIZE) -> Path:
    """Render the tagging desk after a short review session to a PNG (``make screenshots``).

    Loads ``paths``, runs the cheap analysis, reviews the first queue items with
    ``decisions`` in a throw-away workspace, and grabs the window (offscreen works).

    Args:
        out: PNG to write.
        paths: Trace files or folders.
        decisions: Review keys applied to the queue (see :meth:`TaggingDesk.apply_decisions`).
        size: Window size.

    Returns:
        The PNG path.
    """
    from PySide6.QtCore import QEventLoop, QTimer

    from analyzer.pipeline import analyze
    from analyzer.workspace import WorkspaceError
    from ui.actions.tagging import TaggingController
    from ui.app import AppController, create_application

    create_application()
    controller = AppController(persist=False)
    window = controller.build_window()
    target = Path(out)
    with tempfile.TemporaryDirectory() as tmp:
        ctrl: TaggingController = window.tagging
        if not ctrl.open_workspace(Path(tmp) / "screenshot.trajscope") or ctrl.workspace is None:
            raise WorkspaceError("cannot create the screenshot workspace")
        ctrl.workspace.author = "analyst"
        window.resize(*size)
        window.open_paths(paths, synchronous=True)
        window.session.merge_analysis(analyze(window.session.traces, window.session.steps))
        window.bridge.flush()
        window.show_tab("tagging")
        window.show()
        ctrl.desk.apply_decisions(decisions)
        window.message_bar.clear()
        window.bridge.flush()
        loop = QEventLoop()
        QTimer.singleShot(400, loop.quit)
        loop.exec()
        target.parent.mkdir(parents=True, exist_ok=True)
        if not window.grab().save(str(target)):
            raise OSError(f"could not write {target}")
        window.close()
        ctrl.workspace.close()
    return target
