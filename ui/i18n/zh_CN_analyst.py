"""Simplified Chinese for stored analysis, stale results, model aliases and the paired comparison.

Merged with :mod:`ui.i18n.zh_CN` by ``python -m ui.i18n.update`` (every ``zh_CN*.py`` module is
read). Placeholders in braces must be kept as they are.
"""

from __future__ import annotations

TRANSLATIONS: dict[str, str] = {
    # stored analysis and stale results
    "Analysis results cannot be kept in the workspace: {err}": "无法在工作区中保存分析结果：{err}",
    "Refresh s&tale analysis": "刷新过期分析(&T)",
    "Refresh stale analysis": "刷新过期分析",
    "Re-analyse only the runs whose stored results come from an older analysis version":
        "只重新分析那些已保存结果来自旧分析版本的运行",
    "Showing the stored analysis of {n} runs from the workspace.": "正在显示工作区中已保存的 {n} 个运行的分析结果。",
    "{n} are stale (made by an older analysis version).": "其中 {n} 个已过期（由旧的分析版本生成）。",
    "No stale analysis results: every analysed run is current.": "没有过期的分析结果：所有已分析的运行都是最新的。",
    "Stale": "过期",
    "stale": "过期",
    "made by an older analysis version; Analysis ▸ Refresh stale analysis": "由旧的分析版本生成；请使用 分析 ▸ 刷新过期分析",
    "“stale”: analysed by an older analysis version (ranker, detectors or judge changed); Analysis ▸ Refresh stale analysis":
        "“过期”：由旧的分析版本分析（排序器、检测器或评审模型已变化）；分析 ▸ 刷新过期分析",
    "Analysed by an older analysis version; Analysis ▸ Refresh stale analysis re-analyses it.":
        "由旧的分析版本分析；分析 ▸ 刷新过期分析 会重新分析它。",
    # the analyst's label in the runs table
    "Set by the analyst ({mark})": "由分析员设定（{mark}）",
    "Set by the analyst ({mark}); the analysis said: {value}": "由分析员设定（{mark}）；分析结果为：{value}",
    # model groups and aliases
    "The first groups of the table are drawn; every group stays in the table": "图中绘制表格的前几个分组；所有分组都保留在表格中",
    "Groups with fewer runs are marked “too few runs” and never ranked above larger groups (saved in the settings)":
        "运行数更少的分组标记为“运行太少”，其排名绝不会高于更大的分组（保存在设置中）",
    "Merge models…": "合并模型…",
    "Merge models": "合并模型",
    "Count the selected models as one (saved in the workspace's alias table)": "把所选模型算作一个（保存在工作区的别名表中）",
    "Split model": "拆分模型",
    "Count every name of the selected model on its own again": "把所选模型的每个名称重新单独计算",
    "Groups drawn": "绘制的分组数",
    "Minimum n": "最小 n",
    "Groups with fewer than {min} runs ({n} here) are marked “too few runs” and ranked after the others.":
        "运行数少于 {min} 的分组（此处有 {n} 个）标记为“运行太少”，排在其他分组之后。",
    "The plots draw the first {n} groups; {hidden} more are in the table.": "图中绘制前 {n} 个分组；另有 {hidden} 个在表格中。",
    "The paired view compares models: compare by Model.": "配对视图比较的是模型：请按“模型”比较。",
    "Count these models as one, named:": "把这些模型算作一个，名称为：",
    "Open a workspace to keep model aliases.": "请打开一个工作区以保存模型别名。",
    "Cannot save the alias: {err}": "无法保存别名：{err}",
    "n (runs)": "n（运行数）",
    "Sample": "样本",
    "Names in the traces: {names}": "轨迹中的名称：{names}",
    "Fewer than {n} runs: too uncertain to rank": "少于 {n} 个运行：不确定性太大，不参与排名",
    "too few runs": "运行太少",
    "{n} longer runs (up to {max} steps) ▶": "{n} 个更长的运行（最长 {max} 步）▶",
    # paired comparison
    "Click a task to open both runs side by side": "点击任务，并排打开两个运行",
    "Select two models in the table (Ctrl+click) to compare them task by task.": "在表格中选择两个模型（Ctrl+点击），逐任务比较它们。",
    "task id": "任务 ID",
    "task text": "任务文本",
    "<b>{a}</b> vs <b>{b}</b> on {n} shared tasks (matched by {key})": "<b>{a}</b> 对比 <b>{b}</b>：{n} 个共同任务（按{key}匹配）",
    "No task was attempted by both models with a known outcome.": "没有两个模型都尝试过且结果已知的任务。",
    "Wins {w} · losses {l} · ties {t} (both passed {both}, both failed {neither})":
        "胜 {w} · 负 {l} · 平 {t}（都通过 {both}，都失败 {neither}）",
    "Exact McNemar p = {p:.3g} on {d} discordant tasks": "精确 McNemar 检验 p = {p:.3g}（{d} 个结果不一致的任务）",
    "Pass rate {ra:.0%} vs {rb:.0%}: difference {d:+.1%}, {level:.0%} bootstrap CI [{lo:+.1%}, {hi:+.1%}]":
        "通过率 {ra:.0%} 对比 {rb:.0%}：差值 {d:+.1%}，{level:.0%} 自助法置信区间 [{lo:+.1%}, {hi:+.1%}]",
    "{n} tasks were attempted more than once by one model; the majority outcome counts.":
        "有 {n} 个任务被某个模型尝试了多次；按多数结果计。",
    "Very few shared tasks: read these numbers as a hint, not a result.": "共同任务很少：这些数字只能作为提示，不能当作结论。",
    "Task where they differ": "结果不同的任务",
    "Only passed by": "仅此模型通过",
    "{winner} passed, {loser} failed": "{winner} 通过，{loser} 失败",
    "Two runs side by side": "两个运行并排比较",
    "(unknown model)": "（未知模型）",
    "Decisive step {s}": "决定性步骤 {s}",
    # who chose the counted categories (label_source)
    "ComparePanel|ranker": "排序器",
    "ComparePanel|judge": "评审模型",
    "ComparePanel|analyst": "分析员",
    "ComparePanel|mixed": "混合",
    "(unknown)": "（未知）",
    "decisive": "决定性",
    # automatic model folding and the "(unknown)" group
    "Grouped names": "归并的名称",
    "ComparePanel|alias": "别名",
    "ComparePanel|automatic": "自动",
    "not ranked": "不参与排名",
    "{n} runs record no {what}: they are listed apart as “(unknown)” in the last row and never ranked.":
        "{n} 个运行没有记录{what}：它们作为“（未知）”单独列在最后一行，从不参与排名。",
    "“(unknown)” holds the runs with no recorded model: it is not compared.":
        "“（未知）”包含没有记录模型的运行：不参与比较。",
    "The files of these runs record no {what}. “(unknown)” is not a group: it is listed apart, never ranked, drawn or "
    "paired.":
        "这些运行的文件没有记录{what}。“（未知）”不是一个分组：它单独列出，从不参与排名、绘图或配对比较。",
    "Merged by the alias table of the workspace. Select the row and press “Split model” to count each name on its own.":
        "由工作区的别名表合并。选中该行并点击“拆分模型”，即可分别统计每个名称。",
    "Folded automatically: provider prefixes, date stamps and “-latest” are not part of a model's name. Select the row "
    "and press “Split model” to count each name on its own (kept in the workspace).":
        "已自动归并：服务商前缀、日期戳和“-latest”不属于模型名称。选中该行并点击“拆分模型”，即可分别统计每个名称"
        "（保存在工作区中）。",
}
