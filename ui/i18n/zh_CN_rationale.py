"""Simplified Chinese translations of the rationale messages (context ``Rationale``).

Same format as :mod:`ui.i18n.zh_CN`; the English sources are the templates of
``analyzer.attribution.rationale.RATIONALE_MESSAGES``. Keep every ``{placeholder}``.
Run ``python -m ui.i18n.update`` after editing.
"""

from __future__ import annotations

TRANSLATIONS: dict[str, str] = {
    "Rationale|{category}: {body}": "{category}：{body}",
    "Rationale|; ": "；",
    "Rationale|{body} ({tail})": "{body}（{tail}）",
    "Rationale|step {n}": "步骤 {n}",
    "{step} commits to an approach that is later revised or fails": "{step} 采用的方案随后被修改或失败",
    "{step} turns away from the stated task to a goal nobody asked for": "{step} 偏离了既定任务，转向无人要求的目标",
    "{step} ignores or contradicts a fact an observation already gave": "{step} 忽视或违背了观察结果中已给出的事实",
    "{step} builds on an earlier mistake and carries it forward": "{step} 建立在先前的错误之上，并把错误延续下去",
    "{step} repeats an earlier action without progress": "{step} 重复了先前的操作，毫无进展",
    "{step} leaves an error unhandled (retried unchanged, ignored or misdiagnosed)":
        "{step} 没有处理错误（原样重试、忽略或误判）",
    "{step} claims success without verification, yet the run failed": "{step} 未经验证就声称成功，但运行实际失败",
    "{step} claims facts or results that no observation supports": "{step} 声称的事实或结果没有任何观察结果支持",
    "{step} meets a tool, API or infrastructure failure": "{step} 遇到了工具、API 或基础设施故障",
    "{step} is where the run most likely went wrong": "运行最可能在 {step} 出错",
    "it says {quote}": "其内容为 {quote}",
    "{quote_step} says {quote}": "{quote_step} 写道 {quote}",
    "the output at {quote_step} reads {quote}": "{quote_step} 的输出为 {quote}",
    "the {tool} output at {quote_step} reads {quote}": "{quote_step} 的 {tool} 输出为 {quote}",
    "it calls {tool} with {quote}": "它以 {quote} 调用 {tool}",
    "{quote_step} calls {tool} with {quote}": "{quote_step} 以 {quote} 调用 {tool}",
    "{quote_step} revises it: {quote}": "{quote_step} 修改了该方案：{quote}",
    "the same action first ran at {first_step}": "同样的操作最早在 {first_step} 执行过",
    "{step} states {quote}, but no earlier observation shows {value}": "{step} 声称 {quote}，但此前没有任何观察结果显示 {value}",
    "it states {quote}, but no earlier observation shows {value}": "它声称 {quote}，但此前没有任何观察结果显示 {value}",
    "the action at {step} fails: the output at {error_step} reads {error_quote}":
        "{step} 的操作失败：{error_step} 的输出为 {error_quote}",
    "{step} reports an error: {quote}": "{step} 报告了错误：{quote}",
    "{step} goes on as if the error at {error_step} had not happened: {error_quote}":
        "{step} 继续执行，仿佛 {error_step} 的错误从未发生：{error_quote}",
    "{step} follows the error at {error_step}: {error_quote}": "{step} 紧接在 {error_step} 的错误之后：{error_quote}",
    "the agent's next step, {next_step}, goes on without addressing it: {next_quote}":
        "该智能体的下一步（{next_step}）未处理该错误就继续执行：{next_quote}",
    "the agent's next step, {next_step}, responds: {next_quote}": "该智能体的下一步（{next_step}）回应：{next_quote}",
    "next, {next_step} says {next_quote}": "随后 {next_step} 写道 {next_quote}",
    "{step} has no text; the task reads {quote}": "{step} 没有文本；任务为 {quote}",
    "{step} has no text": "{step} 没有文本",
    "p={p}": "p={p}",
    "p={p}, runner-up {runner_step} p={runner_p}": "p={p}，次优候选 {runner_step} p={runner_p}",
    "responsible agent {agent}, {share} of the candidate mass": "责任智能体 {agent}，占候选概率的 {share}",
    "judge re-ranked the top {n}": "评审模型重新排序了前 {n} 个候选",
    "category from the judge": "类别来自评审模型",
    "run succeeded": "运行成功",
    "run has no steps": "运行没有步骤",
}
