"""Load-problem reasons as message ids plus parameters (see :mod:`analyzer.messages`).

The loader states each problem it finds itself as a :class:`~analyzer.messages.Message` from
:data:`LOAD_MESSAGES`; :class:`analyzer.errors.LoadError` keeps the English text (``reason``,
what the CLI, the exports and the tests read) and the message (``message``), which the app and
``--lang zh_CN`` render in the analyst's language. The built-in importers state theirs the same
way, from :data:`analyzer.import_messages.IMPORT_MESSAGES`, which builds on this catalogue and
renders either in English (:func:`analyzer.import_messages.render_en`); reasons a third-party
importer writes in its own words have no message and are shown as written.

Parameters follow the typing rules of :mod:`analyzer.messages`; in addition ``where`` is a
record locator, ``"file"`` or ``"line N"``, rendered as such in each language.
"""

from __future__ import annotations

from analyzer.messages import Message, Param

LOAD_MESSAGES: dict[str, str] = {
    "file_not_found": "file not found",
    "not_regular_file": "not a regular file (pipe, socket or device)",
    "cannot_read": "cannot read file: {error}",
    "file_over_cap": "file is {size}, over the {cap} cap ({setting}); not read",
    "no_runs": "file holds no runs",
    "plugin_failed": "importer plugin failed to load: {error}",
    "record_twice": "the same record appears twice in this file; the later copy was skipped",
    "unexpected": "unexpected content ({error})",
    "unexpected_after": "unexpected content ({error}); the runs before it are kept, later ones were not read",
    "too_deep": "data is nested too deeply to read safely",
    "too_deep_after": "data is nested too deeply to read safely; the runs before it are kept, later ones were not read",
    "too_large": "file is too large to read into memory",
    "too_large_after": "file is too large to read into memory; the runs before it are kept, later ones were not read",
    "record_too_deep": "record is nested too deeply to read safely; record skipped",
    "record_unexpected": "unexpected content ({error}); record skipped",
    "not_a_trajectory": "importer yielded a {type}, not a trajectory; skipped",
    "json_binary": "{where} looks binary (contains NUL bytes), not JSON text",
    "json_empty": "{where} is empty",
    "json_too_deep": "{where} is nested too deeply to read safely",
    "json_truncated": "{where} is truncated or incomplete JSON ({error})",
    "json_invalid": "{where} is not valid JSON ({error})",
    "record_damaged": "record is damaged JSON at bytes {start}-{end} ({error}); record skipped, the others are read",
    "file_empty": "file is empty",
    "file_whitespace": "file holds only whitespace",
    "document_over_cap": "file is {size}, over the {cap} cap for one JSON document ({setting}); write it as JSONL instead",
    "line_too_long": "line is longer than {cap}, the cap ({setting}); skipped",
    "no_importer": "no importer recognised this file",
    "no_importer_tried": "no importer recognised this file (tried: {tried})",
    "unknown_shape": "{where} is {shape}, a shape no importer recognised",
    "unknown_shape_tried": "{where} is {shape}, a shape no importer recognised (tried: {tried})",
    "duplicates_here": "{n} duplicate runs skipped: the same records of the same source already loaded from this file",
    "duplicate_here": "1 duplicate run skipped: the same record of the same source already loaded from this file",
    "duplicates_from": "{n} duplicate runs skipped: the same records of the same source already loaded from {source}",
    "duplicate_from": "1 duplicate run skipped: the same record of the same source already loaded from {source}",
    "duplicates_from_files": ("{n} duplicate runs skipped: the same records of the same source already loaded "
                              "from {files} other files"),
    "duplicate_from_files": ("1 duplicate run skipped: the same record of the same source already loaded "
                             "from {files} other files"),
}
"""Message id -> English template (``ui/i18n/messages.py`` marks the same templates for
translation; a test keeps the two lists equal)."""


def is_where_param(name: str) -> bool:
    """True for a record-locator parameter (``"file"`` or ``"line N"``)."""
    return name == "where"


def reason(mid: str, **params: Param) -> Message:
    """A load-problem message (the id must be in :data:`LOAD_MESSAGES`).

    Raises:
        KeyError: Unknown id.
    """
    if mid not in LOAD_MESSAGES:
        raise KeyError(f"unknown load-problem message {mid!r}")
    return Message(mid, params)

