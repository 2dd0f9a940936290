"""Settings: language, theme and the judge model."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui import settings as ui_settings
from ui.dialogs.judge_dialog import JudgeDialog, current_choice
from ui.i18n import LANGUAGES

LANGUAGE_KEY = "ui/language"
THEME_KEY = "ui/theme"
EMBEDDER_KEY = "analysis/use_embedder"
AUTO_JOBS_KEY = "jobs/auto_start"
"""Same key as :data:`ui.main_window.AUTO_JOBS_KEY` (default off)."""


class SettingsDialog(QDialog):
    """Preferences. Language and theme changes apply when the dialog is accepted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self.setMinimumWidth(460)
        self.language = QComboBox(self)
        self.language.setObjectName("languageBox")
        self.language.addItem(self.tr("Follow the system"), "system")
        for code, name in LANGUAGES.items():
            self.language.addItem(name, code)
        self.language.setCurrentIndex(max(0, self.language.findData(ui_settings.get_str(LANGUAGE_KEY, "system"))))
        self.theme = QComboBox(self)
        self.theme.setObjectName("themeBox")
        self.theme.addItem(self.tr("Follow the system"), "system")
        self.theme.addItem(self.tr("Light"), "light")
        self.theme.addItem(self.tr("Dark"), "dark")
        self.theme.setCurrentIndex(max(0, self.theme.findData(ui_settings.get_str(THEME_KEY, "system"))))
        self.judge_label = QLabel(self)
        judge_btn = QPushButton(self.tr("Choose…"), self)
        judge_btn.clicked.connect(self._judge)
        self._show_judge()
        self.embedder = QCheckBox(self.tr("Use sentence embeddings (adds the task-alignment curve; slower the first time)"), self)
        self.embedder.setObjectName("embedderBox")
        self.embedder.setChecked(ui_settings.get_str(EMBEDDER_KEY, "1") == "1")
        self.auto_jobs = QCheckBox(self.tr("Start background jobs on their own (the judge's value curve of a failed "
                                           "run when you open it)"), self)
        self.auto_jobs.setObjectName("autoJobsBox")
        self.auto_jobs.setToolTip(self.tr("Off: such jobs start only when you ask (Analysis ▸ Judge value curve of "
                                          "this run). Every job shows in the status bar's Jobs list, with Cancel."))
        self.auto_jobs.setChecked(ui_settings.get_str(AUTO_JOBS_KEY, "0") == "1")
        form = QFormLayout()
        form.addRow(self.tr("Language"), self.language)
        form.addRow(self.tr("Theme"), self.theme)
        form.addRow(self.tr("Judge model"), self.judge_label)
        form.addRow("", judge_btn)
        form.addRow(self.tr("Analysis"), self.embedder)
        form.addRow(self.tr("Background jobs"), self.auto_jobs)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(buttons)

    def _show_judge(self) -> None:
        use, model = current_choice()
        self.judge_label.setText(model or self.tr("bundled default") if use else self.tr("none (cheap estimator only)"))

    def _judge(self) -> None:
        if JudgeDialog(self).exec():
            self._show_judge()

    def selected_language(self) -> str:
        """Language setting chosen."""
        return str(self.language.currentData())

    def selected_theme(self) -> str:
        """Theme chosen."""
        return str(self.theme.currentData())

    def accept(self) -> None:
        ui_settings.set_str(LANGUAGE_KEY, self.selected_language())
        ui_settings.set_str(THEME_KEY, self.selected_theme())
        ui_settings.set_str(EMBEDDER_KEY, "1" if self.embedder.isChecked() else "0")
        ui_settings.set_str(AUTO_JOBS_KEY, "1" if self.auto_jobs.isChecked() else "0")
        super().accept()
