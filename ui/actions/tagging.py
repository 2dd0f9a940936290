"""The tagging desk's actions: keyboard tagging, accept/reject, undo/redo and the workspace.

``install_tagging(main_window)`` (called by ``MainWindow.__init__``) adds:

- keys ``1``-``9`` and ``0``: tag the selected steps (when the transcript or a plot has the
  focus) or the selected runs (runs table) with the taxonomy category of that key;
- ``D``: the selected step becomes the run's decisive step (overrides the suggested one);
- ``A`` / ``R``: accept / reject the judge's suggestion at the current finding or step (or,
  for runs, the suggested decisive step); in the tagging desk they act on the queue item;
- ``T``: add a custom tag to the selection; Edit ▸ Tag all runs matching the filter;
- ``Shift+F`` / ``Shift+S`` / ``Shift+U``: the selected runs failed / succeeded / have an unknown
  outcome, in the analyst's word (Edit ▸ Outcome of the selected runs); counted everywhere;
- ``Ctrl+Z`` / ``Ctrl+Shift+Z``: undo / redo (the Edit menu names the action);
- File ▸ New/Open workspace, analyst name, annotation import/export, report export.

Every action is one transaction of :class:`analyzer.workspace.Workspace`; the status bar says
"Saved" only after the transaction committed. The workspace file comes from
``trajscope open --workspace FILE``, else the last one used, else ``workspace.trajscope`` in
the user data folder. The analyst name comes from the settings (``author``).
"""

from __future__ import annotations

import contextlib
import getpass
import sqlite3
import weakref
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl
from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QInputDialog, QLabel, QMenu, QWidget

from analyzer.session import Session
from analyzer.taxonomy import CATEGORIES
from analyzer.workspace import Workspace, WorkspaceError
from analyzer.workspace.store import Target
from ui.dialogs.file_dialogs import FileDialog
from ui.i18n.labels import category_title, outcome_label, tag_label

WORKSPACE_SUFFIX = ".trajscope"
DEFAULT_WORKSPACE_NAME = "workspace" + WORKSPACE_SUFFIX
MAX_RECENT_WORKSPACES = 8

_WORKSPACES: weakref.WeakKeyDictionary[Session, Workspace] = weakref.WeakKeyDictionary()
"""The open workspace of each session (kept when the window is rebuilt)."""


# -- settings ------------------------------------------------------------------------------------
def _settings() -> Any:
    from analyzer.settings import load_settings

    return load_settings()


def _save(settings: Any) -> None:
    from analyzer.settings import save_settings

    save_settings(settings)


def analyst_name() -> str:
    """The analyst name from the settings (default: the login name)."""
    name = _settings().extra.get("author")
    if isinstance(name, str) and name.strip():
        return name.strip()
    with contextlib.suppress(Exception):
        return getpass.getuser() or "analyst"
    return "analyst"


def set_analyst_name(name: str) -> None:
    """Store the analyst name in the settings."""
    s = _settings()
    s.extra["author"] = name.strip()
    _save(s)


def default_workspace_path() -> Path:
    """``workspace.trajscope`` in the user data folder."""
    from analyzer.settings import data_dir

    return data_dir() / DEFAULT_WORKSPACE_NAME


def recent_workspaces() -> list[Path]:
    """Workspaces opened before, most recent first."""
    raw = _settings().extra.get("recent_workspaces")
    return [Path(p) for p in raw if isinstance(p, str)] if isinstance(raw, list) else []


def remember_workspace(path: Path) -> None:
    """Put a workspace at the top of the recent list."""
    s = _settings()
    items = [str(path)] + [str(p) for p in recent_workspaces() if str(p) != str(path)]
    s.extra["recent_workspaces"] = items[:MAX_RECENT_WORKSPACES]
    _save(s)


def _inside(widget: QWidget | None, host: QWidget | None) -> bool:
    if widget is None or host is None:
        return False
    with contextlib.suppress(RuntimeError):
        return widget is host or host.isAncestorOf(widget)
    return False


# -- the controller ----------------------------------------------------------------------------------
class TaggingController(QObject):
    """Owns the workspace of a main window and every tagging action.

    Signals:
        saved(label, rows): An action was committed to the workspace (emitted after COMMIT).
        workspaceChanged(object): Another workspace file was opened (its Path).
        historyChanged: Undo/redo availability changed.
    """

    saved = Signal(str, int)
    workspaceChanged = Signal(object)
    historyChanged = Signal()

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.session: Session = window.session
        self.bridge = window.bridge
        self.workspace: Workspace | None = _WORKSPACES.get(self.session)
        self.focus_mode = "runs"
        self.desk: Any = None
        self.editor: Any = None
        self.insights: Any = None
        self._build_actions()
        self._build_menus()
        self._build_status()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus)
        if self.workspace is not None:
            self._workspace_opened()
        QTimer.singleShot(0, self.open_initial_workspace)

    # -- construction -----------------------------------------------------------------------------
    def _action(self, text: str, slot: Callable[[], Any], keys: list[QKeySequence] | None = None,
                tip: str | None = None, name: str | None = None) -> QAction:
        a = QAction(text, self.window)
        if keys:
            a.setShortcuts(keys)
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            a.setToolTip(tip)
            a.setStatusTip(tip)
        if name:
            a.setObjectName(name)
        a.triggered.connect(lambda *_a: slot())
        self.window.addAction(a)
        return a

    def _build_actions(self) -> None:
        self.act_undo = self._action(self.tr("&Undo"), self.undo, [QKeySequence("Ctrl+Z")],
                                     self.tr("Undo the last tagging action"), "actUndo")
        self.act_redo = self._action(self.tr("&Redo"), self.redo, [QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")],
                                     self.tr("Redo the last undone tagging action"), "actRedo")
        self.category_actions: dict[str, QAction] = {}
        for info in CATEGORIES:
            key = info.key
            keypad = QKeySequence(Qt.KeyboardModifier.KeypadModifier | Qt.Key(Qt.Key.Key_0.value + int(key)))
            act = self._action(
                self.tr("Tag as {category}").format(category=category_title(info.id)),
                lambda c=info.id.value: self.tag(c), [QKeySequence(key), keypad],
                self.tr("Tag the selected steps (transcript) or runs (runs table) with this category"),
                f"actTag_{info.id.value}")
            self.category_actions[info.id.value] = act
        self.act_clear = self._action(self.tr("Clear category"), lambda: self.tag(None), None,
                                      self.tr("Remove the analyst's category from the selected steps or runs"), "actClearTag")
        self.act_decisive = self._action(self.tr("Mark as &decisive step"), self.mark_decisive, [QKeySequence("D")],
                                         self.tr("Make the selected step the run's decisive step (overrides the suggestion)"),
                                         "actMarkDecisive")
        self.act_accept = self._action(self.tr("&Accept suggestion"), self.accept, [QKeySequence("A")],
                                       self.tr("Accept the judge's suggestion at the current finding or step"), "actAccept")
        self.act_reject = self._action(self.tr("&Reject suggestion"), self.reject, [QKeySequence("R")],
                                       self.tr("Reject the judge's suggestion at the current finding or step"), "actReject")
        self.act_add_tag = self._action(self.tr("Add custom &tag…"), self.add_tag_dialog, [QKeySequence("T")],
                                        self.tr("Add a custom tag to the selected steps or runs"), "actAddTag")
        self.outcome_actions: dict[str, QAction] = {}
        for outcome, key, text, tip in (
                ("failure", "Shift+F", self.tr("&Failed"), self.tr("The selected runs failed (your word wins over the file's)")),
                ("success", "Shift+S", self.tr("&Succeeded"), self.tr("The selected runs succeeded (your word wins over the file's)")),
                ("unknown", "Shift+U", self.tr("&Unknown"), self.tr("The outcome of the selected runs is not known"))):
            self.outcome_actions[outcome] = self._action(text, lambda o=outcome: self.set_outcome(o), [QKeySequence(key)],
                                                         tip, f"actOutcome_{outcome}")
        self.act_outcome_clear = self._action(self.tr("Use the &recorded outcome"), lambda: self.set_outcome(None), None,
                                              self.tr("Take back your outcome of the selected runs"), "actOutcome_clear")
        self.filter_actions: dict[str, QAction] = {}
        for info in CATEGORIES:
            a = QAction(f"{info.key}  {category_title(info.id)}", self.window)
            a.setObjectName(f"actTagFiltered_{info.id.value}")
            a.triggered.connect(lambda *_a, c=info.id.value: self.tag_filtered(c))
            self.filter_actions[info.id.value] = a
        self.act_review = self._action(self.tr("Review &queue"), self.show_desk, [QKeySequence("Ctrl+3")],
                                       self.tr("Walk the judge's suggestions one by one"), "actReviewQueue")
        self.act_new_ws = self._action(self.tr("&New workspace…"), self.new_workspace_dialog, None,
                                       self.tr("Start an empty workspace file for annotations"), "actNewWorkspace")
        self.act_open_ws = self._action(self.tr("Open &workspace…"), self.open_workspace_dialog, None,
                                        self.tr("Open a workspace file with annotations"), "actOpenWorkspace")
        self.act_author = self._action(self.tr("Analyst &name…"), self.author_dialog, None,
                                       self.tr("Name written with every annotation"), "actAuthor")
        self.act_export = self._action(self.tr("&Report and tables…"), self.export_dialog, [QKeySequence("Ctrl+E")],
                                       self.tr("Export CSV/Parquet tables and the annotated HTML, PDF and Markdown report"),
                                       "actExportReport")
        self.act_export_ann = self._action(self.tr("&Annotations as JSONL…"), self.export_annotations_dialog, None,
                                           self.tr("Share your annotations with another analyst"), "actExportAnnotations")
        self.act_import_ann = self._action(self.tr("&Import annotations…"), self.import_annotations_dialog, None,
                                           self.tr("Merge another analyst's annotations (JSONL) and review conflicts"),
                                           "actImportAnnotations")
        self._update_history()

    def _build_menus(self) -> None:
        w = self.window
        self.edit_menu = QMenu(self.tr("&Edit"), w)
        self.edit_menu.setObjectName("editMenu")
        w.menuBar().insertMenu(w.analysis_menu.menuAction(), self.edit_menu)
        self.edit_menu.addAction(self.act_undo)
        self.edit_menu.addAction(self.act_redo)
        self.edit_menu.addSeparator()
        tag_menu = self.edit_menu.addMenu(self.tr("Tag &selection as"))
        for a in self.category_actions.values():
            tag_menu.addAction(a)
        tag_menu.addSeparator()
        tag_menu.addAction(self.act_clear)
        self.edit_menu.addAction(self.act_decisive)
        self.edit_menu.addAction(self.act_accept)
        self.edit_menu.addAction(self.act_reject)
        self.edit_menu.addAction(self.act_add_tag)
        outcome_menu = self.edit_menu.addMenu(self.tr("&Outcome of the selected runs"))
        outcome_menu.setObjectName("outcomeMenu")
        for a in self.outcome_actions.values():
            outcome_menu.addAction(a)
        outcome_menu.addSeparator()
        outcome_menu.addAction(self.act_outcome_clear)
        self.edit_menu.addSeparator()
        self.filter_menu = self.edit_menu.addMenu(self.tr("Tag all runs &matching the filter as"))
        self.filter_menu.setObjectName("tagFilteredMenu")
        for a in self.filter_actions.values():
            self.filter_menu.addAction(a)
        self.edit_menu.addSeparator()
        self.edit_menu.addAction(self.act_review)
        # File menu: workspace and sharing, before Settings
        before = w.act_settings
        fm = w.file_menu
        for a in (self.act_new_ws, self.act_open_ws):
            fm.insertAction(before, a)
        self.recent_ws_menu = QMenu(self.tr("Recent workspaces"), w)
        self.recent_ws_menu.aboutToShow.connect(self._fill_recent_workspaces)
        fm.insertMenu(before, self.recent_ws_menu)
        fm.insertAction(before, self.act_author)
        fm.insertSeparator(before)
        fm.insertAction(before, self.act_import_ann)
        fm.insertSeparator(before)
        w.export_menu.addSeparator()
        w.export_menu.addAction(self.act_export)
        w.export_menu.addAction(self.act_export_ann)
        acts = w.view_menu.actions()
        i = acts.index(w.act_tab_compare) + 1 if w.act_tab_compare in acts else len(acts)
        w.view_menu.insertAction(acts[i] if i < len(acts) else None, self.act_review)

    def _build_status(self) -> None:
        self.save_label = QLabel(self.window)
        self.save_label.setObjectName("saveStatus")
        self.workspace_label = QLabel(self.window)
        self.workspace_label.setObjectName("workspaceLabel")
        sb = self.window.statusBar()
        sb.addPermanentWidget(self.save_label)
        sb.addPermanentWidget(self.workspace_label)

    def _fill_recent_workspaces(self) -> None:
        m = self.recent_ws_menu
        m.clear()
        items = recent_workspaces()
        if not items:
            a = m.addAction(self.tr("(nothing yet)"))
            a.setEnabled(False)
        for p in items:
            m.addAction(str(p), lambda *_a, path=p: self.open_workspace(path))

    # -- workspace ----------------------------------------------------------------------------------
    def open_initial_workspace(self) -> None:
        """Open ``--workspace`` (``window.workspace_path``), else the last or default workspace."""
        try:
            wanted = getattr(self.window, "workspace_path", None)
        except RuntimeError:  # the window is gone
            return
        if wanted:
            path = Path(wanted).expanduser()
            if self.workspace is None or self.workspace.path.resolve() != path.resolve():
                self.open_workspace(path)
            return
        if self.workspace is None:
            # the newest recent workspace that still exists: re-creating a vanished one (a
            # deleted folder, a temporary file) would start an empty workspace where the
            # analyst expects their annotations
            last = recent_workspaces()
            alive = next((p for p in last if p.is_file()), None)
            if last and alive != last[0]:
                target = alive or default_workspace_path()
                self.window.message_bar.show_message("warning", self.tr(
                    "The last workspace {missing} no longer exists; opened {path} instead.").format(
                    missing=last[0], path=target))
            self.open_workspace(alive or default_workspace_path())

    def open_workspace(self, path: str | Path) -> bool:
        """Open (or create) a workspace file; False with a message if it cannot be used."""
        target = Path(path).expanduser()
        try:
            ws = Workspace(target, author=analyst_name())
        except (WorkspaceError, OSError, sqlite3.Error) as exc:
            err = exc.reason if isinstance(exc, WorkspaceError) else exc  # the reason and the remedy; the path is shown
            self.window.show_error(self.tr("Cannot open the workspace {path}: {err}").format(path=target, err=err),
                                   repr(exc))
            return False
        old = self.workspace
        self.workspace = ws
        _WORKSPACES[self.session] = ws
        if old is not None and old is not ws:
            with contextlib.suppress(Exception):
                old.close()
        if getattr(self.window, "persist", True):  # screenshots and scripts leave the recent list alone
            with contextlib.suppress(Exception):
                remember_workspace(target.resolve())
        self._workspace_opened()
        return True

    def _workspace_opened(self) -> None:
        ws = self.workspace
        if ws is None:
            return
        self.session.set_annotations(ws.annotations_frame())
        self.workspace_label.setText(self.tr("Workspace: {name}").format(name=ws.path.name))
        self.workspace_label.setToolTip(self.tr("{path}\nAnalyst: {author}").format(path=ws.path, author=ws.author))
        self.save_label.setText("")
        self._update_history()
        self.workspaceChanged.emit(ws.path)

    def ensure_workspace(self) -> Workspace | None:
        """The open workspace (opening the default one if none is open yet)."""
        if self.workspace is None:
            self.open_initial_workspace()
        return self.workspace

    def new_workspace_dialog(self) -> None:
        """File ▸ New workspace."""
        path, _ = FileDialog.getSaveFileName(self.window, self.tr("New workspace"),
                                              str(default_workspace_path().parent / ("analysis" + WORKSPACE_SUFFIX)),
                                              self.tr("TrajScope workspace (*.trajscope)"))
        if path:
            if not path.endswith(WORKSPACE_SUFFIX) and not Path(path).exists():
                path += WORKSPACE_SUFFIX
            self.open_workspace(path)

    def open_workspace_dialog(self) -> None:
        """File ▸ Open workspace."""
        path, _ = FileDialog.getOpenFileName(self.window, self.tr("Open workspace"), str(default_workspace_path().parent),
                                              self.tr("TrajScope workspace (*.trajscope *.db *.sqlite);;All files (*)"))
        if path:
            self.open_workspace(path)

    def author_dialog(self) -> None:
        """File ▸ Analyst name."""
        name, ok = QInputDialog.getText(self.window, self.tr("Analyst name"),
                                        self.tr("Name written with each of your annotations:"), text=analyst_name())
        if ok and name.strip():
            self.set_author(name.strip())

    def set_author(self, name: str) -> None:
        """Change the analyst name (settings and the open workspace)."""
        set_analyst_name(name)
        if self.workspace is not None:
            self.workspace.author = name
            self._workspace_opened()

    @property
    def author(self) -> str:
        """Author of new annotations."""
        return self.workspace.author if self.workspace is not None else analyst_name()

    # -- focus and targets ---------------------------------------------------------------------------
    def _on_focus(self, _old: QWidget | None, new: QWidget | None) -> None:
        try:
            w = self.window
            if _inside(new, w.runs_panel.table):
                self.focus_mode = "runs"
            elif _inside(new, w.transcript.list) or _inside(new, getattr(w, "plots", None)):
                self.focus_mode = "steps"
            elif self.desk is not None and _inside(new, self.desk):
                self.focus_mode = "desk"
            elif self.insights is not None and _inside(new, self.insights.table):
                self.focus_mode = "insights"
        except RuntimeError:  # window already deleted
            return

    def desk_active(self) -> bool:
        """True when the tagging desk tab is in front and keys should act on its queue."""
        if self.desk is None:
            return False
        try:
            return bool(self.window.tabs.currentWidget() is self.desk and self.focus_mode != "runs")
        except RuntimeError:
            return False

    def insights_active(self) -> bool:
        """True when the Insights tab is in front with its table focused: keys act on the whole insight."""
        if self.insights is None or self.focus_mode != "insights":
            return False
        try:
            return bool(self.window.tabs.currentWidget() is self.insights)
        except RuntimeError:
            return False

    def targets(self) -> list[Target]:
        """What a tag key applies to: selected steps (transcript focus) or selected runs."""
        sel = self.session.selection
        if self.focus_mode == "steps" and sel.trace_id and (sel.steps or sel.step is not None):
            steps = sel.steps or ((sel.step,) if sel.step is not None else ())
            return [(sel.trace_id, int(s)) for s in steps]
        ids = sel.trace_ids or ((sel.trace_id,) if sel.trace_id else ())
        return [(t, None) for t in ids]

    def suggestions(self) -> list[tuple[str, int, str]]:
        """The judge's suggestions at the current finding/step, or the selected runs' decisive steps."""
        sel = self.session.selection
        if self.focus_mode != "runs" and sel.trace_id:
            found = self.session.run_findings(sel.trace_id)
            if sel.finding is not None:
                row = found.filter(pl.col("finding") == sel.finding)
                if row.height:
                    r = row.row(0, named=True)
                    return [(str(r["trace_id"]), int(r["step"]), str(r["category"]))]
            if sel.step is not None:
                here = found.filter(pl.col("step") == sel.step).sort("score", descending=True, nulls_last=True)
                if here.height:
                    r = here.row(0, named=True)
                    return [(str(r["trace_id"]), int(r["step"]), str(r["category"]))]
                run = self.session.run_row(sel.trace_id) or {}
                if run.get("decisive_step") == sel.step and run.get("category"):
                    return [(sel.trace_id, int(sel.step), str(run["category"]))]
                return []
        ids = sel.trace_ids or ((sel.trace_id,) if sel.trace_id else ())
        out: list[tuple[str, int, str]] = []
        if ids:
            view = self.session.runs_view().filter(pl.col("trace_id").is_in(list(ids)))
            for r in view.select("trace_id", "decisive_step", "category").iter_rows():
                if r[1] is not None and r[2]:
                    out.append((str(r[0]), int(r[1]), str(r[2])))
        return out

    # -- committing ---------------------------------------------------------------------------------------
    def commit(self, label: str, fn: Callable[[Workspace], int], undo_action: bool = False) -> int | None:
        """Run one workspace action; refresh the views and say "Saved" once it committed.

        Args:
            label: What the status bar says was saved.
            fn: The action (one transaction); returns the number of rows changed.
            undo_action: Offer "Undo" in the message bar afterwards (bulk actions).

        Returns:
            Rows changed, or None when nothing could be saved.
        """
        ws = self.ensure_workspace()
        if ws is None:
            self.window.show_error(self.tr("Not saved: no workspace is open (File ▸ Open workspace)."))
            return None
        try:
            n = fn(ws)
        except (WorkspaceError, sqlite3.Error, OSError) as exc:
            self.save_label.setText(self.tr("⚠ Not saved"))
            self.save_label.setStyleSheet("color: #D64545; font-weight: bold;")
            self.window.show_error(self.tr("Not saved: {err}").format(err=exc), repr(exc))
            return None
        self._after_write(label, n)
        if undo_action and n:
            self.window.message_bar.show_message("success", label, actions=[(self.tr("Undo"), self.undo)])
        return n

    def _after_write(self, label: str, n: int) -> None:
        ws = self.workspace
        if ws is None:
            return
        self.session.set_annotations(ws.annotations_frame())
        self._update_history()
        stamp = datetime.now().strftime("%H:%M:%S")
        if n:
            self.save_label.setText(self.tr("✓ Saved {time} · {what}").format(time=stamp, what=label))
        else:
            self.save_label.setText(self.tr("Nothing to change · {what}").format(what=label))
        self.save_label.setStyleSheet("color: #2E9E5B;" if n else "")
        self.save_label.setToolTip(str(ws.path))
        self.saved.emit(label, n)

    def _update_history(self) -> None:
        ws = self.workspace
        label = ws.undo_label() if ws is not None else None
        self.act_undo.setEnabled(bool(ws and ws.can_undo()))
        self.act_redo.setEnabled(bool(ws and ws.can_redo()))
        self.act_undo.setText(self.tr("&Undo {action}").format(action=label) if label else self.tr("&Undo"))
        redo_label = ws.redo_label() if ws is not None else None
        self.act_redo.setText(self.tr("&Redo {action}").format(action=redo_label) if redo_label else self.tr("&Redo"))
        self.historyChanged.emit()

    def _count_text(self, targets: list[Target]) -> str:
        runs = sum(1 for _t, s in targets if s is None)
        steps = len(targets) - runs
        parts = []
        if runs:
            parts.append(self.tr("1 run") if runs == 1 else self.tr("{n} runs").format(n=runs))
        if steps:
            parts.append(self.tr("1 step") if steps == 1 else self.tr("{n} steps").format(n=steps))
        return ", ".join(parts)

    def _nothing_selected(self) -> None:
        self.window.message_bar.show_message("info", self.tr("Select runs in the table or steps in the transcript first."))

    # -- actions ---------------------------------------------------------------------------------------------------
    def tag(self, category: str | None) -> int | None:
        """Tag the selection (or relabel the review-queue item) with a category (None clears)."""
        if category is not None and self.desk_active():
            return self.desk.relabel(category)
        if self.insights_active():
            return self.insights.tag_insight(category)
        targets = self.targets()
        if not targets:
            self._nothing_selected()
            return None
        what = category_title(category) if category else self.tr("no category")
        label = self.tr("Tagged {targets} as {category}").format(targets=self._count_text(targets), category=what)
        return self.commit(label, lambda ws: ws.set_category(targets, category))

    def set_category(self, targets: list[Target], category: str | None) -> int | None:
        """Set a category on explicit targets (used by the annotation editor)."""
        what = category_title(category) if category else self.tr("no category")
        label = self.tr("Tagged {targets} as {category}").format(targets=self._count_text(targets), category=what)
        return self.commit(label, lambda ws: ws.set_category(targets, category))

    def tag_filtered(self, category: str) -> int | None:
        """Tag every run the runs table shows (the current filter) with a category."""
        ids = [str(t) for t in self.session.filtered_runs()["trace_id"].to_list()]
        if not ids:
            self.window.message_bar.show_message("info", self.tr("No run matches the current filter."))
            return None
        label = self.tr("Tagged {n} runs matching the filter as {category}").format(n=len(ids), category=category_title(category))
        return self.commit(label, lambda ws: ws.set_category([(t, None) for t in ids], category), undo_action=True)

    def mark_decisive(self, trace_id: str | None = None, step: int | None = None,
                      category: str | None = None) -> int | None:
        """Make a step (default: the selected one) its run's decisive step."""
        if trace_id is None and self.desk_active():
            return self.desk.mark_decisive()
        sel = self.session.selection
        tid = trace_id or sel.trace_id
        st = step if step is not None else sel.step
        if tid is None or st is None:
            self.window.message_bar.show_message("info", self.tr("Select a step in the transcript first."))
            return None
        label = self.tr("Step {step} marked as the decisive step").format(step=st)
        return self.commit(label, lambda ws: ws.mark_decisive(tid, int(st), category))

    def accept(self, items: list[tuple[str, int, str]] | None = None) -> int | None:
        """Accept the judge's suggestion(s) (default: at the current finding/step or selected runs)."""
        if items is None and self.desk_active():
            return self.desk.accept()
        if items is None and self.insights_active():
            return self.insights.accept_insight()
        items = self.suggestions() if items is None else items
        if not items:
            self.window.message_bar.show_message("info", self.tr("There is no judge suggestion here to accept."))
            return None
        label = (self.tr("Accepted 1 suggestion") if len(items) == 1
                 else self.tr("Accepted {n} suggestions").format(n=len(items)))
        return self.commit(label, lambda ws: ws.accept(items))

    def reject(self, targets: list[Target] | None = None) -> int | None:
        """Reject the judge's suggestion(s) (default: at the current finding/step or selected runs)."""
        if targets is None and self.desk_active():
            return self.desk.reject()
        if targets is None and self.insights_active():
            return self.insights.reject_insight()
        if targets is None:
            targets = [(t, s) for t, s, _c in self.suggestions()]
        if not targets:
            self.window.message_bar.show_message("info", self.tr("There is no judge suggestion here to reject."))
            return None
        label = (self.tr("Rejected 1 suggestion") if len(targets) == 1
                 else self.tr("Rejected {n} suggestions").format(n=len(targets)))
        return self.commit(label, lambda ws: ws.reject(targets))

    def set_outcome(self, outcome: str | None, trace_ids: list[str] | None = None) -> int | None:
        """The analyst's outcome of the selected runs (or ``trace_ids``); None takes it back. Undoable."""
        if trace_ids is None:
            sel = self.session.selection
            trace_ids = list(sel.trace_ids or ((sel.trace_id,) if sel.trace_id else ()))
        if not trace_ids:
            self.window.message_bar.show_message("info", self.tr("Select runs in the table first."))
            return None
        n = len(trace_ids)
        runs = self.tr("1 run") if n == 1 else self.tr("{n} runs").format(n=n)
        if outcome is None:
            label = self.tr("{runs}: back to the recorded outcome").format(runs=runs)
        else:
            label = self.tr("{runs} marked as {outcome}").format(runs=runs, outcome=outcome_label(outcome))
        ids = list(trace_ids)
        return self.commit(label, lambda ws: ws.set_outcome(ids, outcome), undo_action=n > 1)

    def add_tag(self, targets: list[Target], tag: str) -> int | None:
        """Add a custom tag."""
        label = self.tr("Tag “{tag}” added to {targets}").format(tag=tag_label(tag), targets=self._count_text(targets))
        return self.commit(label, lambda ws: ws.add_tag(targets, tag))

    def remove_tag(self, targets: list[Target], tag: str) -> int | None:
        """Remove a custom tag."""
        label = self.tr("Tag “{tag}” removed").format(tag=tag_label(tag))
        return self.commit(label, lambda ws: ws.remove_tag(targets, tag))

    def set_note(self, target: Target, note: str) -> int | None:
        """Save a free-text note."""
        return self.commit(self.tr("Note saved"), lambda ws: ws.set_note(target, note))

    def add_tag_dialog(self) -> None:
        """Edit ▸ Add custom tag: ask for a tag and add it to the selection."""
        targets = self.targets()
        if not targets:
            self._nothing_selected()
            return
        tag, ok = QInputDialog.getText(self.window, self.tr("Add custom tag"),
                                       self.tr("Tag for {targets}:").format(targets=self._count_text(targets)))
        if ok and tag.strip():
            self.add_tag(targets, tag.strip())

    def undo(self) -> str | None:
        """Undo the last action (one transaction)."""
        ws = self.workspace
        if ws is None or not ws.can_undo():
            return None
        try:
            label = ws.undo()
        except (WorkspaceError, sqlite3.Error) as exc:
            self.window.show_error(self.tr("Undo failed: {err}").format(err=exc), repr(exc))
            return None
        self._after_write(self.tr("Undid {action}").format(action=label), 1)
        return label

    def redo(self) -> str | None:
        """Redo the last undone action (one transaction)."""
        ws = self.workspace
        if ws is None or not ws.can_redo():
            return None
        try:
            label = ws.redo()
        except (WorkspaceError, sqlite3.Error) as exc:
            self.window.show_error(self.tr("Redo failed: {err}").format(err=exc), repr(exc))
            return None
        self._after_write(self.tr("Redid {action}").format(action=label), 1)
        return label

    def show_desk(self) -> None:
        """Bring the tagging desk (review queue) to the front."""
        if self.desk is not None:
            self.window.show_tab("tagging")
            self.focus_mode = "desk"
            self.desk.setFocus()

    # -- sharing and exports ---------------------------------------------------------------------------------------
    def export_dialog(self) -> None:
        """File ▸ Export ▸ Report and tables."""
        from ui.dialogs.export_dialog import ExportDialog

        ExportDialog(self.session, self.window).exec()

    def export_annotations_dialog(self) -> None:
        """File ▸ Export ▸ Annotations as JSONL."""
        ws = self.ensure_workspace()
        if ws is None:
            return
        path, _ = FileDialog.getSaveFileName(self.window, self.tr("Export annotations"),
                                              f"annotations-{ws.author}.jsonl", self.tr("JSON Lines (*.jsonl)"))
        if path:
            self.export_annotations(path)

    def export_annotations(self, path: str | Path) -> int | None:
        """Write every annotation of the workspace as JSONL."""
        ws = self.ensure_workspace()
        if ws is None:
            return None
        try:
            n = ws.export_jsonl(path)
        except OSError as exc:
            self.window.show_error(self.tr("Could not export annotations: {err}").format(err=exc), repr(exc))
            return None
        self.window.message_bar.show_message("success", self.tr("Exported {n} annotations to {path}.").format(n=n, path=path))
        return n

    def import_annotations_dialog(self) -> None:
        """File ▸ Import annotations."""
        path, _ = FileDialog.getOpenFileName(self.window, self.tr("Import annotations"), "",
                                              self.tr("JSON Lines (*.jsonl);;All files (*)"))
        if path:
            self.import_annotations(path, show=True)

    def import_annotations(self, path: str | Path, show: bool = False) -> Any:
        """Merge a JSONL export; returns the ImportReport (and shows it when ``show``)."""
        from ui.dialogs.annotations_import import ImportReportDialog

        ws = self.ensure_workspace()
        if ws is None:
            return None
        holder: dict[str, Any] = {}

        def run(w: Workspace) -> int:
            rep = w.import_jsonl(path)
            holder["report"] = rep
            return rep.added + rep.updated

        self.commit(self.tr("Imported annotations from {name}").format(name=Path(path).name), run)
        report = holder.get("report")
        if report is not None and show:
            ImportReportDialog(report, self, self.window).exec()
        return report


def install_tagging(main_window: Any) -> TaggingController:
    """Add the tagging desk to a main window (called by ``MainWindow.__init__``)."""
    ctrl = TaggingController(main_window)
    main_window.tagging = ctrl
    from ui.views.tagging_desk import TaggingDesk

    ctrl.desk = TaggingDesk(ctrl, main_window)
    main_window.add_tab(ctrl.desk, QCoreApplication.translate("TaggingController", "Tagging desk"), "tagging")
    from ui.views.insights import InsightsPanel

    ctrl.insights = InsightsPanel(ctrl, main_window)
    main_window.add_tab(ctrl.insights, QCoreApplication.translate("TaggingController", "Insights"), "insights")
    editor = getattr(getattr(main_window, "inspector", None), "annotation_editor", None)
    if editor is not None and hasattr(editor, "set_controller"):
        editor.set_controller(ctrl)
        ctrl.editor = editor
    from ui.actions.adapt import install_adapt

    install_adapt(main_window, ctrl)
    return ctrl
