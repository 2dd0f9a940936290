"""Paired comparison of two models in the Compare tab, and two runs side by side.

Select two models in the comparison table: :class:`PairedView` shows wins/losses/ties on the
tasks both attempted, the exact McNemar p-value, a bootstrap interval of the pass-rate
difference, and every task where exactly one of them passed. Clicking such a task opens both
runs side by side (:class:`SideBySideDialog`) and selects them in the runs table. The numbers
come from :func:`analyzer.metrics.paired_comparison`; this view only shows them.
"""

from __future__ import annotations

import html
from typing import Any

import polars as pl
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from analyzer.metrics.paired import PairedComparison, paired_comparison
from analyzer.session import Session
from ui.i18n.labels import category_title, kind_label, outcome_label
from ui.theme import CATEGORY_COLORS, DECISIVE, OUTCOME_COLORS

STEP_CHARS = 1200
"""Characters of each step shown in the side-by-side view (the transcript shows all)."""

RUN_ROLE = Qt.ItemDataRole.UserRole + 1


def _e(v: Any) -> str:
    return html.escape("" if v is None else str(v))


class PairedView(QWidget):
    """Wins, losses, ties, McNemar p, bootstrap CI and the differing tasks of two models."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: PairedComparison | None = None
        self.dialog: SideBySideDialog | None = None
        self.summary = QLabel(self)
        self.summary.setObjectName("pairedSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.table = QTableWidget(self)
        self.table.setObjectName("pairedTasks")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setColumnCount(2)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setMinimumWidth(360)
        self.table.setToolTip(self.tr("Click a task to open both runs side by side"))
        self.table.cellClicked.connect(lambda r, _c: self.open_row(r))
        self.table.cellActivated.connect(lambda r, _c: self.open_row(r))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 0, 0, 0)
        lay.setSpacing(4)
        lay.addWidget(self.summary)
        lay.addWidget(self.table, 1)
        self.clear()

    def clear(self, text: str | None = None) -> None:
        """Show the hint (or a message) instead of a comparison."""
        self.result = None
        self.summary.setText(_e(text or self.tr("Select two models in the table (Ctrl+click) to compare them "
                                                 "task by task.")))
        self.table.setRowCount(0)
        self.table.hide()

    def compare(self, model_a: str, model_b: str, traces: pl.DataFrame,
                aliases: dict[str, str] | None = None) -> PairedComparison | None:
        """Compare two model groups on the given runs and show the result."""
        try:
            pc = paired_comparison(traces, model_a, model_b, aliases=aliases)
        except ValueError as exc:
            self.clear(str(exc))
            return None
        self.result = pc
        self.summary.setText(self._summary_html(pc))
        self._fill(pc)
        return pc

    def _summary_html(self, pc: PairedComparison) -> str:
        a, b = _e(pc.model_a), _e(pc.model_b)
        key = self.tr("task id") if pc.key == "native_id" else self.tr("task text")
        head = self.tr("<b>{a}</b> vs <b>{b}</b> on {n} shared tasks (matched by {key})").format(
            a=a, b=b, n=pc.shared, key=_e(key))
        if pc.shared == 0:
            return head + "<br>" + _e(self.tr("No task was attempted by both models with a known outcome."))
        wlt = self.tr("Wins {w} · losses {l} · ties {t} (both passed {both}, both failed {neither})").format(
            w=pc.wins, l=pc.losses, t=pc.ties, both=pc.both, neither=pc.neither)
        p = self.tr("Exact McNemar p = {p:.3g} on {d} discordant tasks").format(p=pc.p_value, d=pc.wins + pc.losses)
        diff = pc.difference or 0.0
        ci = self.tr("Pass rate {ra:.0%} vs {rb:.0%}: difference {d:+.1%}, {level:.0%} bootstrap CI [{lo:+.1%}, {hi:+.1%}]").format(
            ra=pc.pass_rate_a or 0.0, rb=pc.pass_rate_b or 0.0, d=diff, level=pc.confidence,
            lo=pc.diff_low or 0.0, hi=pc.diff_high or 0.0)
        extra = ""
        if pc.repeated:
            extra = "<br><span style='color:gray'>" + _e(self.tr(
                "{n} tasks were attempted more than once by one model; the majority outcome counts.").format(
                n=pc.repeated)) + "</span>"
        if pc.shared < 10:
            extra += "<br><span style='color:#C77700'>" + _e(self.tr(
                "Very few shared tasks: read these numbers as a hint, not a result.")) + "</span>"
        return f"{head}<br>{_e(wlt)}<br>{_e(p)}<br>{_e(ci)}{extra}"

    def _fill(self, pc: PairedComparison) -> None:
        self.table.setHorizontalHeaderLabels([self.tr("Task where they differ"), self.tr("Only passed by")])
        self.table.setRowCount(len(pc.differences))
        for r, d in enumerate(pc.differences):
            task = QTableWidgetItem(d.task.replace("\n", " ")[:200])
            task.setToolTip(d.task[:2000])
            task.setData(RUN_ROLE, (d.a_runs[0], d.b_runs[0]))
            winner, loser = (pc.model_a, pc.model_b) if d.a_passed else (pc.model_b, pc.model_a)
            who = QTableWidgetItem(winner)
            who.setToolTip(self.tr("{winner} passed, {loser} failed").format(winner=winner, loser=loser))
            self.table.setItem(r, 0, task)
            self.table.setItem(r, 1, who)
        self.table.setVisible(bool(pc.differences))

    def open_row(self, row: int) -> SideBySideDialog | None:
        """Open the two runs of a differing task side by side (and select both in the runs table)."""
        item = self.table.item(row, 0)
        if item is None or self.result is None:
            return None
        run_a, run_b = item.data(RUN_ROLE)
        return self.open_pair(str(run_a), str(run_b))

    def open_pair(self, run_a: str, run_b: str) -> SideBySideDialog:
        """Show two runs side by side."""
        self.session.select(trace_ids=(run_a, run_b), trace_id=run_a)
        if self.dialog is None:
            self.dialog = SideBySideDialog(self.session, self)
        self.dialog.show_runs(run_a, run_b)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog


class SideBySideDialog(QDialog):
    """Two runs next to each other: task, outcome, decisive step and every step."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("sideBySide")
        self.setWindowTitle(self.tr("Two runs side by side"))
        self.left = QTextBrowser(self)
        self.right = QTextBrowser(self)
        for b in (self.left, self.right):
            b.setOpenLinks(False)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.left)
        split.addWidget(self.right)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(split, 1)
        lay.addWidget(buttons)
        self.resize(1200, 760)
        self.runs: tuple[str, str] | None = None

    def show_runs(self, run_a: str, run_b: str) -> None:
        """Render both runs."""
        self.runs = (run_a, run_b)
        self.left.setHtml(self._run_html(run_a))
        self.right.setHtml(self._run_html(run_b))

    def _run_html(self, tid: str) -> str:
        row = self.session.run_row(tid) or {}
        outcome = str(row.get("outcome") or "unknown")
        decisive = row.get("decisive_step")
        model = row.get("model") or self.tr("(unknown model)")
        n_steps = self.tr("{n} steps").format(n=row.get("n_steps") or 0)
        error_word, decisive_word = self.tr("error"), self.tr("decisive")
        out = [f"<h3>{_e(model)}</h3>",
               f"<p><b style='color:{OUTCOME_COLORS.get(outcome, '#8A8F98')}'>{_e(outcome_label(outcome))}</b>"
               f" · {_e(n_steps)}"
               f" · <span style='color:gray'>{_e(str(tid)[:16])}</span></p>"]
        if decisive is not None:
            cat = str(row.get("category") or "")
            color = CATEGORY_COLORS.get(cat, DECISIVE)
            decisive_text = self.tr("Decisive step {s}").format(s=decisive)
            out.append(f"<p>{_e(decisive_text)}"
                       + (f" · <span style='color:{color}'>■</span> {_e(category_title(cat))}" if cat else "") + "</p>")
        if row.get("task"):
            out.append(f"<p style='background:#F3F4F6; padding:4px'>{_e(str(row['task'])[:1500])}</p>")
        for s in self.session.run_steps(tid).iter_rows(named=True):
            i = int(s["step"])
            is_decisive = decisive is not None and i == int(decisive)
            err = f" <b style='color:{DECISIVE}'>{_e(error_word)}</b>" if s.get("is_error") else ""
            text = str(s.get("text") or "")
            clipped = text[:STEP_CHARS] + ("…" if len(text) > STEP_CHARS else "")
            tool = f" · {_e(s['tool_name'])}" if s.get("tool_name") else ""
            head = _e(self.tr("Step {n}").format(n=i))
            if is_decisive:
                head = f"<span style='color:{DECISIVE}'>{head} · {_e(decisive_word)}</span>"
            out.append(f"<div style='margin:4px 0'><b>{head}</b>"
                       f" · {_e(s.get('agent') or s.get('role') or '')} · {_e(kind_label(str(s.get('kind') or '')))}"
                       f"{tool}{err}<pre style='white-space:pre-wrap'>{_e(clipped)}</pre></div>")
        return "".join(out)
