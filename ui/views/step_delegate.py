"""Paints step cards for the transcript (one uniform delegate, no widgets per item).

Card heights are estimated from character counts when a card is folded (O(1), no text
layout), so a 5,000-step run lays out quickly; only unfolded cards are measured exactly.

The analyst's categories and tags show as chips under the card's header; the analyst's
decisive mark (key D) is a badge next to the ranker's "DECISIVE" badge and a violet bar in
the gutter next to the ranker's red one. In a run the ranker is uncertain of, no step gets the
DECISIVE badge: each of the likeliest steps gets an outlined "CANDIDATE n" badge and a light bar.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QMouseEvent,
    QPainter,
    QPalette,
    QPen,
    QTextCharFormat,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
)

from analyzer.taxonomy import BY_ID
from ui.i18n.labels import category_title, kind_label, role_label, tag_label
from ui.i18n.messages import finding_text
from ui.models.steps_list import CARD_ROLE, StepCard, TagChip, match_spans
from ui.theme import (
    CANDIDATE,
    DECISIVE,
    ERROR,
    ROLE_COLORS,
    category_color,
    is_dark,
    mix,
    mono_font,
)

FOLD_LINES = 5
"""Lines of text a folded card shows."""

MAX_EXPANDED_CHARS = 60_000
"""An unfolded card shows at most this much text (the inspector shows everything)."""

HIGHLIGHT = "#FFD54F"
"""Background of the text that matches the transcript search."""

GUTTER = 30
PAD = 9
GAP = 4
RIGHT = 8
CHIP_GAP = 5

ANALYST_MARK = "#7B4FD0"
"""Colour of the analyst's decisive mark (violet: apart from the ranker's red and the candidates' orange)."""

TAG_COLOR = "#6E7681"
"""Colour of custom-tag chips."""

UNCERTAIN_ALPHA = 0.45
"""Opacity of the gutter bar of a candidate step in a run the ranker is uncertain of (lighter than a
runner-up's)."""


class StepCardDelegate(QStyledItemDelegate):
    """Draws a step card and handles clicks on its "show more" link.

    Signals:
        toggleRequested(int): the analyst clicked "show more"/"show less" on a row.
    """

    toggleRequested = Signal(int)

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self.view = view
        self.mono = mono_font()
        self._font_cache: tuple[str, tuple[QFont, QFontMetrics, QFontMetrics, QFont], tuple[int, int]] | None = None
        self._relayout_pending = False
        self._tr_more = self.tr("Show more")
        self._tr_less = self.tr("Show less")
        self._tr_decisive = self.tr("DECISIVE")
        self._tr_analyst = self.tr("ANALYST: DECISIVE")
        self._tr_more_chips = self.tr("+{n}")
        self._tr_rejected = self.tr("suggestion rejected")
        self._tr_candidate = self.tr("CANDIDATE {n}")
        self._tr_label = self.tr("LABELLED")
        self._tr_error = self.tr("ERROR")
        self._tr_tokens = self.tr("{n} tok")
        self._tr_lines = self.tr("{n} more lines")

    # geometry -----------------------------------------------------------------------
    def _fonts(self) -> tuple[QFont, QFontMetrics, QFontMetrics, QFont]:
        if self._font_cache is None:
            font = self.view.font()
            bold = QFont(font)
            bold.setBold(True)
            fm, mfm = QFontMetrics(font), QFontMetrics(self.mono)
            self._font_cache = (font.key(), (font, fm, mfm, bold), (_line_height(fm), _line_height(mfm)))
        return self._font_cache[1]

    def reset_metrics(self) -> None:
        """Forget cached fonts (call after the view's font changes)."""
        self._font_cache = None

    def _line_heights(self) -> tuple[int, int]:
        self._fonts()
        assert self._font_cache is not None
        return self._font_cache[2]

    def _text_width(self, width: int) -> int:
        return max(80, width - GUTTER - 2 * PAD - RIGHT - 4)

    def _layout(self, card: StepCard, width: int, exact: bool = True) -> dict[str, Any]:
        """Heights of the parts of a card.

        Args:
            card: The card.
            width: Available width.
            exact: Measure wrapped text (slower); else estimate from character counts.
        """
        _font, fm, mfm, _bold = self._fonts()
        w = self._text_width(width)
        lh, mlh = self._line_heights()
        header = lh + 6
        chips = self.chip_height() if card.chips else 0
        tool_text = _tool_text(card)
        wrap = int(Qt.TextFlag.TextWordWrap)
        if card.expanded:
            body_text = card.text[:MAX_EXPANDED_CHARS]
            body = fm.boundingRect(QRect(0, 0, w, 10**7), wrap, body_text).height() if body_text else 0
            tool = mfm.boundingRect(QRect(0, 0, w, 10**7), int(Qt.TextFlag.TextWrapAnywhere), tool_text).height() if tool_text else 0
            err = fm.boundingRect(QRect(0, 0, w, 10**7), wrap, card.error_text or "").height() if card.error_text else 0
            foldable = True
            more_lines = 0
        else:
            cpl = max(10, w // max(1, fm.averageCharWidth()))
            preview = _preview(card.text, FOLD_LINES, cpl)
            if not preview:
                full = 0
            elif exact:
                full = fm.boundingRect(QRect(0, 0, w, 10**6), wrap, preview).height()
            else:
                full = _estimate_lines(preview, cpl, FOLD_LINES + 2) * lh
            body = min(full, FOLD_LINES * lh)
            tool = mlh if tool_text else 0
            err = lh if card.error_text else 0
            mcpl = max(10, w // max(1, mfm.averageCharWidth()))
            long_tool = len(tool_text) > mcpl
            long_err = bool(card.error_text) and len(card.error_text or "") > cpl
            cut = len(preview) < len(card.text)
            foldable = full > FOLD_LINES * lh + 2 or cut or long_tool or long_err
            more_lines = 0
            if cut or full > FOLD_LINES * lh + 2:
                total = max(_estimate_lines(card.text, cpl, FOLD_LINES + 60), card.text.count("\n") + 1)
                more_lines = max(0, total - FOLD_LINES)
        more = lh + 2 if foldable else 0
        parts = [p for p in (chips, tool, body, err, more) if p]
        height = PAD + header + sum(parts) + GAP * len(parts) + PAD - 2
        return {"header": header, "chips": chips, "tool": tool, "body": body, "err": err, "more": more, "height": height,
                "foldable": foldable, "more_lines": more_lines, "w": w, "tool_text": tool_text}

    def exact_layout(self, card: StepCard, width: int) -> dict[str, Any]:
        """The measured layout of a card (cached)."""
        key = (width, card.expanded)
        lay = card.layouts.get(key)
        if lay is None:
            if len(card.layouts) > 4:
                card.layouts.clear()
            lay = self._layout(card, width, exact=True)
            card.layouts[key] = lay
        return lay

    def card_height(self, card: StepCard, width: int) -> int:
        """Row height: exact once the card was painted (or unfolded), estimated before."""
        key = (width, card.expanded)
        h = card.heights.get(key)
        if h is None:
            lay = card.layouts.get(key) or self._layout(card, width, exact=card.expanded)
            h = int(lay["height"]) + 6
            if len(card.heights) > 8:
                card.heights.clear()
            card.heights[key] = h
        return h

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        card = index.data(CARD_ROLE)
        width = self.view.viewport().width()
        if not isinstance(card, StepCard):
            return QSize(width, 24)
        return QSize(width, self.card_height(card, width))

    def _correct_height(self, card: StepCard, width: int, lay: dict[str, Any]) -> None:
        """After painting with the measured layout, fix an estimated row height (relayout later)."""
        key = (width, card.expanded)
        exact = int(lay["height"]) + 6
        if card.heights.get(key) != exact:
            card.heights[key] = exact
            if not self._relayout_pending:
                self._relayout_pending = True
                QTimer.singleShot(0, self._relayout)

    def _relayout(self) -> None:
        self._relayout_pending = False
        model = self.view.model()
        if model is not None and model.rowCount() > 0:
            self.sizeHintChanged.emit(model.index(0, 0))  # the view re-lays out (cached heights: cheap)

    def _more_rect(self, rect: QRect, lay: dict[str, Any]) -> QRect:
        x = rect.left() + GUTTER + PAD + 4
        y = rect.top() + 3 + lay["height"] - PAD + 2 - lay["more"]
        return QRect(x, y, lay["w"], lay["more"])

    # painting ------------------------------------------------------------------------
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        card = index.data(CARD_ROLE)
        if not isinstance(card, StepCard):
            return
        font, fm, mfm, bold = self._fonts()
        pal: QPalette = option.palette
        dark = is_dark(pal)
        base = pal.color(QPalette.ColorRole.Base)
        text_c = pal.color(QPalette.ColorRole.Text)
        muted = mix(text_c, base, 0.45)
        rect: QRect = option.rect
        lay = self.exact_layout(card, rect.width())
        self._correct_height(card, rect.width(), lay)
        query = str(getattr(index.model(), "query", "") or "") if card.match else ""
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hover = bool(option.state & QStyle.StateFlag.State_MouseOver)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.fillRect(rect, pal.color(QPalette.ColorRole.Window))

        card_rect = QRect(rect.left() + GUTTER, rect.top() + 3, rect.width() - GUTTER - RIGHT, lay["height"])
        role_c = QColor(ROLE_COLORS.get(card.role, "#8A8F98"))
        bg = QColor(base)
        if card.role in ("tool", "environment") or card.kind == "observation":
            bg = mix(base, QColor("#8A8F98"), 0.10 if dark else 0.06)
        if card.is_error:
            bg = mix(base, QColor(ERROR), 0.16 if dark else 0.08)
        if selected:
            bg = mix(bg, pal.color(QPalette.ColorRole.Highlight), 0.16 if dark else 0.10)
        border = pal.color(QPalette.ColorRole.Mid)
        pen_w = 1.0
        if card.match:
            border, pen_w = QColor("#E0A800"), 2.0
        if hover:
            border = mix(border, pal.color(QPalette.ColorRole.Highlight), 0.5)
        if selected:
            border, pen_w = pal.color(QPalette.ColorRole.Highlight), 2.0
        painter.setPen(QPen(border, pen_w))
        painter.setBrush(bg)
        painter.drawRoundedRect(QRectF(card_rect).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)
        stripe = QRectF(card_rect.left() + 1, card_rect.top() + 5, 3, card_rect.height() - 10)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(role_c)
        painter.drawRoundedRect(stripe, 1.5, 1.5)

        self._paint_gutter(painter, rect, card, lay)

        x = card_rect.left() + PAD + 4
        y = card_rect.top() + PAD
        w = lay["w"]
        # header
        painter.setFont(bold)
        painter.setPen(muted)
        num = f"#{card.step}"
        painter.drawText(QRect(x, y, w, lay["header"]), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, num)
        hx = x + QFontMetrics(bold).horizontalAdvance(num) + 8
        painter.setPen(role_c if not dark else mix(role_c, text_c, 0.3))
        agent = card.agent or card.role
        agent_w = min(QFontMetrics(bold).horizontalAdvance(agent) + 4, w // 3)
        painter.drawText(QRect(hx, y, agent_w, lay["header"]), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                         QFontMetrics(bold).elidedText(agent, Qt.TextElideMode.ElideRight, agent_w))
        hx += agent_w + 8
        painter.setFont(font)
        painter.setPen(muted)
        kind = kind_label(card.kind)
        if card.role and card.role != card.agent and card.role != card.kind:
            kind = f"{role_label(card.role)} · {kind}"
        if card.tool_name:
            kind = f"{kind} · {card.tool_name}"
        badges = self._badges(card)
        badge_w = sum(QFontMetrics(self._small_font(font)).horizontalAdvance(b[0]) + 14 for b in badges) + 6 * len(badges)
        kind_w = max(0, x + w - badge_w - hx - 8)
        painter.drawText(QRect(hx, y, kind_w, lay["header"]), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                         fm.elidedText(kind, Qt.TextElideMode.ElideRight, kind_w))
        self._paint_badges(painter, badges, x + w, y, font, pal)
        y += lay["header"] + GAP
        # the analyst's categories and tags
        if lay["chips"]:
            self._paint_chips(painter, card.chips, x, y, w, font, pal)
            y += lay["chips"] + GAP

        # tool call
        if lay["tool"]:
            painter.setFont(self.mono)
            painter.setPen(mix(text_c, QColor("#3D7DD8"), 0.35))
            r = QRect(x, y, w, lay["tool"])
            if card.expanded:
                self._draw_wrapped(painter, r, lay["tool_text"], self.mono, query, anywhere=True)
            else:
                self._draw_line(painter, r, mfm.elidedText(lay["tool_text"].replace("\n", " "), Qt.TextElideMode.ElideRight, w),
                                mfm, query)
            y += lay["tool"] + GAP
        # body
        if lay["body"]:
            painter.setFont(font)
            painter.setPen(text_c)
            r = QRect(x, y, w, lay["body"])
            text = card.text[:MAX_EXPANDED_CHARS] if card.expanded else _preview(card.text, FOLD_LINES, w // max(1, fm.averageCharWidth()))
            painter.save()
            painter.setClipRect(r)
            self._draw_wrapped(painter, r, text, font, query)
            painter.restore()
            y += lay["body"] + GAP
        # error
        if lay["err"]:
            painter.setFont(bold)
            painter.setPen(QColor(ERROR) if not dark else QColor("#FF7B72"))
            r = QRect(x, y, w, lay["err"])
            err = card.error_text or ""
            if card.expanded:
                self._draw_wrapped(painter, r, err, bold, query)
            else:
                self._draw_line(painter, r, QFontMetrics(bold).elidedText("⚠ " + err.replace("\n", " "), Qt.TextElideMode.ElideRight, w),
                                QFontMetrics(bold), query)
            y += lay["err"] + GAP
        # show more / less
        if lay["more"]:
            painter.setFont(font)
            painter.setPen(pal.color(QPalette.ColorRole.Link))
            if card.expanded:
                label = "▴ " + self._tr_less
            else:
                label = "▾ " + self._tr_more
                if lay["more_lines"]:
                    label += "  (" + self._tr_lines.format(n=lay["more_lines"]) + ")"
            painter.drawText(self._more_rect(rect, lay), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, label)
        painter.restore()

    @staticmethod
    def _draw_wrapped(painter: QPainter, r: QRect, text: str, font: QFont, query: str, anywhere: bool = False) -> None:
        """Wrapped text at the top of ``r``, every match of ``query`` on a highlight."""
        spans = match_spans(text, query)
        flags = int(Qt.TextFlag.TextWrapAnywhere if anywhere else Qt.TextFlag.TextWordWrap) | int(Qt.AlignmentFlag.AlignTop)
        if not spans:
            painter.drawText(r, flags, text)
            return
        layout = QTextLayout(text.replace("\n", "\u2028"), font, painter.device())  # same offsets, line breaks kept
        opt = QTextOption()
        opt.setWrapMode(QTextOption.WrapMode.WrapAnywhere if anywhere else QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(opt)
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(HIGHLIGHT))
        fmt.setForeground(QColor("#000000"))
        ranges = []
        for start, length in spans:
            fr = QTextLayout.FormatRange()
            fr.start, fr.length, fr.format = start, length, fmt
            ranges.append(fr)
        layout.setFormats(ranges)
        layout.beginLayout()
        y = 0.0
        while y <= r.height():
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(r.width())
            line.setPosition(QPointF(0, y))
            y += line.height()
        layout.endLayout()
        layout.draw(painter, QPointF(r.topLeft()))

    @staticmethod
    def _draw_line(painter: QPainter, r: QRect, text: str, fm: QFontMetrics, query: str) -> None:
        """One (elided) line, every match of ``query`` on a highlight."""
        painter.drawText(r, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, text)
        pen = painter.pen()
        for start, length in match_spans(text, query):
            x0 = r.left() + fm.horizontalAdvance(text[:start])
            part = text[start:start + length]
            box = QRect(x0, r.top(), fm.horizontalAdvance(part), fm.height())
            painter.fillRect(box, QColor(HIGHLIGHT))
            painter.setPen(QColor("#000000"))
            painter.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, part)
            painter.setPen(pen)

    @staticmethod
    def _small_font(font: QFont) -> QFont:
        f = QFont(font)
        f.setPointSizeF(max(7.0, font.pointSizeF() - 2))
        f.setBold(True)
        return f

    def chip_height(self) -> int:
        """Height of the chips row."""
        return QFontMetrics(self._chip_font(self._fonts()[0])).height() + 6

    @staticmethod
    def _chip_font(font: QFont, strike: bool = False) -> QFont:
        f = QFont(font)
        f.setPointSizeF(max(7.0, font.pointSizeF() - 1))
        f.setStrikeOut(strike)
        return f

    def chip_text(self, chip: TagChip) -> str:
        """What a chip says: the category's title, the custom tag, or that a suggestion was rejected."""
        if chip.kind == "tag":
            return tag_label(chip.value) if chip.value in BY_ID else f"#{chip.value}"
        if chip.kind == "rejected" and not chip.value:
            return self._tr_rejected
        return category_title(chip.value)

    def chip_rects(self, card: StepCard, x: int, y: int, w: int) -> list[tuple[TagChip | None, QRect]]:
        """Where each chip goes (None: the "+n" chip of those that did not fit)."""
        fm = QFontMetrics(self._chip_font(self._fonts()[0]))
        h = self.chip_height() - 2
        out: list[tuple[TagChip | None, QRect]] = []
        cx = x
        for i, chip in enumerate(card.chips):
            dot = 12 if chip.kind != "tag" else 0
            cw = fm.horizontalAdvance(self.chip_text(chip)) + 16 + dot
            rest = len(card.chips) - i - 1
            more_w = fm.horizontalAdvance(self._tr_more_chips.format(n=rest + 1)) + 16 if rest else 0
            if cx + cw + (more_w + CHIP_GAP if rest else 0) > x + w:
                out.append((None, QRect(cx, y, fm.horizontalAdvance(self._tr_more_chips.format(n=rest + 1)) + 16, h)))
                break
            out.append((chip, QRect(cx, y, cw, h)))
            cx += cw + CHIP_GAP
        return out

    def _paint_chips(self, painter: QPainter, chips: list[TagChip], x: int, y: int, w: int, font: QFont,
                     pal: QPalette) -> None:
        base = pal.color(QPalette.ColorRole.Base)
        text_c = pal.color(QPalette.ColorRole.Text)
        muted = mix(text_c, base, 0.45)
        card = StepCard(step=-1, chips=chips)
        placed = self.chip_rects(card, x, y, w)
        for chip, r in placed:
            rf = QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5)
            radius = rf.height() / 2
            if chip is None:
                painter.setFont(self._chip_font(font))
                painter.setPen(QPen(muted, 1.0))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(rf, radius, radius)
                painter.drawText(r, Qt.AlignmentFlag.AlignCenter, self._tr_more_chips.format(n=len(chips) - len(placed) + 1))
                continue
            if chip.kind == "tag":
                color = QColor(TAG_COLOR)
                fill, pen, ink = mix(base, color, 0.14), QPen(mix(color, base, 0.2), 1.0), text_c
            elif chip.kind == "rejected":
                color = category_color(chip.value)
                fill, pen, ink = base, QPen(muted, 1.0, Qt.PenStyle.DashLine), muted
            else:
                color = category_color(chip.value)
                fill, pen, ink = mix(base, color, 0.22), QPen(color, 1.2), text_c
            painter.setPen(pen)
            painter.setBrush(fill)
            painter.drawRoundedRect(rf, radius, radius)
            tx = r.left() + 8
            if chip.kind != "tag":
                d = 8
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(color if chip.kind == "category" else mix(color, base, 0.5))
                painter.drawEllipse(QRectF(tx, r.center().y() - d / 2 + 0.5, d, d))
                tx += 12
            painter.setFont(self._chip_font(font, strike=chip.kind == "rejected" and bool(chip.value)))
            painter.setPen(ink)
            painter.drawText(QRect(tx, r.top(), r.right() - tx - 6, r.height()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.chip_text(chip))

    def _badges(self, card: StepCard) -> list[tuple[str, QColor, bool]]:
        out: list[tuple[str, QColor, bool]] = []
        if card.uncertain:  # one of the likeliest steps of a run the ranker is unsure of: outlined, lighter
            out.append((self._tr_candidate.format(n=card.rank), QColor(CANDIDATE), False))
        elif card.rank == 1:
            out.append((self._tr_decisive, QColor(DECISIVE), True))
        elif card.rank in (2, 3):
            out.append((self._tr_candidate.format(n=card.rank), QColor(CANDIDATE), True))
        if card.analyst_decisive:  # next to the ranker's mark
            out.append((self._tr_analyst, QColor(ANALYST_MARK), True))
        if card.gold:
            out.append((self._tr_label, QColor("#6E7681"), False))
        if card.is_error:
            out.append((self._tr_error, QColor(ERROR), False))
        if card.value is not None:
            txt = f"V {card.value:.2f}"
            if card.drop:
                txt += f"  ▼{card.drop:.2f}"
            out.append((txt, QColor("#3D7DD8") if not card.drop or card.drop < 0.15 else QColor(DECISIVE), False))
        if card.tokens:
            out.append((self._tr_tokens.format(n=card.tokens), QColor("#8A8F98"), False))
        return out

    def _paint_badges(self, painter: QPainter, badges: list[tuple[str, QColor, bool]], right: int, y: int,
                      font: QFont, pal: QPalette) -> None:
        small = self._small_font(font)
        sfm = QFontMetrics(small)
        painter.setFont(small)
        x = right
        h = sfm.height() + 4
        for text, color, filled in reversed(badges):
            bw = sfm.horizontalAdvance(text) + 14
            x -= bw
            r = QRectF(x, y + 1, bw, h)
            if filled:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(color)
                painter.drawRoundedRect(r, h / 2, h / 2)
                painter.setPen(QColor("#FFFFFF"))
            else:
                painter.setPen(QPen(color, 1.2))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(r.adjusted(0.5, 0.5, -0.5, -0.5), h / 2, h / 2)
                painter.setPen(color)
            painter.drawText(r, Qt.AlignmentFlag.AlignCenter, text)
            x -= 6

    def _paint_gutter(self, painter: QPainter, rect: QRect, card: StepCard, lay: dict[str, Any]) -> None:
        top = rect.top() + 3
        if card.uncertain:
            light = QColor(CANDIDATE)
            light.setAlphaF(UNCERTAIN_ALPHA)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(light)
            painter.drawRoundedRect(QRectF(rect.left() + 3, top + 2, 4, lay["height"] - 4), 2, 2)
        elif card.rank == 1:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(DECISIVE))
            painter.drawRoundedRect(QRectF(rect.left() + 3, top + 2, 4, lay["height"] - 4), 2, 2)
        elif card.rank in (2, 3):
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(CANDIDATE))
            painter.drawRoundedRect(QRectF(rect.left() + 3, top + 2, 4, lay["height"] - 4), 2, 2)
        if card.analyst_decisive:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(ANALYST_MARK))
            painter.drawRoundedRect(QRectF(rect.left() + 8, top + 2, 3, lay["height"] - 4), 1.5, 1.5)
        d = 10
        for i, f in enumerate(card.findings[:6]):
            cy = top + PAD + i * (d + 4)
            if cy + d > top + lay["height"]:
                break
            painter.setPen(QPen(QColor(0, 0, 0, 60), 1))
            painter.setBrush(category_color(f.category))
            painter.drawEllipse(QRectF(rect.left() + 13, cy, d, d))

    # interaction -------------------------------------------------------------------
    def editorEvent(self, event: QEvent, model: Any, option: QStyleOptionViewItem,
                    index: QModelIndex | QPersistentModelIndex) -> bool:
        if event.type() == QEvent.Type.MouseButtonRelease and isinstance(event, QMouseEvent):
            card = index.data(CARD_ROLE)
            if isinstance(card, StepCard):
                lay = self.exact_layout(card, option.rect.width())
                if lay["more"] and self._more_rect(option.rect, lay).contains(event.position().toPoint()):
                    self.toggleRequested.emit(index.row())
                    return True
        return super().editorEvent(event, model, option, index)

    def helpEvent(self, event: Any, view: QAbstractItemView, option: QStyleOptionViewItem,
                  index: QModelIndex | QPersistentModelIndex) -> bool:
        card = index.data(CARD_ROLE)
        if not isinstance(card, StepCard):
            return False
        pos: QPoint = event.pos()
        if card.chips or card.note:
            lay = self.exact_layout(card, option.rect.width())
            top = option.rect.top() + 3 + PAD + lay["header"] + GAP
            if lay["chips"] and top <= pos.y() < top + lay["chips"] and pos.x() - option.rect.left() >= GUTTER:
                QToolTip.showText(event.globalPos(), self.chips_tooltip(card), view)
                return True
        if pos.x() - option.rect.left() < GUTTER:
            lines = []
            if card.uncertain:
                lines.append(self.tr("Candidate #{n}: the ranker is uncertain (no step stands out)").format(n=card.rank))
            elif card.rank == 1:
                lines.append(self.tr("Decisive step (predicted)"))
            elif card.rank in (2, 3):
                lines.append(self.tr("Candidate decisive step #{n}").format(n=card.rank))
            if card.analyst_decisive:
                lines.append(self.tr("Decisive step (analyst)"))
            for f in card.findings:
                lines.append(f"● {category_title(f.category)} ({f.score:.2f}) — {finding_text(f.rationale)[:160]}")
            if lines:
                QToolTip.showText(event.globalPos(), "\n".join(lines), view)
                return True
        QToolTip.hideText()
        return True


    def chips_tooltip(self, card: StepCard) -> str:
        """Every chip of a card in words (the chips row may not show them all), and the note."""
        lines = []
        for chip in card.chips:
            if chip.kind == "category":
                lines.append(self.tr("Analyst category: {cat}").format(cat=category_title(chip.value)))
            elif chip.kind == "rejected":
                lines.append(self.tr("Rejected suggestion: {cat}").format(cat=category_title(chip.value)) if chip.value
                             else self.tr("The analyst rejected the suggestion at this step"))
            else:
                lines.append(self.tr("Tag: {tag}").format(tag=tag_label(chip.value)))
        if card.note:
            lines.append(self.tr("Note: {note}").format(note=card.note[:400]))
        return "\n".join(lines)


def _line_height(fm: QFontMetrics) -> int:
    """Height of one laid-out line (can exceed ``lineSpacing()`` by a pixel)."""
    return max(fm.lineSpacing(), fm.boundingRect(QRect(0, 0, 1000, 1000), int(Qt.TextFlag.TextWordWrap), "Xg").height())


def _tool_text(card: StepCard) -> str:
    if not card.tool_name and not card.tool_args:
        return ""
    args = card.tool_args or ""
    return f"{card.tool_name or ''}({args})" if card.tool_name else args


def _estimate_lines(text: str, cpl: int, cap: int) -> int:
    if not text:
        return 0
    total = 0
    for part in text.split("\n", cap):
        total += max(1, math.ceil(len(part) * 1.08 / cpl))
        if total > cap:
            return total
    return total


def _preview(text: str, lines: int, cpl: int) -> str:
    parts = text.split("\n", lines + 1)[: lines + 1]
    return "\n".join(p[: cpl * lines + 20] for p in parts)

