"""The analysis version: what produced a stored analysis result.

A stored result is current when it was made by the same ranker parameters, the same
detectors (ids and versions) and the same judge model (or no judge). Anything else makes it
"stale": still shown, but marked, and refreshed on request.

The version is a short readable string, e.g.
``ranker-v1#3f2a9c1e|det#77b01d4a|judge:none``: the ranker params version plus a hash of the
params, a hash of the sorted detector ``id@version`` list, and the judge model id.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence

from analyzer.attribution.ranker import Ranker, RankerParams
from analyzer.plugin_host.registry import PluginHost, default_host

NO_JUDGE = "none"
"""Judge part of the version when no judge took part."""

ATTRIBUTION_RULES = 4
"""Version of the code that turns the ranker's params into a stored result (hashed with them).
Raised when the same params give different stored figures: 2 reports probabilities at the
matched temperature on runs with tool output (``Ranker.confidence_temperature``), so results
stored before it carry the old confidence and are stale; 3 no longer reads a category from the
words of a step that logs the model's prompt, and quotes what differs between such prompts;
4 stores ``decisive_uncertain`` and says "uncertain: …" in the rationale of a run whose decisive
step's probability is below the params' ``uncertain_below``, and stores ``label_priority`` (the
review queue's order); results stored before it lack them."""

_HASH_CHARS = 8


def _digest(obj: object) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:_HASH_CHARS]


def params_fingerprint(params: RankerParams) -> str:
    """``<params version>#<hash>`` of the fitted parameters and :data:`ATTRIBUTION_RULES`.

    The training notes in ``meta`` are left out.
    """
    data = params.to_json()
    data.pop("meta", None)
    data["attribution_rules"] = ATTRIBUTION_RULES
    return f"{params.version}#{_digest(data)}"


def detector_versions(host: PluginHost | None = None, only: Sequence[str] | None = None) -> list[str]:
    """Sorted ``id@version`` of the detectors an analysis runs.

    A detector without a declared ``version`` gets the TrajScope version (built-in detectors
    change with the app).

    Args:
        host: Plugin host (default: every installed plugin).
        only: Detector ids the analysis is limited to (None: all declared).
    """
    from analyzer import __version__

    specs = (host or default_host()).detectors()
    wanted = set(only) if only is not None else None
    return sorted(f"{s.id}@{s.version or __version__}" for s in specs if wanted is None or s.id in wanted)


def analysis_version(params: RankerParams, detectors: Iterable[str], judge_model: str | None) -> str:
    """The version string of an analysis.

    Args:
        params: Ranker parameters used.
        detectors: ``id@version`` of every detector run (see :func:`detector_versions`).
        judge_model: Judge model id (``name@fingerprint``), or None for no judge.

    Returns:
        ``<ranker params version>#<params hash>|det#<detectors hash>|judge:<model id or none>``.
    """
    det = _digest(sorted(detectors))
    return f"{params_fingerprint(params)}|det#{det}|judge:{judge_model or NO_JUDGE}"


def current_analysis_version(judge_model: str | None = None, *, ranker: Ranker | None = None,
                             host: PluginHost | None = None, detectors: Sequence[str] | None = None) -> str:
    """The version an analysis run now with these settings would carry.

    Args:
        judge_model: Judge model id, or None when no judge is used.
        ranker: Ranker (default: the shipped params).
        host: Plugin host (default: every installed plugin).
        detectors: Detector subset (None: all).
    """
    params = (ranker or Ranker.load()).params
    return analysis_version(params, detector_versions(host, detectors), judge_model)


def judge_part(version: str) -> str | None:
    """The judge model id inside a version string (None for no judge or an unparsable string)."""
    for part in version.split("|"):
        if part.startswith("judge:"):
            model = part[len("judge:"):]
            return None if model in ("", NO_JUDGE) else model
    return None
