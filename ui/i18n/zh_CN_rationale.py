"""Simplified Chinese of the rationale messages (context ``Rationale``), from :mod:`analyzer.locales.zh_CN`.

The translations live in the core so that the CLI and the reports say the same; this module
only keys them by the English templates of ``analyzer.attribution.rationale.RATIONALE_MESSAGES``
for ``python -m ui.i18n.update``.
"""

from __future__ import annotations

from analyzer.attribution.rationale import RATIONALE_MESSAGES
from analyzer.locales import zh_CN

TRANSLATIONS: dict[str, str] = {
    **{f"Rationale|{RATIONALE_MESSAGES[k]}": v for k, v in zh_CN.RATIONALE.items()},
    "Rationale|step {n}": zh_CN.STEP_WORD,
    "Rationale|steps {list}": zh_CN.STEPS_WORD,
    "Rationale|, ": zh_CN.STEP_LIST_SEPARATOR,
}
