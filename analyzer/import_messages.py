"""Reasons the built-in importer plugins give, as message ids plus parameters.

An importer states a bad file or record as ``ctx.error(where, imsg("id", ...))`` or
``raise ImportFailure(imsg("id", ...))``; :class:`analyzer.errors.LoadError` then keeps the
English text below as ``reason`` (byte for byte what the importer wrote before it had ids: the
CLI, the exports and the tests compare it) and the message, which the app and ``--lang zh_CN``
render in the analyst's language (:data:`analyzer.locales.zh_CN_import.IMPORT`). A
third-party importer may keep passing plain strings; they are shown as written.

Parameters follow :mod:`analyzer.messages` (so no parameter is called ``step`` or ``*_step``,
``quote``, ``category`` or ``share`` here, and numbers that need a format are passed as text);
``where`` is a record locator (``"file"`` or ``"line N"``). Library error texts (orjson,
zipfile, pyarrow, pydantic) and trace values are parameters, shown untranslated.
"""

from __future__ import annotations

from analyzer.messages import Message, Param

IMPORT_MESSAGES: dict[str, str] = {
    # _spanio: shared JSON readers of the span/run-export importers
    "document_over_limit": "file is {size} MB, over the {limit} MB limit for one JSON document",
    "object_too_deep_next": "nested too deeply to read safely; skipped to the next object",
    "object_too_deep_rest": "nested too deeply to read safely; rest of the file skipped",
    "object_invalid_next": "not valid JSON ({error}); skipped to the next object",
    "object_invalid_rest": "not valid JSON ({error}); rest of the file skipped",
    "no_json_object": "no readable JSON object in the file",
    "line_over_mb": "line is longer than {mb} MB; skipped",
    # adp
    "adp_content_not_object": "expected a content object, got {type}; skipped",
    "adp_unknown_class": "unknown content class {cls}; skipped",
    "adp_not_object": "expected an ADP trajectory object, got {type}",
    "adp_no_content": "missing 'content' list",
    "adp_content_not_list": "'content' is not a list",
    "adp_content_empty": "'content' has no readable items",
    "adp_unreadable": "unreadable trajectory ({error}); skipped",
    "adp_shape": "expected an ADP trajectory object or a list of them",
    # atif
    "atif_call_not_object": "expected a tool call object; skipped",
    "atif_no_results": "no 'results' list; skipped",
    "atif_result_not_object": "expected a result object; skipped",
    "atif_not_object": "expected an ATIF trajectory object, got {type}",
    "atif_version": "missing or unknown schema_version {version} (expected ATIF-v1.x)",
    "atif_no_steps": "no 'steps' list",
    "atif_step_not_object": "expected a step object, got {type}; skipped",
    "atif_shape": "expected an ATIF trajectory object or a list of them",
    # chat
    "chat_call_not_object": "messages[{index}].tool_calls holds a non-object",
    "chat_calls_not_list": "messages[{index}].tool_calls is not a list",
    "chat_message_not_object": "messages[{index}] is not an object",
    "chat_no_role": "messages[{index}] has no role",
    "chat_not_messages": "expected a messages list or an object with 'messages'",
    "chat_no_messages": "missing 'messages' list",
    "chat_messages_not_list": "'messages' is not a list",
    "chat_run_skipped": "{reason}; run skipped",
    "chat_messages_empty": "'messages' is empty",
    "chat_shape": "expected a messages list, an object with 'messages', or a list of such objects",
    # claude_code
    "claude_not_object": "expected a JSON object (one session event)",
    "claude_no_message": "{kind} event has no 'message' object",
    "claude_unreadable": "unreadable message: {reason}",
    "claude_no_events": "no user, assistant or system events in this session file",
    # tau_bench
    "tau_not_object": "expected a tau-bench result object with 'traj'",
    "tau_no_traj": "missing 'traj' list",
    "tau_traj_not_list": "'traj' is not a list",
    "tau_run_skipped": "traj: {reason}; run skipped",
    "tau_traj_empty": "'traj' is empty",
    "tau_shape": "expected a tau-bench result list or object",
    # who_and_when
    "ww_not_object": "expected a JSON object with a 'history' list",
    "ww_no_history": "missing 'history' list",
    "ww_history_not_list": "'history' is not a list",
    "ww_entry_not_object": "history[{index}] is not an object; run skipped (step indices would shift)",
    "ww_shape": "expected a Who&When object (with 'history') or a list of them",
    # generic_flat (the flat generic JSONL lines) and generic
    "version_unsupported": "unsupported schema_version {version} (this TrajScope reads {major}.x)",
    "field_int_range": "field {field}: integer {value} is out of range (64-bit signed)",
    "field_not_int": "field {field}: expected an integer, got {type} {value}",
    "field_not_number": "field {field}: expected a number, got {type} {value}",
    "field_not_bool": "field {field}: expected true or false, got {type} {value}",
    "flat_not_object": "expected a JSON object for a step, got {type}",
    "flat_no_trace_id": "missing trace_id",
    "flat_no_step": "missing step",
    "flat_negative_step": "field step: must be >= 0, got {value}",
    "field_not_one_of": "field {field}: {value} is not one of {allowed}",
    "flat_step_repeated": "step {step_no} of run {run} was already given on an earlier line; skipped",
    "flat_step_gaps": "step numbers are not 0..{last} (largest is {largest}); renumbered in order",
    # generic (nested trajectories)
    "generic_not_list": "'trajectories' must be a list of trajectory objects",
    "generic_shape": "expected a trajectory object or a list of them",
    "generic_not_object": "expected a JSON object for a trajectory, got {type}",
    "generic_invalid": "field {field}: {error}",
    "generic_invalid_more": "field {field}: {error} (and {more} more problems)",
    # swe_agent, mini_swe_agent
    "swe_not_object": "expected a JSON object with a 'trajectory' list (SWE-agent .traj)",
    "swe_no_trajectory": "no 'trajectory' list: not a SWE-agent .traj file",
    "swe_entry_not_object": "expected an object, got {type}; step skipped",
    "mini_not_object": "expected a JSON object with 'info' and 'messages' (mini-swe-agent .traj.json)",
    "mini_no_messages": "no 'messages' list: not a mini-swe-agent trajectory",
    "mini_message_not_object": "expected an object, got {type}; message skipped",
    "mini_unknown_role": "unknown role {role}; message skipped",
    # openhands
    "oh_event_not_object": "expected an event object, got {type}; skipped",
    "oh_event_neither": "event has neither 'action' nor 'observation'; skipped",
    "oh_not_object": "expected a JSON object, got {type}",
    "oh_no_history": "no 'history' list of events",
    "oh_shape": "expected a list of OpenHands events or an object with a 'history' list",
    "oh_no_events": "no 'history' (or 'trajectory') list of OpenHands events",
}
"""Message id -> English template (ids are disjoint from :data:`analyzer.reasons.LOAD_MESSAGES`;
a test checks, and that every id has a Chinese template with the same placeholders)."""


def imsg(mid: str, **params: Param) -> Message:
    """An importer message (the id must be in :data:`IMPORT_MESSAGES`).

    Raises:
        KeyError: Unknown id.
    """
    if mid not in IMPORT_MESSAGES:
        raise KeyError(f"unknown importer message {mid!r}")
    return Message(mid, params)


INNER = "reason"
"""Parameter of a message that wraps another one (``"{reason}; sample skipped"``): it holds the
inner reason's English text; ``reason_id`` and ``reason.<name>`` hold the inner message, so a
renderer can render it in its own language (:func:`inner_message`)."""


def wrap(mid: str, inner: Message | str, **params: Param) -> Message:
    """An importer message around another reason (a message, or a third party's plain words).

    Raises:
        KeyError: Unknown id.
    """
    if isinstance(inner, str):
        return imsg(mid, **params, **{INNER: inner})
    from analyzer.reasons import render_en

    nested = {f"{INNER}.{k}": v for k, v in inner.params.items()}
    return imsg(mid, **params, **{INNER: render_en(inner), f"{INNER}_id": inner.id}, **nested)


def inner_message(message: Message) -> Message | None:
    """The message a :func:`wrap` message wraps, or None (plain words, or not a wrapper)."""
    mid = message.params.get(f"{INNER}_id")
    if not isinstance(mid, str):
        return None
    prefix = f"{INNER}."
    return Message(mid, {k[len(prefix):]: v for k, v in message.params.items() if k.startswith(prefix)})
