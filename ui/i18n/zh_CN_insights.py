"""Simplified Chinese translations of the Insights view.

Same format as :mod:`ui.i18n.zh_CN`; run ``python -m ui.i18n.update`` after editing.
"""

from __future__ import annotations

TRANSLATIONS: dict[str, str] = {
    "Insight": "洞察",
    "Insights": "洞察",
    "Share of failed": "占失败运行比例",
    "Most affected model": "受影响最大的模型",
    "Typical position": "典型位置",
    "Tool": "工具",
    "Find insights": "查找洞察",
    "Group the decisive failures of all analysed runs into insights": "将所有已分析运行的决定性失败归组为洞察",
    "Rename…": "重命名…",
    "Split": "拆分",
    "Re-cluster the selected insight's runs into two insights": "将所选洞察的运行重新聚类为两个洞察",
    "Merge": "合并",
    "Merge the two selected insights into one": "将所选的两个洞察合并为一个",
    "Tag all runs as": "将所有运行标注为",
    "Tag the decisive step of every run of the insight (keys 1-9, 0)": "标注该洞察中每个运行的决定性步骤（按键 1–9、0）",
    "Accept categories": "接受类别",
    "Accept the judge's category of every run of the insight (A)": "接受评审模型对该洞察中每个运行给出的类别（A）",
    "Reject categories": "拒绝类别",
    "Reject the judge's category of every run of the insight (R)": "拒绝评审模型对该洞察中每个运行给出的类别（R）",
    "The analysis changed: press “Find insights” to regroup the failures.": "分析结果已变化：请按“查找洞察”重新归组失败。",
    "Grouping the decisive failures…": "正在归组决定性失败…",
    "Insights could not be computed: {err}": "无法计算洞察：{err}",
    "Saved insight edits could not be read: {err}": "无法读取已保存的洞察编辑：{err}",
    "No insights yet: analyse runs (Analysis ▸ Analyze all runs), then press “Find insights”.":
        "尚无洞察：请先分析运行（分析 ▸ 分析全部运行），再按“查找洞察”。",
    "{n} insights over {failed} failed runs. Keys 1-9, 0 tag every run of the selected insight; A/R accept/reject "
    "their categories; Ctrl+Z undoes.":
        "{failed} 个失败运行共归为 {n} 个洞察。按键 1–9、0 标注所选洞察的每个运行；A/R 接受/拒绝其类别；Ctrl+Z 撤销。",
    "{name}\n{size} runs · typical position {pos} · named by {who}\nShare of each model's failed runs: {shares}\n"
    "Tools: {tools}\nShared terms: {terms}":
        "{name}\n{size} 个运行 · 典型位置 {pos} · 命名来源：{who}\n占各模型失败运行的比例：{shares}\n工具：{tools}\n共有词语：{terms}",
    "the analyst": "分析员",
    "shared terms": "共有词语",
    "Renamed an insight": "已重命名一个洞察",
    "Rename insight": "重命名洞察",
    "Name (empty: named from the shared terms):": "名称（留空：按共有词语命名）：",
    "Split an insight of {n} runs": "已拆分一个含 {n} 个运行的洞察",
    "Merged two insights ({n} runs)": "已合并两个洞察（{n} 个运行）",
    "Tagged the {n} runs of an insight as {category}": "已将一个洞察的 {n} 个运行标注为 {category}",
    "Accepted the categories of the {n} runs of an insight": "已接受一个洞察中 {n} 个运行的类别",
    "Rejected the categories of the {n} runs of an insight": "已拒绝一个洞察中 {n} 个运行的类别",
    "What to change…": "应改进之处…",
    "What to change": "应改进之处",
    "Edit or accept the suggested change that would prevent this failure": "编辑或接受可防止此类失败的建议改动",
    "What to change ({kind}, {by}): {text}\nWhy: {evidence}": "应改进之处（{kind}，来源：{by}）：{text}\n依据：{evidence}",
    "rule": "规则",
    "the model": "模型",
    "tool or infrastructure": "工具或基础设施",
    "tool description or schema": "工具描述或模式",
    "verification checkpoint": "验证检查点",
    "system prompt": "系统提示词",
    "Edited what to change for an insight": "已编辑一个洞察的改进建议",
    "Suggested change ({kind}). Why: {evidence}\nEmpty: back to the rule's suggestion.":
        "建议的改动（{kind}）。依据：{evidence}\n留空：恢复为规则给出的建议。",
    "secondary": "次级",
    "tertiary": "三级",
    "stopped": "已中止",
    "degraded": "已降级",
    "contained and recovered": "已控制并恢复",
    "{level}: step {source} → step {target} ({rule})\n{evidence}": "{level}：步骤 {source} → 步骤 {target}（{rule}）\n{evidence}",
    "Not grouped ({n})": "未分组（{n}）",
    "Runs that joined no group of two or more": "未归入任何两个及以上运行之组的运行",
    "{n} runs joined no group of two or more: see “Not grouped”.": "{n} 个运行未归入任何两个及以上运行的组：见“未分组”。",
    "{n} failed runs joined no group of two or more: each failed unlike the others of its category. Select a run to show it.":
        "{n} 个失败运行未归入任何两个及以上运行的组：每个的失败方式都与同类别的其他运行不同。选择一个运行即可查看。",
}
