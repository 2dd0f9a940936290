"""Simplified Chinese of the built-in importers' reasons (:data:`analyzer.import_messages.IMPORT_MESSAGES`).

Registered as :data:`analyzer.locales.zh_CN.IMPORT` (the ``"import"`` domain of
:func:`analyzer.locales.catalogue`). Keep every ``{placeholder}``; quoted key names such as
``'messages'`` are trace vocabulary and stay as they are.
"""

from __future__ import annotations

IMPORT: dict[str, str] = {
    "document_over_limit": "文件大小为 {size} MB，超过单个 JSON 文档 {limit} MB 的上限",
    "object_too_deep_next": "嵌套过深，无法安全读取；已跳到下一个对象",
    "object_too_deep_rest": "嵌套过深，无法安全读取；已跳过文件其余部分",
    "object_invalid_next": "不是有效的 JSON（{error}）；已跳到下一个对象",
    "object_invalid_rest": "不是有效的 JSON（{error}）；已跳过文件其余部分",
    "no_json_object": "文件中没有可读取的 JSON 对象",
    "line_over_mb": "该行超过 {mb} MB；已跳过",
    # adp
    "adp_content_not_object": "应为内容对象，实际为 {type}；已跳过",
    "adp_unknown_class": "未知的内容类别 {cls}；已跳过",
    "adp_not_object": "应为 ADP 轨迹对象，实际为 {type}",
    "adp_no_content": "缺少 'content' 列表",
    "adp_content_not_list": "'content' 不是列表",
    "adp_content_empty": "'content' 中没有可读取的条目",
    "adp_unreadable": "无法读取的轨迹（{error}）；已跳过",
    "adp_shape": "应为 ADP 轨迹对象或其列表",
    # atif
    "atif_call_not_object": "应为工具调用对象；已跳过",
    "atif_no_results": "没有 'results' 列表；已跳过",
    "atif_result_not_object": "应为结果对象；已跳过",
    "atif_not_object": "应为 ATIF 轨迹对象，实际为 {type}",
    "atif_version": "schema_version {version} 缺失或未知（应为 ATIF-v1.x）",
    "atif_no_steps": "没有 'steps' 列表",
    "atif_step_not_object": "应为步骤对象，实际为 {type}；已跳过",
    "atif_shape": "应为 ATIF 轨迹对象或其列表",
    # chat
    "chat_call_not_object": "messages[{index}].tool_calls 中含有非对象的条目",
    "chat_calls_not_list": "messages[{index}].tool_calls 不是列表",
    "chat_message_not_object": "messages[{index}] 不是对象",
    "chat_no_role": "messages[{index}] 没有角色（role）",
    "chat_not_messages": "应为消息列表或含 'messages' 的对象",
    "chat_no_messages": "缺少 'messages' 列表",
    "chat_messages_not_list": "'messages' 不是列表",
    "chat_run_skipped": "{reason}；已跳过该运行",
    "chat_messages_empty": "'messages' 为空",
    "chat_shape": "应为消息列表、含 'messages' 的对象，或此类对象的列表",
    # claude_code
    "claude_not_object": "应为 JSON 对象（一个会话事件）",
    "claude_no_message": "{kind} 事件没有 'message' 对象",
    "claude_unreadable": "无法读取的消息：{reason}",
    "claude_no_events": "此会话文件中没有用户、助手或系统事件",
    # tau_bench
    "tau_not_object": "应为含 'traj' 的 tau-bench 结果对象",
    "tau_no_traj": "缺少 'traj' 列表",
    "tau_traj_not_list": "'traj' 不是列表",
    "tau_run_skipped": "traj：{reason}；已跳过该运行",
    "tau_traj_empty": "'traj' 为空",
    "tau_shape": "应为 tau-bench 结果列表或对象",
    # who_and_when
    "ww_not_object": "应为含 'history' 列表的 JSON 对象",
    "ww_no_history": "缺少 'history' 列表",
    "ww_history_not_list": "'history' 不是列表",
    "ww_entry_not_object": "history[{index}] 不是对象；已跳过该运行（否则步骤序号会错位）",
    "ww_shape": "应为 Who&When 对象（含 'history'）或其列表",
    # generic_flat (the flat generic JSONL lines) and generic
    "version_unsupported": "不支持的 schema_version {version}（此版本的 TrajScope 读取 {major}.x）",
    "field_int_range": "字段 {field}：整数 {value} 超出范围（64 位有符号）",
    "field_not_int": "字段 {field}：应为整数，实际为 {type} {value}",
    "field_not_number": "字段 {field}：应为数字，实际为 {type} {value}",
    "field_not_bool": "字段 {field}：应为 true 或 false，实际为 {type} {value}",
    "flat_not_object": "步骤应为 JSON 对象，实际为 {type}",
    "flat_no_trace_id": "缺少 trace_id",
    "flat_no_step": "缺少 step",
    "flat_negative_step": "字段 step：必须 >= 0，实际为 {value}",
    "field_not_one_of": "字段 {field}：{value} 不是 {allowed} 之一",
    "flat_step_repeated": "运行 {run} 的第 {step_no} 步已在前面的行中给出；已跳过",
    "flat_step_gaps": "步骤编号不是 0..{last}（最大为 {largest}）；已按顺序重新编号",
    # generic (nested trajectories)
    "generic_not_list": "'trajectories' 必须是轨迹对象的列表",
    "generic_shape": "应为轨迹对象或其列表",
    "generic_not_object": "轨迹应为 JSON 对象，实际为 {type}",
    "generic_invalid": "字段 {field}：{error}",
    "generic_invalid_more": "字段 {field}：{error}（另有 {more} 个问题）",
    # swe_agent, mini_swe_agent
    "swe_not_object": "应为含 'trajectory' 列表的 JSON 对象（SWE-agent .traj）",
    "swe_no_trajectory": "没有 'trajectory' 列表：不是 SWE-agent .traj 文件",
    "swe_entry_not_object": "应为对象，实际为 {type}；已跳过该步骤",
    "mini_not_object": "应为含 'info' 和 'messages' 的 JSON 对象（mini-swe-agent .traj.json）",
    "mini_no_messages": "没有 'messages' 列表：不是 mini-swe-agent 轨迹",
    "mini_message_not_object": "应为对象，实际为 {type}；已跳过该消息",
    "mini_unknown_role": "未知角色 {role}；已跳过该消息",
    # openhands
    "oh_event_not_object": "应为事件对象，实际为 {type}；已跳过",
    "oh_event_neither": "事件既没有 'action' 也没有 'observation'；已跳过",
    "oh_not_object": "应为 JSON 对象，实际为 {type}",
    "oh_no_history": "没有事件的 'history' 列表",
    "oh_shape": "应为 OpenHands 事件列表或含 'history' 列表的对象",
    "oh_no_events": "没有 OpenHands 事件的 'history'（或 'trajectory'）列表",
}
"""Importer message id -> template."""
