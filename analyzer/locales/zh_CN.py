"""Simplified Chinese of the text made in ``analyzer/`` (rationales, load problems, reports).

The one source of these translations: the CLI and the reports read them here, and the app's
Qt translation tables (``ui/i18n/zh_CN_rationale.py``, ``ui/i18n/zh_CN_reasons.py``) are
built from them, so the app, the CLI and the reports say the same thing. Keys are message ids
(:data:`analyzer.attribution.rationale.RATIONALE_MESSAGES`, :data:`analyzer.reasons.LOAD_MESSAGES`)
or, for :data:`REPORT`, the English text of the report templates. Keep every ``{placeholder}``.
"""

from __future__ import annotations

STEP_WORD = "步骤 {n}"
"""A step reference."""

LOCATORS: dict[str, str] = {"file": "文件", "line {n}": "第 {n} 行"}
"""Record locators (``where`` parameters)."""

QUOTES = ("“", "”")
"""Quotation marks around verbatim trace text."""

TAXONOMY: dict[str, str] = {
    "planning_error": "规划错误",
    "goal_drift": "目标漂移",
    "evidence_action_gap": "证据-行动脱节",
    "error_accumulation": "错误累积",
    "repeated_action": "重复操作",
    "failed_recovery": "恢复失败",
    "false_success": "虚假成功",
    "hallucination": "幻觉",
    "environment_failure": "环境故障",
    "other": "其他",
}
"""Titles of the taxonomy categories (the app's ``Taxonomy`` context says the same; a test checks)."""

RATIONALE: dict[str, str] = {
    "layout.lead": "{category}：{body}",
    "layout.separator": "；",
    "layout.tail": "{body}（{tail}）",
    "what.planning_error": "{step} 采用的方案随后被修改或失败",
    "what.goal_drift": "{step} 偏离了既定任务，转向无人要求的目标",
    "what.evidence_action_gap": "{step} 忽视或违背了观察结果中已给出的事实",
    "what.error_accumulation": "{step} 建立在先前的错误之上，并把错误延续下去",
    "what.repeated_action": "{step} 重复了先前的操作，毫无进展",
    "what.failed_recovery": "{step} 没有处理错误（原样重试、忽略或误判）",
    "what.false_success": "{step} 未经验证就声称成功，但运行实际失败",
    "what.hallucination": "{step} 声称的事实或结果没有任何观察结果支持",
    "what.environment_failure": "{step} 遇到了工具、API 或基础设施故障",
    "what.other": "运行最可能在 {step} 出错",
    "says_here": "其内容为 {quote}",
    "step_says": "{quote_step} 写道 {quote}",
    "output_reads": "{quote_step} 的输出为 {quote}",
    "tool_output_reads": "{quote_step} 的 {tool} 输出为 {quote}",
    "calls_here": "它以 {quote} 调用 {tool}",
    "step_calls": "{quote_step} 以 {quote} 调用 {tool}",
    "revised_at": "{quote_step} 修改了该方案：{quote}",
    "repeat_of": "同样的操作最早在 {first_step} 执行过",
    "unsupported_number": "{step} 声称 {quote}，但此前没有任何观察结果显示 {value}",
    "unsupported_number_here": "它声称 {quote}，但此前没有任何观察结果显示 {value}",
    "error_after": "{step} 的操作失败：{error_step} 的输出为 {error_quote}",
    "error_at": "{step} 报告了错误：{quote}",
    "error_ignored": "{step} 继续执行，仿佛 {error_step} 的错误从未发生：{error_quote}",
    "after_error": "{step} 紧接在 {error_step} 的错误之后：{error_quote}",
    "next_ignores": "该智能体的下一步（{next_step}）未处理该错误就继续执行：{next_quote}",
    "next_handles": "该智能体的下一步（{next_step}）回应：{next_quote}",
    "next_step": "随后 {next_step} 写道 {next_quote}",
    "no_text": "{step} 没有文本；任务为 {quote}",
    "empty": "{step} 没有文本",
    "rank": "p={p}",
    "rank_runner_up": "p={p}，次优候选 {runner_step} p={runner_p}",
    "agent_share": "责任智能体 {agent}，占候选概率的 {share}",
    "judge_reranked": "评审模型重新排序了前 {n} 个候选",
    "judge_category": "类别来自评审模型",
    "run_succeeded": "运行成功",
    "run_no_steps": "运行没有步骤",
}
"""Rationale message id -> template."""

LOAD: dict[str, str] = {
    "file_not_found": "找不到文件",
    "not_regular_file": "不是普通文件（管道、套接字或设备）",
    "cannot_read": "无法读取文件：{error}",
    "file_over_cap": "文件大小为 {size}，超过了 {cap} 的上限（{setting}）；未读取",
    "no_runs": "文件中没有运行",
    "plugin_failed": "导入器插件加载失败：{error}",
    "record_twice": "同一条记录在此文件中出现了两次；已跳过后一份",
    "unexpected": "意外的内容（{error}）",
    "unexpected_after": "意外的内容（{error}）；之前的运行已保留，之后的运行未读取",
    "too_deep": "数据嵌套过深，无法安全读取",
    "too_deep_after": "数据嵌套过深，无法安全读取；之前的运行已保留，之后的运行未读取",
    "too_large": "文件过大，无法读入内存",
    "too_large_after": "文件过大，无法读入内存；之前的运行已保留，之后的运行未读取",
    "record_too_deep": "记录嵌套过深，无法安全读取；已跳过该记录",
    "record_unexpected": "意外的内容（{error}）；已跳过该记录",
    "not_a_trajectory": "导入器产出的是 {type}，不是轨迹；已跳过",
    "json_binary": "{where}看起来是二进制数据（含 NUL 字节），不是 JSON 文本",
    "json_empty": "{where}为空",
    "json_too_deep": "{where}嵌套过深，无法安全读取",
    "json_truncated": "{where}被截断或不是完整的 JSON（{error}）",
    "json_invalid": "{where}不是有效的 JSON（{error}）",
    "file_empty": "文件为空",
    "file_whitespace": "文件只包含空白字符",
    "document_over_cap": "文件大小为 {size}，超过了单个 JSON 文档 {cap} 的上限（{setting}）；请改用 JSONL 格式",
    "line_too_long": "该行超过 {cap}，即上限（{setting}）；已跳过",
    "no_importer": "没有导入器能识别此文件",
    "no_importer_tried": "没有导入器能识别此文件（已尝试：{tried}）",
    "unknown_shape": "{where}是{shape}，没有导入器认识这种结构",
    "unknown_shape_tried": "{where}是{shape}，没有导入器认识这种结构（已尝试：{tried}）",
    "duplicates_here": "已跳过 {n} 个重复运行：同一来源的相同记录已从此文件加载",
    "duplicate_here": "已跳过 1 个重复运行：同一来源的相同记录已从此文件加载",
    "duplicates_from": "已跳过 {n} 个重复运行：同一来源的相同记录已从 {source} 加载",
    "duplicate_from": "已跳过 1 个重复运行：同一来源的相同记录已从 {source} 加载",
    "duplicates_from_files": "已跳过 {n} 个重复运行：同一来源的相同记录已从其他 {files} 个文件加载",
    "duplicate_from_files": "已跳过 1 个重复运行：同一来源的相同记录已从其他 {files} 个文件加载",
}
"""Load-problem message id -> template."""
