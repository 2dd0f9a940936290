"""Inspector: details of the current run, step and finding, plus the annotation editor slot.

The annotation editor comes from ``ui.views.annotation_editor`` when that module exists: it
must expose ``create_annotation_editor(session, bridge, parent) -> QWidget``, and the widget
is inserted into :attr:`InspectorPane.annotation_slot`.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QSplitter, QTextBrowser, QVBoxLayout, QWidget

from analyzer.analysis.result import uncertain_steps
from analyzer.session import Selection, Session
from ui.bridge import SessionBridge
from ui.i18n.labels import (
    category_description,
    category_title,
    kind_label,
    outcome_source_text,
    role_label,
    run_outcome_label,
    status_label,
    tags_text,
)
from ui.i18n.messages import finding_text, note_text
from ui.models.runs_table import STALE_COLOR
from ui.models.steps_list import parse_steps_list
from ui.theme import CANDIDATE, CATEGORY_COLORS, DECISIVE, OUTCOME_COLORS, is_dark
from ui.views.annotation_editor import create_annotation_editor
from ui.views.rationale_html import rationale_html, steps_html

_STEP_REF_RE = re.compile(r"(\bstep |步骤 )(\d+)\b")


def _step_links(text: str) -> str:
    """Escaped text whose "step N" references are links that select step N."""
    return _STEP_REF_RE.sub(lambda m: f"{m.group(1)}<a href='step:{m.group(2)}'>{m.group(2)}</a>", html.escape(text))

MAX_STEP_TEXT = 200_000


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _pretty_args(raw: str | None) -> str:
    if not raw:
        return ""
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except ValueError:
        return raw


class InspectorPane(QWidget):
    """Run/step/finding details (top) and the annotation editor slot (bottom)."""

    def __init__(self, session: Session, bridge: SessionBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bridge = bridge
        self.browser = QTextBrowser(self)
        self.browser.setObjectName("inspectorBrowser")
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        self.browser.anchorClicked.connect(self._on_anchor)
        self.browser.document().setDocumentMargin(10)
        # --- annotation editor slot (filled by the tagging desk, issue "Desktop app II") ---
        self.annotation_host = QWidget(self)
        self.annotation_host.setObjectName("annotationSlot")
        self.annotation_slot = QVBoxLayout(self.annotation_host)
        self.annotation_slot.setContentsMargins(0, 0, 0, 0)
        self.annotation_editor: QWidget | None = None
        self.annotation_error: str | None = None
        self._label_cache: dict[str, str] | None = None
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.browser)
        self.splitter.addWidget(self.annotation_host)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.splitter)
        self._install_annotation_editor()
        bridge.selectionChanged.connect(self.refresh)
        bridge.analysisChanged.connect(self.refresh)
        bridge.annotationsChanged.connect(self.refresh)
        bridge.tracesChanged.connect(self.refresh)
        self.refresh()

    def _install_annotation_editor(self) -> None:
        try:
            self.annotation_editor = create_annotation_editor(self.session, self.bridge, self.annotation_host)
        except Exception as exc:  # a broken editor must not take the inspector down
            self.annotation_host.hide()
            self.annotation_error = f"{type(exc).__name__}: {exc}"
            return
        self.annotation_slot.addWidget(self.annotation_editor)
        self.annotation_host.show()

    def _on_anchor(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("step:"):
            step = int(text.split(":", 1)[1])
            self.session.select(step=step, steps=(step,), finding=None)
        elif text.startswith("finding:"):
            _, step, row = text.split(":")
            self.session.select(step=int(step), steps=(int(step),), finding=int(row))

    # rendering -------------------------------------------------------------------------
    def _labels(self) -> dict[str, str]:
        """Translated labels used inside the HTML (kept out of f-strings so lupdate sees them)."""
        if self._label_cache is None:
            self._label_cache = {
                'Select a run, a step or a finding to inspect it.': self.tr("Select a run, a step or a finding to inspect it."),
                'Run': self.tr("Run"),
                'score': self.tr("score"),
                'Analysis': self.tr("Analysis"),
                'at step {s}': self.tr("at step {s}"),
                'Not analysed yet. Analysis ▸ Analyze selected runs (Ctrl+R).': self.tr("Not analysed yet. Analysis ▸ Analyze selected runs (Ctrl+R)."),
                'Label in the file': self.tr("Label in the file"),
                'Analyst': self.tr("Analyst"),
                'Step {n}': self.tr("Step {n}"),
                'value': self.tr("value"),
                'drop': self.tr("drop"),
                'alignment': self.tr("alignment"),
                'decisive score': self.tr("decisive score"),
                'judge value': self.tr("judge value"),
                'This step reports an error.': self.tr("This step reports an error."),
                'Tool call': self.tr("Tool call"),
                'Source id': self.tr("Source id"),
                '… {n} more characters': self.tr("… {n} more characters"),
                'Findings': self.tr("Findings"),
                'Evidence: steps': self.tr("Evidence: steps"),
                'Findings ({n})': self.tr("Findings ({n})"),
                'step {n}': self.tr("step {n}"),
            }
        return self._label_cache

    def refresh(self, *_a: Any) -> None:
        """Re-render for the current selection."""
        L = self._labels()
        sel: Selection = self.session.selection
        if sel.trace_id is None:
            self.browser.setHtml(self._wrap(f"<p class='muted'>{_e(L['Select a run, a step or a finding to inspect it.'])}</p>"))
            return
        row = self.session.run_row(sel.trace_id)
        if row is None:
            self.browser.setHtml(self._wrap(""))
            return
        parts = []
        if sel.step is not None:
            parts.append(self._step_html(sel.trace_id, sel.step, sel.finding))
        parts.append(self._run_html(row))
        if sel.step is None:
            parts.append(self._findings_html(sel.trace_id))
        scroll = self.browser.verticalScrollBar().value() if sel.step is None else 0
        self.browser.setHtml(self._wrap("".join(parts)))
        self.browser.verticalScrollBar().setValue(scroll)

    def _wrap(self, body: str) -> str:
        pal = self.palette()
        muted = pal.color(QPalette.ColorRole.PlaceholderText).name()
        code_bg = "#22262c" if is_dark(pal) else "#f3f4f6"
        link = pal.color(QPalette.ColorRole.Link).name()
        return (f"<html><head><style>"
                f"h3 {{ margin: 6px 0 4px 0; }} .muted {{ color: {muted}; }} a {{ color: {link}; text-decoration: none; }}"
                f"td {{ padding: 1px 8px 1px 0; vertical-align: top; }} td.k {{ color: {muted}; white-space: nowrap; }}"
                f"pre {{ background: {code_bg}; padding: 6px; white-space: pre-wrap; }}"
                f".err {{ color: {DECISIVE}; font-weight: bold; }}"
                f"</style></head><body>{body}</body></html>")

    @staticmethod
    def _chip(color: str, text: str) -> str:
        return f"<span style='color:{color}'>■</span>&nbsp;{_e(text)}"

    def _row(self, key: str, value: str) -> str:
        return f"<tr><td class='k'>{_e(key)}</td><td>{value}</td></tr>"

    def _run_html(self, r: dict[str, Any]) -> str:
        L = self._labels()
        outcome = str(r.get("outcome") or "unknown")
        out = [f"<h3>{_e(L['Run'])} {_e(str(r['trace_id'])[:16])}</h3><table>"]
        shown = run_outcome_label(outcome, r.get("outcome_source"), r.get("outcome_p_failed"))
        out.append(self._row(self.tr("Outcome"), f"<b style='color:{OUTCOME_COLORS.get(outcome, '#8A8F98')}'>{_e(shown)}</b>"
                             + (f" &nbsp;({_e(L['score'])} {_e(r['score'])})" if r.get("score") is not None else "")
                             + f"<br><span class='muted'>{_e(outcome_source_text(r.get('outcome_source'), r.get('outcome_recorded'), r.get('outcome_p_failed')))}"
                             + (f" ({_e(r['outcome_raw'])})" if r.get('outcome_raw') else '') + "</span>"))
        for key, label in (("model", self.tr("Model")), ("framework", self.tr("Framework")),
                           ("task_family", self.tr("Task family")), ("source_format", self.tr("Format"))):
            if r.get(key):
                out.append(self._row(label, _e(r[key])))
        src = str(r.get("source_file") or "")
        if src:
            rec = r.get("record")
            out.append(self._row(self.tr("File"), _e(src) + (f" <span class='muted'>[{_e(rec)}]</span>" if rec and rec != "$" else "")))
        out.append(self._row(self.tr("Steps"), _e(self.tr("{n} ({e} errors)").format(n=r.get("n_steps") or 0, e=r.get("n_errors") or 0))))
        if r.get("tokens_total"):
            out.append(self._row(self.tr("Tokens"), _e(r["tokens_total"])))
        if r.get("task"):
            task = str(r["task"])
            out.append(self._row(self.tr("Task"), _e(task if len(task) < 1500 else task[:1500] + "…")))
        if r.get("final_answer"):
            ans = str(r["final_answer"])
            out.append(self._row(self.tr("Final answer"), _e(ans if len(ans) < 600 else ans[:600] + "…")))
        out.append("</table>")
        # analysis
        if r.get("decisive_step") is not None or r.get("value_estimator"):
            out.append(f"<h3>{_e(L['Analysis'])}</h3><table>")
            if r.get("analysis_stale"):  # results of an older analysis version, read from the workspace
                badge, why = self.tr("stale"), self.tr("made by an older analysis version; Analysis ▸ Refresh stale analysis")
                out.append(self._row(self.tr("Stale"), f"<span style='color:{STALE_COLOR}'><b>{_e(badge)}</b></span> {_e(why)}"))
            if r.get("decisive_step") is not None:
                ds = int(r["decisive_step"])
                unsure = uncertain_steps(r.get("decisive_uncertain"))
                if unsure:  # the ranker does not know: the likeliest steps instead of one
                    why = self.tr("no step stands out; the candidates are marked in the transcript")
                    head, _, tail = self.tr("uncertain: {steps}").partition("{steps}")
                    out.append(self._row(self.tr("Decisive step"),
                                         f"<b style='color:{CANDIDATE}'>{_e(head)}</b>{steps_html(unsure)}{_e(tail)} "
                                         f"<span class='muted'>({_e(why)})</span>"))
                else:
                    out.append(self._row(self.tr("Decisive step"), f"<a href='step:{ds}'><b>{ds}</b></a>"))
                if r.get("decisive_agent"):
                    out.append(self._row(self.tr("Responsible agent"), _e(r["decisive_agent"])))
                if r.get("drop_note"):
                    out.append(self._row(self.tr("Curve vs. decisive step"), _step_links(note_text(str(r["drop_note"])))))
            if r.get("category"):
                cat = str(r["category"])
                out.append(self._row(self.tr("Category"), self._chip(CATEGORY_COLORS.get(cat, "#BAB0AC"), category_title(cat))
                                     + f"<br><span class='muted'>{_e(category_description(cat))}</span>"))
            if r.get("confidence") is not None:
                out.append(self._row(self.tr("Confidence"), f"{float(r['confidence']):.2f}"))
            tops = parse_steps_list(r.get("top_steps"))
            scores = str(r.get("top_scores") or "").split(",")
            if tops:
                links = []
                for i, s in enumerate(tops):
                    sc = scores[i].strip() if i < len(scores) else ""
                    links.append(f"<a href='step:{s}'>{s}</a>" + (f" <span class='muted'>({_e(sc)})</span>" if sc else ""))
                out.append(self._row(self.tr("Candidates"), ", ".join(links)))
            if r.get("rationale") or r.get("rationale_json"):
                out.append(self._row(self.tr("Rationale"), rationale_html(r.get("rationale_json"), r.get("rationale"))))
            if r.get("largest_drop") is not None:
                s = r.get("largest_drop_step")
                link = f" <a href='step:{s}'>{_e(L['at step {s}'].format(s=s))}</a>" if s is not None else ""
                out.append(self._row(self.tr("Largest drop"), f"{float(r['largest_drop']):.2f}{link}"))
            if r.get("min_value") is not None:
                out.append(self._row(self.tr("Lowest value"), f"{float(r['min_value']):.2f}"))
            if r.get("value_estimator"):
                out.append(self._row(self.tr("Estimator"), _e(r["value_estimator"])))
            if r.get("judge_model"):
                out.append(self._row(self.tr("Judge"), _e(r["judge_model"])))
            if r.get("error"):
                out.append(self._row(self.tr("Problems"), f"<span class='err'>{_e(r['error'])}</span>"))
            out.append("</table>")
        else:
            out.append(f"<p class='muted'>{_e(L['Not analysed yet. Analysis ▸ Analyze selected runs (Ctrl+R).'])}</p>")
        if r.get("gold_decisive_step") is not None:
            gs = int(r["gold_decisive_step"])
            out.append(f"<h3>{_e(L['Label in the file'])}</h3><table>")
            agent = f" · {_e(r['gold_decisive_agent'])}" if r.get("gold_decisive_agent") else ""
            out.append(self._row(self.tr("Decisive step"), f"<a href='step:{gs}'>{gs}</a>{agent}"))
            if r.get("gold_reason"):
                out.append(self._row(self.tr("Reason"), _e(r["gold_reason"])))
            out.append("</table>")
        if r.get("tags") or r.get("analyst_status"):
            out.append(f"<h3>{_e(L['Analyst'])}</h3><table>")
            if r.get("tags"):
                out.append(self._row(self.tr("Tags"), _e(tags_text(r["tags"]))))
            if r.get("analyst_status"):
                out.append(self._row(self.tr("Review"), _e(status_label(str(r["analyst_status"])))))
            out.append("</table>")
        return "".join(out)

    def _step_html(self, trace_id: str, step: int, finding: int | None) -> str:
        L = self._labels()
        steps = self.session.run_steps(trace_id)
        rows = steps.filter(steps["step"] == step)
        if rows.height == 0:
            return ""
        s = rows.row(0, named=True)
        out = [f"<h3>{_e(L['Step {n}'].format(n=step))} · {_e(s.get('agent') or '')}</h3>"]
        out.append(f"<p class='muted'>{_e(role_label(s.get('role')))} · {_e(kind_label(s.get('kind')))}"
                   + (f" · {_e(s['timestamp'])}" if s.get("timestamp") else "")
                   + (f" · {float(s['duration_s']):.1f} s" if s.get("duration_s") is not None else "") + "</p>")
        if s.get("native_step_id"):  # the source's own id, to find the step back in the producing tool
            out.append(f"<p class='muted'>{_e(L['Source id'])} <code>{_e(s['native_step_id'])}</code></p>")
        values = self.session.run_step_values(trace_id)
        vrow = values.filter(values["step"] == step)
        if vrow.height:
            v = vrow.row(0, named=True)
            bits = []
            if v.get("value") is not None:
                bits.append(f"{_e(L['value'])} <b>{float(v['value']):.2f}</b>")
            if v.get("drop"):
                bits.append(f"<span class='err'>{_e(L['drop'])} {float(v['drop']):.2f}</span>")
            if v.get("alignment") is not None:
                bits.append(f"{_e(L['alignment'])} {float(v['alignment']):.2f}")
            if v.get("candidate_score") is not None:
                bits.append(f"{_e(L['decisive score'])} {float(v['candidate_score']):.2f}")
            if v.get("judge_value") is not None:
                bits.append(f"{_e(L['judge value'])} {float(v['judge_value']):.2f}")
            if bits:
                out.append("<p>" + " &nbsp;·&nbsp; ".join(bits) + "</p>")
        if s.get("is_error") or s.get("error_text"):
            out.append(f"<p class='err'>⚠ {_e(s.get('error_text') or L['This step reports an error.'])}</p>")
        if s.get("tool_name") or s.get("tool_args"):
            out.append(f"<p><b>{_e(L['Tool call'])}</b> <code>{_e(s.get('tool_name') or '')}</code></p>")
            if s.get("tool_args"):
                out.append(f"<pre>{_e(_pretty_args(s['tool_args'])[:20000])}</pre>")
        text = str(s.get("text") or "")
        if text:
            shown = text[:MAX_STEP_TEXT]
            more = (f"<p class='muted'>{_e(L['… {n} more characters'].format(n=len(text) - MAX_STEP_TEXT))}</p>"
                    if len(text) > MAX_STEP_TEXT else "")
            out.append(f"<pre>{_e(shown)}</pre>{more}")
        found = self.session.run_findings(trace_id)
        here = found.filter(found["step"] == step)
        if here.height:
            out.append(f"<h3>{_e(L['Findings'])}</h3>")
            for f in here.iter_rows(named=True):
                out.append(self._finding_html(f, highlight=f["finding"] == finding))
        return "".join(out) + "<hr>"

    def _finding_html(self, f: dict[str, Any], highlight: bool = False) -> str:
        L = self._labels()
        cat = str(f.get("category") or "other")
        color = CATEGORY_COLORS.get(cat, "#BAB0AC")
        style = f"border-left: 3px solid {color}; padding-left: 6px;" + (" background: rgba(61,125,216,0.10);" if highlight else "")
        out = [f"<div style='{style}'><p><b>{self._chip(color, category_title(cat))}</b>"
               f" &nbsp;<span class='muted'>{_e(L['score'])} {float(f.get('score') or 0):.2f}"
               f" · {_e(f.get('source') or '')} · {_e(status_label(f.get('status')))}</span></p>"]
        if f.get("rationale"):
            out.append(f"<p>{_e(finding_text(str(f['rationale'])))}</p>")
        if f.get("evidence_quote"):
            out.append(f"<p class='muted'>“{_e(str(f['evidence_quote'])[:600])}”</p>")
        if f.get("evidence_start") is not None:
            a, b = f["evidence_start"], f.get("evidence_end")
            span = f"<a href='step:{a}'>{a}</a>" + (f"–<a href='step:{b}'>{b}</a>" if b is not None and b != a else "")
            out.append(f"<p class='muted'>{_e(L['Evidence: steps'])} {span}</p>")
        out.append("</div>")
        return "".join(out)

    def _findings_html(self, trace_id: str) -> str:
        L = self._labels()
        found = self.session.run_findings(trace_id)
        if found.height == 0:
            return ""
        out = [f"<h3>{_e(L['Findings ({n})'].format(n=found.height))}</h3><table>"]
        for f in found.head(200).iter_rows(named=True):
            cat = str(f["category"])
            out.append(f"<tr><td><a href='finding:{f['step']}:{f['finding']}'>{_e(L['step {n}'].format(n=f['step']))}</a></td>"
                       f"<td>{self._chip(CATEGORY_COLORS.get(cat, '#BAB0AC'), category_title(cat))}</td>"
                       f"<td class='muted'>{float(f['score'] or 0):.2f}</td></tr>")
        out.append("</table>")
        return "".join(out)
