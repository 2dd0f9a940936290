"""List model of one run's steps, as cards for the transcript view.

Built from the session's frames when a run is selected; one :class:`StepCard` per step with
what the card shows (text, tool call, error, value, findings, decisive/candidate rank, and the
analyst's tags and decisive mark from the workspace annotations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl
from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from analyzer.analysis.result import uncertain_steps
from analyzer.session import Session

CARD_ROLE = Qt.ItemDataRole.UserRole + 10


@dataclass
class FindingMark:
    """A finding shown in the gutter of a step card."""

    category: str
    score: float
    rationale: str
    source: str
    row: int


@dataclass(frozen=True)
class TagChip:
    """An analyst tag shown as a chip on a step card.

    Attributes:
        kind: ``category`` (a taxonomy category the analyst gave or accepted), ``tag`` (a custom
            tag) or ``rejected`` (the analyst rejected the suggestion at this step).
        value: The taxonomy id (categories; for ``rejected`` the rejected one when known, else
            empty) or the tag text.
    """

    kind: str
    value: str


@dataclass
class StepCard:
    """Everything a step card paints.

    Attributes:
        step: 0-based step index.
        rank: 1 for the decisive step, 2 and 3 for the runner-up candidates, else None; in an
            uncertain run, the step's place among the likeliest steps (1 first).
        uncertain: The step is one of the likeliest steps of a run whose ranker does not know
            (``decisive_uncertain``): it gets a lighter candidate mark, and no step the
            DECISIVE badge.
        gold: The file labels this step as the decisive one.
        expanded: The card shows its full content.
        match: The step matches the transcript search.
        chips: The analyst's categories and tags on this step (categories first).
        analyst_decisive: An analyst marked this step as the run's decisive step (key D).
        note: The analyst's note on this step, if any.
        heights: Cached card heights by (available width, unfolded).
        layouts: Exactly measured layouts by (available width, unfolded), filled when painted.
    """

    step: int
    agent: str = ""
    role: str = ""
    kind: str = ""
    text: str = ""
    tool_name: str | None = None
    tool_args: str | None = None
    is_error: bool = False
    error_text: str | None = None
    tokens: int | None = None
    value: float | None = None
    drop: float | None = None
    findings: list[FindingMark] = field(default_factory=list)
    rank: int | None = None
    uncertain: bool = False
    gold: bool = False
    chips: list[TagChip] = field(default_factory=list)
    analyst_decisive: bool = False
    note: str | None = None
    expanded: bool = False
    match: bool = False
    heights: dict[tuple[int, bool], int] = field(default_factory=dict)
    layouts: dict[tuple[int, bool], dict[str, Any]] = field(default_factory=dict)

    def summary(self, limit: int = 160) -> str:
        """One-line summary (hover text)."""
        body = self.text.strip().replace("\n", " ")
        if self.tool_name:
            body = f"{self.tool_name}({(self.tool_args or '')[:60]}) {body}".strip()
        return body if len(body) <= limit else body[: limit - 1] + "…"


def parse_steps_list(text: Any) -> list[int]:
    """Parse a comma-separated step list (``top_steps``)."""
    out: list[int] = []
    for part in str(text or "").split(","):
        part = part.strip()
        if part.lstrip("-").isdigit():
            out.append(int(part))
    return out


_FINGERPRINT_COLUMNS = ("decisive_step", "decisive_uncertain", "category", "confidence", "top_steps", "value_estimator",
                        "judge_model",
                        "n_findings", "min_value", "largest_drop", "tags", "analyst_status")


def run_annotations(session: Session, trace_id: str) -> pl.DataFrame:
    """The workspace annotations of one run's steps (run-level ones left out)."""
    ann = session.annotations
    if ann.height == 0:
        return ann
    return ann.filter((pl.col("trace_id") == trace_id) & pl.col("step").is_not_null())


def step_tags(annotations: pl.DataFrame) -> dict[int, tuple[list[TagChip], bool, str | None]]:
    """Per step: its chips, whether an analyst marked it decisive, and its note.

    Args:
        annotations: One run's step annotations (ANNOTATION_COLUMNS; several authors allowed).

    Returns:
        Step -> (chips: categories, then custom tags, then rejected categories; decisive; note).
    """
    acc: dict[int, tuple[list[str], list[str], list[str], list[bool], list[str]]] = {}
    if annotations.height == 0:
        return {}
    for r in annotations.select("step", "category", "tags", "status", "note").iter_rows(named=True):
        cats, tags, rejected, decisive, notes = acc.setdefault(int(r["step"]), ([], [], [], [], []))
        status = r["status"] or ""
        cat = r["category"]
        if status == "rejected":  # the store clears the category: the chip says a suggestion was rejected
            if str(cat or "") not in rejected:
                rejected.append(str(cat or ""))
        elif cat and cat not in cats:
            cats.append(str(cat))
        for t in str(r["tags"] or "").split(","):
            if t.strip() and t.strip() not in tags:
                tags.append(t.strip())
        if status == "decisive":
            decisive.append(True)
        if r["note"] and str(r["note"]).strip():
            notes.append(str(r["note"]).strip())
    out: dict[int, tuple[list[TagChip], bool, str | None]] = {}
    for step, (cats, tags, rejected, decisive, notes) in acc.items():
        chips = ([TagChip("category", c) for c in cats] + [TagChip("tag", t) for t in sorted(tags)]
                 + [TagChip("rejected", c) for c in rejected if c not in cats])
        out[step] = (chips, bool(decisive), "\n".join(notes) or None)
    return out


def analysis_fingerprint(session: Session, trace_id: str) -> tuple[object, ...]:
    """What a run's views depend on besides its steps (cheap to compare after a merge)."""
    row = session.run_row(trace_id) or {}
    values = session.run_step_values(trace_id)
    judged = values["judge_value"].drop_nulls().len() if values.height else 0
    aligned = values["alignment"].drop_nulls().len() if values.height else 0
    ann = run_annotations(session, trace_id)
    marks = tuple(sorted((int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in
                         ann.select("step", "category", "tags", "status", "note").iter_rows())) if ann.height else ()
    return (*(row.get(c) for c in _FINGERPRINT_COLUMNS), values.height, judged, aligned,
            session.annotations.height, marks)


def build_cards(session: Session, trace_id: str) -> list[StepCard]:
    """Cards of one run from the session's frames."""
    steps = session.run_steps(trace_id)
    values = session.run_step_values(trace_id)
    findings = session.run_findings(trace_id)
    run = session.run_row(trace_id) or {}
    val: dict[int, tuple[float | None, float | None]] = {}
    if values.height:
        for s, v, d in values.select("step", "value", "drop").iter_rows():
            val[int(s)] = (v, d)
    marks: dict[int, list[FindingMark]] = {}
    if findings.height:
        for r in findings.select("finding", "step", "category", "score", "rationale", "source").iter_rows(named=True):
            marks.setdefault(int(r["step"]), []).append(
                FindingMark(str(r["category"]), float(r["score"] or 0.0), str(r["rationale"] or ""),
                            str(r["source"] or ""), int(r["finding"])))
    ranks: dict[int, int] = {}
    unsure = uncertain_steps(run.get("decisive_uncertain"))
    top = parse_steps_list(run.get("top_steps"))
    decisive = run.get("decisive_step")
    if unsure:  # no step stands out: the likeliest ones are candidates, none is decisive
        ranks = {s: i + 1 for i, s in enumerate(unsure)}
    else:
        if decisive is not None:
            ranks[int(str(decisive))] = 1
        for i, s in enumerate(t for t in top if t not in ranks):
            if i >= 2:
                break
            ranks[s] = i + 2
    gold = run.get("gold_decisive_step")
    tagged = step_tags(run_annotations(session, trace_id))
    cols = ["step", "agent", "role", "kind", "text", "tool_name", "tool_args", "is_error", "error_text",
            "tokens_in", "tokens_out"]
    cards: list[StepCard] = []
    for r in steps.select(cols).iter_rows():
        s = int(r[0])
        tin, tout = r[9], r[10]
        v, d = val.get(s, (None, None))
        chips, analyst_decisive, note = tagged.get(s, ([], False, None))
        cards.append(StepCard(
            step=s, agent=r[1] or "", role=r[2] or "", kind=r[3] or "", text=r[4] or "",
            tool_name=r[5], tool_args=r[6], is_error=bool(r[7]), error_text=r[8],
            tokens=(tin or 0) + (tout or 0) if (tin or tout) else None,
            value=v, drop=d, findings=marks.get(s, []), rank=ranks.get(s), uncertain=s in unsure,
            gold=gold is not None and int(str(gold)) == s,
            chips=chips, analyst_decisive=analyst_decisive, note=note))
    return cards


class StepListModel(QAbstractListModel):
    """One row per step of the current run."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.cards: list[StepCard] = []
        self.trace_id: str | None = None
        self.query = ""
        self._row_of: dict[int, int] = {}

    def set_cards(self, trace_id: str | None, cards: list[StepCard]) -> None:
        """Show another run (or refresh this one, keeping expanded cards expanded)."""
        if trace_id == self.trace_id:
            expanded = {c.step for c in self.cards if c.expanded}
            for c in cards:
                c.expanded = c.step in expanded
        self.beginResetModel()
        self.trace_id = trace_id
        self.cards = cards
        self._row_of = {c.step: i for i, c in enumerate(cards)}
        self.endResetModel()

    def row_of(self, step: int | None) -> int:
        """Row of a step index (-1 if absent)."""
        return -1 if step is None else self._row_of.get(step, -1)

    def card(self, row: int) -> StepCard | None:
        """Card of a row."""
        return self.cards[row] if 0 <= row < len(self.cards) else None

    def set_expanded(self, row: int, expanded: bool) -> None:
        """Fold or unfold one card."""
        card = self.card(row)
        if card is not None and card.expanded != expanded:
            card.expanded = expanded
            idx = self.index(row)
            self.dataChanged.emit(idx, idx, [Qt.ItemDataRole.SizeHintRole])

    def set_matches(self, steps: set[int], query: str = "") -> None:
        """Mark the steps matching the search; ``query`` is highlighted in their text."""
        self.query = query.strip()
        for c in self.cards:
            c.match = c.step in steps
        if self.cards:
            self.dataChanged.emit(self.index(0), self.index(len(self.cards) - 1))

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.cards)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.cards):
            return None
        card = self.cards[index.row()]
        if role == CARD_ROLE:
            return card
        if role == Qt.ItemDataRole.DisplayRole:
            return f"#{card.step} {card.agent}: {card.summary(80)}"
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"Step {card.step}, {card.agent}, {card.kind}: {card.summary(200)}"
        return None


def match_spans(text: str, needle: str) -> list[tuple[int, int]]:
    """(start, length) of every case-insensitive occurrence of ``needle`` in ``text``."""
    import re

    needle = needle.strip()
    if not needle or not text:
        return []
    return [(m.start(), m.end() - m.start()) for m in re.finditer(re.escape(needle), text, flags=re.IGNORECASE)]


def search_steps(steps: pl.DataFrame, needle: str) -> list[int]:
    """Steps whose text, tool name, arguments or error contain ``needle`` (case-insensitive)."""
    import re

    if not needle.strip() or steps.height == 0:
        return []
    pat = "(?i)" + re.escape(needle.strip())
    cond = (pl.col("text").fill_null("").str.contains(pat)
            | pl.col("tool_name").fill_null("").str.contains(pat)
            | pl.col("tool_args").fill_null("").str.contains(pat)
            | pl.col("error_text").fill_null("").str.contains(pat)
            | pl.col("agent").fill_null("").str.contains(pat))
    return [int(s) for s in steps.filter(cond)["step"].to_list()]
