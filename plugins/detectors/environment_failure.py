"""Environment failure: tool/API/infra errors that are not the agent's fault.

Fires on observation (or error) steps whose text matches rate limits, timeouts, connection
and server errors (strong), or missing/inaccessible resources (weaker, since an agent can
cause those by asking for the wrong path).
"""

from __future__ import annotations

from analyzer.detection.helpers import make_finding
from analyzer.detection.text import ENV_RESOURCE_RE, ENV_STRONG_RE, match_quote
from analyzer.plugin_host.protocols import DetectionContext
from analyzer.schema.findings import Finding
from analyzer.schema.models import Trajectory
from analyzer.signals.steps import columns_of, table_for
from analyzer.taxonomy import Category

SOURCE = "environment_failure"


def detect(trajectory: Trajectory, ctx: DetectionContext) -> list[Finding]:
    """Findings on steps reporting infrastructure errors or missing resources."""
    out: list[Finding] = []
    t = columns_of(table_for(trajectory, ctx))
    for s in trajectory.steps:
        if not (t["observation"][s.index] or s.is_error):
            continue
        text = f"{s.error_text or ''}\n{s.text[:20000]}"
        strong = ENV_STRONG_RE.search(text)
        if strong:
            score, pat, why = (0.85 if s.is_error else 0.6), ENV_STRONG_RE, "infrastructure error"
        else:
            res = ENV_RESOURCE_RE.search(text)
            if not res or not s.is_error:
                continue
            score, pat, why = 0.55, ENV_RESOURCE_RE, "missing or inaccessible resource"
        m = pat.search(text)
        token = m.group(0) if m else ""
        out.append(make_finding(trajectory, s.index, Category.ENVIRONMENT_FAILURE, score, SOURCE,
                                f"{why} in the environment's output ({token!r})",
                                evidence_quote=match_quote(text, pat)))
    return out
