"""Chat messages as run/observation exports hold them, normalised to OpenAI-style dicts.

LangSmith, Langfuse and MLflow keep a model call's input and output as whatever the client
library logged: OpenAI chat messages and ``ChatCompletion`` objects, LangChain messages
(``dumpd`` constructors ``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs":
{...}}`` or plain ``{"type": "ai", "content", "tool_calls"}``), LangChain ``generations``,
Anthropic content blocks. :func:`input_messages` and :func:`output_message` turn them into
``{"role", "content", "tool_calls": [{"id", "function": {"name", "arguments"}}]}`` dicts that
:mod:`plugins.importers.otel` reads as ``gen_ai.input.messages``/``gen_ai.output.messages``.
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
            out.append({"id": c.get("id"), "function": {"name": c.get("name"), "arguments": _args_json(args)}})
    return out


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
    if isinstance(content, list):  # Anthropic-style blocks: tool_use parts are calls
        blocks = [b for b in content if isinstance(b, Mapping)]
        if not calls:
            calls = _tool_calls([b for b in blocks if b.get("type") == "tool_use"])
        texts = [b.get("text") for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
        if blocks and len(blocks) == len(content):
            out["content"] = "\n".join(t for t in texts if t)
    if calls:
        out["tool_calls"] = calls
    if m.get("tool_call_id") is not None:
        out["tool_call_id"] = m.get("tool_call_id")
    if m.get("name") is not None and role == "tool":
        out["name"] = m.get("name")
    return out


def _message_list(value: Any) -> list[dict[str, Any]] | None:
    if isinstance(value, list) and value and isinstance(value[0], list):  # LangChain batches [[msg, ...]]
        value = value[0]
    if not isinstance(value, list) or not value:
        return None
    msgs = [message(m) for m in value]
    good = [m for m in msgs if m is not None]
    return good if good and len(good) >= len(msgs) / 2 else None


def input_messages(value: Any) -> list[dict[str, Any]]:
    """The chat messages inside a model call's input (a list, ``{"messages"}``, ``{"input"}``...)."""
    direct = _message_list(value)
    if direct:
        return direct
    if isinstance(value, Mapping):
        for key in ("messages", "input", "prompt", "prompts", "inputs"):
            sub = value.get(key)
            if key in ("prompts", "prompt") and isinstance(sub, list) and sub and isinstance(sub[0], str):
                return [{"role": "user", "content": sub[0]}]
            if isinstance(sub, str) and key in ("prompt", "input"):
                return [{"role": "user", "content": sub}]
            got = _message_list(sub)
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
    for key in ("output", "messages", "message", "content", "text", "response", "answer"):
        sub = value.get(key)
        if sub is not None and sub is not value:
            got = output_message(sub)
            if got is not None:
                return got
    return None


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
