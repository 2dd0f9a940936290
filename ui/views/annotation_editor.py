"""Annotation editor in the inspector: category, decisive step, custom tags and a free-text note.

The inspector inserts the widget from :func:`create_annotation_editor`; the tagging
controller (:mod:`ui.actions.tagging`) attaches itself with :meth:`AnnotationEditor.set_controller`.
Every edit is one workspace action (undoable). The note is saved when the editor loses the
focus, after a short pause in typing, with Ctrl+Enter, or before the selection moves on.
"""

from __future__ import annotations

import html
from typing import Any

import polars as pl
from PySide6.QtCore import QStringListModel, Qt, QTimer
from PySide6.QtGui import QFocusEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from analyzer.session import Selection, Session
from analyzer.taxonomy import CATEGORIES
from analyzer.workspace.store import Target
from ui.bridge import SessionBridge
from ui.i18n.labels import category_title, status_label, tag_label
from ui.models.runs_table import swatch
from ui.theme import CATEGORY_COLORS

NOTE_SAVE_DELAY_MS = 1500


class NoteEdit(QPlainTextEdit):
    """Plain-text note that reports when it loses the focus."""

    def __init__(self, editor: AnnotationEditor) -> None:
        super().__init__(editor)
        self._editor = editor

    def focusOutEvent(self, e: QFocusEvent) -> None:
        self._editor.save_note()
        super().focusOutEvent(e)


class AnnotationEditor(QWidget):
    """Edits the analyst's annotation of the current step (or of the whole run)."""

    def __init__(self, session: Session, bridge: SessionBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("annotationEditor")
        self.session = session
        self.bridge = bridge
        self.controller: Any = None
        self._target: Target | None = None
        self._note_target: Target | None = None
        self._note_saved = ""
        self._loading = False
        self._last_pick: tuple[str | None, int | None] = (None, None)

        self.title = QLabel(self)
        self.title.setObjectName("annotationTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.scope = QComboBox(self)
        self.scope.setObjectName("annotationScope")
        self.scope.setToolTip(self.tr("Annotate the selected step or the whole run"))
        self.scope.addItem(self.tr("This step"), "step")
        self.scope.addItem(self.tr("Whole run"), "run")
        self.scope.activated.connect(lambda _i: self.refresh())

        self.category = QComboBox(self)
        self.category.setObjectName("annotationCategory")
        self.category.setToolTip(self.tr("The analyst's failure category (keys 1-9, 0)"))
        self.category.addItem(self.tr("— no category —"), None)
        for info in CATEGORIES:
            self.category.addItem(swatch(CATEGORY_COLORS[info.id.value]), f"{info.key}  {category_title(info.id)}",
                                  info.id.value)
        self.category.activated.connect(self._category_chosen)
        self.status = QLabel(self)
        self.status.setObjectName("annotationStatus")
        self.status.setWordWrap(True)

        self.decisive_btn = self._button(self.tr("Decisive (D)"), self.tr("Make this step the run's decisive step"),
                                         self._mark_decisive)
        self.accept_btn = self._button(self.tr("Accept (A)"), self.tr("Accept the judge's suggestion here"),
                                       lambda: self._ctrl_call("accept"))
        self.reject_btn = self._button(self.tr("Reject (R)"), self.tr("Reject the judge's suggestion here"),
                                       lambda: self._ctrl_call("reject"))

        self.tag_edit = QLineEdit(self)
        self.tag_edit.setObjectName("annotationTagEdit")
        self.tag_edit.setPlaceholderText(self.tr("Add a custom tag, Enter"))
        self.tag_edit.returnPressed.connect(self._add_tag)
        self._tag_model = QStringListModel(self)
        completer = QCompleter(self._tag_model, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.tag_edit.setCompleter(completer)
        self.tags_box = QWidget(self)
        self.tags_layout = QHBoxLayout(self.tags_box)
        self.tags_layout.setContentsMargins(0, 0, 0, 0)
        self.tags_layout.setSpacing(4)

        self.note = NoteEdit(self)
        self.note.setObjectName("annotationNote")
        self.note.setPlaceholderText(self.tr("Free-text note (saved automatically)"))
        self.note.setTabChangesFocus(True)
        self.note.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.note.setMinimumHeight(self.fontMetrics().lineSpacing() * 3)
        self.note.setMaximumHeight(self.fontMetrics().lineSpacing() * 7)
        self.note.textChanged.connect(self._note_changed)
        self._note_timer = QTimer(self)
        self._note_timer.setSingleShot(True)
        self._note_timer.setInterval(NOTE_SAVE_DELAY_MS)
        self._note_timer.timeout.connect(self.save_note)
        QShortcut(QKeySequence("Ctrl+Return"), self.note, activated=self.save_note)
        self.note_state = QLabel(self)
        self.note_state.setObjectName("noteState")
        self.others = QLabel(self)
        self.others.setObjectName("otherAuthors")
        self.others.setWordWrap(True)
        self.others.setTextFormat(Qt.TextFormat.RichText)

        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.scope)
        cat_row = QHBoxLayout()
        cat_row.addWidget(QLabel(self.tr("Category"), self))
        cat_row.addWidget(self.category, 1)
        btn_row = QHBoxLayout()
        for b in (self.decisive_btn, self.accept_btn, self.reject_btn):
            btn_row.addWidget(b)
        btn_row.addStretch(1)
        tag_row = QHBoxLayout()
        tag_row.addWidget(self.tag_edit, 1)
        note_head = QHBoxLayout()
        note_head.addWidget(QLabel(self.tr("Note"), self))
        note_head.addStretch(1)
        note_head.addWidget(self.note_state)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.setSpacing(4)
        lay.addLayout(head)
        lay.addLayout(cat_row)
        lay.addWidget(self.status)
        lay.addLayout(btn_row)
        lay.addLayout(tag_row)
        lay.addWidget(self.tags_box)
        lay.addLayout(note_head)
        lay.addWidget(self.note)
        lay.addWidget(self.others)
        lay.addStretch(1)

        bridge.selectionChanged.connect(self._selection_changed)
        bridge.annotationsChanged.connect(self.refresh)
        bridge.tracesChanged.connect(self.refresh)
        self.refresh()

    def _button(self, text: str, tip: str, slot: Any) -> QPushButton:
        b = QPushButton(text, self)
        b.setToolTip(tip)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        b.clicked.connect(slot)
        return b

    def set_controller(self, controller: Any) -> None:
        """Attach the tagging controller (done by ``install_tagging``)."""
        self.controller = controller
        self.refresh()

    # -- target ------------------------------------------------------------------------------------
    @property
    def target(self) -> Target | None:
        """What this editor edits: (run, step) or (run, None)."""
        return self._target

    def _compute_target(self, sel: Selection) -> Target | None:
        if sel.trace_id is None:
            return None
        if sel.step is not None and self.scope.currentData() == "step":
            return (sel.trace_id, int(sel.step))
        return (sel.trace_id, None)

    def _selection_changed(self, sel: Selection) -> None:
        self.save_note()
        here = (sel.trace_id, sel.step)
        if sel.step is not None and here != self._last_pick:
            self.scope.setCurrentIndex(self.scope.findData("step"))
        self._last_pick = here
        self.refresh()

    def _own(self, target: Target) -> dict[str, Any] | None:
        ann = self.session.annotations
        if ann.height == 0 or self.controller is None:
            return None
        tid, step = target
        cond = (pl.col("trace_id") == tid) & (pl.col("author") == self.controller.author)
        cond = cond & (pl.col("step").is_null() | (pl.col("step") < 0) if step is None else pl.col("step") == step)
        rows = ann.filter(cond)
        return rows.row(0, named=True) if rows.height else None

    def _others(self, target: Target) -> list[dict[str, Any]]:
        ann = self.session.annotations
        if ann.height == 0:
            return []
        tid, step = target
        me = self.controller.author if self.controller is not None else None
        cond = pl.col("trace_id") == tid
        cond = cond & (pl.col("step").is_null() | (pl.col("step") < 0) if step is None else pl.col("step") == step)
        return [r for r in ann.filter(cond).iter_rows(named=True) if r["author"] != me]

    # -- rendering -------------------------------------------------------------------------------------
    def refresh(self, *_a: Any) -> None:
        """Show the annotation of the current target."""
        sel = self.session.selection
        self.scope.setEnabled(sel.step is not None)
        if sel.step is None:
            self.scope.setCurrentIndex(self.scope.findData("run"))
        target = self._compute_target(sel)
        if target != self._note_target and self._dirty():
            self.save_note()  # the note belongs to the previous target
        self._target = target
        enabled = target is not None and self.controller is not None
        for w in (self.category, self.tag_edit, self.note, self.accept_btn, self.reject_btn):
            w.setEnabled(enabled)
        self.decisive_btn.setEnabled(enabled and target is not None and target[1] is not None)
        self._loading = True
        try:
            self._render(target)
        finally:
            self._loading = False

    def _render(self, target: Target | None) -> None:
        if target is None:
            heading = self.tr("Annotation")
            self.title.setText(f"<b>{html.escape(heading)}</b>")
            self.status.setText(self.tr("Select a run or a step to annotate it."))
            self.category.setCurrentIndex(0)
            self._set_tags([])
            self._show_note(None, "")
            self.others.clear()
            return
        tid, step = target
        where = (self.tr("step {n}").format(n=step) if step is not None else self.tr("whole run"))
        heading = self.tr("Annotation")
        self.title.setText(f"<b>{html.escape(heading)}</b> · {html.escape(str(tid)[:12])} · {html.escape(where)}")
        if self.controller is None:
            self.status.setText(self.tr("No workspace is open."))
            return
        row = self._own(target)
        cat = row.get("category") if row else None
        self.category.setCurrentIndex(max(0, self.category.findData(cat)) if cat else 0)
        bits = []
        if row:
            bits.append(status_label(str(row.get("status") or "accepted")))
            if row.get("status") == "decisive":
                bits[-1] = self.tr("analyst's decisive step")
            bits.append(self.tr("by {author} at {time}").format(author=row.get("author"),
                                                                 time=str(row.get("timestamp") or "")[:19].replace("T", " ")))
        else:
            bits.append(self.tr("not annotated yet"))
        sugg = self._suggestion_text(target)
        if sugg:
            bits.append(sugg)
        self.status.setText(" · ".join(bits))
        tags = [t for t in str(row.get("tags") or "").split(",") if t] if row else []
        self._set_tags(tags)
        if self._note_target != target or not self._dirty():
            self._show_note(target, str(row.get("note") or "") if row else "")
        self._tag_model.setStringList(self._known_tags())
        others = self._others(target)
        if others:
            lines = []
            for o in others:
                c = o.get("category")
                chip = (f"<span style='color:{CATEGORY_COLORS.get(str(c), '#BAB0AC')}'>■</span> "
                        f"{html.escape(category_title(str(c)))}" if c else html.escape(status_label(o.get("status"))))
                note = f" — {html.escape(str(o['note'])[:200])}" if o.get("note") else ""
                lines.append(f"{html.escape(str(o['author']))}: {chip}{note}")
            others_label = self.tr("Other analysts:")
            self.others.setText(f"<span>{html.escape(others_label)}</span><br>" + "<br>".join(lines))
        else:
            self.others.clear()

    def _suggestion_text(self, target: Target) -> str:
        tid, step = target
        run = self.session.run_row(tid) or {}
        if step is None:
            if run.get("category") and run.get("decisive_step") is not None:
                return self.tr("judge: {category} at step {step}").format(
                    category=category_title(str(run["category"])), step=run["decisive_step"])
            return ""
        found = self.session.run_findings(tid)
        here = found.filter(pl.col("step") == step) if found.height else found
        ids = [str(c) for c in here["category"].to_list()] if here.height else []
        decisive = str(run["category"]) if run.get("decisive_step") == step and run.get("category") else None
        if decisive:
            ids.insert(0, decisive)
        names = [category_title(c) + (" " + self.tr("(decisive)") if c == decisive else "") for c in dict.fromkeys(ids)]
        return self.tr("judge: {categories}").format(categories=", ".join(names)) if names else ""

    def _known_tags(self) -> list[str]:
        ann = self.session.annotations
        if ann.height == 0:
            return []
        tags: set[str] = set()
        for t in ann["tags"].drop_nulls().unique().to_list():
            tags.update(x for x in str(t).split(",") if x)
        return sorted(tags)

    def _set_tags(self, tags: list[str]) -> None:
        while self.tags_layout.count():
            item = self.tags_layout.takeAt(0)
            w = item.widget() if item is not None else None
            if w is not None:
                w.deleteLater()
        for t in tags:
            b = QToolButton(self.tags_box)
            b.setObjectName(f"tagChip_{t}")
            b.setText(f"{tag_label(t)}  ✕")
            b.setToolTip(self.tr("Remove the tag “{tag}”").format(tag=tag_label(t)))
            b.setAutoRaise(False)
            b.clicked.connect(lambda *_a, tag=t: self._remove_tag(tag))
            self.tags_layout.addWidget(b)
        self.tags_layout.addStretch(1)
        self.tags_box.setVisible(bool(tags))

    def _show_note(self, target: Target | None, text: str) -> None:
        self._note_timer.stop()
        self._note_target = target
        self._note_saved = text
        if self.note.toPlainText() != text:
            self.note.setPlainText(text)
        self.note_state.setText(self.tr("saved") if text else "")

    def _dirty(self) -> bool:
        return self.note.toPlainText() != self._note_saved

    # -- editing ------------------------------------------------------------------------------------------
    def _ctrl_call(self, name: str) -> None:
        if self.controller is not None:
            getattr(self.controller, name)()

    def _category_chosen(self, _index: int) -> None:
        if self._loading or self.controller is None or self._target is None:
            return
        self.controller.set_category([self._target], self.category.currentData())

    def _mark_decisive(self) -> None:
        if self.controller is None or self._target is None or self._target[1] is None:
            return
        self.controller.mark_decisive(self._target[0], self._target[1])

    def _add_tag(self) -> None:
        tag = self.tag_edit.text().strip()
        if not tag or self.controller is None or self._target is None:
            return
        if self.controller.add_tag([self._target], tag) is not None:
            self.tag_edit.clear()

    def _remove_tag(self, tag: str) -> None:
        if self.controller is not None and self._target is not None:
            self.controller.remove_tag([self._target], tag)

    def _note_changed(self) -> None:
        if self._loading:
            return
        if self._dirty():
            self.note_state.setText(self.tr("editing…"))
            self._note_timer.start()

    def save_note(self) -> None:
        """Save the note now if it changed (one workspace action)."""
        self._note_timer.stop()
        target = self._note_target
        if target is None or self.controller is None or not self._dirty():
            return
        text = self.note.toPlainText()
        if self.controller.set_note(target, text) is not None:
            self._note_saved = text
            self.note_state.setText(self.tr("saved"))
        else:
            self.note_state.setText(self.tr("not saved"))


def create_annotation_editor(session: Session, bridge: SessionBridge, parent: QWidget | None = None) -> QWidget:
    """Factory the inspector calls to fill its annotation slot."""
    return AnnotationEditor(session, bridge, parent)
