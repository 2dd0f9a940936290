"""Load-problem reasons in the analyst's language.

The loader states its problems as message ids plus parameters (:mod:`analyzer.reasons`); a
:class:`~analyzer.errors.LoadError` carries the message next to its English ``reason``. The app
renders the loader's messages through Qt's translator (context ``LoadReason``; the Chinese comes
from :mod:`analyzer.locales.zh_CN`, see ``ui/i18n/zh_CN_reasons.py``), the built-in importers'
messages (:mod:`analyzer.import_messages`) through :mod:`analyzer.locales` in the current
language, and shows a third-party importer's own words, which have no message, as written.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from analyzer.errors import LoadError
from analyzer.messages import Param, format_param_en

CONTEXT = "LoadReason"

TEMPLATES: dict[str, str] = {
    "file_not_found": QT_TRANSLATE_NOOP("LoadReason", "file not found"),
    "not_regular_file": QT_TRANSLATE_NOOP("LoadReason", "not a regular file (pipe, socket or device)"),
    "cannot_read": QT_TRANSLATE_NOOP("LoadReason", "cannot read file: {error}"),
    "file_over_cap": QT_TRANSLATE_NOOP("LoadReason", "file is {size}, over the {cap} cap ({setting}); not read"),
    "no_runs": QT_TRANSLATE_NOOP("LoadReason", "file holds no runs"),
    "plugin_failed": QT_TRANSLATE_NOOP("LoadReason", "importer plugin failed to load: {error}"),
    "record_twice": QT_TRANSLATE_NOOP("LoadReason", "the same record appears twice in this file; the later copy was skipped"),
    "unexpected": QT_TRANSLATE_NOOP("LoadReason", "unexpected content ({error})"),
    "unexpected_after": QT_TRANSLATE_NOOP("LoadReason", "unexpected content ({error}); the runs before it are kept, later ones were not read"),
    "too_deep": QT_TRANSLATE_NOOP("LoadReason", "data is nested too deeply to read safely"),
    "too_deep_after": QT_TRANSLATE_NOOP("LoadReason", "data is nested too deeply to read safely; the runs before it are kept, later ones were not read"),
    "too_large": QT_TRANSLATE_NOOP("LoadReason", "file is too large to read into memory"),
    "too_large_after": QT_TRANSLATE_NOOP("LoadReason", "file is too large to read into memory; the runs before it are kept, later ones were not read"),
    "record_too_deep": QT_TRANSLATE_NOOP("LoadReason", "record is nested too deeply to read safely; record skipped"),
    "record_unexpected": QT_TRANSLATE_NOOP("LoadReason", "unexpected content ({error}); record skipped"),
    "not_a_trajectory": QT_TRANSLATE_NOOP("LoadReason", "importer yielded a {type}, not a trajectory; skipped"),
    "json_binary": QT_TRANSLATE_NOOP("LoadReason", "{where} looks binary (contains NUL bytes), not JSON text"),
    "json_empty": QT_TRANSLATE_NOOP("LoadReason", "{where} is empty"),
    "json_too_deep": QT_TRANSLATE_NOOP("LoadReason", "{where} is nested too deeply to read safely"),
    "json_truncated": QT_TRANSLATE_NOOP("LoadReason", "{where} is truncated or incomplete JSON ({error})"),
    "json_invalid": QT_TRANSLATE_NOOP("LoadReason", "{where} is not valid JSON ({error})"),
    "record_damaged": QT_TRANSLATE_NOOP("LoadReason", "record is damaged JSON at bytes {start}-{end} ({error}); record skipped, the others are read"),
    "file_empty": QT_TRANSLATE_NOOP("LoadReason", "file is empty"),
    "file_whitespace": QT_TRANSLATE_NOOP("LoadReason", "file holds only whitespace"),
    "document_over_cap": QT_TRANSLATE_NOOP("LoadReason", "file is {size}, over the {cap} cap for one JSON document ({setting}); write it as JSONL instead"),
    "line_too_long": QT_TRANSLATE_NOOP("LoadReason", "line is longer than {cap}, the cap ({setting}); skipped"),
    "no_importer": QT_TRANSLATE_NOOP("LoadReason", "no importer recognised this file"),
    "no_importer_tried": QT_TRANSLATE_NOOP("LoadReason", "no importer recognised this file (tried: {tried})"),
    "unknown_shape": QT_TRANSLATE_NOOP("LoadReason", "{where} is {shape}, a shape no importer recognised"),
    "unknown_shape_tried": QT_TRANSLATE_NOOP("LoadReason", "{where} is {shape}, a shape no importer recognised (tried: {tried})"),
    "duplicates_here": QT_TRANSLATE_NOOP("LoadReason", "{n} duplicate runs skipped: the same records of the same source already loaded from this file"),
    "duplicate_here": QT_TRANSLATE_NOOP("LoadReason", "1 duplicate run skipped: the same record of the same source already loaded from this file"),
    "duplicates_from": QT_TRANSLATE_NOOP("LoadReason", "{n} duplicate runs skipped: the same records of the same source already loaded from {source}"),
    "duplicate_from": QT_TRANSLATE_NOOP("LoadReason", "1 duplicate run skipped: the same record of the same source already loaded from {source}"),
    "duplicates_from_files": QT_TRANSLATE_NOOP("LoadReason", "{n} duplicate runs skipped: the same records of the same source already loaded from {files} other files"),
    "duplicate_from_files": QT_TRANSLATE_NOOP("LoadReason", "1 duplicate run skipped: the same record of the same source already loaded from {files} other files"),
}
"""Message id -> English template, marked for translation (kept equal to
``analyzer.reasons.LOAD_MESSAGES`` by a test)."""

_FILE = QT_TRANSLATE_NOOP("LoadReason", "file")
_LINE_N = QT_TRANSLATE_NOOP("LoadReason", "line {n}")
_LINE_WORD = QT_TRANSLATE_NOOP("LoadReason", "line")
_LINE = re.compile(r"line (\d+)")


def _tr(source: str) -> str:
    return QCoreApplication.translate(CONTEXT, source)


def _param(name: str, value: Param) -> str:
    if name == "where" and isinstance(value, str):
        m = _LINE.fullmatch(value)
        if m:
            return _tr(_LINE_N).format(n=m.group(1))
        return {"file": _tr(_FILE), "line": _tr(_LINE_WORD)}.get(value, value)
    return format_param_en(name, value)


def reason_text(error: LoadError) -> str:
    """The reason of a load problem in the current language (as written when it has no message)."""
    m = error.message
    if m is not None and m.id not in TEMPLATES:  # a built-in importer's message (analyzer.import_messages)
        from analyzer.locales import reason_text as render
        from ui.i18n import current_language

        return render(m, error.reason, current_language())
    if m is None:
        return error.reason
    try:
        return m.render({m.id: _tr(TEMPLATES[m.id])}, _param)
    except (KeyError, IndexError, ValueError):
        return error.reason


def finding_text(text: str | None) -> str:
    """A finding description in the current language (see :func:`analyzer.locales.finding_text`)."""
    from analyzer.locales import finding_text as render
    from ui.i18n import current_language

    return render(text, current_language())


def note_text(text: str | None) -> str:
    """A value-curve note in the current language (see :func:`analyzer.locales.note_text`)."""
    from analyzer.locales import note_text as render
    from ui.i18n import current_language

    return render(text, current_language())
