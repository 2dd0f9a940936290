"""Simplified Chinese for the analyst's outcome, the outcome estimate and the load-problems panel.

Merged with :mod:`ui.i18n.zh_CN` by ``python -m ui.i18n.update`` (every ``zh_CN*.py`` module is
read). Placeholders in braces must be kept as they are.
"""

from __future__ import annotations

TRANSLATIONS: dict[str, str] = {
    # the analyst's outcome
    "&Failed": "失败(&F)",
    "&Succeeded": "成功(&S)",
    "&Unknown": "未知(&U)",
    "The selected runs failed (your word wins over the file's)": "所选运行失败（你的判断优先于文件记录）",
    "The selected runs succeeded (your word wins over the file's)": "所选运行成功（你的判断优先于文件记录）",
    "The outcome of the selected runs is not known": "所选运行的结果未知",
    "Use the &recorded outcome": "使用记录的结果(&R)",
    "Take back your outcome of the selected runs": "撤回你为所选运行设定的结果",
    "&Outcome of the selected runs": "所选运行的结果(&O)",
    "Select runs in the table first.": "请先在表格中选择运行。",
    "{runs}: back to the recorded outcome": "{runs}：恢复为记录的结果",
    "{runs} marked as {outcome}": "{runs} 已标记为{outcome}",
    # the estimate
    "asking the judge whether each run achieved its task": "正在询问评审模型每个运行是否完成了任务",
    "likely failed ({p})": "可能失败（{p}）",
    "failure?": "失败?",
    "success?": "成功?",
    "likely passed ({p})": "可能通过（{p}）",
    "No outcome is recorded; estimated from the run's cues: P(failed) = {p}. Shift+F / Shift+S set it.":
        "未记录结果；根据运行线索估计：P(失败) = {p}。Shift+F / Shift+S 可设定结果。",
    "Set by the analyst; the file says: {recorded}": "由分析员设定；文件记录为：{recorded}",
    "Recorded ({source})": "已记录（{source}）",
    "Not recorded; Shift+F / Shift+S / Shift+U set it.": "未记录；Shift+F / Shift+S / Shift+U 可设定结果。",
    "{n} failed ({k} likely)": "{n} 个失败（{k} 个为估计）",
    "{k} of the failed runs record no outcome: their failure is estimated from the run (likely failed); "
    "Shift+F / Shift+S set an outcome": "其中 {k} 个失败运行没有记录结果：失败是根据运行估计的（可能失败）；"
                                         "Shift+F / Shift+S 可设定结果",
    "{n} runs have no known outcome": "{n} 个运行的结果未知",
    # the judge value curve
    "The selected run is no longer loaded.": "所选运行已不再加载。",
    "This run has no steps, so there is no value curve to compute.": "此运行没有步骤，因此无法计算价值曲线。",
    "The judge value curve reads failed runs. This run records no outcome and likely passed ({p}); if it "
    "failed, mark it with Shift+F and start the curve again.":
        "评审价值曲线只读取失败的运行。此运行没有记录结果，估计可能成功（{p}）；若它失败了，请按 Shift+F 标记后再次启动曲线。",
    "The judge value curve reads failed runs, and this run succeeded. If it failed, mark it with Shift+F and start "
    "the curve again.": "评审价值曲线只读取失败的运行，而此运行已成功。若它实际失败，请按 Shift+F 标记后再次启动曲线。",
    "The judge value curve reads failed runs, and this run's outcome is unknown (nothing recorded, no estimate). "
    "Mark it as failed with Shift+F to compute its curve.":
        "评审价值曲线只读取失败的运行，而此运行的结果未知（既无记录也无估计）。请按 Shift+F 标记为失败以计算其曲线。",
    "outcome not recorded, likely failed (estimated from the run): the likeliest decisive step if it failed":
        "结果未记录，据运行估计可能失败：若运行失败，这是最可能的决定性步骤",
    # the load-problems panel
    "Enlarge": "放大",
    "Give the load problems most of the window's height (again: back to its size)":
        "让加载问题面板占据窗口的大部分高度（再次点击：恢复原大小）",
    "Already loaded": "已加载",
    "{n} duplicate runs skipped in {f} files (not a problem: the same runs were loaded before)":
        "在 {f} 个文件中跳过了 {n} 个重复运行（不是问题：这些运行之前已加载）",
    "{n} duplicate runs skipped.": "跳过了 {n} 个重复运行。",
    "{n} runs were already loaded and were skipped.": "{n} 个运行之前已加载，已跳过。",
    "{n} load problems in all.": "共有 {n} 个加载问题。",
    "{k} of these outcomes are estimates (no outcome recorded, none set by the analyst)":
        "其中 {k} 个结果是估计值（未记录结果，分析员也未设定）",
}
