"""File dialogs that speak the analyst's language.

A drop-in for ``QFileDialog``'s static functions (same arguments, same results). In English they
are Qt's own (the native dialog where the platform has one). In another language the native
dialog would follow the desktop's language, and Qt's widget dialog is only partly translated by
the ``qtbase`` catalogue shipped with PySide6 ("Look in:", "Files of type:", the "Folder" type
column stay English), so TrajScope shows Qt's widget dialog with every label set from its own
translations; the strings Qt's catalogue lacks come from ``ui/i18n/zh_CN_qt.py``.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QFileDialog, QWidget

from ui.i18n import current_language

CONTEXT = "FileDialog"
LOOK_IN = QT_TRANSLATE_NOOP("FileDialog", "Look in:")
FILE_NAME = QT_TRANSLATE_NOOP("FileDialog", "File name:")
FILE_TYPE = QT_TRANSLATE_NOOP("FileDialog", "Files of type:")
CANCEL = QT_TRANSLATE_NOOP("FileDialog", "Cancel")
OPEN = QT_TRANSLATE_NOOP("FileDialog", "&Open")
SAVE = QT_TRANSLATE_NOOP("FileDialog", "&Save")
CHOOSE = QT_TRANSLATE_NOOP("FileDialog", "&Choose")


def _tr(source: str) -> str:
    return QCoreApplication.translate(CONTEXT, source)


class FileDialog:
    """``QFileDialog.getOpenFileName`` and friends, translated (see the module docstring)."""

    @staticmethod
    def _labels() -> dict[QFileDialog.DialogLabel, str]:
        return {QFileDialog.DialogLabel.LookIn: _tr(LOOK_IN), QFileDialog.DialogLabel.FileName: _tr(FILE_NAME),
                QFileDialog.DialogLabel.FileType: _tr(FILE_TYPE), QFileDialog.DialogLabel.Reject: _tr(CANCEL)}

    @staticmethod
    def build(parent: QWidget | None, caption: str, directory: str, name_filter: str,
              mode: QFileDialog.FileMode, save: bool = False) -> QFileDialog:
        """A widget (non-native) file dialog with translated labels."""
        d = QFileDialog(parent, caption, directory, name_filter)
        d.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        d.setFileMode(mode)
        d.setAcceptMode(QFileDialog.AcceptMode.AcceptSave if save else QFileDialog.AcceptMode.AcceptOpen)
        if mode == QFileDialog.FileMode.Directory:
            d.setOption(QFileDialog.Option.ShowDirsOnly, True)
        for label, text in FileDialog._labels().items():
            d.setLabelText(label, text)
        accept = _tr(SAVE) if save else (_tr(CHOOSE) if mode == QFileDialog.FileMode.Directory else _tr(OPEN))
        d.setLabelText(QFileDialog.DialogLabel.Accept, accept)
        return d

    @staticmethod
    def _native() -> bool:
        return current_language() == "en"

    @staticmethod
    def getOpenFileName(parent: QWidget | None = None, caption: str = "", dir: str = "",
                        filter: str = "") -> tuple[str, str]:
        """Like ``QFileDialog.getOpenFileName``."""
        if FileDialog._native():
            return QFileDialog.getOpenFileName(parent, caption, dir, filter)
        d = FileDialog.build(parent, caption, dir, filter, QFileDialog.FileMode.ExistingFile)
        if d.exec() and d.selectedFiles():
            return d.selectedFiles()[0], d.selectedNameFilter()
        return "", ""

    @staticmethod
    def getOpenFileNames(parent: QWidget | None = None, caption: str = "", dir: str = "",
                         filter: str = "") -> tuple[list[str], str]:
        """Like ``QFileDialog.getOpenFileNames``."""
        if FileDialog._native():
            return QFileDialog.getOpenFileNames(parent, caption, dir, filter)
        d = FileDialog.build(parent, caption, dir, filter, QFileDialog.FileMode.ExistingFiles)
        if d.exec():
            return list(d.selectedFiles()), d.selectedNameFilter()
        return [], ""

    @staticmethod
    def getSaveFileName(parent: QWidget | None = None, caption: str = "", dir: str = "",
                        filter: str = "") -> tuple[str, str]:
        """Like ``QFileDialog.getSaveFileName``."""
        if FileDialog._native():
            return QFileDialog.getSaveFileName(parent, caption, dir, filter)
        d = FileDialog.build(parent, caption, dir, filter, QFileDialog.FileMode.AnyFile, save=True)
        if d.exec() and d.selectedFiles():
            return d.selectedFiles()[0], d.selectedNameFilter()
        return "", ""

    @staticmethod
    def getExistingDirectory(parent: QWidget | None = None, caption: str = "", dir: str = "") -> str:
        """Like ``QFileDialog.getExistingDirectory``."""
        if FileDialog._native():
            return QFileDialog.getExistingDirectory(parent, caption, dir)
        d = FileDialog.build(parent, caption, dir, "", QFileDialog.FileMode.Directory)
        if d.exec() and d.selectedFiles():
            return d.selectedFiles()[0]
        return ""
