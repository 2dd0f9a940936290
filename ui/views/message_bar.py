"""Inline message bar: errors and notices inside the window, with actions such as "Copy details"."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui.theme import is_dark, mix

LEVEL_COLORS = {"info": "#3D7DD8", "success": "#2E9E5B", "warning": "#D9A400", "error": "#D64545"}
MAX_MESSAGES = 4
INFO_TIMEOUT_MS = 10_000


class Message(QFrame):
    """One message with its buttons and a close button.

    Signals:
        closed: The message was dismissed.
    """

    closed = Signal()

    def __init__(self, level: str, text: str, details: str | None,
                 actions: list[tuple[str, Callable[[], None]]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.level = level
        self.text = text
        self.details = details
        self._dismissed = False
        self.setObjectName(f"message_{level}")
        color = QColor(LEVEL_COLORS.get(level, LEVEL_COLORS["info"]))
        base = self.palette().color(QPalette.ColorRole.Window)
        bg = mix(base, color, 0.22 if is_dark(self.palette()) else 0.13)
        self.setStyleSheet(f"#message_{level} {{ background: {bg.name()}; border: 1px solid {mix(bg, color, 0.5).name()};"
                           f" border-radius: 4px; }}")
        icon = QLabel({"info": "ℹ", "success": "✓", "warning": "⚠", "error": "⛔"}.get(level, "ℹ"), self)
        icon.setStyleSheet(f"color: {color.name()}; font-weight: bold;")
        self.label = QLabel(text, self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 4, 4)
        lay.addWidget(icon)
        lay.addWidget(self.label, 1)
        self.buttons: dict[str, QToolButton] = {}
        if details:
            self._button(self.tr("Copy details"), self.copy_details)
        for label, cb in actions:
            self._button(label, cb)
        close = QToolButton(self)
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip(self.tr("Dismiss"))
        close.clicked.connect(self.dismiss)
        lay.addWidget(close)

    def _button(self, label: str, cb: Callable[[], None]) -> None:
        b = QToolButton(self)
        b.setText(label)
        b.clicked.connect(lambda *_a: cb())
        self.layout().addWidget(b)
        self.buttons[label] = b

    def copy_details(self) -> None:
        """Put the message and its details on the clipboard."""
        QApplication.clipboard().setText(f"{self.text}\n\n{self.details or ''}".strip())

    def dismiss(self) -> None:
        """Remove the message."""
        if self._dismissed:
            return
        self._dismissed = True
        self.hide()
        self.closed.emit()
        self.deleteLater()


class MessageBar(QWidget):
    """A stack of inline messages at the top of the window (newest at the bottom)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageBar")
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(6, 4, 6, 0)
        self._lay.setSpacing(3)
        self.messages: list[Message] = []
        self.hide()

    def show_message(self, level: str, text: str, details: str | None = None,
                     actions: list[tuple[str, Callable[[], None]]] | None = None) -> Message:
        """Show a message.

        Args:
            level: ``info``, ``success``, ``warning`` or ``error``.
            text: One or two sentences in plain words.
            details: Technical details (traceback...) offered through "Copy details".
            actions: Extra buttons (label, callback).

        Returns:
            The message widget.
        """
        for m in list(self.messages):
            if m.text == text and m.level == level:
                m.dismiss()
        msg = Message(level, text, details, actions or [], self)
        msg.closed.connect(lambda m=msg: self._forget(m))
        self.messages.append(msg)
        self._lay.addWidget(msg)
        while len(self.messages) > MAX_MESSAGES:
            self.messages[0].dismiss()
        if level in ("info", "success"):
            QTimer.singleShot(INFO_TIMEOUT_MS, msg, msg.dismiss)  # cancelled if the message goes first
        self.show()
        return msg

    def _forget(self, msg: Message) -> None:
        if msg in self.messages:
            self.messages.remove(msg)
        if not self.messages:
            self.hide()

    def clear(self) -> None:
        """Dismiss every message."""
        for m in list(self.messages):
            m.dismiss()

    def texts(self) -> list[str]:
        """Texts of the shown messages (tests)."""
        return [m.text for m in self.messages]
