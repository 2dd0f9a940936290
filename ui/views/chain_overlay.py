"""Causal-chain arrows over the transcript: curved arrows at the cards' right edge, cause → effect.

A transparent child of the transcript list's viewport (mouse events pass through). Each link of
the run's :class:`analyzer.insights.chains.CausalChain` becomes an arc from the cause's card to
the effect's card, coloured by the chain's impact. The evidence of each link is in the tooltips
of the value-curve panel's arrows.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QListView, QWidget

from analyzer.insights.chains import CausalChain

IMPACT_COLORS = {"stopped": "#D64545", "degraded": "#D98E04", "recovered": "#2E9E5B"}
BULGE = 34
"""How far (px) an arc bows into the card from the right edge."""


class ChainOverlay(QWidget):
    """Draws the chain of the shown run over a step list.

    Args:
        view: The transcript's list view (rows are steps, in order).
    """

    def __init__(self, view: QListView) -> None:
        super().__init__(view.viewport())
        self.setObjectName("chainOverlay")
        self.view = view
        self.chain: CausalChain | None = None
        self.row_of: dict[int, int] = {}
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground, True)
        view.viewport().installEventFilter(self)
        view.verticalScrollBar().valueChanged.connect(lambda *_a: self._follow())
        self._follow()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keep covering the viewport when it is resized."""
        if watched is self.view.viewport() and event.type() == QEvent.Type.Resize:
            self._follow()
        return False

    def _follow(self) -> None:
        self.setGeometry(self.view.viewport().rect())
        self.raise_()
        self.update()

    def set_chain(self, chain: CausalChain | None, steps: list[int]) -> None:
        """Show a chain (None: nothing); ``steps`` are the step numbers of the rows, in order."""
        self.chain = chain
        self.row_of = {s: i for i, s in enumerate(steps)}
        self._follow()

    def arcs(self) -> list[tuple[QPointF, QPointF]]:
        """Start and end of every arrow in viewport coordinates (links whose cards are known)."""
        out: list[tuple[QPointF, QPointF]] = []
        chain, model = self.chain, self.view.model()
        if chain is None or model is None:
            return out
        x = float(self.width() - 12)
        for link in chain.links:
            a, b = self.row_of.get(link.source), self.row_of.get(link.target)
            if a is None or b is None:
                continue
            ra, rb = self.view.visualRect(model.index(a, 0)), self.view.visualRect(model.index(b, 0))
            out.append((QPointF(x, ra.center().y() + 8.0), QPointF(x, rb.center().y() + 8.0)))
        return out

    def paintEvent(self, _event: Any) -> None:
        """Paint the arcs and their heads."""
        if self.chain is None or not self.chain.links:
            return
        color = QColor(IMPACT_COLORS.get(self.chain.impact, "#D64545"))
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(QPen(color, 2.0))
        for start, end in self.arcs():
            path = QPainterPath(start)
            path.cubicTo(QPointF(start.x() - BULGE, start.y()), QPointF(end.x() - BULGE, end.y()), end)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPath(path)
            p.setBrush(color)
            head = QPolygonF([end, QPointF(end.x() - 9, end.y() - 5), QPointF(end.x() - 9, end.y() + 5)])
            p.drawPolygon(head)
        p.end()
