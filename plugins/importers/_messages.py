"""Chat messages as run/observation exports hold them, normalised to OpenAI-style dicts.

LangSmith, Langfuse and MLflow keep a model call's input and output as whatever the client
library logged: OpenAI chat messages and ``ChatCompletion`` objects, LangChain messages
(``dumpd`` constructors ``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs":
{...}}`` or plain ``{"type": "ai", "content", "tool_calls"}``), LangChain ``generations``,
Anthropic content blocks, OpenAI Responses API payloads (``{"object": "response", "output":
[items]}`` and request ``input`` lists of ``message`` / ``function_call`` /
``function_call_output`` / ``reasoning`` items, text in ``output_text``/``input_text`` blocks).
:func:`input_messages` and :func:`output_message` turn them into ``{"role", "content",
"tool_calls": [{"id", "function": {"name", "arguments"}}]}`` dicts (a reasoning summary as
``parts: [{"type": "reasoning", "content"}]``) that :mod:`plugins.importers.otel` reads as
``gen_ai.input.messages``/``gen_ai.output.messages``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

_ROLES = {
    "human": "user", "humanmessage": "user", "humanmessagechunk": "user", "user": "user",
    "ai": "assistant", "aimessage": "assistant", "aimessagechunk": "assistant", "assistant": "assistant",
    "model": "assistant", "system": "system", "systemmessage": "system", "developer": "system",
    "tool": "tool", "toolmessage": "tool", "function": "tool", "functionmessage": "tool",
}

TEXT_BLOCKS = ("text", "output_text", "input_text", None)
"""Content-block types whose ``text`` is message text (``None``: an untyped ``{"text"}`` block);
the same types :mod:`plugins.importers.chat` reads as text."""

CALL_BLOCKS = ("tool_use", "server_tool_use", "tool_call", "function_call")
"""Content-block types that are tool calls (as in :mod:`plugins.importers.chat`)."""

_CALL_ITEMS = ("function_call", "custom_tool_call")
_RESULT_ITEMS = ("function_call_output", "custom_tool_call_output")
_RESPONSES_ITEMS = frozenset({
    "message", "reasoning", *_CALL_ITEMS, *_RESULT_ITEMS, "web_search_call", "file_search_call", "computer_call",
    "computer_call_output", "code_interpreter_call", "image_generation_call", "local_shell_call",
    "local_shell_call_output", "mcp_call", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response",
    "item_reference"})
"""Item types of OpenAI Responses API ``input``/``output`` lists (the ones not read are skipped)."""

_REASONING = "\x00reasoning"
"""Key of a Responses ``reasoning`` item's text on its interim message (no source key looks like it)."""


def _args_json(args: Any) -> Any:
    if isinstance(args, (Mapping, list)):
        try:
            return orjson.dumps(args, default=str).decode()
        except TypeError:
            return str(args)
    return args


def _tool_calls(raw: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for c in raw if isinstance(raw, list) else []:
        if not isinstance(c, Mapping):
            continue
        fn = c.get("function")
        if isinstance(fn, Mapping):
            out.append({"id": c.get("id"), "function": {"name": fn.get("name"), "arguments": fn.get("arguments")}})
        elif c.get("name") is not None:  # LangChain {name, args, id}; Anthropic tool_use {name, input, id}
            args = c.get("args", c.get("input", c.get("arguments")))
            # Responses function_call: ``call_id`` is what its function_call_output names (``id`` is "fc_...")
            cid = c.get("call_id") if c.get("call_id") is not None else c.get("id")
            out.append({"id": cid, "function": {"name": c.get("name"), "arguments": _args_json(args)}})
    return out


def _block_text(blocks: list[Any], types: tuple[str | None, ...]) -> str:
    texts = [b.get("text") for b in blocks if isinstance(b, Mapping) and b.get("type") in types]
    return "\n".join(t for t in texts if isinstance(t, str) and t)


def _responses_item(m: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A role-less Responses API item as a chat message (None: not one of the items read)."""
    rtype = m.get("type")
    if rtype in _CALL_ITEMS:
        return {"role": "assistant", "content": None, "tool_calls": [m]}
    if rtype in _RESULT_ITEMS:
        out = m.get("output")
        return {"role": "tool", "content": out if isinstance(out, (str, list)) or out is None else _args_json(out),
                "tool_call_id": m.get("call_id")}
    if rtype == "reasoning":
        summary, content = m.get("summary"), m.get("content")
        text = "\n".join(t for t in (
            _block_text(summary if isinstance(summary, list) else [], ("summary_text",)),
            _block_text(content if isinstance(content, list) else [], ("reasoning_text", "text"))) if t)
        return {"role": "assistant", "content": None, _REASONING: text}
    return None


def message(m: Any) -> dict[str, Any] | None:
    """One message as an OpenAI-style dict, or None when ``m`` is not a message."""
    if not isinstance(m, Mapping):
        return None
    if m.get("lc") is not None and isinstance(m.get("kwargs"), Mapping):  # LangChain dumpd constructor
        ids = m.get("id")
        cls = str(ids[-1]) if isinstance(ids, list) and ids else ""
        kw = dict(m["kwargs"])
        kw.setdefault("type", cls)
        m = kw
    rtype = m.get("type")
    if m.get("role") is None and isinstance(rtype, str) and rtype in _RESPONSES_ITEMS and rtype != "message":
        item = _responses_item(m)
        if item is None:
            return None
        m = item
    role_raw = m.get("role", m.get("type"))
    role = _ROLES.get(str(role_raw).lower()) if role_raw is not None else None
    if role is None:
        return None
    out: dict[str, Any] = {"role": role, "content": m.get("content")}
    calls = _tool_calls(m.get("tool_calls"))
    extra = m.get("additional_kwargs")
    if not calls and isinstance(extra, Mapping):
        calls = _tool_calls(extra.get("tool_calls"))
    content = m.get("content")
    if isinstance(content, list):  # Anthropic/Responses blocks: tool_use/function_call parts are calls
        blocks = [b for b in content if isinstance(b, Mapping)]
        if not calls:
            calls = _tool_calls([b for b in blocks if b.get("type") in CALL_BLOCKS])
        if blocks and len(blocks) == len(content):
            out["content"] = _block_text(blocks, TEXT_BLOCKS)
    if calls:
        out["tool_calls"] = calls
    reasoning = m.get(_REASONING)
    if isinstance(reasoning, str) and reasoning.strip():
        out["parts"] = [{"type": "reasoning", "content": reasoning}]
    if m.get("tool_call_id") is not None:
        out["tool_call_id"] = m.get("tool_call_id")
    if m.get("name") is not None and role == "tool":
        out["name"] = m.get("name")
    return out


def is_responses_list(value: Any) -> bool:
    """True for a list holding OpenAI Responses API items (``function_call``, ``reasoning``, ...)."""
    return isinstance(value, list) and any(
        isinstance(m, Mapping) and isinstance(m.get("type"), str) and m.get("type") in _RESPONSES_ITEMS
        and (m.get("type") != "message" or isinstance(m.get("content"), list)) for m in value)


def _merge(prev: dict[str, Any], m: dict[str, Any]) -> None:
    """Fold an assistant message into the previous one (one model turn of Responses items)."""
    texts = [t for t in (prev.get("content"), m.get("content")) if isinstance(t, str) and t]
    prev["content"] = "\n".join(texts)
    if m.get("tool_calls"):
        prev["tool_calls"] = [*prev.get("tool_calls", []), *m["tool_calls"]]
    if m.get("parts"):
        prev["parts"] = [*prev.get("parts", []), *m["parts"]]


def _responses_messages(items: list[Any]) -> list[dict[str, Any]]:
    """Chat messages of a Responses item list: a run of assistant-side items is one message."""
    out: list[dict[str, Any]] = []
    for item in items:
        msg = message(item)
        if msg is None:
            continue
        if out and msg["role"] == "assistant" and out[-1]["role"] == "assistant":
            _merge(out[-1], msg)
        else:
            out.append(msg)
    return out


def _message_list(value: Any) -> list[dict[str, Any]] | None:
    if isinstance(value, list) and value and isinstance(value[0], list):  # LangChain batches [[msg, ...]]
        value = value[0]
    if not isinstance(value, list) or not value:
        return None
    if is_responses_list(value):  # items not read (web_search_call ...) are skipped, not counted
        return _responses_messages(value) or None
    msgs = [message(m) for m in value]
    good = [m for m in msgs if m is not None]
    return good if good and len(good) >= len(msgs) / 2 else None


_USER_TEXT_KEYS = ("prompt", "input", "user_message")
"""Keys of an input mapping whose string value is the user's message."""


def input_messages(value: Any) -> list[dict[str, Any]]:
    """The chat messages inside a model call's input (a list, ``{"messages"}``, ``{"input"}``...).

    An MLflow ``ResponsesAgent`` input ``{"request": {"input": [...]}}`` is read through its
    ``request``.
    """
    direct = _message_list(value)
    if direct:
        return direct
    if isinstance(value, Mapping):
        for key in ("messages", "input", "prompt", "prompts", "inputs", "user_message"):
            sub = value.get(key)
            if key in ("prompts", "prompt") and isinstance(sub, list) and sub and isinstance(sub[0], str):
                return [{"role": "user", "content": sub[0]}]
            if isinstance(sub, str) and key in _USER_TEXT_KEYS:
                return [{"role": "user", "content": sub}]
            got = _message_list(sub)
            if got:
                return got
        req = value.get("request")
        if isinstance(req, Mapping) and req is not value:
            got = input_messages(req)
            if got:
                return got
        one = message(value)
        if one is not None:
            return [one]
    if isinstance(value, str) and value.strip():
        return [{"role": "user", "content": value}]
    return []


def output_message(value: Any) -> dict[str, Any] | None:
    """The assistant message of a model call's output (generations, choices, a message, text)."""
    if isinstance(value, str):
        return {"role": "assistant", "content": value} if value.strip() else None
    if isinstance(value, list):
        msgs = _message_list(value)
        if msgs:
            return next((m for m in reversed(msgs) if m["role"] == "assistant"), None)
        return None
    if not isinstance(value, Mapping):
        return None
    out_items = value.get("output")
    if is_responses_list(out_items) or (value.get("object") == "response" and isinstance(out_items, list)):
        return responses_output(value)
    gens = value.get("generations")
    if isinstance(gens, list) and gens:
        first = gens[0][0] if isinstance(gens[0], list) and gens[0] else gens[0]
        if isinstance(first, Mapping):
            msg = message(first.get("message"))
            if msg is not None:
                return msg
            if isinstance(first.get("text"), str):
                return {"role": "assistant", "content": first["text"]}
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        ch = choices[0]
        msg = message(ch.get("message")) if isinstance(ch.get("message"), Mapping) else None
        if msg is not None:
            return msg
        if isinstance(ch.get("text"), str):
            return {"role": "assistant", "content": ch["text"]}
    if value.get("role") is not None or value.get("lc") is not None or value.get("type") in ("ai", "AIMessage"):
        return message(value)
    if value.get("type") == "message" and isinstance(value.get("content"), list):  # Anthropic Message
        return message({"role": "assistant", "content": value["content"]})
    for key in ("output", "messages", "message", "content", "text", "response", "answer", "final_response",
                "final_answer"):
        sub = value.get(key)
        if sub is not None and sub is not value:
            got = output_message(sub)
            if got is not None:
                return got
    return None


def responses_output(value: Any) -> dict[str, Any] | None:
    """The assistant message of an OpenAI Responses API object, or None for anything else.

    ``{"object": "response", "output": [items]}``: its output text, tool calls and reasoning.
    """
    if not isinstance(value, Mapping):
        return None
    items = value.get("output")
    if not isinstance(items, list) or not (value.get("object") == "response" or is_responses_list(items)):
        return None
    merged: dict[str, Any] = {"role": "assistant", "content": ""}
    for m in _responses_messages(items):
        if m["role"] == "assistant":
            _merge(merged, m)
    if not merged["content"] and isinstance(value.get("output_text"), str):  # the SDK's convenience field
        merged["content"] = value["output_text"]
    return merged


def responses_input(value: Any) -> list[dict[str, Any]]:
    """The messages of an OpenAI Responses API request or item list; [] for anything else.

    ``{"input": [items]}``, also under MLflow's ``{"request": {...}}``, or a list of items.
    """
    if isinstance(value, Mapping) and isinstance(value.get("request"), Mapping):
        value = value["request"]
    if isinstance(value, Mapping):
        value = value.get("input")
    if not isinstance(value, list) or not value:
        return []
    if is_responses_list(value) or all(isinstance(m, Mapping) and "role" in m for m in value):
        return _message_list(value) or []
    return []


def usage_tokens(*sources: Any) -> tuple[int | None, int | None]:
    """(input, output) token counts from the usage dicts/objects of an export, first found wins."""
    pairs = (("input_tokens", "output_tokens"), ("prompt_tokens", "completion_tokens"), ("input", "output"),
             ("promptTokens", "completionTokens"))
    for src in sources:
        if not isinstance(src, Mapping):
            continue
        for a, b in pairs:
            ti, to = src.get(a), src.get(b)
            if (isinstance(ti, int) and not isinstance(ti, bool)) or (isinstance(to, int) and not isinstance(to, bool)):
                return (ti if isinstance(ti, int) else None, to if isinstance(to, int) else None)
    return None, None
