"""Regenerate the translations: ``python -m ui.i18n.update``.

1. ``pyside6-lupdate`` extracts every ``tr()``/``translate()``/``QT_TRANSLATE_NOOP`` string of
   ``ui/`` into ``ui/i18n/trajscope_<lang>.ts``;
2. the translations are filled from the dictionaries of ``ui/i18n/<lang>*.py`` modules
   (``TRANSLATIONS: dict[str, str]`` keyed by the English source, or by ``"Context|source"``
   where one English word needs different translations in different places);
3. ``pyside6-lrelease`` compiles the ``.qm`` file the app loads.

Strings without a translation stay ``unfinished`` and show in English; the script lists them.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

I18N = Path(__file__).resolve().parent
UI = I18N.parent
LANGS = ("zh_CN",)


def _tool(name: str) -> str:
    """Path of a Qt tool next to the interpreter (venv) or on PATH."""
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if not found:
        raise SystemExit(f"{name} not found; install PySide6 (it ships {name})")
    return found


def sources() -> list[str]:
    """Python files of ``ui/`` that may hold user-visible strings."""
    return sorted(str(p.relative_to(UI.parent)) for p in UI.rglob("*.py")
                  if p.parent != I18N or p.name in ("__init__.py", "labels.py", "messages.py"))


def translations(lang: str) -> dict[str, str]:
    """Merged dictionaries of every ``ui/i18n/<lang>*.py`` module."""
    merged: dict[str, str] = {}
    for path in sorted(I18N.glob(f"{lang}*.py")):
        if path.stem == f"{lang}_qt":  # Qt's own strings: see qt_supplement()
            continue
        mod = importlib.import_module(f"ui.i18n.{path.stem}")
        merged.update(getattr(mod, "TRANSLATIONS", {}))
    return merged


def fill(ts: Path, table: dict[str, str]) -> list[tuple[str, str]]:
    """Write translations into a .ts file; returns (context, source) pairs still missing."""
    tree = ET.parse(ts)
    missing: list[tuple[str, str]] = []
    for ctx in tree.getroot().iter("context"):
        name = ctx.findtext("name") or ""
        for msg in ctx.iter("message"):
            src = msg.findtext("source") or ""
            tr = msg.find("translation")
            if tr is None:
                tr = ET.SubElement(msg, "translation")
            text = table.get(f"{name}|{src}", table.get(src))
            if text:
                tr.text = text
                tr.attrib.pop("type", None)
            elif not (tr.text or "").strip():
                tr.set("type", "unfinished")
                missing.append((name, src))
    body = ET.tostring(tree.getroot(), encoding="unicode")
    ts.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8")
    return missing


def update(lang: str) -> list[tuple[str, str]]:
    """Extract, fill and compile one language; returns the missing strings."""
    ts = I18N / f"trajscope_{lang}.ts"
    qm = I18N / f"trajscope_{lang}.qm"
    subprocess.run([_tool("pyside6-lupdate"), *sources(), "-ts", str(ts), "-no-obsolete",
                    "-target-language", lang, "-locations", "none"], cwd=UI.parent, check=True)
    missing = fill(ts, translations(lang))
    subprocess.run([_tool("pyside6-lrelease"), str(ts), "-qm", str(qm)], cwd=UI.parent, check=True)
    return missing


def qt_supplement(lang: str) -> Path | None:
    """Compile ``ui/i18n/<lang>_qt.py`` (Qt's own strings its catalogue lacks) into ``qt_supplement_<lang>.qm``."""
    try:
        mod = importlib.import_module(f"ui.i18n.{lang}_qt")
    except ModuleNotFoundError:
        return None
    table: dict[str, str] = mod.QT_SUPPLEMENT
    root = ET.Element("TS", version="2.1", language=lang)
    contexts: dict[str, ET.Element] = {}
    for key, text in sorted(table.items()):
        ctx_name, source, *comment = key.split("|")
        ctx = contexts.get(ctx_name)
        if ctx is None:
            ctx = contexts[ctx_name] = ET.SubElement(root, "context")
            ET.SubElement(ctx, "name").text = ctx_name
        msg = ET.SubElement(ctx, "message")
        ET.SubElement(msg, "source").text = source
        if comment:
            ET.SubElement(msg, "comment").text = comment[0]
        ET.SubElement(msg, "translation").text = text
    ts = I18N / f"qt_supplement_{lang}.ts"
    ts.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + ET.tostring(root, encoding="unicode") + "\n",
                  encoding="utf-8")
    qm = ts.with_suffix(".qm")
    subprocess.run([_tool("pyside6-lrelease"), str(ts), "-qm", str(qm)], cwd=UI.parent, check=True)
    return qm


def main() -> int:
    """Update every language; prints the untranslated strings."""
    for lang in LANGS:
        missing = update(lang)
        for ctx, src in missing:
            print(f"{lang}: untranslated [{ctx}] {src!r}")
        print(f"{lang}: {len(missing)} untranslated")
        qt_supplement(lang)
    return 0


if __name__ == "__main__":
    sys.exit(main())
