"""Static audit of the translations of ``ui/`` (used by the translation completeness test).

Two checks, both from the source code (``ast``), so they cover code no test happens to run:

1. :func:`translation_calls` lists every ``self.tr("…")``, ``QCoreApplication.translate("Ctx",
   "…")`` and ``QT_TRANSLATE_NOOP("Ctx", "…")`` with the context Qt looks the string up in at
   run time (the enclosing class for ``self.tr``). A call ``pyside6-lupdate`` misses (inside an
   f-string, through an alias such as ``tr = self.tr``) or files under another context shows in
   English even when the ``.ts`` file is complete; :func:`untranslated_calls` finds those.
2. :func:`bare_literals` lists string literals that reach the screen without a translation
   function: passed to ``setText``/``setWindowTitle``/``QAction``/``addMenu``/``QLabel``/… .
   Non-text (symbols, numbers, object names, format glue, brand and file-format names) is
   allowed by :func:`is_text`; anything else is reported with file and line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

UI = Path(__file__).resolve().parents[1]

SINK_METHODS = frozenset({
    "setText", "setWindowTitle", "setToolTip", "setStatusTip", "setPlaceholderText", "setTitle",
    "addMenu", "addTab", "insertTab", "setTabText", "setTabToolTip", "setHeaderLabels",
    "setHorizontalHeaderLabels", "setVerticalHeaderLabels", "showMessage", "setLabelText",
    "setWhatsThis", "setAccessibleName", "setPrefix", "setSuffix", "setSpecialValueText",
    "setInformativeText", "setDetailedText", "setNameFilter", "setNameFilters", "addRow", "setFormat",
    "information", "warning", "critical", "question", "getText", "getItem", "getOpenFileName",
    "getOpenFileNames", "getSaveFileName", "getExistingDirectory", "addAction", "addButton",
})
"""Methods whose string arguments are shown to the analyst."""

SINK_CLASSES = frozenset({
    "QAction", "QLabel", "QPushButton", "QCheckBox", "QRadioButton", "QGroupBox", "QMenu",
    "QToolButton", "QMessageBox", "QDockWidget", "QTreeWidgetItem", "QListWidgetItem",
    "QTableWidgetItem", "QStandardItem", "QCommandLinkButton",
})
"""Widgets whose string constructor arguments are shown to the analyst."""

ALLOWED_WORDS = frozenset({
    "TrajScope", "CSV", "Parquet", "JSON", "JSONL", "GGUF", "HTML", "PDF", "Markdown", "SVG", "PNG",
    "Ctrl", "Shift", "Alt", "Enter", "Esc", "px", "tok", "nbsp", "br", "span", "style", "color", "gray",
    "href", "step", "font", "size", "small", "large", "x", "b", "i", "p", "a", "td", "tr", "th",
    "table", "ul", "li", "div", "code", "pre", "sub", "sup", "hr", "big", "margin", "weight", "bold",
    "left", "right", "top", "bottom", "width", "height", "center", "align", "valign", "class",
    "cellpadding", "cellspacing", "border", "padding", "em", "strong", "muted", "background",
    "trajscope", "jsonl", "json", "csv", "parquet", "gguf", "html", "pdf", "md", "txt", "png", "svg",
    "qm", "ts", "V", "H", "n", "p50", "p80", "k", "N", "P", "J", "K", "D", "A", "R", "S", "T",
})
"""Latin words that are not prose: markup, brand and format names, keys."""

_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_TAG = re.compile(r"<[^>]*>|&[a-z]+;|\{[^}]*\}|%[-0-9.]*[a-z]")


def is_text(literal: str) -> bool:
    """True when a literal holds prose that needs a translation."""
    stripped = _TAG.sub(" ", literal)
    return any(w not in ALLOWED_WORDS for w in _WORD.findall(stripped))


@dataclass(frozen=True)
class Call:
    """A translation call found in the source.

    Attributes:
        file: Path relative to the repository root.
        line: Line number.
        context: Context Qt uses at run time.
        source: The English source string.
    """

    file: str
    line: int
    context: str
    source: str


def ui_sources() -> list[Path]:
    """Python files of ``ui/`` that hold user-visible strings (not the translation tables)."""
    return sorted(p for p in UI.rglob("*.py")
                  if not (p.parent.name == "i18n" and p.name.startswith(("zh_", "audit", "update"))))


def _const(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _func_name(node: ast.Call) -> str:
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return ""


class _Visitor(ast.NodeVisitor):
    def __init__(self, rel: str) -> None:
        self.rel = rel
        self.classes: list[str] = []
        self.calls: list[Call] = []
        self.bare: list[tuple[str, int, str]] = []
        self.aliases: list[tuple[str, int]] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr in ("tr", "translate"):
            self.aliases.append((self.rel, node.lineno))  # lupdate cannot follow an alias
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _func_name(node)
        if name == "tr" and isinstance(node.func, ast.Attribute) and node.args:
            src = _const(node.args[0])
            if src is not None:
                ctx = self.classes[-1] if self.classes else ""
                self.calls.append(Call(self.rel, node.lineno, ctx, src))
        elif name in ("translate", "QT_TRANSLATE_NOOP") and len(node.args) >= 2:
            ctx, src = _const(node.args[0]), _const(node.args[1])
            if ctx is not None and src is not None:
                self.calls.append(Call(self.rel, node.lineno, ctx, src))
        if name in SINK_METHODS or name in SINK_CLASSES:
            for arg in [*node.args, *(k.value for k in node.keywords if k.arg in ("text", "title"))]:
                self._check_visible(arg)
        self.generic_visit(node)

    def _check_visible(self, arg: ast.AST) -> None:
        pieces: list[str] = []
        if isinstance(arg, ast.JoinedStr):
            pieces = [v.value for v in arg.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        elif (s := _const(arg)) is not None:
            pieces = [s]
        elif isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
            self._check_visible(arg.left)
            self._check_visible(arg.right)
            return
        for p in pieces:
            if is_text(p):
                self.bare.append((self.rel, arg.lineno, p))


def _visit(path: Path) -> _Visitor:
    rel = str(path.relative_to(UI.parent))
    v = _Visitor(rel)
    v.visit(ast.parse(path.read_text(encoding="utf-8"), rel))
    return v


def translation_calls() -> list[Call]:
    """Every translation call of ``ui/`` with a literal source."""
    return [c for p in ui_sources() for c in _visit(p).calls]


def bare_literals() -> list[tuple[str, int, str]]:
    """(file, line, literal) of prose shown without a translation function."""
    return [b for p in ui_sources() for b in _visit(p).bare]


def tr_aliases() -> list[tuple[str, int]]:
    """(file, line) of ``tr = self.tr``-style aliases (their strings land in the wrong context)."""
    return [a for p in ui_sources() for a in _visit(p).aliases]


def untranslated_calls(translated: set[tuple[str, str]]) -> Iterator[Call]:
    """Calls whose (context, source) pair has no finished translation in ``translated``."""
    for c in translation_calls():
        if (c.context, c.source) not in translated:
            yield c
