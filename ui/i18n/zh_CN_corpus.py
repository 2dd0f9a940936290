"""Simplified Chinese translations of opening a corpus folder, and of the recent workspaces.

Same format as :mod:`ui.i18n.zh_CN`. Keep every ``{placeholder}``.
Run ``python -m ui.i18n.update`` after editing.
"""

from __future__ import annotations

TRANSLATIONS: dict[str, str] = {
    "Cannot open the corpus {path}: {msg}": "无法打开语料库 {path}：{msg}",
    "Opened the corpus {path}: {runs} runs. A run’s steps are read from disk when you open it.":
        "已打开语料库 {path}：{runs} 个运行。打开某个运行时才从磁盘读取它的步骤。",
    "The last workspace {missing} no longer exists; opened {path} instead.":
        "上次使用的工作区 {missing} 已不存在；已改为打开 {path}。",
}
