"""Simplified Chinese of the load-problem reasons (context ``LoadReason``), from :mod:`analyzer.locales.zh_CN`.

The translations live in the core so that the CLI and the reports say the same; this module
only keys them by the English templates for ``python -m ui.i18n.update``.
"""

from __future__ import annotations

from analyzer.locales import zh_CN
from analyzer.reasons import LOAD_MESSAGES

TRANSLATIONS: dict[str, str] = {
    **{f"LoadReason|{LOAD_MESSAGES[k]}": v for k, v in zh_CN.LOAD.items()},
    "LoadReason|file": zh_CN.LOCATORS["file"],
    "LoadReason|line {n}": zh_CN.LOCATORS["line {n}"],
    "LoadReason|line": zh_CN.LOCATORS["line"],
}
