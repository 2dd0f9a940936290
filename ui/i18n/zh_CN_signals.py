"""Simplified Chinese for the signal-detector overlays of the run plots.

Merged with :mod:`ui.i18n.zh_CN` by ``python -m ui.i18n.update`` (every ``zh_CN*.py`` module is
read). Placeholders in braces must be kept as they are.
"""

from __future__ import annotations

TRANSLATIONS: dict[str, str] = {
    "cumulative risk": "累积风险",
    "check: {kind}": "检查：{kind}",
    "A cheap {kind} check after this step would have shown the divergence {lead} steps before the failure":
        "在此步骤之后进行一次低成本的{kind}检查，就能在失败前 {lead} 步发现偏离",
    "Re-sent although it could have been dropped: ≈ {n} tokens over the later model calls":
        "本可省略却被重复发送：在之后的模型调用中约 {n} 个词元",
}
