"""Text made in ``analyzer/`` rendered in a chosen language (pure Python, no Qt).

The core stores rationales and load problems as message ids plus parameters
(:mod:`analyzer.messages`); the CLI (``--lang``) and the reports render them here. English is
the catalogues' own text, byte for byte; ``zh_CN`` comes from :mod:`analyzer.locales.zh_CN`.
An id a language lacks falls back to English, so nothing is ever lost.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from analyzer.import_messages import INNER, english_catalogue, inner_message
from analyzer.messages import STEP_LIST_SEPARATOR as STEP_LIST_SEPARATOR_EN
from analyzer.messages import STEP_WORD as STEP_WORD_EN
from analyzer.messages import (
    Message,
    Param,
    format_param_en,
    is_category_param,
    is_quote_param,
    is_share_param,
    is_steps_param,
    step_list,
)
from analyzer.messages import is_step_param as _is_step
from analyzer.reasons import LOAD_MESSAGES

if TYPE_CHECKING:
    from analyzer.errors import LoadError

LANGUAGES: dict[str, str] = {"en": "English", "zh_CN": "简体中文"}
"""Language code -> its name in itself."""

_LINE = re.compile(r"line (\d+)")


def normalise_language(lang: str | None) -> str:
    """A known language code for ``lang`` (``zh``, ``zh-CN``, ``zh_CN.UTF-8`` -> ``zh_CN``; else ``en``)."""
    if not lang:
        return "en"
    low = lang.replace("-", "_").split(".")[0].lower()
    return "zh_CN" if low.startswith("zh") else "en"


def _module(lang: str) -> ModuleType | None:
    if normalise_language(lang) == "zh_CN":
        from analyzer.locales import zh_CN

        return zh_CN
    return None


def param_formatter(lang: str) -> Callable[[str, Param], str]:
    """Plain-text formatter of message parameters in ``lang`` (see :mod:`analyzer.messages`)."""
    mod = _module(lang)
    if mod is None:
        return format_param_en

    def fmt(name: str, value: Param) -> str:
        if value is None:
            return ""
        if _is_step(name) and isinstance(value, int) and not isinstance(value, bool):
            return str(mod.STEP_WORD.format(n=value))
        if is_steps_param(name):
            return str(mod.STEPS_WORD.format(list=mod.STEP_LIST_SEPARATOR.join(str(s) for s in step_list(value))))
        if is_quote_param(name):
            return f"{mod.QUOTES[0]}{value}{mod.QUOTES[1]}"
        if is_category_param(name):
            return str(mod.TAXONOMY.get(str(value), format_param_en(name, value)))
        if name == "where" and isinstance(value, str):
            m = _LINE.fullmatch(value)
            if m:
                return str(mod.LOCATORS["line {n}"].format(n=m.group(1)))
            return str(mod.LOCATORS.get(value, value))
        if isinstance(value, float):
            return f"{value:.0%}" if is_share_param(name) else f"{value:.2f}"
        return str(value)

    return fmt


def catalogue(english: Mapping[str, str], domain: str, lang: str) -> dict[str, str]:
    """Templates by id in ``lang``: the language's own, English for any it lacks.

    Args:
        english: The English catalogue (id -> template).
        domain: ``"rationale"``, ``"load"`` or ``"import"`` (the language module's dict of
            that name in upper case).
        lang: Language code.
    """
    mod = _module(lang)
    own: Mapping[str, str] = getattr(mod, domain.upper(), {}) if mod is not None else {}
    return {k: own.get(k, v) for k, v in english.items()}


def render_message(message: Message, english: Mapping[str, str], domain: str, lang: str) -> str:
    """One message in ``lang`` (English text when the id or a parameter does not fit)."""
    try:
        return message.render(catalogue(english, domain, lang), param_formatter(lang))
    except (KeyError, IndexError, ValueError):
        return message.render(english)


def category_title(category: str | None, lang: str) -> str:
    """Title of a taxonomy id in ``lang``."""
    if category is None:
        return ""
    mod = _module(lang)
    if mod is not None and category in mod.TAXONOMY:
        return str(mod.TAXONOMY[category])
    return format_param_en("category", category)


def step_word(n: int, lang: str) -> str:
    """``step 12`` in ``lang``."""
    mod = _module(lang)
    return (mod.STEP_WORD if mod is not None else STEP_WORD_EN).format(n=n)


def step_list_text(steps: Sequence[int], lang: str) -> str:
    """The numbers of a list of steps joined as ``lang`` writes a list (``3, 7, 12``; ``3、7、12``)."""
    mod = _module(lang)
    sep = mod.STEP_LIST_SEPARATOR if mod is not None else STEP_LIST_SEPARATOR_EN
    return str(sep).join(str(int(s)) for s in steps)


def reason_text(message: Message | None, fallback: str, lang: str) -> str:
    """A load problem's reason in ``lang`` (its English ``fallback`` when it has no message)."""
    if message is None or normalise_language(lang) == "en":
        return fallback
    english = english_catalogue(message.id)
    if message.id not in english:
        return fallback
    if english is LOAD_MESSAGES:
        return render_message(message, english, "load", lang)
    inner = inner_message(message)
    if inner is not None:  # a wrapper: its inner reason in ``lang`` too
        text = reason_text(inner, str(message.params.get(INNER, "")), lang)
        message = Message(message.id, {**message.params, INNER: text})
    return render_message(message, english, "import", lang)


def load_error_text(error: LoadError, lang: str) -> str:
    """``file [record] (importer): reason`` with the reason in ``lang`` (``str(error)`` in English)."""
    if normalise_language(lang) == "en" or error.message is None:
        return str(error)
    where = error.file + (f" [{error.record}]" if error.record else "")
    who = f" ({error.importer})" if error.importer else ""
    return f"{where}{who}: {reason_text(error.message, error.reason, lang)}"


def finding_text(text: str | None, lang: str) -> str:
    """A built-in detector's finding description in ``lang`` (as written when it fits no template).

    The description's message id and parameters are recovered from its English text
    (:func:`analyzer.detection.messages.parse_finding`) and rendered with the language's
    templates; phrases inside it (``why``, ``parts``, …) are translated the same way.
    """
    text = text or ""
    mod = _module(lang)
    if mod is None or not text:
        return text
    from analyzer.detection.messages import (
        LIST_PARAMS,
        PHRASE_PARAMS,
        SEPARATOR,
        parse_finding,
        parse_piece,
    )

    def piece(phrase: str) -> str:
        found = parse_piece(phrase)
        if found is None or found.id not in mod.FINDING_PIECES:
            return phrase
        return _fill(mod.FINDING_PIECES[found.id], found.params)

    def _fill(template: str, params: dict[str, str]) -> str:
        out = {}
        for k, v in params.items():
            if k in LIST_PARAMS:
                out[k] = "；".join(piece(p) for p in v.split(SEPARATOR))
            elif k in PHRASE_PARAMS:
                out[k] = piece(v)
            else:
                out[k] = v
        try:
            return template.format_map(out)
        except (KeyError, IndexError, ValueError):
            return template

    parsed = parse_finding(text)
    if parsed is None:
        return text
    if parsed.id == "pieces":
        return "；".join(piece(p) for p in parsed.params["parts"].split(SEPARATOR))
    template = mod.FINDINGS.get(parsed.id)
    return _fill(template, parsed.params) if template else text


def note_text(text: str | None, lang: str) -> str:
    """A value-curve ``drop_note`` in ``lang`` (as written when it fits no template)."""
    text = text or ""
    mod = _module(lang)
    if mod is None or not text:
        return text
    from analyzer.detection.messages import parse_note, parse_note_piece
    from analyzer.taxonomy import CATEGORIES

    parsed = parse_note(text)
    if parsed is None or parsed.id not in mod.NOTES:
        return text
    params = dict(parsed.params)
    why = params.get("why")
    if why is not None:
        piece = parse_note_piece(why)
        if piece is not None and piece.id in mod.NOTE_PIECES:
            sub = dict(piece.params)
            if "category" in sub:  # a taxonomy title in lower case
                by_title = {c.title.lower(): c.id.value for c in CATEGORIES}
                cid = by_title.get(sub["category"])
                if cid is not None:
                    sub["category"] = category_title(cid, lang)
            params["why"] = mod.NOTE_PIECES[piece.id].format_map(sub)
    try:
        return str(mod.NOTES[parsed.id].format_map(params))
    except (KeyError, IndexError, ValueError):
        return text
