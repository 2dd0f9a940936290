"""Dialogs of "Adapt to my labels": the cross-validated result of an adaptation, and the ranker versions."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from analyzer.workspace import RankerVersion


def percent(value: float | None, n: int | None) -> str:
    """``58% (7/12)``, or an em dash when there is no figure."""
    if value is None or not n:
        return "—"
    hits = round(value * n)
    return f"{100 * value:.0f}% ({hits}/{n})"


def local_time(iso: str) -> str:
    """``2026-12-01 16:08`` in the local time zone (the stored time is UTC)."""
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso[:16]


def _strength(version: RankerVersion) -> str:
    s = (version.params.get("meta") or {}).get("strength")
    return "∞" if s is None else f"{float(s):g}"


def _item(text: str, align_right: bool = False, bold: bool = False) -> QTableWidgetItem:
    it = QTableWidgetItem(text)
    it.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if align_right:
        it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if bold:
        f = it.font()
        f.setBold(True)
        it.setFont(f)
    return it


class AdaptResultDialog(QDialog):
    """What an adaptation achieved: step@1 on the analyst's own labels, shipped vs adapted.

    Args:
        version: The stored version.
        reanalyse: Called by "Re-analyse runs".
        revert: Called by "Revert to shipped weights".
        parent: Parent widget.
    """

    def __init__(self, version: RankerVersion, reanalyse: Callable[[], object], revert: Callable[[], object],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("adaptResultDialog")
        self.setWindowTitle(self.tr("Ranker adapted to your labels"))
        self.version = version
        head = QLabel(self)
        head.setObjectName("adaptHeadline")
        head.setWordWrap(True)
        head.setTextFormat(Qt.TextFormat.RichText)
        head.setText("<b>" + html.escape(self.tr("Version #{id}: fitted on {n} labelled failed runs").format(
            id=version.id, n=version.n_labels)) + "</b><br>" + html.escape(self.tr(
                "Shrinkage towards the shipped weights: λ = {strength} (chosen by cross-validation on your "
                "labels; ties keep the stronger shrinkage; ∞ keeps the shipped weights).").format(
                    strength=_strength(version))))
        self.table = QTableWidget(2, 3, self)
        self.table.setObjectName("adaptCvTable")
        self.table.setHorizontalHeaderLabels([self.tr("Weights"), self.tr("Step@1 on your labels"), self.tr("Runs")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        n = version.cv_n
        better = (version.adapted_step_at_1 or 0.0) > (version.shipped_step_at_1 or 0.0)
        rows = ((self.tr("Shipped weights"), version.shipped_step_at_1, False),
                (self.tr("Adapted weights"), version.adapted_step_at_1, better))
        for r, (name, value, bold) in enumerate(rows):
            self.table.setItem(r, 0, _item(name, bold=bold))
            self.table.setItem(r, 1, _item(percent(value, n), align_right=True, bold=bold))
            self.table.setItem(r, 2, _item(str(n or 0), align_right=True))
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setFixedHeight(self.table.horizontalHeader().sizeHint().height()
                                  + 2 * self.table.verticalHeader().defaultSectionSize() + 6)
        how = QLabel(self.tr("Leave-one-out: each labelled run is predicted by weights fitted without it, so both "
                             "figures are held-out. With few labels they are rough: one run is {share}.").format(
            share=f"{100 / n:.0f}%" if n else "—"), self)
        how.setWordWrap(True)
        how.setEnabled(False)
        self.verdict = QLabel(self)
        self.verdict.setObjectName("adaptVerdict")
        self.verdict.setWordWrap(True)
        if better:
            self.verdict.setText(self.tr("Adapting helped on your labels. Analyses now use version #{id}.").format(
                id=version.id))
            self.verdict.setStyleSheet("color: #2E9E5B; font-weight: bold;")
        else:
            self.verdict.setText(self.tr("Adapting did not help on your labels. Analyses use version #{id}; you can "
                                         "revert to the shipped weights.").format(id=version.id))
            self.verdict.setStyleSheet("color: #B7791F; font-weight: bold;")
        self.reanalyse_button = QPushButton(self.tr("Re-analyse runs"), self)
        self.reanalyse_button.setObjectName("adaptReanalyse")
        self.reanalyse_button.setToolTip(self.tr("Analyse the runs again with the adapted weights"))
        self.reanalyse_button.clicked.connect(lambda: (self.accept(), reanalyse()))
        self.revert_button = QPushButton(self.tr("Revert to shipped weights"), self)
        self.revert_button.setObjectName("adaptRevert")
        self.revert_button.clicked.connect(lambda: (self.reject(), revert()))
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        box.rejected.connect(self.reject)
        box.addButton(self.reanalyse_button, QDialogButtonBox.ButtonRole.AcceptRole)
        box.addButton(self.revert_button, QDialogButtonBox.ButtonRole.ResetRole)
        self.reanalyse_button.setDefault(True)
        lay = QVBoxLayout(self)
        lay.addWidget(head)
        lay.addWidget(self.table)
        lay.addWidget(how)
        lay.addWidget(self.verdict)
        lay.addStretch(1)
        lay.addWidget(box)
        self.resize(560, 300)


class RankerVersionsDialog(QDialog):
    """Every adapted ranker of the workspace; pick one to use, or the shipped weights.

    Args:
        versions: Stored versions, newest first.
        activate: Called with a version id ("Use selected").
        revert: Called by "Use shipped weights".
        parent: Parent widget.
    """

    def __init__(self, versions: Sequence[RankerVersion], activate: Callable[[int], object],
                 revert: Callable[[], object], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rankerVersionsDialog")
        self.setWindowTitle(self.tr("Ranker versions"))
        self.versions = list(versions)
        active = next((v for v in self.versions if v.active), None)
        intro = QLabel(self.tr("Analyses use the active ranker. Older versions are kept; pick one to use it again."),
                       self)
        intro.setWordWrap(True)
        cols = [self.tr("Version"), self.tr("Created"), self.tr("Analyst"), self.tr("Labels"), self.tr("λ"),
                self.tr("Shipped step@1"), self.tr("Adapted step@1"), self.tr("In use")]
        self.table = QTableWidget(len(self.versions) + 1, len(cols), self)
        self.table.setObjectName("rankerVersionsTable")
        self.table.setHorizontalHeaderLabels(cols)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        shipped_row = [self.tr("Shipped weights"), "", "", "", "", "", "", "✓" if active is None else ""]
        for c, text in enumerate(shipped_row):
            self.table.setItem(0, c, _item(text, bold=active is None))
        for r, v in enumerate(self.versions, 1):
            row = [f"#{v.id}", local_time(v.created), v.author, str(v.n_labels), _strength(v),
                   percent(v.shipped_step_at_1, v.cv_n), percent(v.adapted_step_at_1, v.cv_n), "✓" if v.active else ""]
            for c, text in enumerate(row):
                self.table.setItem(r, c, _item(text, align_right=c in (3, 4, 5, 6), bold=v.active))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.selectRow(next((r for r, v in enumerate(self.versions, 1) if v.active), 0))
        self.use_button = QPushButton(self.tr("Use selected"), self)
        self.use_button.setObjectName("rankerUseSelected")
        self.use_button.clicked.connect(lambda: self._use(activate, revert))
        self.table.itemDoubleClicked.connect(lambda _it: self._use(activate, revert))
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        box.rejected.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.use_button)
        buttons.addStretch(1)
        buttons.addWidget(box)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addWidget(self.table, 1)
        lay.addLayout(buttons)
        self.resize(760, 320)

    def selected_version(self) -> int | None:
        """Id of the selected version (None: the shipped weights)."""
        rows = self.table.selectionModel().selectedRows()
        r = rows[0].row() if rows else 0
        return self.versions[r - 1].id if r > 0 else None

    def _use(self, activate: Callable[[int], object], revert: Callable[[], object]) -> None:
        vid = self.selected_version()
        self.accept()
        if vid is None:
            revert()
        else:
            activate(vid)
