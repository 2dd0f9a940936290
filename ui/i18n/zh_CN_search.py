"""Simplified Chinese translations of the review desk headings, the searches, the load problems and the file dialogs.

Same format as :mod:`ui.i18n.zh_CN`. Keep every ``{placeholder}``.
Run ``python -m ui.i18n.update`` after editing.
"""

from __future__ import annotations

TRANSLATIONS: dict[str, str] = {
    # tagging desk and annotation editor
    "Annotation": "标注",
    "Other analysts:": "其他分析员：",
    "Review queue": "审阅队列",
    "Judge vs analyst": "评审模型与分析员对比",
    "TaggingDesk|decisive step": "决定性步骤",
    "Task:": "任务：",
    "Why:": "依据：",
    "Cohen’s κ": "Cohen κ 系数",
    "{n} runs compared": "已比较 {n} 个运行",
    "observed agreement": "观察一致率",
    "same decisive step": "决定性步骤相同",
    # load problems panel
    "Select a problem to read it whole.": "选择一个问题以查看完整内容。",
    "File: {v}": "文件：{v}",
    "Record: {v}": "记录：{v}",
    "Importer: {v}": "导入器：{v}",
    # search across all runs
    "Search all runs": "搜索全部运行",
    "Search &all runs…": "搜索全部运行(&A)…",
    "List every place a text occurs in any run (run, step, snippet)": "列出文本在任意运行中出现的每一处（运行、步骤、片段）",
    "Text to find in every run's task and steps…": "在每个运行的任务和步骤中查找的文本…",
    "Where": "位置",
    "Snippet": "片段",
    "SearchAllDialog|task": "任务",
    "SearchAllDialog|text": "文本",
    "SearchAllDialog|tool": "工具",
    "SearchAllDialog|arguments": "参数",
    "SearchAllDialog|error": "错误",
    "SearchAllDialog|agent": "智能体",
    "Type to search every loaded run.": "输入文本以搜索所有已加载的运行。",
    "No run contains “{q}”.": "没有运行包含“{q}”。",
    "{n} hits in {runs} runs; click one to open it.": "在 {runs} 个运行中找到 {n} 处；点击一处即可打开。",
    "First {shown} of {n} hits; narrow the search to see the rest.": "显示 {n} 处中的前 {shown} 处；请缩小搜索范围以查看其余结果。",
    # file dialogs (Qt's widget dialog with our labels)
    "FileDialog|Look in:": "查找范围：",
    "FileDialog|File name:": "文件名：",
    "FileDialog|Files of type:": "文件类型：",
    "FileDialog|Cancel": "取消",
    "FileDialog|&Open": "打开(&O)",
    "FileDialog|&Save": "保存(&S)",
    "FileDialog|&Choose": "选择(&C)",
}
