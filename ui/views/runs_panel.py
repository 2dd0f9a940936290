"""Runs panel: the filter bar above the runs table; sorting and filtering happen in polars.

The important columns come first (run, outcome, decisive step, category, tags) and each is
sized to its content (up to a cap) until the analyst resizes it. The column chooser (the
header's context menu, also View ▸ Runs table columns) hides, shows and reorders columns
(drag a header); the choice is kept in the UI settings (``runs/columns``) and restored.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from analyzer.session import RunFilter, Selection, Session
from analyzer.taxonomy import CATEGORY_IDS
from ui import settings as ui_settings
from ui.bridge import SessionBridge
from ui.i18n.labels import category_title, outcome_label
from ui.models.runs_table import COLUMNS, RunsTableModel, swatch
from ui.theme import CATEGORY_COLORS

TEXT_DEBOUNCE_MS = 250
SAVED_FILTERS_KEY = "filters/saved"
COLUMNS_KEY = "runs/columns"
"""UI setting: ``{"hidden": [keys], "order": [keys in visual order]}`` of the runs table."""

FIT_CAPS = {"task": 360, "model": 190, "category": 175, "tags": 220, "trace_id": 110, "title": 150, "source_name": 260}
"""Widest a column grows when sized to its content (others: FIT_CAP); longer text is elided."""
FIT_CAP = 130
FIT_PAD = 6
"""Room beside the content."""
HEADER_PAD = 18
"""Room beside a header title (the sort indicator)."""
FIT_ROWS = 100
"""Rows whose content sizes a column (Qt's default, 1,000, made every filter and sort of a big
corpus spend most of its time measuring text)."""


class FilterBar(QWidget):
    """Search field, filter menus, confidence range and saved filters.

    Signals:
        changed(RunFilter): The analyst changed the filter.
    """

    changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._updating = False
        self.search = QLineEdit(self)
        self.search.setObjectName("runSearch")
        self.search.setPlaceholderText(self.tr("Search task and step text…"))
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip(self.tr("Case-insensitive search in each run's task and in the text of every step (Ctrl+L)"))
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(TEXT_DEBOUNCE_MS)
        self._debounce.timeout.connect(self._emit)
        self.search.textChanged.connect(lambda _t: self._debounce.start())
        self.search.returnPressed.connect(self._emit_now)

        self.more = QToolButton(self)
        self.more.setText(self.tr("Filters"))
        self.more.setCheckable(True)
        self.more.setToolTip(self.tr("Show filters by outcome, model, category, tag and confidence"))
        self.more.toggled.connect(self._toggle_details)

        self.saved = QToolButton(self)
        self.saved.setText(self.tr("Saved"))
        self.saved.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.saved.setToolTip(self.tr("Save the current filter or apply a saved one"))
        self.saved_menu = QMenu(self.saved)
        self.saved.setMenu(self.saved_menu)
        self.saved_menu.aboutToShow.connect(self._fill_saved_menu)

        self.clear_btn = QToolButton(self)
        self.clear_btn.setText(self.tr("Clear"))
        self.clear_btn.setToolTip(self.tr("Show every run"))
        self.clear_btn.clicked.connect(self.clear)

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(4)
        top.addWidget(self.search, 1)
        top.addWidget(self.more)
        top.addWidget(self.saved)
        top.addWidget(self.clear_btn)

        self.outcome = QComboBox(self)
        self.outcome.setObjectName("outcomeFilter")
        self.outcome.setToolTip(self.tr("Outcome"))
        self.outcome.addItem(self.tr("All outcomes"), None)
        for o in ("failure", "success", "unknown"):
            self.outcome.addItem(outcome_label(o), o)
        self.model_box = QComboBox(self)
        self.model_box.setObjectName("modelFilter")
        self.model_box.setToolTip(self.tr("Model"))
        self.model_box.addItem(self.tr("All models"), None)
        self.category = QComboBox(self)
        self.category.setObjectName("categoryFilter")
        self.category.setToolTip(self.tr("Failure category of the decisive step"))
        self.category.addItem(self.tr("All categories"), None)
        for c in CATEGORY_IDS:
            self.category.addItem(swatch(CATEGORY_COLORS[c]), category_title(c), c)
        self.tag = QComboBox(self)
        self.tag.setObjectName("tagFilter")
        self.tag.setToolTip(self.tr("Analyst tag"))
        self.tag.addItem(self.tr("All tags"), None)
        self.min_conf = self._conf_box(0.0, self.tr("Lowest confidence shown"))
        self.max_conf = self._conf_box(1.0, self.tr("Highest confidence shown"))
        for box in (self.outcome, self.model_box, self.category, self.tag):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(8)
            box.currentIndexChanged.connect(lambda _i: self._emit_now())

        self.details = QWidget(self)
        grid = QVBoxLayout(self.details)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(4)
        row1 = QHBoxLayout()
        row1.addWidget(self.outcome, 1)
        row1.addWidget(self.model_box, 1)
        row2 = QHBoxLayout()
        row2.addWidget(self.category, 1)
        row2.addWidget(self.tag, 1)
        row3 = QHBoxLayout()
        row3.addWidget(QLabel(self.tr("Confidence"), self))
        row3.addWidget(self.min_conf)
        row3.addWidget(QLabel("–", self))
        row3.addWidget(self.max_conf)
        row3.addStretch(1)
        for r in (row1, row2, row3):
            grid.addLayout(r)
        self.details.setVisible(False)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 2)
        lay.setSpacing(4)
        lay.addLayout(top)
        lay.addWidget(self.details)

    def _conf_box(self, value: float, tip: str) -> QDoubleSpinBox:
        box = QDoubleSpinBox(self)
        box.setRange(0.0, 1.0)
        box.setSingleStep(0.05)
        box.setDecimals(2)
        box.setValue(value)
        box.setToolTip(tip)
        box.valueChanged.connect(lambda _v: self._emit_now())
        return box

    def _toggle_details(self, on: bool) -> None:
        self.details.setVisible(on)

    # state ---------------------------------------------------------------------------
    def current(self) -> RunFilter:
        """The filter the widgets describe."""
        def one(box: QComboBox) -> tuple[str, ...]:
            v = box.currentData()
            return (str(v),) if v else ()
        lo, hi = self.min_conf.value(), self.max_conf.value()
        return RunFilter(text=self.search.text().strip(), outcomes=one(self.outcome),
                         models=one(self.model_box), categories=one(self.category), tags=one(self.tag),
                         min_confidence=lo if lo > 0.0 else None, max_confidence=hi if hi < 1.0 else None)

    def set_filter(self, flt: RunFilter) -> None:
        """Show a filter in the widgets (without emitting)."""
        self._updating = True
        try:
            if self.search.text() != flt.text:
                self.search.setText(flt.text)
            self._debounce.stop()
            for box, values in ((self.outcome, flt.outcomes), (self.model_box, flt.models),
                                (self.category, flt.categories), (self.tag, flt.tags)):
                target = values[0] if values else None
                if target is not None and box.findData(target) < 0:
                    box.addItem(target, target)
                box.setCurrentIndex(max(0, box.findData(target)) if target is not None else 0)
            self.min_conf.setValue(flt.min_confidence or 0.0)
            self.max_conf.setValue(1.0 if flt.max_confidence is None else flt.max_confidence)
            if any((flt.outcomes, flt.models, flt.categories, flt.tags, flt.min_confidence is not None,
                    flt.max_confidence is not None)):
                self.more.setChecked(True)
        finally:
            self._updating = False

    def set_choices(self, models: list[str], tags: list[str]) -> None:
        """Refresh the model and tag menus (keeps the current choice)."""
        self._updating = True
        try:
            for box, values, all_label in ((self.model_box, models, self.tr("All models")),
                                           (self.tag, tags, self.tr("All tags"))):
                cur = box.currentData()
                existing = [box.itemData(i) for i in range(1, box.count())]
                if existing == values:
                    continue
                box.clear()
                box.addItem(all_label, None)
                for v in values:
                    box.addItem(v, v)
                if cur is not None and box.findData(cur) < 0:
                    box.addItem(cur, cur)
                box.setCurrentIndex(max(0, box.findData(cur)) if cur is not None else 0)
        finally:
            self._updating = False

    def clear(self) -> None:
        """Reset every filter."""
        self.set_filter(RunFilter())
        self._emit_now()

    def _emit_now(self) -> None:
        self._debounce.stop()
        self._emit()

    def _emit(self) -> None:
        if not self._updating:
            self.changed.emit(self.current())

    # saved filters -----------------------------------------------------------------------
    def saved_filters(self) -> dict[str, RunFilter]:
        """Saved filters by name."""
        raw = ui_settings.get_json(SAVED_FILTERS_KEY, {})
        if not isinstance(raw, dict):
            return {}
        return {str(k): RunFilter.from_json(v) for k, v in raw.items()}

    def save_filter(self, name: str) -> None:
        """Save the current filter under a name."""
        raw = ui_settings.get_json(SAVED_FILTERS_KEY, {})
        raw = raw if isinstance(raw, dict) else {}
        raw[name] = self.current().to_json()
        ui_settings.set_json(SAVED_FILTERS_KEY, raw)

    def delete_filter(self, name: str) -> None:
        """Forget a saved filter."""
        raw = ui_settings.get_json(SAVED_FILTERS_KEY, {})
        if isinstance(raw, dict) and name in raw:
            del raw[name]
            ui_settings.set_json(SAVED_FILTERS_KEY, raw)

    def apply_saved(self, name: str) -> None:
        """Apply a saved filter."""
        flt = self.saved_filters().get(name)
        if flt is not None:
            self.set_filter(flt)
            self._emit_now()

    def _fill_saved_menu(self) -> None:
        m = self.saved_menu
        m.clear()
        m.addAction(self.tr("Save current filter…"), self._ask_save)
        saved = self.saved_filters()
        if saved:
            m.addSeparator()
            for name in sorted(saved):
                m.addAction(name, lambda *_a, n=name: self.apply_saved(n))
            m.addSeparator()
            delete = m.addMenu(self.tr("Delete"))
            for name in sorted(saved):
                delete.addAction(name, lambda *_a, n=name: self.delete_filter(n))

    def _ask_save(self) -> None:
        name, ok = QInputDialog.getText(self, self.tr("Save filter"), self.tr("Name of this filter:"))
        if ok and name.strip():
            self.save_filter(name.strip())


class RunsPanel(QWidget):
    """Filter bar + runs table, linked to the session selection."""

    def __init__(self, session: Session, bridge: SessionBridge, parent: QWidget | None = None,
                 persist: bool = True) -> None:
        super().__init__(parent)
        self.session = session
        self.bridge = bridge
        self.persist = persist
        self._syncing = False
        self._fitting = False
        self._user_sized: set[str] = set()
        self._sort: tuple[str, bool] | None = None
        self.filter_bar = FilterBar(self)
        self.model = RunsTableModel(self)
        self.table = QTableView(self)
        self.table.setObjectName("runsTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setShowGrid(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        vh = self.table.verticalHeader()
        # QTableView.sizeHintForColumn measures as many rows as the horizontal header's precision
        self.table.horizontalHeader().setResizeContentsPrecision(FIT_ROWS)
        vh.setVisible(False)
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(max(22, self.fontMetrics().height() + 8))
        hh = self.table.horizontalHeader()
        hh.setSectionsClickable(True)
        hh.setSortIndicatorShown(True)
        hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        hh.setHighlightSections(False)
        hh.setStretchLastSection(False)
        hh.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        hh.setSectionsMovable(True)
        hh.setMinimumSectionSize(36)
        hh.setDefaultSectionSize(40)  # then each grows to its header and content (fit_columns)
        hh.sortIndicatorChanged.connect(self._on_sort)
        hh.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        hh.customContextMenuRequested.connect(lambda pos: self.columns_menu.exec(hh.mapToGlobal(pos)))
        hh.sectionResized.connect(self._on_section_resized)
        hh.sectionMoved.connect(lambda *_a: self._save_columns())
        self.columns_menu = QMenu(self.tr("Runs table &columns"), self)
        self.columns_menu.setObjectName("runsColumnsMenu")
        self.columns_menu.aboutToShow.connect(self._fill_columns_menu)
        self._fill_columns_menu()
        self._restore_columns()
        self.table.selectionModel().selectionChanged.connect(self._on_view_selection)
        self.table.selectionModel().currentRowChanged.connect(self._on_current_row)
        self.count_label = QLabel(self)
        self.count_label.setObjectName("runCount")
        self.count_label.setContentsMargins(8, 2, 8, 4)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.filter_bar)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.count_label)

        self.filter_bar.changed.connect(session.set_filter)
        bridge.runsChanged.connect(self.refresh)
        bridge.selectionChanged.connect(self._apply_selection)
        self.refresh()

    # data -----------------------------------------------------------------------
    def sorted_frame(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Apply the current sort (in polars)."""
        if self._sort is None or frame.height == 0:
            return frame
        key, desc = self._sort
        return frame.sort(key, descending=desc, nulls_last=True, maintain_order=True)

    def refresh(self, fit: bool = True) -> None:
        """Re-read the filtered runs from the session and re-apply sort and selection.

        Args:
            fit: Size the columns to their content afterwards (:meth:`fit_columns`).
        """
        frame = self.sorted_frame(self.session.filtered_runs())
        self._syncing = True
        try:
            self.model.set_frame(frame)
        finally:
            self._syncing = False
        self._apply_selection(self.session.selection, scroll=False)
        if fit:
            self.fit_columns()
        self._update_choices()
        total = self.session.traces.height
        self.count_label.setText(self.tr("{shown} of {total} runs").format(shown=frame.height, total=total))

    # columns ------------------------------------------------------------------------
    def fit_columns(self) -> None:
        """Size each shown column to its header and content (up to its cap), unless the analyst resized it.

        Columns only grow while the analyst works (no jitter when a filter narrows the rows);
        "Reset columns" sizes them afresh.
        """
        hh = self.table.horizontalHeader()
        fm = hh.fontMetrics()
        self._fitting = True
        try:
            for i, c in enumerate(COLUMNS):
                if hh.isSectionHidden(i) or c.key in self._user_sized:
                    continue
                title = str(self.model.headerData(i, Qt.Orientation.Horizontal) or "")
                want = max(fm.horizontalAdvance(title) + HEADER_PAD, self.table.sizeHintForColumn(i) + FIT_PAD)
                want = min(want, FIT_CAPS.get(c.key, FIT_CAP))
                if want > hh.sectionSize(i) or self.model.rowCount() == 0:
                    hh.resizeSection(i, want)
        finally:
            self._fitting = False

    def _on_section_resized(self, index: int, _old: int, _new: int) -> None:
        if self._fitting or self._syncing or not 0 <= index < len(COLUMNS):
            return
        self._user_sized.add(COLUMNS[index].key)

    def column_keys(self, visible_only: bool = True) -> list[str]:
        """Column keys in the order the table shows them (hidden ones left out unless asked)."""
        hh = self.table.horizontalHeader()
        out = []
        for visual in range(hh.count()):
            logical = hh.logicalIndex(visual)
            if visible_only and hh.isSectionHidden(logical):
                continue
            out.append(COLUMNS[logical].key)
        return out

    def hidden_columns(self) -> list[str]:
        """Keys of the hidden columns."""
        hh = self.table.horizontalHeader()
        return [c.key for i, c in enumerate(COLUMNS) if hh.isSectionHidden(i)]

    def set_column_visible(self, key: str, visible: bool) -> None:
        """Show or hide a column (at least one stays shown); the choice is saved."""
        keys = [c.key for c in COLUMNS]
        if key not in keys:
            return
        if not visible and len(self.column_keys()) <= 1:
            return
        self.table.horizontalHeader().setSectionHidden(keys.index(key), not visible)
        if visible:
            self.fit_columns()
        self._save_columns()

    def reset_columns(self) -> None:
        """Every column shown, in the default order, sized to its content."""
        hh = self.table.horizontalHeader()
        self._syncing = True
        try:
            for i in range(len(COLUMNS)):
                hh.setSectionHidden(i, False)
                hh.moveSection(hh.visualIndex(i), i)
                hh.resizeSection(i, hh.minimumSectionSize())
        finally:
            self._syncing = False
        self._user_sized.clear()
        self.fit_columns()
        self._save_columns()

    def _fill_columns_menu(self) -> None:
        m = self.columns_menu
        m.clear()
        hidden = set(self.hidden_columns())
        shown = self.column_keys()
        for key in self.column_keys(visible_only=False):
            i = [c.key for c in COLUMNS].index(key)
            title = str(self.model.headerData(i, Qt.Orientation.Horizontal) or key)
            act = m.addAction(title)
            act.setObjectName(f"column_{key}")
            act.setCheckable(True)
            act.setChecked(key not in hidden)
            act.setEnabled(key in hidden or len(shown) > 1)
            act.setToolTip(str(self.model.headerData(i, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) or ""))
            act.toggled.connect(lambda on, k=key: self.set_column_visible(k, on))
        m.addSeparator()
        reset = m.addAction(self.tr("Reset columns"))
        reset.setObjectName("column_reset")
        reset.setToolTip(self.tr("Show every column in the default order, sized to its content"))
        reset.triggered.connect(lambda *_a: self.reset_columns())
        m.setToolTipsVisible(True)

    def _save_columns(self) -> None:
        if self._syncing or not self.persist:
            return
        ui_settings.set_json(COLUMNS_KEY, {"hidden": self.hidden_columns(), "order": self.column_keys(visible_only=False)})

    def _restore_columns(self) -> None:
        if not self.persist:
            return
        raw = ui_settings.get_json(COLUMNS_KEY, {})
        if not isinstance(raw, dict):
            return
        keys = [c.key for c in COLUMNS]
        hh = self.table.horizontalHeader()
        self._syncing = True
        try:
            order = [k for k in raw.get("order", []) if isinstance(k, str) and k in keys]
            order += [k for k in keys if k not in order]  # columns added since keep their default place at the end
            for visual, key in enumerate(order):
                hh.moveSection(hh.visualIndex(keys.index(key)), visual)
            hidden = {k for k in raw.get("hidden", []) if isinstance(k, str) and k in keys}
            if len(hidden) >= len(keys):
                hidden = set()
            for i, key in enumerate(keys):
                hh.setSectionHidden(i, key in hidden)
        finally:
            self._syncing = False

    def _update_choices(self) -> None:
        view = self.session.runs_view()
        models = sorted(str(m) for m in view["model"].drop_nulls().unique().to_list()) if view.height else []
        tags: set[str] = set()
        if view.height:
            for t in view["tags"].drop_nulls().unique().to_list():
                tags.update(x.strip() for x in str(t).split(",") if x.strip())
        self.filter_bar.set_choices(models, sorted(tags))

    def _on_sort(self, section: int, order: Qt.SortOrder) -> None:
        if not 0 <= section < len(COLUMNS):
            self._sort = None
        else:
            self._sort = (COLUMNS[section].key, order == Qt.SortOrder.DescendingOrder)
        self.refresh(fit=False)  # the same rows in another order: the column widths hold

    def sort_by(self, key: str, descending: bool = False) -> None:
        """Sort by a column of the runs view (as a header click would)."""
        keys = [c.key for c in COLUMNS]
        order = Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
        self.table.horizontalHeader().setSortIndicator(keys.index(key), order)

    # selection --------------------------------------------------------------------------
    def _on_view_selection(self, *_args: Any) -> None:
        if self._syncing:
            return
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        ids = tuple(t for t in (self.model.trace_id(r) for r in rows) if t)
        cur = self.table.currentIndex()
        current = self.model.trace_id(cur.row()) if cur.isValid() else None
        if current not in ids:
            current = ids[-1] if ids else None
        self.session.select(trace_ids=ids, trace_id=current)

    def _on_current_row(self, current: QModelIndex, _prev: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        tid = self.model.trace_id(current.row())
        if tid and tid != self.session.selection.trace_id:
            self.session.select(trace_id=tid)

    def _apply_selection(self, sel: Selection, scroll: bool = True) -> None:
        ids = list(sel.trace_ids) or ([sel.trace_id] if sel.trace_id else [])
        rows = self.model.rows_of(ids)
        sm = self.table.selectionModel()
        wanted = set(rows)
        have = {i.row() for i in sm.selectedRows()}
        cur_idx = self.table.currentIndex()
        cur_row = self.model.rows_of([sel.trace_id])[0] if sel.trace_id and self.model.rows_of([sel.trace_id]) else -1
        if wanted == have and (cur_row < 0 or cur_idx.row() == cur_row):
            return
        self._syncing = True
        try:
            selection = QItemSelection()
            last = self.model.columnCount() - 1
            for start, end in _ranges(rows):
                selection.select(self.model.index(start, 0), self.model.index(end, last))
            sm.select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            if cur_row >= 0:
                sm.setCurrentIndex(self.model.index(cur_row, 0), QItemSelectionModel.SelectionFlag.NoUpdate)
                if scroll:
                    self.table.scrollTo(self.model.index(cur_row, 0))
        finally:
            self._syncing = False

    def select_row(self, row: int) -> None:
        """Select one row as a click would."""
        idx = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(
            idx, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)


def _ranges(rows: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for r in sorted(rows):
        if out and r == out[-1][1] + 1:
            out[-1] = (out[-1][0], r)
        else:
            out.append((r, r))
    return out
