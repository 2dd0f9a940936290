"""Simplified Chinese translations of the Contrast tab and the per-task table (issue 32).

Same form as :mod:`ui.i18n.zh_CN` (keys are the English source strings); run
``python -m ui.i18n.update`` after editing.
"""

from __future__ import annotations

TRANSLATIONS: dict[str, str] = {
    "Contrast": "对照",
    "Contrast with a success": "与成功运行对照",
    "The failed run side by side with a success of the same task": "将失败运行与同一任务的成功运行并排显示",
    "D / Shift+D (Contrast tab)": "D / Shift+D（对照标签页）",
    "Next / previous difference from the success": "与成功运行的下一处 / 上一处差异",
    "Successes of the same task, nearest (lowest alignment cost) first": "同一任务的成功运行，最接近的（对齐代价最低）排在最前",
    "◀ Previous difference": "◀ 上一处差异",
    "Previous difference (Shift+D in the table)": "上一处差异（在表格中按 Shift+D）",
    "Next difference ▶": "下一处差异 ▶",
    "Next difference (D in the table)": "下一处差异（在表格中按 D）",
    "Go to divergence": "转到偏离点",
    "The first decision of the failed run with no good match in this success":
        "失败运行中第一个在该成功运行里没有良好匹配的决策",
    "Success": "成功运行",
    "Failed run": "失败运行",
    "Aligned row": "对齐行",
    "Value": "价值",
    "Select a failed run whose task also succeeded.": "请选择一个失败运行，且其任务也有成功运行。",
    "This run did not fail: select a failed run to contrast it with a success.":
        "该运行没有失败：请选择一个失败运行，将其与成功运行对照。",
    "No other run of this task succeeded, so there is nothing to contrast it with.":
        "该任务没有其他成功的运行，因此无法对照。",
    "Failed run <b>{run}</b> · task <code>{task}</code> · {n} successes of the task":
        "失败运行 <b>{run}</b> · 任务 <code>{task}</code> · 该任务有 {n} 个成功运行",
    "{run} · cost {cost}": "{run} · 代价 {cost}",
    "(nearest)": "（最接近）",
    "Every decision of the failed run has a good match in this success.": "失败运行的每个决策在该成功运行中都有良好匹配。",
    "Diverges at step <b>{step}</b> of the failed run: {kind}. {n} rows differ.":
        "在失败运行的步骤 <b>{step}</b> 处偏离：{kind}。共有 {n} 行不同。",
    "a different action": "不同的操作",
    "the same tool with different arguments": "相同的工具但参数不同",
    "an action of the success is missing": "缺少成功运行中的一个操作",
    "an extra action": "多余的操作",
    "Analyse both runs to see their value curves here (they are drawn on the aligned rows).":
        "分析这两个运行后，可在此查看它们的价值曲线（按对齐行绘制）。",
    "Task key": "任务键",
    "Identity of the task across runs: the source's task, sample or instance id, else a hash of the task text "
    "(type it in the filter to see every run of the task)":
        "任务在各运行间的标识：来源中的任务、样本或实例 ID，否则为任务文本的哈希（在筛选框中输入即可查看该任务的全部运行）",
    "Successes": "成功",
    "Failures": "失败",
    "Models": "模型",
    "Each task with its runs, successes and models; double-click a task that both failed and succeeded to contrast "
    "its first failed run with a success":
        "每个任务及其运行数、成功数和模型；双击一个既有失败又有成功的任务，可将其第一个失败运行与成功运行对照",
    "Show only this task's runs": "只显示该任务的运行",
    "Contrast its first failed run with a success": "将其第一个失败运行与成功运行对照",
}
