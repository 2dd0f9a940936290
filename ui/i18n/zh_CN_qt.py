"""Simplified Chinese for strings of Qt itself that PySide6's ``qtbase_zh_CN.qm`` lacks.

Compiled by ``python -m ui.i18n.update`` into ``qt_supplement_zh_CN.qm``, which loads after
Qt's catalogue. Keys are ``"Context|source"`` or ``"Context|source|disambiguation"`` exactly as
Qt's sources write them (e.g. the file dialog's "Folder" type column).
"""

from __future__ import annotations

QT_SUPPLEMENT: dict[str, str] = {
    "QAbstractFileIconProvider|Folder|All other platforms": "文件夹",
    "QAbstractFileIconProvider|Drive": "驱动器",
    "QAbstractFileIconProvider|File": "文件",
    "QAbstractFileIconProvider|Unknown": "未知",
    "QAbstractFileIconProvider|%1 File|%1 is a file name suffix, for example txt": "%1 文件",
    "QFileDialog|Cancel": "取消",
    "QFileDialog|Computer": "计算机",
    "QFileDialog|Directory": "目录",
    "QFileDialog|File name:": "文件名：",
    "QPlatformTheme|Yes": "是",
    "QPlatformTheme|No": "否",
    "QPlatformTheme|Yes to All": "全部是",
    "QPlatformTheme|No to All": "全部否",
    "QMessageBox|OK": "确定",
    "GraphicsScene|Export...": "导出…",  # pyqtgraph's plot context menu
}
