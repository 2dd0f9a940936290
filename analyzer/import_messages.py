"""Reasons the built-in importer plugins give, as message ids plus parameters.

Also the reasons of the readers they share in the core (``analyzer.guard``'s capped inflate,
``analyzer.loading.jsonio``) and the content checks the loader makes of a file no importer
claimed (``analyzer.loading.diagnose``: binary, UTF-16, not UTF-8).

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

The English text of any load problem, the loader's (:data:`analyzer.reasons.LOAD_MESSAGES`) or
an importer's, is :func:`render_en` here: this catalogue builds on the loader's, not the other
way round.
"""

from __future__ import annotations

from analyzer.messages import Message, Param
from analyzer.reasons import LOAD_MESSAGES

IMPORT_MESSAGES: dict[str, str] = {
    # near misses: what the closest importer found missing in a file nobody claimed
    "near_no_key": "looks like {label} but has no `{key}`",
    "near_no_keys": "looks like {label} but has no `{key}` and no `{key2}`",
    "near_none_of": "looks like {label} but has none of {keys}",
    "near_no_key_none_of": "looks like {label} but has no `{key}` and none of {keys}",
    "near_atif_version": "looks like an ATIF trajectory but has no `schema_version` (ATIF-v1.x)",
    "near_ww_history_an": "looks like Who&When but its `history` is an {kind}, not a list",
    "near_ww_history_a": "looks like Who&When but its `history` is a {kind}, not a list",
    # the loader quoting a near miss for a file nobody claimed
    "closest_line": "line {lineno} {reason}",
    "closest_line_tried": "line {lineno} {reason} (tried: {tried})",
    "closest_file": "file {reason}",
    "closest_file_tried": "file {reason} (tried: {tried})",
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
    "harbor_not_trial": "no 'trial_name': not a Harbor trial result.json",
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
    # inspect_eval, inspect_json (and the zip reader of .eval logs)
    "zip_unreadable": "not a readable zip archive: the .eval file is truncated or corrupt ({error})",
    "zip_too_many_members": "zip holds {n} members, over the cap of {cap} ({setting})",
    "zip_directory_outside": "not a readable zip archive: its directory points outside the file (truncated or corrupt)",
    "zip_member_missing": "member not found in the zip",
    "zip_member_over_cap": "member is {size} uncompressed, over the {cap} cap ({setting}); refused before inflating",
    "zip_method": "unsupported zip compression method {method}",
    "zip_cannot_decompress": "cannot decompress member ({error})",
    "zip_negative": "zip directory gives a negative offset or size (file corrupt)",
    "zip_points_outside": "zip directory points outside the file ({error})",
    "zip_no_local_header": "local file header is missing (file truncated or corrupt)",
    "zip_member_truncated": "member data is truncated ({got} of {size} bytes)",
    "zstd_cannot_decompress": "cannot decompress zstd member ({error})",
    "zstd_size_mismatch": "zstd member decompressed to {got} bytes, the zip directory says {size}",
    "zstd_crc": "zstd member fails its CRC check (corrupt data)",
    "inspect_message_not_object": "messages[{index}] is not an object",
    "inspect_unknown_role": "messages[{index}] has an unknown role {role}",
    "inspect_sample_not_object": "sample is not a JSON object",
    "inspect_messages_not_list": "'messages' is not a list",
    "inspect_no_messages_events": "sample has neither messages nor events",
    "inspect_no_readable": "sample has no readable messages or events",
    "inspect_unexpected_shape": "unexpected sample shape ({error})",
    "inspect_sample_skipped": "{reason}; sample skipped",
    "inspect_without_header": "{reason}; samples read without the log header",
    "inspect_header_not_object": "log header is not a JSON object; samples read without it",
    "inspect_no_members": "zip holds no Inspect log members (header.json, samples/)",
    "inspect_no_samples": "log holds no samples",
    "inspect_no_samples_status": "log holds no samples (log status: {status})",
    "inspect_not_log": "expected an Inspect log object at the top level",
    "inspect_header_only": "log holds no samples (header-only log)",
    "inspect_samples_not_list": "'samples' is not a list",
    "inspect_invalid": "file is not valid JSON or is truncated ({error})",
    "inspect_no_eval": "not an Inspect log: no 'eval' header",
    "inspect_invalid_here": "file is not valid JSON or is truncated here ({error}); later samples skipped",
    "inspect_no_samples_stream": "log holds no samples (header-only log, or 'samples' is not a list)",
    # langfuse
    "lf_unexpected_trace": "unexpected trace content ({error}); trace skipped",
    "lf_none_found": "no Langfuse trace found",
    "lf_not_trace": "not a Langfuse trace object; skipped",
    "lf_no_observations": "Langfuse trace has no 'observations' list; skipped",
    "lf_no_id": "Langfuse trace has no 'id'; skipped",
    "lf_unreadable_observation": "unreadable observation content ({error}); skipped",
    "lf_no_steps": "Langfuse trace {trace} has no generation, tool or error observations; skipped",
    "lf_observation_not_object": "observation is not an object; skipped",
    "lf_observation_no_id": "observation has no 'id'; skipped",
    "lf_bad_time": "observation {id}: {field} {value} is not a readable, plausible date; the step keeps no time",
    # langsmith
    "ls_run_not_object": "run is not an object; skipped",
    "ls_unreadable_run": "unreadable run content ({error}); run skipped",
    "ls_too_deep": "child_runs nested deeper than {depth}; deeper runs skipped",
    "ls_no_id": "run has no 'id'; skipped",
    "ls_bad_time": "run {id}: {field} {value} is not a readable, plausible date; the step keeps no time",
    "ls_unexpected_record": "unexpected run content ({error}); record skipped",
    "ls_none_found": "no readable LangSmith runs found",
    "ls_unexpected_trace": "unexpected run content in trace {trace} ({error}); skipped",
    "ls_no_steps": "trace {trace} has no llm, tool or retriever runs; skipped",
    # mlflow
    "ml_trace_skipped": "{reason}; trace skipped",
    "ml_unexpected_trace": "unexpected trace content ({error}); trace skipped",
    "ml_none_found": "no MLflow trace found",
    "ml_not_trace": "not an MLflow trace (expected an object with 'info' and 'data'); skipped",
    "ml_no_spans_list": "MLflow trace has no 'data.spans' list; skipped",
    "ml_no_id": "MLflow trace has no 'trace_id'/'request_id'; skipped",
    "ml_span_not_object": "span is not an object; skipped",
    "ml_unreadable_span": "unreadable span content ({error}); span skipped",
    "ml_no_readable_spans": "MLflow trace has no readable spans; skipped",
    "ml_no_steps": "MLflow trace has no LLM, tool or retriever spans; skipped",
    # phoenix (and 'no readable spans found', shared with otel)
    "no_spans_found": "no readable spans found",
    "px_over_limit": "file is {size} MB, over the {limit} MB limit for a Parquet span file",
    "px_unreadable": "not a readable Parquet file ({error})",
    "px_no_columns": "Parquet file has no 'context.span_id'/'context.trace_id' columns of Phoenix spans",
    "px_not_span_row": "not a span row (no trace/span id); skipped",
    "px_row_skipped": "{reason}; row skipped",
    "px_stopped": "Parquet data could not be read further ({error}); later rows skipped",
    # otel, otel_sdk (span exports: OTLP, flat spans, TRAIL)
    "otel_resource_not_list": "'resourceSpans' is not a list",
    "otel_resource_not_object": "resource spans entry is not an object; skipped",
    "otel_no_scope_spans": "'scopeSpans' is missing or not a list; skipped",
    "otel_no_spans": "'spans' is missing or not a list; skipped",
    "otel_labels_ignored": "{reason}; labels ignored",
    "otel_trail_no_spans": "TRAIL 'trace' has no 'spans' list",
    "otel_span_not_object": "span is not an object; skipped",
    "otel_unreadable_span": "unreadable span content ({error}); span skipped",
    "otel_too_deep": "child_spans nested deeper than {depth}; deeper spans skipped",
    "otel_no_trace_id": "span has no trace id; skipped",
    "otel_no_span_id": "span has no span id; skipped",
    "otel_bad_start": "span {id}: start time {value} is not a readable, plausible date (before year 10000); the span keeps no start time",
    "otel_bad_end": "span {id}: end time {value} is not a readable, plausible date (before year 10000); the span keeps no end time",
    "otel_line_not_span": "not a span, OTLP document or TRAIL row; line skipped",
    "otel_line_skipped": "{reason}; line skipped",
    "otel_not_export": "not a span export: expected an OTLP {{\"resourceSpans\": [...]}} document, a list of spans, or a TRAIL trace with 'spans'/'child_spans'",
    "otel_object_not_span": "not a span, OTLP document or TRAIL row; skipped",
    "otel_object_skipped": "{reason}; skipped",
    "otel_unexpected_trace": "unexpected span content ({error}); trace skipped",
    "otel_no_steps": "trace has no LLM, tool or retriever spans; skipped",
    # core readers the importers call (analyzer.guard.inflate_capped, analyzer.loading.jsonio.iter_line_chunks)
    "member_inflates_past_cap": "member inflates past {cap}, the cap ({setting}); refused while inflating",
    "member_inflate_ratio": "member inflates more than {ratio} times its compressed size ({packed} -> over {unpacked}), the cap ({setting}); refused while inflating (a zip bomb?)",
    "cannot_map": "cannot map file for reading: {error}",
    # content checks of a file no importer claimed (analyzer.loading.diagnose)
    "binary_png": "file is binary (a PNG image), not JSON text",
    "binary_jpeg": "file is binary (a JPEG image), not JSON text",
    "binary_gif": "file is binary (a GIF image), not JSON text",
    "binary_pdf": "file is binary (a PDF document), not JSON text",
    "binary_zip": "file is binary (a zip archive), not JSON text",
    "binary_gzip": "file is binary (a gzip archive), not JSON text",
    "binary_zstd": "file is binary (a zstd archive), not JSON text",
    "binary_sqlite": "file is binary (an SQLite database), not JSON text",
    "not_a_trace_sqlite": "an SQLite database, not a trace file TrajScope reads (export its spans or traces as JSON, JSONL or Parquet)",
    "not_a_trace_binary": "binary data, not a trace file TrajScope reads",
    "not_a_trace_kind": "not a trace file TrajScope reads (no importer takes {suffix} files)",
    "cannot_decompress": "cannot decompress the {kind} file ({error})",
    "binary_parquet": "file is binary (a Parquet file), not JSON text",
    "text_utf16": "file is UTF-16 text; save it as UTF-8",
    "text_nul": "file looks binary (contains NUL bytes), not JSON text",
    "text_not_utf8": "file is not valid UTF-8 text (bad byte at offset {offset})",
}
"""Message id -> English template (ids are disjoint from :data:`analyzer.reasons.LOAD_MESSAGES`;
a test checks, and that every id has a Chinese template with the same placeholders)."""


def english_catalogue(mid: str) -> dict[str, str]:
    """The English catalogue that holds ``mid`` (the loader's, else the importers')."""
    return LOAD_MESSAGES if mid in LOAD_MESSAGES else IMPORT_MESSAGES


def render_en(message: Message) -> str:
    """English text of a load-problem or importer message.

    Raises:
        KeyError: Unknown id, or a placeholder without a parameter.
    """
    return message.render(english_catalogue(message.id))


def imsg(mid: str, **params: Param) -> Message:
    """An importer message (the id must be in :data:`IMPORT_MESSAGES`).

    Raises:
        KeyError: Unknown id.
    """
    if mid not in IMPORT_MESSAGES:
        raise KeyError(f"unknown importer message {mid!r}")
    return Message(mid, params)


class MessageText(str):
    """The English text of an importer message that keeps the message.

    For APIs that return plain text (an importer's ``near_miss`` hint): it compares, formats
    and prints as the English text, and a caller that knows about messages reads ``.message``.
    """

    message: Message

    def __new__(cls, message: Message) -> MessageText:
        """The English text of ``message`` (an :data:`IMPORT_MESSAGES` id)."""
        out = super().__new__(cls, render_en(message))
        out.message = message
        return out


class MessageValueError(ValueError):
    """A ``ValueError`` whose reason is an importer message (``str(exc)`` is its English text).

    Importers raise subclasses of it for a record whose shape cannot be read, so that the
    reason reaches the load problems as a message id (translated in the app).

    Args:
        message: The reason (an :data:`IMPORT_MESSAGES` id and its parameters).
    """

    def __init__(self, message: Message) -> None:
        super().__init__(render_en(message))
        self.message = message


def itext(mid: str, **params: Param) -> MessageText:
    """:class:`MessageText` of ``imsg(mid, **params)``."""
    return MessageText(imsg(mid, **params))


def message_of(text: str | None) -> Message | None:
    """The message behind ``text`` when it is a :class:`MessageText`, else None."""
    return text.message if isinstance(text, MessageText) else None


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
    nested = {f"{INNER}.{k}": v for k, v in inner.params.items()}
    return imsg(mid, **params, **{INNER: render_en(inner), f"{INNER}_id": inner.id}, **nested)


def inner_message(message: Message) -> Message | None:
    """The message a :func:`wrap` message wraps, or None (plain words, or not a wrapper)."""
    mid = message.params.get(f"{INNER}_id")
    if not isinstance(mid, str):
        return None
    prefix = f"{INNER}."
    return Message(mid, {k[len(prefix):]: v for k, v in message.params.items() if k.startswith(prefix)})
