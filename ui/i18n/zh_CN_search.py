"""Simplified Chinese translations of the review desk headings, the searches and the load-problem reasons.

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
}
