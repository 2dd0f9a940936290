"""``--lang``: the language the CLI writes rationales, load problems and reports in.

Default: the ``TRAJSCOPE_LANG`` environment setting, else English (the CLI's output is then
exactly what it always was). Only text made from message ids (:mod:`analyzer.messages`) and the
report templates are translated; the command's own progress lines stay English.
"""

from __future__ import annotations

import argparse
import os

from analyzer.locales import LANGUAGES, load_error_text, normalise_language

__all__ = ["add_lang_option", "chosen_language", "load_error_text"]

ENV = "TRAJSCOPE_LANG"


def add_lang_option(p: argparse.ArgumentParser) -> None:
    """Add ``--lang {en,zh_CN}`` to a subcommand."""
    p.add_argument("--lang", choices=sorted(LANGUAGES), default=None,
                   help=f"language of rationales, load problems and reports (default: ${ENV}, else en)")


def chosen_language(args: argparse.Namespace) -> str:
    """The language a command was asked for."""
    lang = getattr(args, "lang", None) or os.environ.get(ENV) or "en"
    return normalise_language(lang)
