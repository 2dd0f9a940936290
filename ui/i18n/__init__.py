"""Translations: Qt's QTranslator with the shipped ``.qm`` files.

The language follows the system locale unless the analyst picked one in the settings
dialog. Every user-visible string goes through ``tr()``/``QCoreApplication.translate``;
``ui/i18n/trajscope_<lang>.ts`` is the source, the compiled ``.qm`` is what loads.
Regenerate with ``python -m ui.i18n.update`` (runs ``pyside6-lupdate``, fills the
translations from ``ui/i18n/zh_CN.py`` and compiles with ``pyside6-lrelease``).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

I18N_DIR = Path(__file__).resolve().parent
LANGUAGES: dict[str, str] = {"en": "English", "zh_CN": "简体中文"}
"""Language code -> name of the language in itself."""

_installed: list[QTranslator] = []


def resolve_language(choice: str | None) -> str:
    """Language code to use for a setting value (``"system"``, ``"en"``, ``"zh_CN"``)."""
    if choice and choice in LANGUAGES:
        return choice
    name = QLocale.system().name()  # e.g. "zh_CN", "en_US"
    if name.startswith("zh"):
        return "zh_CN"
    return "en"


def qm_path(lang: str) -> Path:
    """Path of the compiled translation of a language."""
    return I18N_DIR / f"trajscope_{lang}.qm"


def install_language(lang: str) -> bool:
    """Install the translators for ``lang`` (removing earlier ones).

    Args:
        lang: Language code (``"en"`` needs no translator).

    Returns:
        True when the language is active (English always is).
    """
    app = QCoreApplication.instance()
    if app is None:
        return False
    for t in _installed:
        QCoreApplication.removeTranslator(t)
    _installed.clear()
    if lang == "en":
        QLocale.setDefault(QLocale("en_US"))
        return True
    ours = QTranslator(app)
    if not ours.load(str(qm_path(lang))):
        return False
    QCoreApplication.installTranslator(ours)
    _installed.append(ours)
    qt = QTranslator(app)
    if qt.load(QLocale(lang), "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        QCoreApplication.installTranslator(qt)
        _installed.append(qt)
    extra = QTranslator(app)  # Qt's strings its catalogue lacks (file dialog); searched before it
    if extra.load(str(I18N_DIR / f"qt_supplement_{lang}.qm")):
        QCoreApplication.installTranslator(extra)
        _installed.append(extra)
    QLocale.setDefault(QLocale(lang))
    return True


def current_language() -> str:
    """Code of the installed language."""
    return "zh_CN" if _installed else "en"
