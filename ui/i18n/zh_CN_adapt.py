"""Simplified Chinese translations of "Adapt to my labels" (ranker adaptation, versions, revert).

Same format as :mod:`ui.i18n.zh_CN`; run ``python -m ui.i18n.update`` after editing.
"""

from __future__ import annotations

TRANSLATIONS: dict[str, str] = {
    # actions and status
    "Adapt to my &labels…": "按我的标注适配(&L)…",
    "Adapt to my labels ({have}/{need})": "按我的标注适配（{have}/{need}）",
    "Adapt to my labels": "按我的标注适配",
    "Ranker &versions…": "排序器版本(&V)…",
    "Pick an adapted ranker of this workspace, or the shipped weights": "选择此工作区中已适配的排序器，或内置权重",
    "Revert to &shipped weights": "恢复内置权重(&S)",
    "Analyses use the shipped ranker weights again (adapted versions are kept)": "分析重新使用内置排序器权重（已适配的版本会保留）",
    "Mark the decisive step (D) of 1 more failed run to adapt the ranker ({have} of {need} labelled)":
        "再为 1 个失败运行标记决定性步骤（D）即可适配排序器（已标注 {have}/{need}）",
    "Mark the decisive step (D) of {more} more failed runs to adapt the ranker ({have} of {need} labelled)":
        "再为 {more} 个失败运行标记决定性步骤（D）即可适配排序器（已标注 {have}/{need}）",
    "Fit the decisive-step ranker to your {n} labelled failed runs, shrunk towards the shipped weights":
        "用你标注的 {n} 个失败运行拟合决定性步骤排序器，并向内置权重收缩",
    "Ranker: shipped": "排序器：内置",
    "Ranker: adapted #{id}": "排序器：已适配 #{id}",
    "shipped weights": "内置权重",
    "adapted #{id} ({n} labels)": "已适配 #{id}（{n} 个标注）",
    "Adapted ranker #{id} is damaged; the shipped weights are used: {err}": "已适配的排序器 #{id} 已损坏，改用内置权重：{err}",
    "Open a workspace first (File ▸ Open workspace).": "请先打开工作区（文件 ▸ 打开工作区）。",
    "The ranker is already being adapted.": "排序器正在适配中。",
    "Adapting the ranker failed: {msg}": "适配排序器失败：{msg}",
    "Adapting the ranker to {n} labels…": "正在按 {n} 个标注适配排序器…",
    "Adapting was cancelled; nothing was stored.": "适配已取消，未保存任何内容。",
    "{n} labels could not be used.": "有 {n} 个标注无法使用。",
    "Saved ranker version #{id} ({name}).": "已保存排序器版本 #{id}（{name}）。",
    "Analyses use the shipped weights again; the adapted versions are kept.": "分析重新使用内置权重；已适配的版本会保留。",
    "Re-analyse": "重新分析",
    "Analyses use adapted ranker #{id}.": "分析使用已适配的排序器 #{id}。",
    "loading the embedder": "正在加载嵌入模型",
    "features: {run}": "特征：{run}",
    "cross-validating {done}/{total}": "交叉验证 {done}/{total}",
    # result dialog
    "Ranker adapted to your labels": "已按你的标注适配排序器",
    "Version #{id}: fitted on {n} labelled failed runs": "版本 #{id}：基于 {n} 个已标注的失败运行拟合",
    "Shrinkage towards the shipped weights: λ = {strength} (chosen by cross-validation on your labels; ties keep "
    "the stronger shrinkage; ∞ keeps the shipped weights).":
        "向内置权重的收缩强度：λ = {strength}（由在你的标注上的交叉验证选出；得分相同时取更强的收缩；∞ 表示保持内置权重）。",
    "Weights": "权重",
    "Step@1 on your labels": "在你的标注上的 Step@1",
    "Shipped weights": "内置权重",
    "Adapted weights": "适配后的权重",
    "Leave-one-out: each labelled run is predicted by weights fitted without it, so both figures are held-out. "
    "With few labels they are rough: one run is {share}.":
        "留一法：每个已标注的运行都由不含它拟合出的权重来预测，因此两个数字都是留出结果。标注较少时数字很粗略：一个运行就占 {share}。",
    "Adapting helped on your labels. Analyses now use version #{id}.": "适配在你的标注上有提升。分析现在使用版本 #{id}。",
    "Adapting did not help on your labels. Analyses use version #{id}; you can revert to the shipped weights.":
        "适配在你的标注上没有提升。分析使用版本 #{id}；你可以恢复内置权重。",
    "Re-analyse runs": "重新分析运行",
    "Analyse the runs again with the adapted weights": "用适配后的权重重新分析这些运行",
    "Revert to shipped weights": "恢复内置权重",
    # versions dialog
    "Ranker versions": "排序器版本",
    "Analyses use the active ranker. Older versions are kept; pick one to use it again.":
        "分析使用当前启用的排序器。旧版本会保留；选择一个即可重新使用。",
    "Version": "版本",
    "Created": "创建时间",
    "λ": "λ",
    "Shipped step@1": "内置 step@1",
    "Adapted step@1": "适配后 step@1",
    "In use": "使用中",
    "Use selected": "使用所选",
    # main window
    "Analysed {n} runs (ranker: {ranker}).": "已分析 {n} 个运行（排序器：{ranker}）。",
    "Adapting the ranker": "正在适配排序器",
}
