"""Runs table model over an immutable polars frame.

The model only answers ``rowCount/columnCount/data/headerData``; sorting and filtering happen
in polars (see :class:`ui.views.runs_panel.RunsPanel` and :func:`analyzer.session.filter_runs`)
and a new frame resets the model. Column values are turned into Python lists lazily, one
column at a time, so a 100,000-run frame costs nothing until its cells are painted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl
from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QIcon, QPixmap

from analyzer.analysis.result import uncertain_steps
from analyzer.metrics.labels import ANALYST
from ui.i18n.labels import (
    category_description,
    category_title,
    outcome_label,
    outcome_source_text,
    run_outcome_label,
    status_label,
    tags_text,
)
from ui.theme import CANDIDATE, CATEGORY_COLORS, OUTCOME_COLORS
from ui.views.rationale_html import steps_text

ELIDE_CHARS = 160
"""Display text longer than this is cut (the view elides further to the column width)."""

STALE_COLOR = "#C77700"
"""Colour of the "stale" badge (amber)."""

TRACE_ID_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_KEY_ROLE = Qt.ItemDataRole.UserRole + 2


@dataclass(frozen=True)
class Column:
    """One column of the runs table.

    Attributes:
        key: Column of the runs view frame.
        title: Header (English source; translated at display time).
        tip: Header tooltip (English source).
        width: Default width in pixels.
        numeric: Right-aligned number.
    """

    key: str
    title: str
    tip: str
    width: int
    numeric: bool = False


ANALYST_MARK = "✎"
"""Marks a decisive step or category the analyst set (it wins over the analysis)."""

_SOURCE_OF = {"decisive_step": "decisive_source", "category": "label_source", "outcome": "outcome_source"}

COLUMNS: tuple[Column, ...] = (
    # what the analyst reads first comes first: the run (its title), its outcome, the decisive step,
    # its category and the tags; the long task text, the run id and the source file last (the
    # column chooser hides or moves any)
    Column("title", QT_TRANSLATE_NOOP("RunsTable", "Title"),
           QT_TRANSLATE_NOOP("RunsTable", "The task's first line, else the source's own id of the run"), 150),
    Column("outcome", QT_TRANSLATE_NOOP("RunsTable", "Outcome"),
           QT_TRANSLATE_NOOP("RunsTable", "success, failure, error or unknown"), 74),
    Column("decisive_step", QT_TRANSLATE_NOOP("RunsTable", "Decisive"),
           QT_TRANSLATE_NOOP("RunsTable", "Predicted decisive step (0-based); “? a, b, c”: uncertain, no step stands "
                             "out (the likeliest steps, best first)"), 70, numeric=True),
    Column("category", QT_TRANSLATE_NOOP("RunsTable", "Category"),
           QT_TRANSLATE_NOOP("RunsTable", "Failure category of the decisive step"), 150),
    Column("tags", QT_TRANSLATE_NOOP("RunsTable", "Tags"),
           QT_TRANSLATE_NOOP("RunsTable", "Analyst categories and custom tags"), 120),
    Column("analyst_status", QT_TRANSLATE_NOOP("RunsTable", "Review"),
           QT_TRANSLATE_NOOP("RunsTable", "Analyst review status"), 80),
    Column("confidence", QT_TRANSLATE_NOOP("RunsTable", "Confidence"),
           QT_TRANSLATE_NOOP("RunsTable", "Confidence (0-1) in the decisive step"), 82, numeric=True),
    Column("model", QT_TRANSLATE_NOOP("RunsTable", "Model"),
           QT_TRANSLATE_NOOP("RunsTable", "Model that produced the run"), 104),
    Column("n_steps", QT_TRANSLATE_NOOP("RunsTable", "Steps"),
           QT_TRANSLATE_NOOP("RunsTable", "Number of steps"), 56, numeric=True),
    Column("analysis_stale", QT_TRANSLATE_NOOP("RunsTable", "Analysis"),
           QT_TRANSLATE_NOOP("RunsTable", "“stale”: analysed by an older analysis version (ranker, detectors or judge "
                             "changed); Analysis ▸ Refresh stale analysis"), 64),
    Column("task_key", QT_TRANSLATE_NOOP("RunsTable", "Task key"),
           QT_TRANSLATE_NOOP("RunsTable", "Identity of the task across runs: the source's task, sample or instance id, "
                             "else a hash of the task text (type it in the filter to see every run of the task)"), 110),
    Column("task", QT_TRANSLATE_NOOP("RunsTable", "Task"),
           QT_TRANSLATE_NOOP("RunsTable", "Task statement (full text in the tooltip)"), 200),
    Column("trace_id", QT_TRANSLATE_NOOP("RunsTable", "Run"),
           QT_TRANSLATE_NOOP("RunsTable", "Stable content-derived run id"), 100),
    Column("source_name", QT_TRANSLATE_NOOP("RunsTable", "Source file"),
           QT_TRANSLATE_NOOP("RunsTable", "File the run was read from, relative to the folder the loaded files share "
                             "(full path in the tooltip)"), 180),
)
"""Columns of the runs table in their default order."""

_SWATCH_CACHE: dict[str, QIcon] = {}


def swatch(color: str, size: int = 10) -> QIcon:
    """A small square icon of one colour."""
    icon = _SWATCH_CACHE.get(color)
    if icon is None:
        pm = QPixmap(size, size)
        pm.fill(QColor(color))
        icon = QIcon(pm)
        _SWATCH_CACHE[color] = icon
    return icon


def _tr(text: str) -> str:
    return QCoreApplication.translate("RunsTable", text)


class RunsTableModel(QAbstractTableModel):
    """Read-only table over a runs-view frame."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._frame = pl.DataFrame({c.key: [] for c in COLUMNS})
        self._lists: dict[str, list[Any]] = {}

    # frame ---------------------------------------------------------------------
    @property
    def frame(self) -> pl.DataFrame:
        """The frame shown (read-only)."""
        return self._frame

    def set_frame(self, frame: pl.DataFrame) -> None:
        """Show a new frame (resets the model)."""
        missing = [c.key for c in COLUMNS if c.key not in frame.columns]
        if missing:
            frame = frame.with_columns(pl.lit(None).alias(k) for k in missing)
        self.beginResetModel()
        self._frame = frame
        self._lists = {}
        self.endResetModel()

    def _uncertain(self, row: int) -> list[int]:
        """The likeliest steps of a run the ranker is uncertain of (empty when it is not)."""
        if "decisive_uncertain" not in self._frame.columns:
            return []
        return uncertain_steps(self._values("decisive_uncertain")[row])

    def _values(self, key: str) -> list[Any]:
        vals = self._lists.get(key)
        if vals is None:
            vals = self._frame.get_column(key).to_list()
            self._lists[key] = vals
        return vals

    def trace_id(self, row: int) -> str | None:
        """Run id of a row."""
        if 0 <= row < self._frame.height:
            v = self._values("trace_id")[row]
            return str(v) if v is not None else None
        return None

    def rows_of(self, trace_ids: list[str] | tuple[str, ...]) -> list[int]:
        """Row numbers of runs (those shown), in table order."""
        if not trace_ids or self._frame.height == 0:
            return []
        idx = (self._frame.select(pl.col("trace_id")).with_row_index("_row")
               .filter(pl.col("trace_id").is_in(list(trace_ids))))
        return [int(r) for r in idx["_row"].to_list()]

    # Qt model API -------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._frame.height

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        col = COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return _tr(col.title)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tr(col.tip)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int((Qt.AlignmentFlag.AlignRight if col.numeric else Qt.AlignmentFlag.AlignLeft)
                       | Qt.AlignmentFlag.AlignVCenter)
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        col = COLUMNS[index.column()]
        row = index.row()
        if role == TRACE_ID_ROLE:
            return self.trace_id(row)
        value = self._values(col.key)[row]
        unsure = self._uncertain(row) if col.key == "decisive_step" else []
        if unsure and role == Qt.ItemDataRole.DisplayRole:  # the ranker does not know: its likeliest steps
            return QCoreApplication.translate("RunsTable", "? {steps}").format(steps=", ".join(str(s) for s in unsure))
        if unsure and role == Qt.ItemDataRole.ToolTipRole:
            return QCoreApplication.translate(
                "RunsTable", "Uncertain: no step stands out; the likeliest are {steps}, best first").format(
                    steps=steps_text(unsure))
        if unsure and role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor(CANDIDATE))
        mine = self.by_analyst(row, col.key)
        if col.key == "outcome" and role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            source = self._cell("outcome_source", row)
            p = self._cell("outcome_p_failed", row)
            if role == Qt.ItemDataRole.ToolTipRole:
                said = outcome_source_text(source, self._cell("outcome_recorded", row), p)
                return f"{run_outcome_label(value, source, p)}\n{said}" if source == "estimate" else said
            text = run_outcome_label(value, source, p, compact=True)
            return f"{text} {ANALYST_MARK}" if mine else text
        if role == Qt.ItemDataRole.DisplayRole:
            text = self._display(col.key, value)
            return f"{text} {ANALYST_MARK}".strip() if mine else text
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = self._tooltip(col.key, value, row)
            return self._analyst_tip(col.key, row, tip) if mine else tip
        if role == SORT_KEY_ROLE:
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int((Qt.AlignmentFlag.AlignRight if col.numeric else Qt.AlignmentFlag.AlignLeft)
                       | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and col.key == "outcome" and value in OUTCOME_COLORS:
            return QBrush(QColor(OUTCOME_COLORS[value]))
        if role == Qt.ItemDataRole.ForegroundRole and col.key == "analysis_stale" and value:
            return QBrush(QColor(STALE_COLOR))
        if role == Qt.ItemDataRole.DecorationRole and col.key == "category" and value:
            return swatch(CATEGORY_COLORS.get(value, "#BAB0AC"))
        return None

    def _cell(self, key: str, row: int) -> Any:
        """A value of the frame that may be absent (None then)."""
        return self._values(key)[row] if key in self._frame.columns else None

    def by_analyst(self, row: int, key: str) -> bool:
        """True when the cell (decisive step or category) holds the analyst's label, not the pipeline's."""
        source = _SOURCE_OF.get(key)
        if source is None or source not in self._frame.columns:
            return False
        return bool(self._values(source)[row] == ANALYST)

    def _analyst_tip(self, key: str, row: int, tip: str | None) -> str:
        before_key = "judge_decisive_step" if key == "decisive_step" else "judge_category"
        before = self._values(before_key)[row] if before_key in self._frame.columns else None
        if before is None:
            said = QCoreApplication.translate("RunsTable", "Set by the analyst ({mark})").format(mark=ANALYST_MARK)
        else:
            shown = category_title(before) if key == "category" else str(before)
            said = QCoreApplication.translate(
                "RunsTable", "Set by the analyst ({mark}); the analysis said: {value}").format(
                    mark=ANALYST_MARK, value=shown)
        return f"{tip}\n{said}" if tip else said

    @staticmethod
    def _display(key: str, value: Any) -> str:
        if value is None:
            return ""
        if key == "outcome":
            return outcome_label(value)
        if key == "category":
            return category_title(value)
        if key == "tags":
            value = tags_text(value)
        if key == "confidence":
            return f"{value:.2f}"
        if key == "analyst_status":
            return status_label(value)
        if key == "analysis_stale":
            return QCoreApplication.translate("RunsTable", "stale") if value else ""
        if key == "trace_id":
            return str(value)[:12]
        text = str(value).replace("\n", " ")
        return text if len(text) <= ELIDE_CHARS else text[:ELIDE_CHARS - 1] + "…"

    def _tooltip(self, key: str, value: Any, row: int) -> str | None:
        if value is None:
            return None
        if key == "category":
            return f"{category_title(value)} ({value})\n{category_description(value)}"
        if key == "analysis_stale":
            return QCoreApplication.translate(
                "RunsTable", "Analysed by an older analysis version; Analysis ▸ Refresh stale analysis re-analyses it.") \
                if value else None
        if key in ("trace_id", "title"):
            src = self._values("source_file")[row] if "source_file" in self._frame.columns else None
            return f"{value}\n{src}" if src else str(value)
        if key == "source_name" and "source_file" in self._frame.columns:
            rec = self._values("record")[row] if "record" in self._frame.columns else None
            src = str(self._values("source_file")[row] or value)
            return f"{src} [{rec}]" if rec and rec != "$" else src
        text = str(value)
        return text if len(text) < 4000 else text[:4000] + "…"
