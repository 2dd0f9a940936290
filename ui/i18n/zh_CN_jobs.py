"""Simplified Chinese for the jobs indicator, the judge default, tag chips and the column chooser.

Also the per-judge-call progress texts.

Merged with :mod:`ui.i18n.zh_CN` by ``python -m ui.i18n.update`` (every ``zh_CN*.py`` module is
read). Placeholders in braces must be kept as they are.
"""

from __future__ import annotations

TRANSLATIONS: dict[str, str] = {
    # jobs indicator
    "Grouping failures": "正在归组失败",
    "Exporting": "正在导出",
    "Working": "正在处理",
    "Cancel stops after the current run (with the judge: after the current judge call)":
        "取消将在当前运行处理完后停止（使用评审模型时：在当前评审调用结束后）",
    "Cancel stops at the next step of the work": "取消将在工作的下一步停止",
    "about {n} s left": "约剩 {n} 秒",
    "about {n} min left": "约剩 {n} 分钟",
    "about {h} h {m} min left": "约剩 {h} 小时 {m} 分钟",
    "finishing": "即将完成",
    "run {i}/{n}": "运行 {i}/{n}",
    "judge: category of step {step}": "评审：第 {step} 步的类别",
    "judge: comparing steps {steps}": "评审：比较第 {steps} 步",
    "judge value curve: step {step}/{steps}": "评审价值曲线：第 {step}/{steps} 步",
    "cancelling after the current item…": "当前项完成后取消…",
    "starting…": "正在启动…",
    "step {step}/{steps}": "第 {step}/{steps} 步",
    "started on its own": "自动启动",
    "Cancel all": "全部取消",
    "No background jobs are running.": "没有正在运行的后台任务。",
    "{n} running jobs": "{n} 个正在运行的任务",
    "Every running job, with its progress and Cancel": "所有正在运行的任务，以及进度和取消按钮",
    "Jobs ({n}) ▾": "任务 ({n}) ▾",
    "Cancel “{title}”. {unit}": "取消“{title}”。{unit}",
    "waiting for another judge job to finish": "正在等待另一个评审任务完成",
    # main window
    "Judge &value curve of this run": "此运行的评审价值曲线(&V)",
    "Ask the judge for its per-step value curve of the selected run (runs in the background)":
        "请评审模型为所选运行计算逐步价值曲线（在后台运行）",
    "Loading {n} files and folders": "正在加载 {n} 个文件和文件夹",
    "Analysing {n} runs": "正在分析 {n} 个运行",
    "Select a run in the table first.": "请先在表格中选择一个运行。",
    "No judge is chosen: pick one in Analysis ▸ Judge model.": "尚未选择评审模型：请在 分析 ▸ 评审模型 中选择。",
    "The judge value curve of this run starts when the current one ends.": "当前评审价值曲线完成后，将开始计算此运行的曲线。",
    "Judge value curve of {run}": "{run} 的评审价值曲线",
    # settings and judge dialog
    "Start background jobs on their own (the judge's value curve of a failed run when you open it)":
        "自动启动后台任务（打开失败的运行时计算其评审价值曲线）",
    "Off: such jobs start only when you ask (Analysis ▸ Judge value curve of this run). Every job shows in "
    "the status bar's Jobs list, with Cancel.":
        "关闭时，此类任务只在您要求时启动（分析 ▸ 此运行的评审价值曲线）。每个任务都显示在状态栏的任务列表中，并可取消。",
    "Background jobs": "后台任务",
    "Bundled model (default)": "内置模型（默认）",
    "No judge: cheap estimator only (the default while the bundled judge is not installed)":
        "不使用评审模型：仅使用快速估计器（未安装内置评审模型时的默认选项）",
    "Bundled model (the default one is not installed)": "内置模型（默认模型未安装）",
    "The default bundled judge cannot be used: {reason}": "无法使用默认的内置评审模型：{reason}",
    "not installed": "未安装",
    "Bundled model (not installed)": "内置模型（未安装）",
    # step cards
    "ANALYST: DECISIVE": "分析员：决定性",
    "+{n}": "+{n}",
    "suggestion rejected": "已拒绝建议",
    "Decisive step (analyst)": "决定性步骤（分析员）",
    "Analyst category: {cat}": "分析员类别：{cat}",
    "Rejected suggestion: {cat}": "已拒绝的建议：{cat}",
    "The analyst rejected the suggestion at this step": "分析员拒绝了此步骤的建议",
    "Tag: {tag}": "标签：{tag}",
    "Note: {note}": "备注：{note}",
    "analyst: step {step}": "分析员：第 {step} 步",
    # runs table columns
    "Runs table &columns": "运行表的列(&C)",
    "Reset columns": "重置列",
    "Show every column in the default order, sized to its content": "按默认顺序显示所有列，并按内容调整宽度",
}
