"""The language of a report: a translator for the template text and the CSS for its script.

English is the templates' own text (the translator is the identity, so English reports are
unchanged); other languages come from :mod:`analyzer.locales` (``REPORT``). A Chinese report
puts a CJK font first (Debian ``fonts-noto-cjk``: "Noto Sans CJK SC"; WenQuanYi as a fallback),
which WeasyPrint finds through fontconfig and embeds (subset) in the PDF.
"""

from __future__ import annotations

from collections.abc import Callable

from analyzer.locales import normalise_language

CJK_FONTS = '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei"'
"""Font families a Chinese report asks for, best first."""


def translator(lang: str) -> Callable[[str], str]:
    """Maps the English text of the report templates into ``lang`` (English for unknown text)."""
    if normalise_language(lang) == "en":
        return _identity
    from analyzer.locales import zh_CN

    table = zh_CN.REPORT

    def t(text: str) -> str:
        return table.get(text, text)

    return t


def _identity(text: str) -> str:
    return text


def html_lang(lang: str) -> str:
    """Value of ``<html lang>`` (BCP 47)."""
    return "zh-CN" if normalise_language(lang) == "zh_CN" else "en"


def language_css(lang: str) -> str:
    """Extra CSS of a report in ``lang`` (empty for English)."""
    if normalise_language(lang) == "en":
        return ""
    t = translator(lang)
    page = t("Page {page} of {pages}").split("{page}")
    before, rest = page[0], page[1] if len(page) > 1 else ""
    middle, after = [*rest.split("{pages}"), ""][:2]
    return (f"body, .chip, th, td, h1, h2, h3, h4 {{ font-family: \"DejaVu Sans\", {CJK_FONTS}, sans-serif; }}\n"
            "h4, th, .card .lbl, dl.meta dt { text-transform: none; letter-spacing: 0; }\n"
            ".rationale { font-style: normal; }\n"
            f"@page {{ @bottom-left {{ content: \"{t('TrajScope report')}\"; font-family: {CJK_FONTS}, sans-serif; }}\n"
            f"  @bottom-right {{ content: \"{before}\" counter(page) \"{middle}\" counter(pages) \"{after}\"; "
            f"font-family: {CJK_FONTS}, sans-serif; }} }}")
