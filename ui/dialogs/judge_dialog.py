"""Judge model chooser: no judge, a bundled model, or any ``.gguf`` file.

The choice is stored in :mod:`analyzer.settings` (shared with ``trajscope analyze``) and
whether to use a judge at all in the UI settings. A missing or invalid file is reported in
the dialog, in plain words, before it is accepted.

Default (nothing chosen yet): the bundled judge, as ``trajscope analyze`` does without
``--no-judge``, when its model package and llama-cpp-python are installed; otherwise no judge,
and the dialog says why the bundled model cannot be chosen.
"""

from __future__ import annotations

import functools
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from ui import settings as ui_settings
from ui.dialogs.file_dialogs import FileDialog

USE_JUDGE_KEY = "analysis/use_judge"


def packaged_models() -> dict[str, str]:
    """Bundled judge models (name -> description); empty while the judge package is missing."""
    try:
        from analyzer.judge.models import PACKAGED_MODELS
    except ImportError:
        return {}
    return {name: m.description for name, m in PACKAGED_MODELS.items()}


def default_model_name() -> str:
    """Name of the default bundled judge model."""
    try:
        from analyzer.judge.models import DEFAULT_JUDGE_MODEL
    except ImportError:
        return "gemma3-270m"
    return DEFAULT_JUDGE_MODEL


@functools.cache
def bundled_judge_problem(name: str | None = None) -> str | None:
    """Why a bundled judge model (default: the default one) cannot be used here; None when it can.

    Cheap (no model is loaded) and computed once per process.
    """
    try:
        from analyzer.judge.models import packaged_model_problem
    except ImportError:
        return "the judge is not part of this installation"
    return packaged_model_problem(name or default_model_name())


def default_use_judge() -> bool:
    """Whether the analysis uses a judge before the analyst chose: yes when the bundled judge is installed."""
    return bundled_judge_problem() is None


def current_choice() -> tuple[bool, str | None]:
    """(use a judge?, model name or path; None = default).

    Until the analyst chooses, the bundled judge is used when it is installed (as the
    command line does), else no judge.
    """
    raw = ui_settings.get_str(USE_JUDGE_KEY, "")
    use = raw == "1" if raw in ("0", "1") else default_use_judge()
    try:
        from analyzer.settings import load_settings
        model = load_settings().judge_model
    except (ImportError, OSError):
        model = ui_settings.get_str("analysis/judge_model", "") or None
    return use, model


def store_choice(use: bool, model: str | None) -> None:
    """Persist the choice."""
    ui_settings.set_str(USE_JUDGE_KEY, "1" if use else "0")
    try:
        from analyzer.settings import set_judge_model
        set_judge_model(model)
    except ImportError:
        ui_settings.set_str("analysis/judge_model", model or "")


def check_model_file(path: str) -> str | None:
    """Plain-words problem with a ``.gguf`` file, or None if it looks usable."""
    p = Path(path).expanduser()
    try:
        from analyzer.errors import ModelUnavailable
        from analyzer.judge.models import check_gguf_file
    except ImportError:
        if not p.is_file():
            return f"judge model file not found: {p}"
        with p.open("rb") as fh:
            if fh.read(4) != b"GGUF":
                return f"{p} is not a GGUF model file"
        return None
    try:
        check_gguf_file(p)
    except ModelUnavailable as exc:
        return str(exc)
    return None


class JudgeDialog(QDialog):
    """Choose the judge model."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Judge model"))
        self.setMinimumWidth(560)
        use, model = current_choice()
        packaged = packaged_models()
        intro = QLabel(self.tr("The judge is a small local language model that re-ranks candidate decisive steps, "
                               "names the failure category and draws its own value curve. Without it the analysis "
                               "uses the fast cheap estimator only. Nothing is downloaded."), self)
        intro.setWordWrap(True)
        problem = bundled_judge_problem()
        self.none_btn = QRadioButton(self.tr("No judge: cheap estimator only (fastest)"), self)
        self.bundled_btn = QRadioButton(self.tr("Bundled model (default)"), self)
        self.bundled_problem = QLabel(self)
        self.bundled_problem.setObjectName("bundledProblem")
        self.bundled_problem.setWordWrap(True)
        self.bundled_problem.setEnabled(False)
        if problem:
            self.none_btn.setText(self.tr("No judge: cheap estimator only (the default while the bundled judge is not installed)"))
            self.bundled_btn.setText(self.tr("Bundled model (the default one is not installed)"))
            self.bundled_problem.setText(self.tr("The default bundled judge cannot be used: {reason}").format(reason=problem))
        self.bundled_problem.setVisible(bool(problem))
        self.file_btn = QRadioButton(self.tr("Any GGUF file"), self)
        group = QButtonGroup(self)
        for b in (self.none_btn, self.bundled_btn, self.file_btn):
            group.addButton(b)
        self.bundled = QComboBox(self)
        default = default_model_name()
        default_label = self.tr("default")
        missing_label = self.tr("not installed")
        for name, desc in packaged.items():
            label = f"{name} — {desc}" + (f" ({default_label})" if name == default else "")
            missing = bundled_judge_problem(name)
            if missing:
                label += f" — {missing_label}"
            self.bundled.addItem(label, name)
            if missing:
                self.bundled.setItemData(self.bundled.count() - 1, missing, Qt.ItemDataRole.ToolTipRole)
        if packaged and all(bundled_judge_problem(n) for n in packaged):
            self.bundled_btn.setText(self.tr("Bundled model (not installed)"))
            self.bundled_btn.setEnabled(False)
            self.bundled.setEnabled(False)
        if not packaged:
            self.bundled.addItem(self.tr("(the judge package is not installed)"), None)
            self.bundled_btn.setEnabled(False)
        self.path = QLineEdit(self)
        self.path.setPlaceholderText(self.tr("/path/to/model.gguf"))
        browse = QPushButton(self.tr("Browse…"), self)
        browse.clicked.connect(self._browse)
        self.error = QLabel(self)
        self.error.setObjectName("judgeError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #D64545;")
        file_row = QHBoxLayout()
        file_row.addWidget(self.path, 1)
        file_row.addWidget(browse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addSpacing(6)
        lay.addWidget(self.none_btn)
        lay.addWidget(self.bundled_btn)
        lay.addWidget(self.bundled)
        lay.addWidget(self.bundled_problem)
        lay.addWidget(self.file_btn)
        lay.addLayout(file_row)
        lay.addWidget(self.error)
        lay.addWidget(buttons)
        if not use:
            self.none_btn.setChecked(True)
        elif model and (model.endswith(".gguf") or "/" in model or "\\" in model):
            self.file_btn.setChecked(True)
            self.path.setText(model)
        else:
            self.bundled_btn.setChecked(True)
            i = self.bundled.findData(model or default)
            self.bundled.setCurrentIndex(max(0, i))
        if not self.bundled_btn.isEnabled() and self.bundled_btn.isChecked():
            self.none_btn.setChecked(True)

    def _browse(self) -> None:
        path, _ = FileDialog.getOpenFileName(self, self.tr("Choose a GGUF model"), "", self.tr("GGUF models (*.gguf);;All files (*)"))
        if path:
            self.path.setText(path)
            self.file_btn.setChecked(True)

    def choice(self) -> tuple[bool, str | None]:
        """What the dialog describes: (use a judge?, model name or path)."""
        if self.none_btn.isChecked():
            return False, None
        if self.file_btn.isChecked():
            return True, self.path.text().strip() or None
        name = self.bundled.currentData()
        return True, None if name == default_model_name() else name

    def validate(self) -> str | None:
        """Problem with the choice, in plain words (None when fine)."""
        use, model = self.choice()
        if use and self.file_btn.isChecked():
            if not model:
                return self.tr("Choose a .gguf file, or pick the bundled model.")
            return check_model_file(model)
        return None

    def accept(self) -> None:
        problem = self.validate()
        if problem:
            self.error.setText(problem)
            return
        use, model = self.choice()
        store_choice(use, model)
        super().accept()
